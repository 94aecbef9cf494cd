from domain.cli import main
from domain.gangsta import game

raise SystemExit(main(game))
