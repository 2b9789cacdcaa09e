"""What every layer uses: errors, declared parameters, caches, redaction, durations, points in time."""
