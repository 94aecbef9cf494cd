"""The write side of games: the command service, creation, seats, clocks, rematches, chat."""
