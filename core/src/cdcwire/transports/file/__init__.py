"""The file:// transport: one framed file per topic-partition, written all or nothing through staged copies and locks."""
