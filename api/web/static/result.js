"use strict";

// The scores and the winner, for the game page and the replay; with `accuracy` (each seat's,
// from the game's review; null for a seat that took no decision: no figure) a column of it.
// Nodes only (no null): the pages replaceChildren with them, which would write a null as the
// text "null".
function resultParts(result, names, viewer, accuracy) {
  const { el, t } = Omerta;
  // An agreed draw lists every seat among the winners (a shared result, for the ratings): the
  // table marks nobody.
  const winners = new Set(result.reason === "draw_agreed" ? [] : result.winners);
  const details = result.details || {};
  const title = result.reason === "draw_agreed" ? t("result.draw")
    : result.reason === "expired" ? t("result.no_winner")
    : result.winners.length > 1 ? t("result.shared", { names: result.winners.map((s) => names[s]).join(", ") })
    : viewer !== null && winners.has(viewer) ? t("result.you_win")
      : t("result.winner", { name: names[result.winners[0]] });
  // Per-seat columns; ``unrated`` (seats whose result does not count for ratings) is a mark.
  const unrated = new Set(details.unrated || []);
  const extra = Object.keys(details).filter((k) => Array.isArray(details[k]) && k !== "unrated");
  // The columns after the player's: [header, class, the seat's value].
  const columns = [
    ...extra.map((k) => [t("result." + k), null, (seat) => details[k][seat]]),
    [t("result.score." + document.body.dataset.kind), "score", (seat, score) => score],
    ...(accuracy ? [[t("review.accuracy"), "accuracy", (seat) => accuracy[seat] === null ? ""
      : t("review.percent", { n: Math.round(accuracy[seat]) })]] : []),
  ];
  return [
    el("h2", {}, t("result.over"), " — ", title),
    el("p", { class: "reason" }, t("reason." + result.reason, details)),
    // Equal scores at the top: what decided (the column of the counts compared is in the table).
    details.tie_break
      ? el("p", { class: "tie-break" }, t("result.tie_break." + document.body.dataset.kind)) : null,
    // Each cell names its column (data-label): a narrow box shows a seat's figures as lines
    // under its name (site.css), where the table's columns would split their words.
    el("table", { class: "scores" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("result.player")),
        columns.map(([label]) => el("th", { scope: "col" }, label)))),
      el("tbody", {}, result.scores.map((score, seat) => el("tr",
        { class: winners.has(seat) ? "winner" : "" },
        el("th", { scope: "row" }, names[seat], winners.has(seat) ? " ★" : "",
          unrated.has(seat) ? el("span", { class: "unrated" }, " (", t("result.unrated"), ")") : ""),
        columns.map(([label, cls, value]) => el("td", { class: cls, dataset: { label } },
          value(seat, score))))))),
  ].filter((part) => part !== null);
}

// Each seat's accuracy in a finished game's review, or null while it has none (not asked for,
// not done yet, or no review service).
function reviewAccuracy(gameId) {
  return Omerta.api("GET", `/games/${gameId}/review`).then((answer) =>
    answer.state === "done" ? answer.review.players.map((p) => p.accuracy) : null, () => null);
}
