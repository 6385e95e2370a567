"""Tools around the product, never part of it: benchmarks, load, fuzzing, reports, the arena and the terminal game."""
