"""The version of subsetsel (written into sidecars and reports)."""

VERSION = "0.1.0"
