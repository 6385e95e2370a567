"""`boxedin fuzz`: random and malformed frames against a gateway, checked against the protocol."""
