"""Ranks: average-tie rank vectors, the rank table (complete or partial), the agreement metrics."""
