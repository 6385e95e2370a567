"""The matchmaker service: rooms, Find Match and presence (the rule book, "Playing Online")."""
