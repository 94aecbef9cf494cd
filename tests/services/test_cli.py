"""The ``omerta`` parser: subcommand groups are found in ``api.subcommands``."""

from __future__ import annotations

from pathlib import Path

import pytest

import api.subcommands
from api import cli


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
