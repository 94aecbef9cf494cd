"""A rating over time as an SVG line plot, drawn on the server (the pages run no inline script,
and the plot needs none): axes with ticks, their labels, a point per rated game."""

from __future__ import annotations

import math
from functools import partial

from markupsafe import Markup, escape

from api.web import i18n

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 56  # margins: room for the tick and axis labels


def nice_ticks(low: float, high: float, most: int = 5) -> list[int]:
    """Round tick values covering [low, high], about ``most`` of them."""
    span = max(high - low, 1.0)
    raw = span / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = max(next(m * power for m in (1, 2, 5, 10) if m * power >= raw), 1)  # whole ratings
    value = math.floor(low / step) * step
    ticks = [round(value)]
    while value < high:
        value += step
        ticks.append(round(value))
    return ticks


def rating_plot(
    points: list[tuple[int, int]], title: str, x_label: str, y_label: str, lang: str
) -> Markup:
    """``points``: (time in ms, rating), oldest first; one SVG element, labelled by ``title``,
    its days written in ``lang``."""
    day = partial(i18n.day, lang)
    times = [t for t, _ in points]
    ratings = [r for _, r in points]
    low, high = min(ratings), max(ratings)
    ticks = nice_ticks(low - 10, high + 10) if low == high else nice_ticks(low, high)
    y_low, y_high = ticks[0], max(ticks[-1], ticks[0] + 1)
    t_low, t_high = min(times), max(times)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(ms: int) -> float:
        if t_high == t_low:
            return LEFT + inner_w / 2
        return LEFT + (ms - t_low) / (t_high - t_low) * inner_w

    def y(rating: float) -> float:
        return TOP + (y_high - rating) / (y_high - y_low) * inner_h

    parts = [
        f'<svg class="rating-plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<line class="axis" x1="{LEFT}" y1="{TOP + inner_h}" x2="{LEFT + inner_w}" '
        f'y2="{TOP + inner_h}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + inner_h}"/>',
    ]
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + inner_w}" '
            f'y2="{y(tick):.1f}"/><text class="tick" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick}</text>'
        )
    # The first and last days, under the axis's two ends (one label when they are one day).
    ends = [(t_low, "start"), (t_high, "end")] if day(t_low) != day(t_high) else [(t_low, "")]
    for ms, anchor in ends:
        at = {"start": LEFT, "end": LEFT + inner_w}.get(anchor, LEFT + inner_w / 2)
        parts.append(
            f'<text class="tick" x="{at}" y="{TOP + inner_h + 18}" '
            f'text-anchor="{anchor or "middle"}">{escape(day(ms))}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{LEFT + inner_w / 2}" y="{HEIGHT - 8}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text class="axis-label" x="14" y="{TOP + inner_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + inner_h / 2})">{escape(y_label)}</text>'
    )
    line = " ".join(f"{x(t):.1f},{y(r):.1f}" for t, r in points)
    parts.append(f'<polyline class="line" points="{line}"/>')
    for t, r in points:
        parts.append(
            f'<circle class="dot" cx="{x(t):.1f}" cy="{y(r):.1f}" r="3">'
            f"<title>{escape(day(t))}: {r}</title></circle>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
