"""Famiglia (Friedemann Friese, 2010) for 2 players: see shared/rules/FAMIGLIA.md."""

# Work in progress: the rules land with issue 2.
class Famiglia:
    name = "famiglia"
    min_seats = 2
    max_seats = 2


game = Famiglia()
