"""The rating plot (SVG drawn on the server): axes that cover every point, labels escaped."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from api.web.plot import TOP, nice_ticks, rating_plot

DAY = 86_400_000
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(("low", "high"), [(1138, 1256), (990, 1010), (-40, 2400), (700, 701)])
def test_ticks_cover_the_range_in_round_steps(low: int, high: int) -> None:
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high and len(ticks) <= 6
    steps = {b - a for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1 and re.fullmatch(r"[125]0*", str(steps.pop()))


def test_the_plot_has_a_point_per_game_inside_its_axes_and_escaped_labels() -> None:
    points = [(5 * DAY, 1000), (6 * DAY, 1040), (9 * DAY, 985)]
    svg = ET.fromstring(str(rating_plot(points, "<b>Title</b>", "When & where", "Rating", "en")))
    assert svg.get("role") == "img" and svg.get("aria-label") == "<b>Title</b>"
    dots = svg.findall(f"{SVG}circle")
    assert len(dots) == 3
    ys = [float(d.get("cy", "")) for d in dots]
    assert ys[1] < ys[0] < ys[2]  # higher ratings higher up
    assert all(y >= TOP for y in ys)
    labels = [t.text for t in svg.findall(f"{SVG}text")]
    assert "When & where" in labels and "Rating" in labels
    assert "6 Jan 1970" in labels and "10 Jan 1970" in labels  # the first and the last day
    japanese = ET.fromstring(str(rating_plot(points, "t", "x", "y", "ja")))
    assert "1970年1月6日" in [t.text for t in japanese.findall(f"{SVG}text")]


def test_one_game_is_one_point_in_the_middle() -> None:
    svg = ET.fromstring(str(rating_plot([(DAY, 1000)], "t", "x", "y", "en")))
    (dot,) = svg.findall(f"{SVG}circle")
    assert float(dot.get("cx", "")) > 100
