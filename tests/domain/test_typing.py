"""The deciders are typed so that a command or event type without a branch is a mypy error: mypy
checks Famiglia with a messages.py that adds a command and an event nobody handles (mypy's
``--shadow-file`` reads the changed copy in place of the file; a fresh cache, about a second of
CPU)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ROOT / "domain" / "famiglia" / "messages.py"

UNHANDLED = '''

class Bribe(_Message, frozen=True, tag="bribe"):
    """A command no decider handles."""


class Bribed(_Message, frozen=True, tag="bribed"):
    """An event no evolve handles."""
'''


def test_a_command_or_event_without_a_branch_is_a_type_error(tmp_path: Path) -> None:
    source = MESSAGES.read_text()
    assert "\nCommand = " in source and "\n    | GameEnded\n)" in source
    changed = source.replace("\nCommand = ", UNHANDLED + "\nCommand = Bribe | ").replace(
        "\n    | GameEnded\n)", "\n    | GameEnded\n    | Bribed\n)"
    )
    shadow = tmp_path / "messages.py"
    shadow.write_text(changed)
    out, err, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--shadow-file",
            str(MESSAGES),
            str(shadow),
            str(ROOT / "domain" / "famiglia" / "rules.py"),
            str(ROOT / "domain" / "famiglia" / "state.py"),
        ]
    )
    assert status == 1, out + err
    assert "rules.py:" in out and '"unknown_command" has incompatible type "Bribe"' in out, out
    assert "state.py:" in out and '"unknown_event" has incompatible type "Bribed"' in out, out
