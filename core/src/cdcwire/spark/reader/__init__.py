"""The read side: topic-partition ranges of messages, decoded on the executors into event rows (batch and streaming), and event JSON lines read as a data source."""
