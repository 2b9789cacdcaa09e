"""eventlines: an example third-party cdcwire protocol with a JVM tier (see README.md)."""
