"""Subsets: selection, budgets, coverage, placement of a new model, k and budget profiles."""
