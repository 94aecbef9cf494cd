"use strict";

// The scores and the winner, for the game page and the replay.
function resultParts(result, names, viewer) {
  const { el, t } = Omerta;
  const winners = new Set(result.winners);
  const details = result.details || {};
  const title = result.reason === "draw_agreed" ? t("result.draw")
    : result.reason === "expired" ? t("result.no_winner")
    : result.winners.length > 1 ? t("result.shared", { names: result.winners.map((s) => names[s]).join(", ") })
    : viewer !== null && winners.has(viewer) ? t("result.you_win")
      : t("result.winner", { name: names[result.winners[0]] });
  // Per-seat columns; ``unrated`` (seats whose result does not count for ratings) is a mark.
  const unrated = new Set(details.unrated || []);
  const extra = Object.keys(details).filter((k) => Array.isArray(details[k]) && k !== "unrated");
  return [
    el("h2", {}, t("result.over"), " — ", title),
    el("p", { class: "reason" }, t("reason." + result.reason, details)),
    // Equal scores at the top: what decided (the column of the counts compared is in the table).
    details.tie_break
      ? el("p", { class: "tie-break" }, t("result.tie_break." + document.body.dataset.kind)) : null,
    el("table", { class: "scores" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("result.player")),
        extra.map((k) => el("th", { scope: "col" }, t("result." + k))),
        el("th", { scope: "col" }, t("result.score." + document.body.dataset.kind)))),
      el("tbody", {}, result.scores.map((score, seat) => el("tr",
        { class: winners.has(seat) ? "winner" : "" },
        el("th", { scope: "row" }, names[seat], winners.has(seat) ? " ★" : "",
          unrated.has(seat) ? el("span", { class: "unrated" }, " (", t("result.unrated"), ")") : ""),
        extra.map((k) => el("td", {}, details[k][seat])),
        el("td", { class: "score" }, score))))),
  ];
}
