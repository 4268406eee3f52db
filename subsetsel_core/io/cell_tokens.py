"""The cells a score table writes for a missing value, shared by the readers of cells and of first lines."""

MISSING_TOKENS = frozenset({"", "nan", "na", "n/a", "#n/a", "null", "none", "-", "—", "–", "?", ".", "missing"})
