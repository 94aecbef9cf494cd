"""Special rewards on heist cards (GANGSTA.md, "Special rewards on heist cards"): the
choices a reward asks for (commands.py) and their events folded (folds.py)."""
