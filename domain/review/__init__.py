"""The post-game review: each decision of each seat weighed from that seat's information set
(``domain.review.analyse``), graded (``grading``), with what the seat could have known (one
module per game, ``KNOWLEDGE``). The figures are in ``model``.

``review(game_name, options, seats, events, *, iterations, seed, progress)`` -> ``Review``:
``events`` are the finished game's stored events (not redacted, server side), ``options`` and
``seats`` what rebuilds its table; the search runs ``iterations`` per decision, seeded from
``seed`` (a server-side secret, never the game's), the decision's version and seat;
``progress(done, total)`` is told after each decision.
"""

from domain.review.model import GRADES, Chance, Decision, PlayerSummary, Review

__all__ = ["GRADES", "Chance", "Decision", "PlayerSummary", "Review"]
