// Famiglia's cards: a card of a family and rank, with its points, and a card's back.
"use strict";

Object.assign(Cards, (() => {
  const { el, t } = Omerta;
  const { DATA, glyph } = Cards;

  Cards.addGlyphs({
    // The families: a signet ring, a ledger, a fist, a dagger.
    red: "M12 3l3 4h-6zM12 8a6 6 0 1 0 0.01 0zM12 11a3 3 0 1 1-0.01 0z",
    blue: "M5 3h11l3 3v15H5zM8 8h8v1.5H8zM8 12h8v1.5H8zM8 16h5v1.5H8z",
    yellow: "M6 9a2 2 0 0 1 4 0v-1a2 2 0 0 1 4 0v1a2 2 0 0 1 4 0v6a6 6 0 0 1-6 6h-1a5 5 0 0 1-5-5z",
    green: "M12 2l2 10h-4zM8 12h8v2H8zM11 14h2v7h-2z",
  });

  function famigliaParts(card) {
    const [family, rank] = card.split("-");
    return { family, rank: Number(rank), points: DATA.points[family][Number(rank)] };
  }

  function famigliaLabel(card, rank) {
    const { family, rank: printed, points } = famigliaParts(card);
    const shown = rank !== undefined && rank !== printed
      ? t("fam.lowered", { rank, printed }) : String(printed);
    return t("fam.card", { family: t("fam." + family), rank: shown, points });
  }

  // One Famiglia card; a button when opts.onclick is given. opts.rank: this turn's rank.
  function famiglia(card, opts) {
    opts = opts || {};
    const { family, rank, points } = famigliaParts(card);
    const lowered = opts.rank !== undefined && opts.rank !== rank;
    const tag = opts.onclick ? "button" : "div";
    const node = el(tag, {
      class: "card fam fam-" + family + (opts.selected ? " selected" : "")
        + (opts.onclick ? " pickable" : "") + (opts.small ? " small" : ""),
      type: opts.onclick ? "button" : null,
      onclick: opts.onclick,
      "aria-pressed": opts.onclick && opts.selected ? "true" : null,
      // A card that can be clicked says so to a screen reader as well as by its outline.
      "aria-label": famigliaLabel(card, opts.rank) + (opts.onclick ? " · " + t("game.can_choose") : ""),
      title: famigliaLabel(card, opts.rank),
      dataset: { card },
    },
      el("span", { class: "rank", "aria-hidden": "true" },
        lowered ? [el("s", {}, rank), " ", opts.rank] : rank),
      glyph(family),
      el("span", { class: "fname", "aria-hidden": "true" }, t("fam.short." + family)),
      el("span", { class: "pts", "aria-hidden": "true" }, t("fam.points", { points })));
    return node;
  }

  function famigliaBack() {
    return el("div", { class: "card back", "aria-hidden": "true" });
  }

  return { famiglia, famigliaBack, famigliaParts, famigliaLabel };
})());
