"""What a score table is: layout, columns, directions, derived columns, by evidence."""
