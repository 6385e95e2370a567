"""Reports that measure the stored and sent sizes: Redis memory per game, update frame bytes."""
