"""Reading benchmark files: tables, numbers, names, score tables, manifests and benchmark folders."""
