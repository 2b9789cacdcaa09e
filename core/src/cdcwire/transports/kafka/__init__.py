"""The kafka:// transport (extra cdcwire[kafka]): confluent-kafka, idempotent, acks=all, explicit partitions."""
