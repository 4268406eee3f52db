"""The protocol and what is built on it: trials, statistics, budgets, checks, generalisation, advice."""
