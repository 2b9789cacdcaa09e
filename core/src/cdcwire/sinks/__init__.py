"""Where a sink URI becomes a sink: the process-wide registry, the sink, and the table of every parameter."""
