"""The change event model and the wire message: what codecs encode and decoders give back, checked and as JSON."""
