"""Built-in transports: ``file`` always, ``kafka`` with the ``cdcwire[kafka]`` extra."""
