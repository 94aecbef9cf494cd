"""``python -m domain.famiglia``: random players (or a script), moves and the final score."""

from domain.cli import main
from domain.famiglia import game

raise SystemExit(main(game))
