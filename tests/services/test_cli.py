"""The ``omerta`` parser: subcommand groups are found in ``api.subcommands``; game ids that
start with ``-`` are game ids, not options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

import api.subcommands
from api import cli
from services.eventstore.store import EventStore
from services.games.commands import CommandService
from services.games.repository import EventStoreRepository
from tests.services.test_real_server import omerta


def test_groups_are_discovered_and_a_broken_one_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "zz_broken.py").write_text("raise ImportError('half-written module')\n")
    monkeypatch.setattr(api.subcommands, "__path__", [*api.subcommands.__path__, str(tmp_path)])
    args = cli.build_parser().parse_args(["verify", "--all"])
    assert args.command == "verify" and args.all
    assert "api.subcommands.zz_broken are unavailable" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["verify"])  # a game id or --all is required


# Game ids are urlsafe base64 (22 characters): one in 64 starts with "-", one in 4096 with "--".
DASHED = ["-Zf3kQ9_xw2LmN0pRsT4uV", "--f3kQ9_xw2LmN0pRsT4uV"]


@pytest.mark.parametrize("game_id", DASHED)
@pytest.mark.parametrize(
    "argv",
    [
        ["events", "{id}"],
        ["events", "{id}", "--seat", "1"],
        ["events", "--json", "{id}", "--full"],
        ["events", "--", "{id}"],
        ["verify", "{id}"],
        ["verify", "--", "{id}"],
    ],
)
def test_a_game_id_may_start_with_a_dash(argv: list[str], game_id: str) -> None:
    args = cli.build_parser().parse_args([a.format(id=game_id) for a in argv])
    assert args.game_id == game_id


def test_options_are_still_options() -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["events", "-Zf3kQ9_xw2LmN0pRsT4u"])  # not an id: too short
    args = cli.build_parser().parse_args(["verify", "--all"])
    assert args.all and args.game_id is None


@pytest.mark.server
def test_events_and_verify_of_a_real_game_whose_id_starts_with_a_dash(
    real_redis: redis.Redis, redis_url: str
) -> None:
    svc = CommandService(EventStoreRepository(EventStore(real_redis)))
    for _ in range(5000):  # about 64 tries: ids are random
        game_id = svc.create_game("famiglia", 2)
        if game_id.startswith("-"):
            break
    assert game_id.startswith("-")
    shown = omerta(redis_url, "events", game_id)
    assert shown.returncode == 0, shown.stderr
    assert len(shown.stdout.splitlines()) == svc.load(game_id).version
    as_seat = omerta(redis_url, "events", game_id, "--seat", "0", "--json")
    assert as_seat.returncode == 0, as_seat.stderr
    first = json.loads(as_seat.stdout.splitlines()[0])
    assert (first["game_id"], first["type"]) == (game_id, "game_started")
    verified = omerta(redis_url, "verify", game_id)
    assert verified.returncode == 0 and f"ok   {game_id}" in verified.stdout
