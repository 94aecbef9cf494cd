"""The operations of a finished game's post-game review."""

from __future__ import annotations

from api.openapi.games import GAME_ID
from api.openapi.route import Route
from api.schemas.reviews import ReviewOut

ABOUT = (
    "`state`: `none` (nobody asked for it: `POST` queues it), `queued`, `running` (with "
    "`progress`, decisions analysed out of `total`, once the job counted them) or `done` "
    "(`review`: every decision of every seat weighed from that seat's own information, graded, "
    "each seat's accuracy, and the win chances along the game). A review is computed with a "
    "fixed search budget and seed: the same game always gets the same review. Never for a game "
    "still running (409 `game_running`, no figure): it would help a player."
)
# The review's figures are the engine's types; their descriptions here are the client's, without
# the engine's pointers into this repository.
DESCRIPTIONS = {
    "Decision": (
        "One command a seat issued, at history `version` (the events stored before it). "
        "`before`: the seat's win chance before deciding; `played_win` and `best_win`: those of "
        "the command played and of the best one found; `loss` = `best_win` - `played_win` "
        "(never below 0), graded in `grade`; `knowledge`: what the seat could have known there "
        "(per game). Every figure comes from the deciding seat's own information."
    ),
    "PlayerSummary": (
        "One seat over the game: `accuracy` 0-100 from its mean loss (null for a seat without "
        "an unforced decision: a concession or a time-out before its first move), `decisions` "
        "(unforced), its inaccuracies, mistakes and blunders, `won` (its share of the win), "
        "`score`; the swing of its win chance from `start` to the outcome splits into `skill`, "
        "`opponents` and `luck` (card reveals and shuffles)."
    ),
}
REVIEW_ROUTES: tuple[Route, ...] = (
    Route(
        "get",
        "/games/{game_id}/review",
        "A finished game's review, or where its job is",
        (200, ReviewOut),
        params=(GAME_ID,),
        codes=("game_running", "store_unavailable", "unknown_game"),
        tag="reviews",
        description=ABOUT + " Anyone may read it. Once done it carries an `ETag` (and "
        "`If-None-Match` answers 304); before that `Cache-Control: no-store`.",
    ),
    Route(
        "post",
        "/games/{game_id}/review",
        "Queue the review of a finished game that has none (a signed-in player)",
        (202, ReviewOut),
        auth="required",
        params=(GAME_ID,),
        codes=("game_running", "rate_limited", "store_unavailable", "unknown_game"),
        tag="reviews",
        description=ABOUT + " Every game is reviewed when it ends (unless the operator turned "
        "that off); this asks for one that was not. The answer is `GET`'s: `state` `queued` "
        "now, or where the review already was.",
    ),
)
