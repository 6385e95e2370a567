"""Benchmarks: how fast the engine, the AI, its Celery pool and the stats service are."""
