"""Loading benchmark folders (manifest + files): above the readers, the benchmark and the descriptors."""
