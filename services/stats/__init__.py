"""The stats service's domain: what a finished game means for a device's statistics, its 36
achievements and its leaderboard (boxedin.stats.model is the one import; docs/stats-records.md
describes the stored record)."""
