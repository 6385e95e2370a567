"""The rules engine: the one authority on the rules of every game."""
