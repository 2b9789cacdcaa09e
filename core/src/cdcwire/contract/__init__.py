"""The protocol contract: the hook spec, what a codec and a transport provide, and the registry plugins fill."""
