"""The AI players (Easy, Normal, Hard, Expert, the practice computer) and the exact solver."""
