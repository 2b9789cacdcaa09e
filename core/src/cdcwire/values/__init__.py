"""Column types and values: the wire's type codes, type names and texts, and the one classification of values."""
