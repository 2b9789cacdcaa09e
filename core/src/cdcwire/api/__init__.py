"""The user's entry points: encode and decode, a consumer's poll loop, following a source, TiCDC's storage sink."""
