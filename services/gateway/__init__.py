"""The gateway: the websocket the browser talks to, and the web client it serves."""
