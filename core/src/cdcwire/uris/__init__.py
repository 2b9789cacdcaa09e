"""Sink URIs taken apart and typed, and the topics a read takes."""
