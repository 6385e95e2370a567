"""`boxedin abuse`: live players' round trip while client addresses abuse the gateway (issue 31)."""
