"""Files for people: the subset table, LaTeX, provenance, run.toml."""
