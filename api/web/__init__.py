"""The web pages: play Famiglia and Gangsta! in the browser.

Each page is a small HTML frame rendered here plus vanilla JavaScript (``static/``) that talks to
the JSON API exactly as any other client does (the API's cookie carries the player's token), and
follows a game live through its server-sent events. Nothing is built: the files are served as
they are. ``register(app)`` adds the blueprint to an app made by ``api.app.create_app``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from api.context import cookie_player, deps
from api.web import i18n
from api.web.games import WEB_GAMES
from api.web.games.pages import GamePages
from services.errors import Unavailable, UnknownGame
from services.identity.passkeys import relying_party

bp = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/web/static",
)


def register(app: Flask) -> None:
    from api.web import clockpages, mailpages, pushpages, ratingpages  # they render with _page

    app.register_blueprint(bp)
    mailpages.register(app)
    pushpages.register(app)
    clockpages.register(app)
    ratingpages.register(app)


def _api_base() -> str:
    # The API's blueprints may sit under a prefix: find it from a known route.
    return url_for("games.kinds").removesuffix("/games")


def _page(template: str, title_key: str, **context: Any) -> str:
    lang = i18n.language()
    return render_template(
        template,
        signed_in=_signed_in(),
        lang=lang,
        languages=i18n.LANGUAGES,
        t=lambda key, **p: i18n.translate(lang, key, **p),
        messages=i18n.messages()[lang],
        api=_api_base(),
        title_key=title_key,
        here=request.full_path.rstrip("?"),
        games=list(WEB_GAMES),
        **context,
    )


def _signed_in() -> bool:
    """Whether this browser has a player: the scripts ask the API who it is only then (a
    visitor's "who am I" would be a 401 on every page). A store that does not answer leaves it
    open: the page still opens, and its scripts' requests say the service is unavailable."""
    try:
        return cookie_player() is not None
    except Unavailable:
        return True


@bp.get("/")
def start() -> str:
    return _page("start.html", "page.start")


@bp.get("/favicon.ico")
def favicon() -> BaseResponse:
    # Browsers ask for it on pages that name no icon (a JSON answer).
    return redirect(url_for("web.static", filename="icon.svg"), 308)


@bp.get("/new")
def new_game() -> str:
    return _page("new.html", "page.new")


@bp.get("/games-open")
def lobby() -> str:
    return _page("lobby.html", "page.lobby")


@bp.get("/your-turn")
def inbox() -> str:
    return _page("inbox.html", "page.inbox")


@bp.get("/signin")
def signin() -> str:
    """The sign-in link's page: its secret is in the fragment, which signin.js posts."""
    return _page("signin.html", "page.signin", passkey_origin=_passkey_origin())


@bp.get("/devices")
def devices() -> str:
    return _page("devices.html", "page.devices", passkey_origin=_passkey_origin())


def _passkey_origin() -> str:
    """The only origin passkeys work at ("": none, the service is at an IP address)."""
    party = relying_party(current_app.config["OMERTA_PUBLIC_URL"])
    return party.origin if party else ""


@bp.errorhandler(UnknownGame)
def _unknown_game(_exc: UnknownGame) -> tuple[str, int]:
    return _page("not_found.html", "page.not_found"), 404


def _game_pages(game_id: str) -> GamePages:
    return WEB_GAMES[deps().commands.load(game_id).meta.game]


def _game_page(template: str, title_key: str, game_id: str, pages: GamePages) -> str:
    """A page that draws the game's board: its scripts and the data of its cards."""
    return _page(
        template, title_key, game_id=game_id, kind=pages.name, pages=pages, cards=pages.cards()
    )


@bp.get("/play/<game_id>")
def play(game_id: str) -> str:
    pages = _game_pages(game_id)
    return _game_page("game.html", f"game.{pages.name}", game_id, pages)


@bp.get("/play/<game_id>/replay")
def replay(game_id: str) -> str:
    return _game_page("replay.html", "page.replay", game_id, _game_pages(game_id))


@bp.get("/play/<game_id>/join")
def join(game_id: str) -> str:
    return _page("join.html", "page.join", game_id=game_id, kind=_game_pages(game_id).name)


@bp.get("/rules/<game>")
def rules(game: str) -> tuple[str, int] | str:
    """How to play, for players: prose per language (``GamePages.rules_template``), with option,
    reward and resource texts from the catalogue."""
    if game not in WEB_GAMES:
        return _page("not_found.html", "error.not_found"), 404
    pages = WEB_GAMES[game]
    lang = i18n.language()
    return _page(
        pages.rules_template(lang),
        f"rules.page.{game}",
        kind=game,
        others=[g for g in WEB_GAMES if g != game],
        option_keys=pages.rule_options,
        skills=i18n.translate(lang, "rules.skills_list"),
    )


def _own_page(target: str) -> str:
    """``target`` if it is a path on this site, else "/". Browsers drop tabs and newlines and
    read a backslash as a slash, so any of those (or a space or other control character) makes
    it not ours, as does anything with a scheme or a host."""
    if any(c.isspace() or ord(c) < 32 or c in "\\\x7f" for c in target):
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


@bp.get("/language/<lang>")
def set_language(lang: str) -> BaseResponse:
    response = redirect(_own_page(request.args.get("next", "/")))
    if lang in i18n.LANGUAGES:  # anything else just goes back unchanged
        response.set_cookie(
            i18n.COOKIE,
            lang,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            secure=deps().settings.secure_cookies,
            path="/",
        )
    return response
