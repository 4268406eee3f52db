"""Settings: the one table of user-facing settings, and the server's deploy settings."""
