"""The page routes without a browser: languages, unknown games, the game pages' card data."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import fakeredis
import pytest
from flask import Flask
from flask.testing import FlaskClient

from api import web
from api.app import create_app
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.api.helpers import container_of


@pytest.fixture
def app(fake_redis: fakeredis.FakeRedis) -> Flask:
    made = create_app(
        container_of(CommandService(EventStoreRepository(EventStore(fake_redis), hooks=[])))
    )
    web.register(made)
    return made


@pytest.fixture
def client(app: Flask) -> Iterator[FlaskClient]:
    with app.test_client() as c:
        yield c


def messages_of(html: str) -> dict[str, str]:
    found = re.search(r'<script type="application/json" id="messages">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


@pytest.mark.parametrize("path", ["/", "/new", "/games-open", "/your-turn", "/signin", "/devices"])
def test_pages_in_english_by_default_and_in_japanese_on_request(
    client: FlaskClient, path: str
) -> None:
    english = client.get(path)
    assert english.status_code == 200
    assert english.mimetype == "text/html"
    assert '<html lang="en">' in english.text
    assert messages_of(english.text)["page.inbox"] == "Your turn"
    japanese = client.get(path, headers={"Accept-Language": "ja,en;q=0.5"})
    assert '<html lang="ja">' in japanese.text
    assert messages_of(japanese.text)["page.inbox"] == "あなたの番"


def test_the_language_switch_sets_a_cookie_and_goes_back(client: FlaskClient) -> None:
    switched = client.get("/language/ja?next=/games-open")
    assert switched.status_code == 302
    assert switched.headers["Location"] == "/games-open"
    assert "omerta_lang=ja" in switched.headers["Set-Cookie"]
    assert '<html lang="ja">' in client.get("/").text  # the cookie beats Accept-Language
    assert '<html lang="ja">' in client.get("/", headers={"Accept-Language": "en"}).text


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "evil"])
def test_the_language_switch_never_leaves_the_site(client: FlaskClient, target: str) -> None:
    assert client.get("/language/en", query_string={"next": target}).headers["Location"] == "/"


def test_an_unknown_language_changes_nothing(client: FlaskClient) -> None:
    response = client.get("/language/xx?next=/new")
    assert response.headers["Location"] == "/new"
    assert "Set-Cookie" not in response.headers


def test_an_unknown_game_is_a_page_not_found(client: FlaskClient) -> None:
    for path in ("/play/nope", "/play/nope/replay", "/play/nope/join"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.mimetype == "text/html"
        assert "There is no such game." in response.text


@pytest.mark.parametrize("kind", ["famiglia", "gangsta"])
def test_game_pages_carry_their_card_data(app: Flask, client: FlaskClient, kind: str) -> None:
    game_id = app.extensions["omerta"].commands.create_game(kind, 2)
    for path in (f"/play/{game_id}", f"/play/{game_id}/replay"):
        html = client.get(path).text
        assert f'data-kind="{kind}"' in html
        found = re.search(r'<script type="application/json" id="cards">(.*?)</script>', html, re.S)
        assert found is not None
        cards = json.loads(found.group(1))
        if kind == "gangsta":
            assert len(cards["gangsters"]) == 35 and len(cards["bosses"]) == 5
        else:
            assert cards["points"]["red"] == [1, 3, 6, 10, 15]
        assert f"/web/static/{kind}.js" in html


def test_the_browsers_favicon_request_finds_the_icon(client: FlaskClient) -> None:
    # Browsers ask for /favicon.ico on a page that names no icon (a JSON answer): a 404 there is
    # a console error on every such page.
    found = client.get("/favicon.ico")
    assert found.status_code == 308
    assert found.headers["Location"].endswith("/web/static/icon.svg")


@pytest.mark.parametrize("path", ["/devices", "/signin", "/notifications"])
def test_the_email_page_is_linked_from_the_sign_in_pages(client: FlaskClient, path: str) -> None:
    for lang, text in (("en", "Email: your address, sign-in by mail"), ("ja", "メール")):
        page = client.get(path, headers={"Accept-Language": lang}).text
        assert re.search(rf'<a [^>]*href="/email"[^>]*>{text}', page), (lang, path)
