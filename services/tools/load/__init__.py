"""`boxedin load`: games played over websockets against a running stack, or one it starts."""
