"""The AI service: plays the computer's turns through the engine service."""
