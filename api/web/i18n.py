"""The pages' two languages: English and Japanese, from one message file.

``messages.json`` maps each language to the same keys. The server renders the page frame with
them and hands the whole dictionary of the page's language to the scripts, so the JavaScript
never holds a word of its own. Family, skill and card names are those of the rules pages.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

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
