"""Text for people and files: safe messages, the formula-safe CSV writer, rounding."""
