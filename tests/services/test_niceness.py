"""The workers' CPU priorities: an analysis worker alone runs at the lowest by default, and a
niceness outside 0 to 19 stops the start with the setting's name."""

from __future__ import annotations

import pytest

from services.platform.config import ConfigError, settings


def test_an_analysis_worker_runs_at_the_lowest_priority_unless_told() -> None:
    assert settings({}).analysis_nice == 19
    assert settings({"OMERTA_ANALYSIS_NICE": "5"}).analysis_nice == 5


@pytest.mark.parametrize("raw", ["20", "-1", "low"])
def test_a_niceness_out_of_range_names_its_setting(raw: str) -> None:
    with pytest.raises(ConfigError, match="OMERTA_ANALYSIS_NICE"):
        settings({"OMERTA_ANALYSIS_NICE": raw})
