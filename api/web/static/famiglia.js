// Famiglia's board and moves. A turn's decisions are guided step by step from the legal moves:
// choose an action, then the cards it needs (e.g. recruit: the Street card, the pair, which of
// the two goes to the area); only cards that lead to a legal move can be clicked.
"use strict";

const GameUI = (() => {
  const { el, t, tn } = Omerta;
  const EVENTS = ["game_started", "street_revealed", "deck_reshuffled", "deck_ran_out",
    "turn_started", "street_refreshed", "accountant_played", "cards_swapped", "swaps_ended",
    "brute_played", "recruited", "passed", "game_ended"];
  const ACTIONS = ["refresh", "play_accountant", "play_brute", "recruit", "pass"];

  // The move being built: the chosen action and the fields picked so far.
  let mode = null;
  let picks = {};

  function reset() { mode = null; picks = {}; }

  // True while a move is being built (an action chosen, its cards not all picked yet).
  function building() { return mode !== null; }

  const distinct = (list) => [...new Set(list)];
  // The pair a recruit shows, or FREE for a card of (lowered) rank 0.
  const FREE = "free";
  const pairKey = (c) => c.to_area === null ? FREE : [c.to_area, c.back_to_hand].sort().join("+");

  function swapping(ctx) { return ctx.legal.some((c) => c.type === "end_swaps"); }

  // The legal commands of the current action that agree with the picks so far.
  function matching(ctx) {
    const type = swapping(ctx) ? "swap" : mode;
    return ctx.legal.filter((c) => c.type === type && Object.entries(picks).every(([k, v]) =>
      k === "pair" ? pairKey(c) === v : c[k] === v));
  }

  // The field the player chooses next for the current action, and its candidates.
  function nextStep(ctx) {
    const cmds = matching(ctx);
    const fields = {
      refresh: ["card"], play_accountant: ["card"], play_brute: ["card", "target", "amount"],
      recruit: ["card", "pair", "to_area"], swap: ["hand_card", "area_card"],
    }[swapping(ctx) ? "swap" : mode] || [];
    for (const field of fields) {
      if (field in picks) continue;
      if (field === "pair") {
        // Free only: nothing to show. (Two copies of a card, one lowered to rank 0 by a Brute,
        // offer both: free, or a pair for the other.)
        const options = distinct(cmds.map(pairKey));
        if (options.length === 1 && options[0] === FREE) return { done: cmds[0] };
        return { field, options, cmds };
      }
      if (field === "to_area" && picks.pair === FREE) return { done: cmds[0] };
      const options = distinct(cmds.map((c) => c[field]));
      if (field === "to_area" && options.length === 1) return { done: cmds[0] };
      return { field, options, cmds };
    }
    return { done: cmds[0] };
  }

  function pick(ctx, field, value) {
    picks[field] = value;
    const step = nextStep(ctx);
    if (step.done) { ctx.send(step.done); reset(); return; }
    ctx.redraw();
  }

  function choose(ctx, action) {
    reset();
    if (action === "pass") { ctx.send({ type: "pass" }); return; }
    mode = action;
    ctx.redraw();
  }

  // --- the prompt: what to do now ------------------------------------------------------------

  function button(label, onclick, attrs) {
    return el("button", Object.assign({ type: "button", onclick }, attrs || {}), label);
  }

  function cardText(card) {
    return el("span", { class: "chip fam-" + card.split("-")[0] }, Cards.famigliaLabel(card));
  }

  function prompt(ctx) {
    const v = ctx.view;
    if (!v) return [];
    if (v.phase === "over") return [el("p", {}, t("fam.prompt.over"))];
    if (v.to_move === null) return [el("p", {}, t("fam.phase." + v.phase))]; // between turns
    if (ctx.seat === null || !ctx.legal.length) return ctx.waiting([v.to_move]);
    const step = nextStep(ctx);
    const parts = [];
    if (swapping(ctx)) {
      parts.push(el("p", { class: "ask" }, t("fam.prompt.swap", { n: v.swaps_left })));
      if (step.field === "area_card") {
        parts.push(el("p", {}, tn("fam.prompt.swap_area", { card: cardText(picks.hand_card) })));
      }
      parts.push(el("div", { class: "buttons" },
        step.field === "area_card" ? button(t("game.back"), () => { reset(); ctx.redraw(); }) : null,
        button(t("fam.end_swaps"), () => ctx.send({ type: "end_swaps" }),
          { class: "primary", dataset: { action: "end_swaps" } })));
      return parts;
    }
    if (mode === null) {
      parts.push(el("p", { class: "ask" }, t("fam.prompt.choose")));
      const open = new Set(ctx.legal.map((c) => c.type));
      parts.push(el("div", { class: "buttons" }, ACTIONS.filter((a) => open.has(a)).map((a) =>
        button(t("fam.action." + a), () => choose(ctx, a),
          { class: a === "recruit" ? "primary" : "", dataset: { action: a } }))));
      return parts;
    }
    parts.push(el("p", { class: "ask" }, t("fam.step." + mode + "." + step.field)));
    const chosen = Object.entries(picks).filter(([k]) => k !== "pair" && k !== "amount");
    if (chosen.length) {
      parts.push(el("p", { class: "picked" }, chosen.map(([, c]) => cardText(c))));
    }
    const extra = [];
    if (step.field === "pair") {
      for (const key of step.options) {
        if (key === FREE) {
          extra.push(button(t("fam.free"), () => pick(ctx, "pair", FREE), { dataset: { pair: FREE } }));
          continue;
        }
        const [a, b] = key.split("+");
        extra.push(el("button", { type: "button", class: "pair", dataset: { pair: key },
          onclick: () => pick(ctx, "pair", key), "aria-label": t("fam.pair_label",
            { a: Cards.famigliaLabel(a), b: Cards.famigliaLabel(b) }) },
          Cards.famiglia(a, { small: true }), Cards.famiglia(b, { small: true })));
      }
    } else if (step.field === "to_area") {
      for (const card of step.options) {
        const [a, b] = picks.pair.split("+");
        const back = card === a ? b : a;
        extra.push(el("button", { type: "button", class: "to-area", dataset: { card },
          onclick: () => pick(ctx, "to_area", card) },
          tn("fam.to_area_choice", { area: cardText(card), hand: cardText(back) })));
      }
    } else if (step.field === "amount") {
      for (const n of step.options) {
        extra.push(button(t("fam.lower_by", { n }), () => pick(ctx, "amount", n),
          { dataset: { amount: n } }));
      }
    }
    parts.push(el("div", { class: "buttons" }, extra,
      button(t("game.cancel"), () => { reset(); ctx.redraw(); }, { class: "cancel" })));
    return parts;
  }

  // --- the board ---------------------------------------------------------------------------

  // Where each step's card is chosen: the Street, the hand or the area.
  const ZONE_OF = {
    "refresh.card": "street", "play_accountant.card": "hand", "play_brute.card": "hand",
    "play_brute.target": "street", "recruit.card": "street", "swap.hand_card": "hand",
    "swap.area_card": "area",
  };

  function selected(zone, card) {
    if (zone === "street") {
      return ((mode === "refresh" || mode === "recruit") && picks.card === card)
        || picks.target === card;
    }
    if (zone === "hand") {
      return ((mode === "play_brute" || mode === "play_accountant") && picks.card === card)
        || picks.hand_card === card;
    }
    return false;
  }

  // A zone's cards; those the current step may choose are buttons.
  function cardRow(ctx, zone, items, label) {
    const step = ctx.legal.length && (mode !== null || swapping(ctx)) ? nextStep(ctx) : {};
    const action = swapping(ctx) ? "swap" : mode;
    const pickable = step.field && ZONE_OF[action + "." + step.field] === zone;
    return el("div", { class: "cards zone-" + zone, role: "list", "aria-label": label },
      items.map(({ card, rank }) => el("div", { role: "listitem" }, Cards.famiglia(card, {
        rank,
        selected: selected(zone, card),
        onclick: pickable && step.options.includes(card)
          ? () => pick(ctx, step.field, card) : null,
      }))));
  }

  function points(cards) {
    return cards.reduce((sum, c) => sum + Cards.famigliaParts(c).points, 0);
  }

  function playerZone(ctx, seat, own) {
    const v = ctx.view;
    // Both hands once the game is over (the view's), or at a replay's step (tracked by it).
    const shown = v.hands || ctx.hands;
    const hand = own ? v.hand : (shown ? shown[seat] : null);
    const area = v.areas[seat];
    return el("section", { class: "player" + (v.to_move === seat ? " active" : ""),
      "aria-label": ctx.names[seat], dataset: { seat } },
      el("h2", {}, seatMark(seat), " ", ctx.names[seat], el("span", { class: "sub" },
        t("fam.area_points", { n: points(area) }),
        // The score so far (hand + area), wherever the hand is known: one's own, both at the end.
        hand ? " · " + t("fam.hand_points", { n: points(hand) }) + " · "
          + t("fam.total_points", { n: points(hand) + points(area) }) : "")),
      el("h3", {}, t("fam.area")),
      area.length ? cardRow(ctx, own ? "area" : "other-area", area.map((card) => ({ card })),
        t("fam.area_of", { name: ctx.names[seat] }))
        : el("p", { class: "empty" }, t("fam.empty")),
      el("h3", {}, t("fam.hand"), " (" + v.hand_sizes[seat] + ")"),
      hand ? cardRow(ctx, own ? "hand" : "other-hand", hand.map((card) => ({ card })),
        t("fam.hand_of", { name: ctx.names[seat] }))
        : el("div", { class: "cards backs", "aria-label": t("fam.hidden_hand",
          { n: v.hand_sizes[seat] }) },
          Array.from({ length: v.hand_sizes[seat] }, () => Cards.famigliaBack())));
  }

  function board(ctx) {
    const v = ctx.view;
    if (!v) return [];
    const me = ctx.seat === null ? 0 : ctx.seat;
    const other = 1 - me;
    const info = [
      t("fam.turn", { n: v.turn }),
      t("fam.deck", { n: v.deck_size }),
      t("fam.pass_n", { n: v.deck_pass }),
      v.final_turns !== null ? t("fam.final_turns", { n: v.final_turns }) : null,
      v.phase !== "over" ? t("fam.phase." + shownPhase(v)) : null,
    ].filter((x) => x !== null);
    return [
      playerZone(ctx, other, false),
      el("section", { class: "middle", "aria-label": t("fam.street") },
        el("div", { class: "info" }, info.map((x) => el("span", {}, x))),
        el("h2", {}, t("fam.street")),
        cardRow(ctx, "street", v.street, t("fam.street")),
        el("div", { class: "piles" },
          el("div", { class: "pile", "aria-label": t("fam.deck", { n: v.deck_size }) },
            Cards.famigliaBack(), el("span", {}, t("fam.deck", { n: v.deck_size }))),
          el("div", { class: "discard" }, el("h3", {}, t("fam.discard",
            { n: v.discard.length })),
            el("div", { class: "cards mini" }, v.discard.map((c) =>
              Cards.famiglia(c, { small: true })))))),
      playerZone(ctx, me, ctx.seat !== null),
    ];
  }

  function seatMark(seat) {
    return el("span", { class: "seat-no" }, String(seat + 1));
  }

  // "Action 1: refresh" only while a refresh is possible (the view's open actions are the
  // rules' own answer); otherwise the turn is, in effect, at action 2.
  function shownPhase(v) {
    return v.phase === "refresh" && !v.actions.includes("refresh") ? "accountant" : v.phase;
  }

  // --- the log -----------------------------------------------------------------------------

  function describe(e, names) {
    const card = (c) => cardText(c);
    const who = (s) => el("strong", {}, names[s]);
    switch (e.type) {
      case "game_started": return tn("fam.ev.started", { name: who(e.start_player) }).concat(" ",
        tn("fam.ev.dealt", { cards: e.hands[0].map(card) }));
      case "street_revealed": return tn("fam.ev.revealed", { cards: e.cards.map(card) });
      case "deck_reshuffled": return tn("fam.ev.reshuffled", { n: e.size });
      case "deck_ran_out": return tn("fam.ev.ran_out", { n: e.extra_turns });
      case "turn_started": return tn("fam.ev.turn", { n: e.turn, name: who(e.seat) });
      case "street_refreshed": return tn("fam.ev.refreshed." + e.destination,
        { name: who(e.seat), card: card(e.card) });
      case "accountant_played": return tn("fam.ev.accountant",
        { name: who(e.seat), card: card(e.card) });
      case "cards_swapped": return tn("fam.ev.swapped",
        { name: who(e.seat), hand: card(e.hand_card), area: card(e.area_card) });
      case "swaps_ended": return tn("fam.ev.swaps_ended", { name: who(e.seat) });
      case "brute_played": return tn("fam.ev.brute", { name: who(e.seat), card: card(e.card),
        target: card(e.target), n: e.amount });
      case "recruited": return e.to_area === null
        ? tn("fam.ev.recruited_free", { name: who(e.seat), card: card(e.card) })
        : tn("fam.ev.recruited", { name: who(e.seat), card: card(e.card), rank: e.rank,
          area: card(e.to_area), hand: card(e.back_to_hand) });
      case "passed": return tn("fam.ev.passed", { name: who(e.seat) });
      case "game_ended": return [t("reason." + e.reason), " "].concat(tn("fam.ev.ended",
        { scores: e.scores.map((s, i) => t("fam.ev.score", { name: names[i], n: s })).join(" : ") }));
      default: return [e.type];
    }
  }

  // A command in words (the review's move played and best move), as the log words the event it
  // makes; a refresh and a paid recruit name what the command alone knows (not the rank, nor
  // where the refreshed card goes).
  function describeCommand(c, names, seat) {
    const e = Object.assign({ seat }, c);
    switch (c.type) {
      case "refresh": return tn("fam.cmd.refresh", { name: el("strong", {}, names[seat]),
        card: cardText(c.card) });
      case "recruit": return c.to_area === null
        ? describe(Object.assign(e, { type: "recruited" }), names)
        : tn("fam.cmd.recruit", { name: el("strong", {}, names[seat]), card: cardText(c.card),
          area: cardText(c.to_area), hand: cardText(c.back_to_hand) });
      default: return describe(Object.assign(e, { type: COMMAND_EVENTS[c.type] }), names);
    }
  }

  // What a seat could know at a decision (the review's knowledge, docs/players.md): the other
  // hand, and the deck's contents (its order alone is hidden). Pairs of a term and its value.
  function knowledge(k, names, seat) {
    return [
      [t("review.know.fam.hand", { name: names[1 - seat] }), Object.entries(k.opponent_hand.reduce(
        (copies, card) => Object.assign(copies, { [card]: (copies[card] || 0) + 1 }), {}))
        .map(([card, n]) => shortChip(card, n))],
      [t("review.know.fam.deck", { n: k.deck_size }),
        Object.entries(k.deck).map(([card, n]) => shortChip(card, n))],
    ];
  }

  const COMMAND_EVENTS = { play_accountant: "accountant_played", swap: "cards_swapped",
    end_swaps: "swaps_ended", play_brute: "brute_played", pass: "passed" };

  // Both hands at every step of a finished game's replay: every card movement into and out of
  // a hand is in the history (FAMIGLIA.md: only the deck order was hidden).
  function hands(events) {
    let held = null;
    const take = (seat, card) => { held[seat].push(card); };
    const drop = (seat, card) => { held[seat].splice(held[seat].indexOf(card), 1); };
    const out = [];
    for (const e of events) {
      if (e.type === "game_started") held = e.hands.map((h) => [...h]);
      else if (e.type === "recruited") { take(e.seat, e.card); if (e.to_area) drop(e.seat, e.to_area); }
      else if (e.type === "accountant_played" || e.type === "brute_played") drop(e.seat, e.card);
      else if (e.type === "cards_swapped") { drop(e.seat, e.hand_card); take(e.seat, e.area_card); }
      out.push(held.map((h) => [...h].sort(order)));
    }
    return out;
  }

  // A replay step of a finished game: the view, and both hands there (``revealed``: hands()).
  function replayStep(view, hands) {
    return { view, hands };
  }

  const FAMILY_ORDER = ["red", "blue", "yellow", "green"];
  function order(a, b) {
    const [fa, ra] = a.split("-");
    const [fb, rb] = b.split("-");
    return FAMILY_ORDER.indexOf(fa) - FAMILY_ORDER.indexOf(fb) || ra - rb;
  }

  // A card by its family's short name and its rank.
  function shortName(card) {
    const [family, rank] = card.split("-");
    return t("fam.short." + family) + " " + rank;
  }

  // The same as a chip (`copies` of it: "×n" past one), for lists of many cards.
  function shortChip(card, copies) {
    return el("span", { class: "chip fam-" + card.split("-")[0] },
      shortName(card) + (copies > 1 ? " ×" + copies : ""));
  }

  // A refusal's param as the page names it: a card by its short name.
  function refusalParam(name, value) {
    const card = typeof value === "string" && /^(red|blue|yellow|green)-\d+$/.test(value);
    return card ? shortName(value) : null;
  }

  return { EVENTS, reset, building, prompt, board, describe, describeCommand, knowledge, seatMark,
           hands, refusalParam, revealed: hands, replayStep };
})();
