"""The pages' two languages: English and Japanese, from one message file.

``messages.json`` maps each language to the same keys. The server renders the page frame with
them and hands the whole dictionary of the page's language to the scripts, so the JavaScript
never holds a word of its own. Family, skill and card names are those of the rules pages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from importlib.resources import files
from typing import Any

from flask import request

LANGUAGES = ("en", "ja")
DEFAULT = "en"
COOKIE = "omerta_lang"


@cache
def messages() -> dict[str, dict[str, str]]:
    raw = files(__package__).joinpath("messages.json").read_text(encoding="utf-8")
    table: dict[str, dict[str, str]] = json.loads(raw)
    missing = {lang: set(table[DEFAULT]) ^ set(table[lang]) for lang in LANGUAGES}
    if any(missing.values()):  # a key in one language only would show its raw name
        raise ValueError(f"messages.json: keys not in every language: {missing}")
    return table


def language() -> str:
    """The cookie's language, else the browser's preferred one of ours, else English."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT


def translate(lang: str, key: str, **params: object) -> str:
    text = messages()[lang].get(key, key)
    return text.format(**params) if params else text


def day(lang: str, ms: int) -> str:
    """The UTC day of a time in ms, written as the pages' scripts write a date (``Omerta.when``,
    the catalogue's ``date.*``): "7 Dec 2026", "2026年12月7日"."""
    at = datetime.fromtimestamp(ms / 1000, UTC)
    month = translate(lang, "date.months").split(" ")[at.month - 1]
    return translate(lang, "date.day", day=at.day, month=month, year=at.year)


def iso_day(ms: int) -> str:
    """The UTC day of a time in ms, as a ``<time datetime>`` names it."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d")


def refusal_keys(code: str, params: Mapping[str, Any], game: str | None = None) -> list[str]:
    """Where a refusal's text is, most specific first: the game's rule (``rule.<game>.<code>``)
    before the service's or API's (``error.<code>``), each first with its ``case``. The pages'
    ``Omerta.refusal`` looks in the same order."""
    bases = ([f"rule.{game}.{code}"] if game else []) + [f"error.{code}"]
    case = params.get("case")
    return [k for base in bases for k in ([f"{base}.{case}"] if case else []) + [base]]


def refusal(lang: str, code: str, params: Mapping[str, Any], game: str | None = None) -> str | None:
    """The refusal in ``lang`` from the catalogue, its ``{name}`` placeholders filled from the
    params (lists joined); None if the catalogue has no text for it."""
    table = messages()[lang]
    key = next((k for k in refusal_keys(code, params, game) if k in table), None)
    if key is None:
        return None
    text = table[key]
    for name, value in params.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        text = text.replace("{" + name + "}", shown)
    return text
