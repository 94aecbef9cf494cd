"""The vacation page (``/vacation``): pause every clock of the player's."""

from __future__ import annotations

from flask import Blueprint, Flask

from api.context import deps
from api.web import _page

bp = Blueprint("clockpages", __name__)


def register(app: Flask) -> None:
    app.register_blueprint(bp)


@bp.get("/vacation")
def vacation_page() -> str:
    return _page("vacation.html", "page.vacation", allowance=deps().settings.vacation_days)
