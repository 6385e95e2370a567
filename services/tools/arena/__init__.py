"""The arena: `boxedin match` plays two levels against each other, reference players included."""
