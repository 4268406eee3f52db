"""The command line: one module per command or group of options; ``main`` is the entry point."""
