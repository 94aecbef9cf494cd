// Famiglia: why an action is not on offer, and a warning before a move that ends the game.
// The server's legal moves decide what is offered; these texts only explain, from the view.
"use strict";

const GameHelp = (() => {
  const { el, t } = Omerta;
  const parts = (card) => Cards.famigliaParts(card);
  const points = (cards) => cards.reduce((sum, c) => sum + parts(c).points, 0);
  const has = (hand, family) => hand.some((c) => parts(c).family === family && parts(c).rank >= 1);

  // The reason (a catalogue key and its params) for each of actions 1-4 missing from legal.
  function reasons(ctx) {
    const v = ctx.view;
    const open = new Set(ctx.legal.map((c) => c.type));
    const out = [];
    const add = (action, key, params) => {
      if (!open.has(action)) out.push({ action, text: t("fam.why." + key, params) });
    };
    if (!v.actions.includes("refresh")) {
      const zero = v.street.find((s) => parts(s.card).rank === 0);
      if (v.phase !== "refresh") add("refresh", "refresh.later");
      else if (v.deck_size === 0) add("refresh", "refresh.deck_empty");
      else if (zero) add("refresh", "refresh.rank_zero", { card: Cards.famigliaLabel(zero.card) });
      else if (v.deck_pass === 2) add("refresh", "refresh.used");
    }
    if (!v.actions.includes("play_accountant")) add("play_accountant", "accountant.later");
    else if (!has(v.hand, "blue")) add("play_accountant", "accountant.none");
    if (!v.actions.includes("play_brute")) add("play_brute", "brute.later");
    else if (!has(v.hand, "yellow")) add("play_brute", "brute.none");
    else if (!v.street.some((s) => s.rank >= 1)) add("play_brute", "brute.no_target");
    if (!v.street.length) add("recruit", "recruit.empty");
    else add("recruit", "recruit.no_pair");
    return out;
  }

  // What the prompt adds below the game's own: reasons for missing actions, while the player
  // chooses an action (not in the middle of one).
  function prompt(ctx) {
    const v = ctx.view;
    if (!v || !ctx.legal.length || v.phase === "swap" || !v.hand
        || ctx.legal.some((c) => c.type === "end_swaps") || GameUI.building()) return [];
    const list = reasons(ctx);
    if (!list.length) return [];
    return [el("details", { class: "why-not" },
      el("summary", {}, t("game.why_title", { n: list.length })),
      el("ul", {}, list.map((r) => el("li", { dataset: { why: r.action } },
        el("strong", {}, t("fam.action." + r.action)), " — ", r.text))))];
  }

  // Both hands now: the viewer's own, the other as the history shows it (every card entering
  // or leaving a hand is a public event; FAMIGLIA.md, "What each player sees").
  function handsNow(ctx) {
    const tracked = GameUI.hands(ctx.events);
    const hands = tracked.length ? tracked[tracked.length - 1] : [[], []];
    hands[ctx.seat] = ctx.view.hand;
    return hands;
  }

  // A pass or recruit that ends the turn ends the game in the last turn, and a pass does after
  // the other player's pass (option double_pass_ends): then say so, with the final score.
  function endWarning(ctx, command) {
    const v = ctx.view;
    if (!v || (command.type !== "pass" && command.type !== "recruit")) return null;
    const last = v.final_turns === 0;
    const doublePass = command.type === "pass" && v.options.double_pass_ends && v.passes_in_row >= 1;
    if (!last && !doublePass) return null;
    const hands = handsNow(ctx);
    const scores = [0, 1].map((s) => points(hands[s]) + points(v.areas[s])
      + (s === ctx.seat && command.type === "recruit" ? parts(command.card).points : 0));
    return {
      text: t("confirm.fam." + command.type, { scores: scores.map((n, s) =>
        ctx.names[s] + " " + n).join(" : ") }),
      yes: t("confirm.yes." + command.type),
      note: [t(last ? "confirm.fam.last_turn" : "confirm.fam.double_pass"), t("confirm.fam.known")],
    };
  }

  // Famiglia marks nothing on the board: its reasons all fit in the prompt.
  function annotate() {}

  return { prompt, endWarning, annotate };
})();
