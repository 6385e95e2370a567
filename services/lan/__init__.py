"""Same Wi-Fi play (the rule book, "On the same Wi-Fi"): two ``boxedin lan`` processes on one
network, one hosting the game with the engine in-process, talking over an encrypted link."""
