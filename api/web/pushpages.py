"""The notification settings page (``/notifications``) and the service worker (``/sw.js``) that
shows browser pushes.

The service worker is served from the root, so its scope is the whole site (a script under
``/web/static/`` could only control that folder). It is an ordinary same-origin script: the
pages' CSP (``script-src 'self'``, and so ``worker-src``) allows it.
"""

from __future__ import annotations

from importlib.resources import files

from flask import Blueprint, Flask, Response

from api.web import _page

bp = Blueprint("pushpages", __name__)


def register(app: Flask) -> None:
    app.register_blueprint(bp)


@bp.get("/notifications")
def notifications_page() -> str:
    return _page("notifications.html", "page.notifications")


@bp.get("/sw.js")
def service_worker() -> Response:
    script = files("api.web").joinpath("static", "sw.js").read_bytes()
    response = Response(script, mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    return response
