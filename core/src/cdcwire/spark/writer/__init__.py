"""The write side: events routed to topic-partitions, encoded per partition, written through a transport; refused events to dead letters; written output checked against its input."""
