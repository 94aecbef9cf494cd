"""What the process tests here share: ``say`` prints a progress line to the terminal (the fault
or step, how long until healthy), also when the test passes, so a CI log shows the figures."""

from __future__ import annotations

import pytest

from tests.faults.load import Say


@pytest.fixture
def say(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> Say:
    topic = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")

    def line(text: str) -> None:
        with capsys.disabled():
            print(f"\n[{topic}] {text}", end="", flush=True)

    return line
