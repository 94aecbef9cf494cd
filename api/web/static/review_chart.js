// The review's chart: each seat's win chance over the game as an inline SVG line chart (no
// library), the graded decisions as markers on the deciding seat's line. A marker is a button:
// in the tab order, Enter or Space activates it, the arrow keys move to the previous or next
// marker. Seats differ by dash pattern and markers by shape, not by colour alone.
"use strict";

const ReviewChart = (() => {
  const { t } = Omerta;
  const SVG = "http://www.w3.org/2000/svg";
  const HEIGHT = 260;
  const LEFT = 44;
  const RIGHT = 12;
  const TOP = 12;
  const BOTTOM = 40;
  // The grades a marker shows (docs/players.md: "How to read the review").
  const MARKED = ["inaccuracy", "mistake", "blunder"];

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    // Any depth of lists (the grid is a list of [line, label] pairs): append() would write a
    // nested list as text, which an SVG does not show.
    node.append(...children.flat(Infinity).filter((c) => c !== null));
    return node;
  }

  const percent = (chance) => t("review.percent", { n: Math.round(chance * 100) });

  // Each seat's win chance by version: its estimate at each of its decisions, then the outcome.
  function trajectories(review) {
    const lines = Array.from({ length: review.seats }, () => []);
    for (const d of review.decisions) lines[d.seat].push([d.version, d.before]);
    for (const p of review.players) lines[p.seat].push([review.version, p.won]);
    return lines;
  }

  // About five round versions from the first to the last, none crowding the last.
  function versionTicks(last) {
    const step = Math.max(5, Math.ceil(last / 25) * 5);
    const ticks = [1];
    for (let v = step; v <= last - step / 2; v += step) ticks.push(v);
    return last > 1 ? ticks.concat([last]) : ticks;
  }

  function shape(grade, x, y) {
    if (grade === "inaccuracy") return svg("circle", { class: "shape", cx: x, cy: y, r: 5 });
    if (grade === "mistake") {
      return svg("rect", { class: "shape", x: x - 5, y: y - 5, width: 10, height: 10 });
    }
    return svg("path", { class: "shape", d: `M${x} ${y - 7}L${x + 7} ${y + 5}H${x - 7}Z` });
  }

  // The chart of `review`, the seats named by `names`; `pick(decision)` runs when a marker is
  // activated. `width`: the room it has on screen, in CSS pixels, so that markers and texts keep
  // their size on a phone (a wider or narrower window scales the whole). Returns the SVG element.
  function draw(review, names, pick, width) {
    const innerW = width - LEFT - RIGHT;
    const innerH = HEIGHT - TOP - BOTTOM;
    const last = Math.max(review.version, 2);
    const x = (version) => LEFT + (version - 1) / (last - 1) * innerW;
    const y = (chance) => TOP + (1 - chance) * innerH;
    const fixed = (n) => n.toFixed(1);

    // The win chance's scale: 0, 50 and 100 %, each with a grid line across the chart.
    const grid = [0, 0.5, 1].map((c) => [
      svg("line", { class: "grid", x1: LEFT, y1: fixed(y(c)), x2: LEFT + innerW, y2: fixed(y(c)) }),
      svg("text", { class: "tick", x: LEFT - 6, y: fixed(y(c) + 4), "text-anchor": "end" }, percent(c)),
    ]);
    const ticks = versionTicks(review.version).map((v) =>
      svg("text", { class: "tick", x: fixed(x(v)), y: TOP + innerH + 16, "text-anchor": "middle" },
        String(v)));
    const lines = trajectories(review).map((points, seat) => svg("polyline", {
      class: "seat-line seat-" + seat,
      points: points.map(([v, c]) => fixed(x(v)) + "," + fixed(y(c))).join(" "),
    }));
    const marked = review.decisions.filter((d) => MARKED.includes(d.grade));
    const markers = marked.map((d, i) => {
      const label = t("review.marker", { n: d.version, name: names[d.seat],
        grade: t("review.grade." + d.grade), loss: Math.round(d.loss * 100) });
      const cx = x(d.version);
      const cy = y(d.before);
      const marker = svg("g", { class: "marker grade-" + d.grade, tabindex: "0", role: "button",
        "aria-label": label, "data-version": d.version },
      svg("title", {}, label),
      svg("circle", { class: "hit", cx: fixed(cx), cy: fixed(cy), r: 12 }),
      svg("circle", { class: "ring", cx: fixed(cx), cy: fixed(cy), r: 10 }),
      shape(d.grade, cx, cy));
      marker.addEventListener("click", () => pick(d));
      marker.addEventListener("keydown", (event) => {
        // The replay steps with the arrow keys anywhere else on the page: not from a marker.
        const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1,
          Home: 0, End: marked.length - 1 }[event.key];
        if (event.key === "Enter" || event.key === " ") pick(d);
        else if (to !== undefined) markers[Math.min(Math.max(to, 0), marked.length - 1)].focus();
        else return;
        event.preventDefault();
        event.stopPropagation();
      });
      return marker;
    });
    return svg("svg", { class: "review-chart", viewBox: `0 0 ${width} ${HEIGHT}`,
      role: "group", "aria-labelledby": "review-chart-title" },
    svg("title", { id: "review-chart-title" }, t("review.chart")),
    grid,
    svg("line", { class: "axis", x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + innerH }),
    svg("line", { class: "axis", x1: LEFT, y1: TOP + innerH, x2: LEFT + innerW, y2: TOP + innerH }),
    ticks,
    svg("text", { class: "axis-label", x: LEFT + innerW / 2, y: HEIGHT - 6, "text-anchor": "middle" },
      t("replay.step")),
    lines,
    markers);
  }

  // Marks the marker of the decision at `version` as the one shown (none: null).
  function select(chart, version) {
    for (const marker of chart.querySelectorAll(".marker")) {
      if (Number(marker.dataset.version) === version) marker.setAttribute("aria-current", "true");
      else marker.removeAttribute("aria-current");
    }
  }

  // The legend: a sample of each seat's line and of each marker's shape, named.
  function legend(review, names) {
    const { el } = Omerta;
    const sample = (...children) => svg("svg", { class: "legend-sample", viewBox: "0 0 28 16",
      "aria-hidden": "true" }, children);
    return el("ul", { class: "review-legend" },
      names.map((name, seat) => el("li", {}, sample(svg("line", { class: "seat-line seat-" + seat,
        x1: 2, y1: 8, x2: 26, y2: 8 })), name)),
      MARKED.map((grade) => el("li", {}, sample(svg("g", { class: "marker grade-" + grade },
        shape(grade, 14, 8))), t("review.grade." + grade))));
  }

  return { MARKED, draw, select, legend, percent };
})();
