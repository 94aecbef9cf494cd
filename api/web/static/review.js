// A finished game's review on its replay page (GET /games/{id}/review): its progress while the
// worker reviews it, a button to ask for one, then each seat's win chance over the game
// (review_chart.js) with the inaccuracies, mistakes and blunders marked. A marker moves the
// replay to the version the decision was taken at and shows the move played beside the best
// move found, both worded by the game's GameUI, and what the seat could know there. A running
// game has no review (the API refuses it: it would tell what is hidden), so no section.
"use strict";

(() => {
  const { api, el, t, showError } = Omerta;
  const gameId = document.body.dataset.gameId;
  const box = document.getElementById("review");
  const FIRST_POLL_MS = 1000;
  const MAX_POLL_MS = 10000;
  const CHART_MIN = 300; // px: the chart's drawing width (a wider or narrower room scales it)
  const CHART_MAX = 640;
  let names = [];
  let chart = null;

  function title() {
    return el("h2", { id: "review-title" }, t("review.title"));
  }

  // While queued or running: the progress, asked again less and less often.
  async function follow(wait) {
    let answer;
    try {
      answer = await api("GET", `/games/${gameId}/review`);
    } catch (err) {
      Omerta.logFault(err);
      answer = null; // asked again, as a review under way
    }
    if (answer && answer.state === "done") return drawReview(answer.review);
    if (answer && answer.state === "none") return drawAsk();
    drawProgress(answer && answer.progress);
    setTimeout(() => follow(Math.min(wait * 1.5, MAX_POLL_MS)), wait);
  }

  function drawProgress(progress) {
    box.replaceChildren(title(),
      el("p", { id: "review-progress", role: "status" },
        progress ? t("review.progress", { done: progress.done, total: progress.total })
          : t("review.queued")),
      progress ? el("progress", { max: progress.total, value: progress.done,
        "aria-labelledby": "review-progress" }) : null);
  }

  function drawAsk() {
    const button = el("button", { type: "button", id: "review-ask", class: "primary" },
      t("review.ask"));
    button.addEventListener("click", () => Omerta.whileBusy([button], async () => {
      try {
        await api("POST", `/games/${gameId}/review`);
        follow(FIRST_POLL_MS);
      } catch (err) {
        showError(err);
      }
    }));
    box.replaceChildren(title(), el("p", {}, t("review.none")), button);
  }

  function drawReview(review) {
    const panel = el("div", { id: "review-panel", class: "review-panel", "aria-live": "polite" },
      el("p", { class: "note" }, t(review.decisions.some((d) => ReviewChart.MARKED.includes(d.grade))
        ? "review.pick" : "review.clean")));
    const figure = el("figure", { class: "review-figure" },
      el("figcaption", {}, ReviewChart.legend(review, names)));
    box.replaceChildren(title(), el("div", { class: "review-grid" }, figure, panel), summary(review));
    // Drawn for the room the layout gives it (beside the decision, or the phone's width).
    chart = ReviewChart.draw(review, names, (d) => pick(d, panel),
      Math.min(Math.max(figure.clientWidth, CHART_MIN), CHART_MAX));
    figure.prepend(chart);
    Replay.showAccuracy(review.players.map((p) => p.accuracy));
  }

  // Each seat's accuracy (none for a seat that took no decision) and its graded decisions.
  function summary(review) {
    const head = ["review.accuracy", "review.decisions", "review.grade.inaccuracy",
      "review.grade.mistake", "review.grade.blunder"];
    return el("div", { class: "table-scroll" }, el("table", { class: "rating-table review-summary" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("result.player")),
        head.map((key) => el("th", { scope: "col", class: "num" }, t(key))))),
      el("tbody", {}, review.players.map((p) => el("tr", {},
        el("th", { scope: "row" }, names[p.seat]),
        [p.accuracy === null ? "" : t("review.percent", { n: Math.round(p.accuracy) }),
          p.decisions, p.inaccuracies, p.mistakes, p.blunders].map((n) => el("td", { class: "num" }, String(n))))))));
  }

  // A marker activated: the replay at the decision's version, and the decision beside it.
  async function pick(d, panel) {
    ReviewChart.select(chart, d.version);
    try {
      await Replay.show(d.version);
      const view = await Replay.viewAt(d.version);
      const move = (command) => GameUI.describeCommand(command, names, d.seat, view);
      const chance = (key, win) => el("p", {}, el("strong", {}, t(key)), " ",
        t("review.win", { chance: ReviewChart.percent(win) }));
      panel.replaceChildren(
        el("h3", {}, t("review.decision", { n: d.version, name: names[d.seat],
          grade: t("review.grade." + d.grade) })),
        chance("review.played", d.played_win), el("p", { class: "review-move" }, move(d.played)),
        chance("review.best", d.best_win), el("p", { class: "review-move best" }, move(d.best)),
        el("p", {}, t("review.loss", { before: ReviewChart.percent(d.before),
          n: Math.round(d.loss * 100) })),
        el("h3", {}, t("review.knowledge", { name: names[d.seat] })),
        el("dl", { class: "knowledge" }, GameUI.knowledge(d.knowledge, names, d.seat).map(
          ([term, value]) => [el("dt", {}, term), el("dd", {}, value)])));
    } catch (err) {
      showError(err);
    }
  }

  Replay.ready.then(({ game, names: named }) => {
    if (!game.result) return;
    names = named;
    box.hidden = false;
    follow(FIRST_POLL_MS);
  }, () => {}); // the replay shows its own error
})();
