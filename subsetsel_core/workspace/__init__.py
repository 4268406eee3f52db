"""Workspace files: save and load a whole session, validated as untrusted input."""
