"""The read side: read models, ratings, what each player has seen, the live fan-out."""
