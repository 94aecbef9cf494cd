"""The vacation page (``/vacation``): pause every clock of the player's."""

from __future__ import annotations

from flask import Blueprint, Flask

from api.web import _page
from services.platform.config import settings

bp = Blueprint("clockpages", __name__)


def register(app: Flask) -> None:
    app.register_blueprint(bp)


@bp.get("/vacation")
def vacation_page() -> str:
    return _page("vacation.html", "page.vacation", allowance=settings().vacation_days)
