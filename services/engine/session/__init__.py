"""The session layer beside the rules: who sits at a game, who may do what, the move clock, the
online rules and the one apply pipeline, all pure (no I/O: the engine service and a Same Wi-Fi
host store what it changes)."""
