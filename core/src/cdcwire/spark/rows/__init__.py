"""The event row model: Spark schemas of event frames, and events to and from Arrow record batches with their checks."""
