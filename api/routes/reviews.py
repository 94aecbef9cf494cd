"""A finished game's post-game review: where its job is, and the review once done
(``services.readside.reviews``, computed by ``workers.review``).

Never for a game still running (409 ``game_running``, with no figure): the search's opinion of
a position would help the player whose hidden cards it weighs. Anyone may read a finished
game's review (its whole history is public by then); a signed-in player may ask for the review
of a game that ended before reviews existed, or while they were off (``POST``, rate-limited).
A review done never changes for a given budget: it is served with an ``ETag``.
"""

from __future__ import annotations

import hashlib

import msgspec
from flask import Blueprint, Response, request

from api.context import caller, deps
from api.http.jsonio import reply
from api.schemas.reviews import ReviewOut, ReviewProgress
from domain.review import Review
from services.readside.reviews import Reviews, Status, finished
from workers import review as review_job

bp = Blueprint("reviews", __name__)


def _status(game_id: str) -> tuple[Reviews, Status]:
    """The game's review status; 404 for an unknown game, 409 for one still running."""
    d = deps()
    loaded = d.commands.load(game_id)
    finished(loaded)
    reviews = Reviews.of(d.commands.store)
    status = reviews.status(game_id)
    # Owed from the moment the game ends: its projection owes it before it writes the end
    # (workers.review.Reviewing), so an end not projected yet is a review on its way.
    projected = d.read_models.version
    if status.state == "none" and d.settings.review and projected(game_id) < loaded.version:
        status = Status("queued")
    return reviews, status


def _answer(game_id: str, status: Status, code: int = 200) -> Response:
    if status.review is None:
        progress = ReviewProgress(status.done, status.total) if status.total else None
        out = ReviewOut(game_id, status.state, progress)
        return reply(out, code, headers={"Cache-Control": "no-store"})
    etag = hashlib.sha256(status.review).hexdigest()[:32]
    headers = {"ETag": f'"{etag}"', "Cache-Control": "no-cache"}
    if code == 200 and request.if_none_match.contains(etag):
        return Response(status=304, headers=headers)
    found = msgspec.json.decode(status.review, type=Review)
    return reply(ReviewOut(game_id, "done", review=found), code, headers=headers)


@bp.get("/games/<game_id>/review")
def get_review(game_id: str) -> Response:
    _, status = _status(game_id)
    return _answer(game_id, status)


@bp.post("/games/<game_id>/review")
def ask_review(game_id: str) -> Response:
    caller()
    reviews, status = _status(game_id)
    if status.state == "none":
        review_job.ask(reviews.redis, deps().queues, game_id)
    return _answer(game_id, _status(game_id)[1], 202)
