"""What a post-game review says, as plain msgspec Structs (``msgspec.to_builtins`` gives JSON).

Every figure of a decision comes from the deciding seat's information set at that moment (its
view, its legal commands and its redacted history: what a bot gets), never from the game's
secret or another seat's hand. Win chances are probabilities in [0, 1] of the seat winning the
game (a shared win of k seats counts 1/k, as the search's rewards do), rounded to 3 places.
Commands are the game's commands as plain builtins (the wire form, with their ``type`` tag).
"""

from __future__ import annotations

from typing import Any

import msgspec

# The grades of a decision, best first; "forced" is a decision with a single legal command.
GRADES: tuple[str, ...] = ("best", "good", "inaccuracy", "mistake", "blunder", "forced")


class Decision(msgspec.Struct, frozen=True):
    """One command a seat issued. ``version`` is the history version it was taken at (the
    number of stored events before it). ``before`` is the seat's win chance before deciding
    (the best move's estimate by the search); ``played_win`` and ``best_win`` those of the move
    played and of the best move found, on the same determinizations; ``loss`` is
    ``best_win - played_win`` (never below 0). ``knowledge`` is what the seat could have known
    there, per game (docs/players.md lists the keys)."""

    version: int
    seat: int
    played: Any
    best: Any
    before: float
    played_win: float
    best_win: float
    loss: float
    grade: str
    knowledge: dict[str, Any] = {}


class PlayerSummary(msgspec.Struct, frozen=True):
    """One seat over the game. ``accuracy`` is 0-100 from the mean loss (docs/players.md),
    None for a seat without an unforced decision (it never chose: no figure, not a perfect
    one); ``decisions`` counts the unforced ones. ``won`` is the seat's share of the win (1, 1/k on
    a shared win, 0), ``score`` its final score. The swing of its win chance, from its first
    estimate to the outcome, splits into ``skill`` (minus the losses at its own decisions),
    ``opponents`` (the effect of the other seats' decisions) and ``luck`` (the rest: card
    reveals and shuffles)."""

    seat: int
    accuracy: float | None
    decisions: int
    inaccuracies: int
    mistakes: int
    blunders: int
    won: float
    score: int
    skill: float
    luck: float
    opponents: float = 0.0
    start: float = 0.0


class Review(msgspec.Struct, frozen=True):
    """The review of a finished game: ``iterations`` is the search budget per decision,
    ``version`` the final version reviewed; ``decisions`` in the order they were taken (each
    seat's ``before`` along them is its win-chance trajectory, for a chart)."""

    game: str
    seats: int
    iterations: int
    decisions: list[Decision]
    players: list[PlayerSummary]
    version: int
