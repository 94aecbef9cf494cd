"""Gangsta! (Yves Rosenbaum, 2019) for 2-4 players: see shared/rules/GANGSTA.md."""

# Work in progress: the rules land with issue 3.
class Gangsta:
    name = "gangsta"
    min_seats = 2
    max_seats = 4


game = Gangsta()
