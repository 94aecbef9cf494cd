"""Gangsta! card data, read from ``cards.json`` (shipped with the package; the published cards,
ids are the published card-type ids). Nothing here writes a card value into code.

Skills are counted in a tuple of six integers in the order of ``SKILLS`` (the order of the data
file), so that a card's skills, a heist's needs and a gang's totals add up position by position.
"""

from __future__ import annotations

import json
from importlib.resources import files

import msgspec

CHAPTERS = ("genesis", "gang_war", "domination")  # chapter 1, 2, 3


class Gangster(msgspec.Struct, frozen=True):
    """A gangster card or a Boss (``boss``: never discarded, brings ``start_money``)."""

    id: int
    clan: str
    cost: int
    influence: int
    skills: tuple[int, ...]
    boss: bool = False
    start_money: int = 0


class Heist(msgspec.Struct, frozen=True):
    id: int
    chapter: int
    name: str
    cooperative: bool
    requires: tuple[int, ...]
    money: int
    influence: int
    coop_money: int = 0
    fast_recruit: bool = False
    learn_skill: str | None = None
    play_again: bool = False
    theft: int = 0
    diversion: int = 0
    assassination: bool = False
    rally: bool = False


class Resource(msgspec.Struct, frozen=True):
    """A resource card of the resources module: ``ability`` names what it does once active."""

    id: int
    name: str
    ability: str
    influence: int
    requires: tuple[int, ...]
    max_influence: int = 0  # 906 Media: its influence is computed, at most this


class Snitch(msgspec.Struct, frozen=True):
    id: int
    chapter: int
    printed_informants: int  # Domination values come from the option domination_snitches


def _load() -> dict:
    return json.loads(files(__package__).joinpath("cards.json").read_text(encoding="utf-8"))


_DATA = _load()
SKILLS: tuple[str, ...] = tuple(s["key"] for s in _DATA["skills"])
SKILL_INDEX: dict[str, int] = {k: i for i, k in enumerate(SKILLS)}
LEADER = SKILL_INDEX["leader"]
MERCENARY = SKILL_INDEX["mercenary"]
INFORMANT = SKILL_INDEX["informant"]
CLANS: tuple[str, ...] = tuple(c["key"] for c in _DATA["clans"])


def _skills(counts: dict[str, int]) -> tuple[int, ...]:
    unknown = set(counts) - set(SKILLS)
    if unknown:
        raise ValueError(f"cards.json names unknown skills {sorted(unknown)}")
    return tuple(counts.get(k, 0) for k in SKILLS)


def _gangster(raw: dict, boss: bool) -> Gangster:
    return Gangster(
        id=raw["id"],
        clan=raw["clan"],
        cost=raw.get("cost", 0),
        influence=raw["influence"],
        skills=_skills(raw["skills"]),
        boss=boss,
        start_money=raw.get("start_money", 0),
    )


def _heist(raw: dict, chapter: int) -> Heist:
    reward = raw["reward"]
    return Heist(
        id=raw["id"],
        chapter=chapter,
        name=raw["name"],
        cooperative=raw["cooperative"],
        requires=_skills(raw["requires"]),
        money=reward["money"],
        influence=reward["influence"],
        coop_money=reward.get("coop_money", 0),
        fast_recruit=reward.get("fast_recruit", False),
        learn_skill=reward.get("learn_skill"),
        play_again=reward.get("play_again", False),
        theft=reward.get("theft", 0),
        diversion=reward.get("diversion", 0),
        assassination=reward.get("assassination", False),
        rally=reward.get("rally", False),
    )


BOSSES: dict[int, Gangster] = {b["id"]: _gangster(b, True) for b in _DATA["bosses"]}
GANGSTERS: dict[int, Gangster] = {
    **BOSSES,
    **{g["id"]: _gangster(g, False) for g in _DATA["gangsters"]},
}
HEISTS: dict[int, Heist] = {
    h["id"]: _heist(h, n) for n, key in enumerate(CHAPTERS, 1) for h in _DATA["heists"].get(key, [])
}
SNITCHES: dict[int, Snitch] = {
    s["id"]: Snitch(id=s["id"], chapter=n, printed_informants=s["informants"])
    for n, key in enumerate(CHAPTERS, 1)
    for s in _DATA["snitches"].get(key, [])
}

RESOURCES: dict[int, Resource] = {
    r["id"]: Resource(
        id=r["id"],
        name=r["name"],
        ability=r["ability"],
        influence=r["influence"],
        requires=_skills(r["requires"]),
        max_influence=r.get("max_influence", 0),
    )
    for r in _DATA.get("resources", [])
}
RESOURCE_IDS: tuple[int, ...] = tuple(sorted(RESOURCES))

BOSS_IDS: tuple[int, ...] = tuple(sorted(BOSSES))
HIRABLE_IDS: tuple[int, ...] = tuple(sorted(set(GANGSTERS) - set(BOSSES)))
# Each chapter's deck: its heists and its snitches, in id order (the canonical order to shuffle).
CHAPTER_DECKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sorted(
            [h for h in HEISTS if HEISTS[h].chapter == n]
            + [s for s in SNITCHES if SNITCHES[s].chapter == n]
        )
    )
    for n in range(1, len(CHAPTERS) + 1)
)
# Domination snitches in id order: the option domination_snitches gives their values in this order.
DOMINATION_SNITCHES: tuple[int, ...] = tuple(
    sorted(s for s in SNITCHES if SNITCHES[s].chapter == 3)
)
ALL_CARDS: frozenset[int] = frozenset(GANGSTERS) | frozenset(HEISTS) | frozenset(SNITCHES)
