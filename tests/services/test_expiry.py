"""Open games nobody joins expire (issue "open games expire"): the setting, the close of the
seats against a join, and the ``expired`` event."""

from __future__ import annotations

import pytest

from services.config import ConfigError, settings


@pytest.mark.parametrize(("raw", "days"), [(None, 14.0), ("30", 30.0), ("0.0001", 0.0001)])
def test_the_open_game_days_setting(raw: str | None, days: float) -> None:
    env = {} if raw is None else {"OMERTA_OPEN_GAME_DAYS": raw}
    assert settings(env).open_game_days == days


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf", "400"])
def test_a_bad_open_game_days_setting_is_refused_naming_it(raw: str) -> None:
    with pytest.raises(ConfigError, match="OMERTA_OPEN_GAME_DAYS"):
        settings({"OMERTA_OPEN_GAME_DAYS": raw})
