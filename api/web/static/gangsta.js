// Gangsta!'s board and moves. Every legal command becomes a button on the card or player it
// names (hire on a market gangster, commit on a gang member, theft on an opponent...), or in the
// prompt when it names none (pass, skip, cancel). A heist is guided: choose it, then commit
// gangsters one by one while the board shows which skills are still needed.
"use strict";

const GameUI = (() => {
  const { el, t, tn } = Omerta;
  const EVENTS = ["game_started", "cards_dealt", "deck_reshuffled", "snitch_shuffled_back",
    "snitch_revealed", "turn_started", "gangster_readied", "gangster_hired", "heist_chosen",
    "heist_cancelled", "gangster_committed", "heist_completed", "skill_learned", "money_stolen",
    "gangster_diverted", "assassination_ordered", "gang_rallied", "play_again",
    "reward_skipped", "passed", "row_card_discarded", "pass_discard_skipped",
    "gangster_discarded", "chapter_changed", "gang_war", "game_ended",
    // the resources module
    "resources_dealt", "resource_kept", "resources_revealed", "resource_activated",
    "resource_discarded", "money_printed", "heist_peeked", "gangster_peeked",
    "headquarters_used", "skill_ignored", "private_jet_used", "secret_society_used",
    "hospital_discharged"];
  const CARD_FIELD = { ready: "gangster", hire: "gangster", choose_heist: "heist",
    commit: "gangster", discard_row_card: "card", fast_recruit: "gangster",
    learn_skill: "gangster", diversion: "gangster", discard: "gangster",
    keep_resource: "card", private_jet: "gangster", secret_society: "gangster" };
  // The resources module's cards (the option resources), by id.
  const RESOURCES = Object.fromEntries(
    (JSON.parse(document.getElementById("cards").textContent).resources || [])
      .map((r) => [r.id, r]));

  function reset() {}

  const skillIndex = (v, skill) => v.skills.indexOf(skill);

  function members(v) {
    const all = {};
    for (const p of v.players) for (const m of p.gang) all[m.card] = Object.assign({ seat: p.seat }, m);
    return all;
  }

  // Skills the chosen heist still needs after the committed gangsters (learned skills count).
  function stillNeeded(v) {
    const need = Object.assign({}, Cards.HEISTS[v.heist].requires);
    const gang = members(v);
    for (const id of v.committed) {
      const g = Cards.GANGSTERS[id];
      const have = Object.assign({}, g.skills);
      const learned = gang[id] && gang[id].learned;
      if (learned) have[learned] = (have[learned] || 0) + 1;
      for (const [skill, n] of Object.entries(have)) {
        if (need[skill]) need[skill] = Math.max(0, need[skill] - n);
      }
    }
    return need;
  }

  function skipLabel(v, seat) {
    if (v.jets.includes(seat)) return t("g.skip.private_jet");
    if (v.stage === "hospital") return t("g.skip.hospital");
    if (v.stage === "end") return t("g.skip.secret_society");
    if (v.stage === "pass_discard") return t("g.skip.pass_discard");
    if (v.stage === "reward" && v.rewards[0] === "diversion") return t("g.skip.diversion");
    return t("g.skip.reward", { reward: t("reward." + (v.rewards[0] || "none")) });
  }

  // As the rules price a hire: $1 less from the Boss's own clan with the option clans, or for
  // the top of the deck seen with 912 Indicator network (never both).
  function hireCost(ctx, id) {
    const v = ctx.view;
    const card = Cards.GANGSTERS[id];
    const me = v.players[ctx.seat];
    const boss = Cards.GANGSTERS[me.boss];
    const peeked = id === me.peek_gangster && !v.market.includes(id);
    return (v.options.clans || peeked) && card.clan === boss.clan
      ? Math.max(0, card.cost - 1) : card.cost;
  }

  // The ability of a player's resource card while it works (active, not discarded).
  function ability(p) {
    return p.resource !== null && p.resource_active && !p.resource_discarded
      ? RESOURCES[p.resource].ability : null;
  }

  function label(ctx, c) {
    const v = ctx.view;
    switch (c.type) {
      case "ready": return v.free_readies > 0 ? t("g.act.ready_free") : t("g.act.ready_paid");
      case "hire": return t("g.act.hire", { n: hireCost(ctx, c.gangster) });
      case "choose_heist": return v.heist_row.includes(c.heist) ? t("g.act.choose_heist")
        : t("g.act.choose_heist_deck", { n: 1 });
      case "keep_resource": return t("g.act.keep_resource");
      case "headquarters": return t("g.act.headquarters");
      case "private_jet": return t("g.act.private_jet");
      case "secret_society": return t("g.act.secret_society");
      case "ignore_skill": return t("g.act.ignore_skill", { skill: t("skill." + c.skill) });
      case "discharge": return t("g.act.discharge");
      case "commit": return t("g.act.commit");
      case "discard_row_card": return t("g.act.discard_row_card");
      case "fast_recruit": return t("g.act.fast_recruit", { n: hireCost(ctx, c.gangster) });
      case "learn_skill": return t("g.act.learn_skill",
        { skill: t("skill." + Cards.HEISTS[v.heist].reward.learn_skill) });
      case "diversion": return t("g.act.diversion");
      case "discard": return t("g.act.discard");
      case "theft": return t("g.act.theft", { n: c.amount });
      case "assassination": return t("g.act.assassination");
      case "pass": {
        const me = v.players[ctx.seat];
        const income = Math.max(me.skills[skillIndex(v, "leader")], v.options.min_pass_income)
          + (ability(me) === "black_market" ? 2 : 0);
        return t("g.act.pass", { n: income });
      }
      case "skip": return skipLabel(v, ctx.seat);
      case "cancel_heist": return t("g.act.cancel_heist");
      default: return c.type;
    }
  }

  function commandButton(ctx, c) {
    const target = c[CARD_FIELD[c.type]] ?? c.target;
    return el("button", {
      type: "button",
      class: "act act-" + c.type + (["pass", "choose_heist", "commit"].includes(c.type)
        ? " primary" : ""),
      dataset: { type: c.type, card: target, amount: c.amount },
      onclick: () => ctx.send(c),
    }, label(ctx, c));
  }

  // The legal commands grouped by what they name: a card id, a player, or nothing.
  function grouped(ctx) {
    const byCard = {};
    const byPlayer = {};
    const loose = [];
    for (const c of ctx.legal) {
      const field = CARD_FIELD[c.type];
      if (field) (byCard[c[field]] = byCard[c[field]] || []).push(commandButton(ctx, c));
      else if (c.type === "theft" || c.type === "assassination") {
        (byPlayer[c.target] = byPlayer[c.target] || []).push(commandButton(ctx, c));
      } else loose.push(commandButton(ctx, c));
    }
    return { byCard, byPlayer, loose };
  }

  // --- the prompt --------------------------------------------------------------------------

  function needChips(v) {
    const need = stillNeeded(v);
    return Cards.SKILLS.flatMap((s) => Array.from({ length: need[s] || 0 }, () =>
      Cards.glyph(s, t("skill." + s))));
  }

  function ask(ctx) {
    const v = ctx.view;
    const owed = v.owed.find((o) => o.chooser === ctx.seat);
    if (owed) {
      return owed.seat === ctx.seat
        ? t("g.prompt.discard", { reason: t("g.reason." + owed.reason) })
        : t("g.prompt.discard_for", { name: ctx.names[owed.seat],
          reason: t("g.reason." + owed.reason) });
    }
    if (v.jets.includes(ctx.seat)) return t("g.prompt.private_jet");
    switch (v.stage) {
      case "turn": return v.free_readies > 0
        ? t("g.prompt.turn_free", { n: v.free_readies }) : t("g.prompt.turn");
      case "heist": return tn("g.prompt.heist", { heist: Cards.heistName(v.heist),
        needs: el("span", { class: "needs" }, needChips(v)) });
      case "reward": return t("g.prompt.reward." + v.rewards[0],
        { n: v.diversions_left });
      case "pass_discard": return t("g.prompt.pass_discard");
      case "resources": return t("g.prompt.resources");
      case "hospital": return t("g.prompt.hospital");
      case "end": return t("g.prompt.secret_society");
      default: return t("g.prompt.wait");
    }
  }

  function prompt(ctx) {
    const v = ctx.view;
    if (!v) return [];
    if (v.stage === "over") return [el("p", {}, t("g.prompt.over"))];
    if (ctx.seat === null || !ctx.legal.length) return ctx.waiting(v.to_act);
    const { loose } = grouped(ctx);
    return [el("p", { class: "ask" }, ask(ctx)), el("div", { class: "buttons" }, loose)];
  }

  // --- the board ---------------------------------------------------------------------------

  function status(v) {
    const chapter = Cards.CHAPTERS[v.chapter - 1];
    const items = [
      t("g.chapter", { name: t("chapter." + chapter), n: v.chapter }),
      t("g.gangster_deck", { n: v.gangster_deck }),
      t("g.heist_deck", { n: v.heist_decks[v.chapter - 1] }),
      v.chapter === 3 ? t("g.dom_snitches", { n: v.domination_snitches }) : null,
      v.extra_turn ? t("g.extra_turn") : null,
    ].filter(Boolean);
    return el("div", { class: "info" }, items.map((x) => el("span", {}, x)));
  }

  // The six skills' glyphs with their names (the rules' colours and names).
  function legend() {
    return el("div", { class: "legend", "aria-label": t("g.legend") },
      el("span", { class: "legend-title" }, t("g.legend")),
      Cards.SKILLS.map((s) => el("span", { class: "total" }, Cards.glyph(s), t("skill." + s))));
  }

  // A row may run short or empty (lost gangsters leave the game): ``empty`` says so.
  function row(title, cards, draw, empty) {
    return el("section", { class: "row-box", "aria-label": title },
      el("h2", {}, title),
      cards.length || !empty ? null : el("p", { class: "empty" }, empty),
      el("div", { class: "cards", role: "list" },
        cards.map((id) => el("div", { role: "listitem" }, draw(id)))));
  }

  function currentHeist(ctx, groups) {
    const v = ctx.view;
    if (v.heist === null) return null;
    const gang = members(v);
    return el("section", { class: "heist-now", "aria-label": t("g.current_heist") },
      el("h2", {}, t("g.current_heist"), " — ", ctx.names[v.active]),
      el("div", { class: "cards" }, Cards.heist(v.heist, { marked: true }),
        v.committed.map((id) => Cards.gangster(id, { member: gang[id] }))),
      v.stage === "heist"
        ? el("p", {}, tn("g.still_needed", { needs: el("span", { class: "needs" }, needChips(v)) }))
        : null,
      v.rewards.length
        ? el("p", {}, t("g.rewards_left", { list: v.rewards.map((r) => t("reward." + r))
          .join(", ") })) : null,
      groups.byCard[v.heist] ? el("div", { class: "buttons" }, groups.byCard[v.heist]) : null);
  }

  function playerPanel(ctx, p, groups) {
    const v = ctx.view;
    const skills = v.skills.map((s, i) => p.skills[i]
      ? el("span", { class: "total" }, Cards.glyph(s, t("skill." + s)), "×" + p.skills[i]) : null);
    const heists = p.heists === null
      ? t("g.heists_hidden", { n: p.heists_completed })
      : t("g.heists_shown", { n: p.heists_completed, infl: p.heist_influence });
    const owes = v.owed.filter((o) => o.seat === p.seat);
    return el("section", {
      class: "player" + (v.to_act.includes(p.seat) ? " active" : "")
        + (p.seat === ctx.seat ? " mine" : ""),
      "aria-label": ctx.names[p.seat], dataset: { seat: p.seat },
    },
      el("h2", {}, seatMark(p.seat), " ", ctx.names[p.seat],
        el("span", { class: "money-big", title: t("g.money") }, "$" + p.money),
        el("span", { class: "sub" }, heists)),
      el("div", { class: "totals" }, skills),
      resourceBox(ctx, p, groups),
      owes.length ? el("p", { class: "owes" }, owes.map((o) =>
        t("g.owes", { reason: t("g.reason." + o.reason) }))) : null,
      groups.byPlayer[p.seat] ? el("div", { class: "buttons" }, groups.byPlayer[p.seat]) : null,
      el("div", { class: "cards gang", role: "list" }, p.gang.map((m) =>
        el("div", { role: "listitem" }, Cards.gangster(m.card, {
          member: m, marked: v.committed.includes(m.card), actions: groups.byCard[m.card],
        })))),
      p.heists && p.heists.length ? el("details", { class: "taken" },
        el("summary", {}, t("g.heists_taken")),
        el("div", { class: "cards mini" }, p.heists.map((h) => Cards.heist(h)))) : null);
  }

  // --- the resources module ----------------------------------------------------------------

  // A resource card face up (its required skills, ability, influence and state) or, for null,
  // face down; drawn with the heist and snitch cards' styles.
  function resourceCard(id, opts) {
    opts = opts || {};
    if (id === null) {
      return el("div", { class: "card scard rcard facedown", role: "group",
        "aria-label": t("g.res.face_down") }, el("span", { class: "hname" }, t("g.res.face_down")));
    }
    const r = RESOURCES[id];
    const state = opts.state ? t("g.res.state." + opts.state) : null;
    const infl = r.max_influence ? t("g.res.media_influence", { n: r.max_influence })
      : "★" + r.influence;
    return el("div", {
      class: "card hcard rcard" + (opts.state ? " " + opts.state : ""), role: "group",
      "aria-label": [t("resource." + id + ".name"), t("resource." + id + ".ability"), state]
        .filter(Boolean).join(" · "),
      dataset: { card: id },
    },
      el("span", { class: "hname" }, t("resource." + id + ".name")),
      el("span", { class: "needs", title: t("g.res.needs") }, Cards.SKILLS.flatMap((s) =>
        Array.from({ length: r.requires[s] || 0 }, () => Cards.glyph(s, t("skill." + s))))),
      el("span", { class: "special" }, t("resource." + id + ".ability")),
      el("span", { class: "pays" }, el("span", { class: "infl" }, infl)),
      state ? el("span", { class: "state" }, state) : null,
      opts.actions && opts.actions.length ? el("span", { class: "card-actions" }, opts.actions)
        : null);
  }

  // A player's resource card (both dealt ones while the player chooses), 911's hospital, and
  // for the viewer the deck tops only they saw (910, 912), with their buttons.
  function resourceBox(ctx, p, groups) {
    const v = ctx.view;
    if (!v.options.resources) return null;
    const state = p.resource_discarded ? "discarded" : p.resource_active ? "active" : "inactive";
    const cards = p.dealt.length && !p.resource_chosen
      ? p.dealt.map((id) => resourceCard(id, { actions: groups.byCard[id] }))
      : p.resource_chosen ? [resourceCard(p.resource, { state: p.resource === null ? null : state })]
        : [];
    const peeks = [];
    if (p.peek_heist !== null) {
      peeks.push(el("p", { class: "peek" }, t("g.res.peek_heist")), Cards.isSnitch(p.peek_heist)
        ? Cards.snitch(p.peek_heist) : Cards.heist(p.peek_heist, { actions: groups.byCard[p.peek_heist] }));
    }
    if (p.peek_gangster !== null) {
      peeks.push(el("p", { class: "peek" }, t("g.res.peek_gangster")),
        Cards.gangster(p.peek_gangster, { actions: groups.byCard[p.peek_gangster] }));
    }
    return el("div", { class: "resources", role: "group", "aria-label": t("g.res.title") },
      el("div", { class: "cards mini" }, cards),
      p.hospital.length ? el("div", { class: "hospital", "aria-label": t("g.res.hospital") },
        el("span", { class: "sub" }, t("g.res.hospital")),
        el("div", { class: "cards mini" }, p.hospital.map((id) => Cards.gangster(id)))) : null,
      peeks.length ? el("div", { class: "cards mini peeks" }, peeks) : null);
  }

  function board(ctx) {
    const v = ctx.view;
    if (!v) return [];
    const groups = grouped(ctx);
    const mine = ctx.seat === null ? null : v.players[ctx.seat];
    const others = v.players.filter((p) => p.seat !== ctx.seat);
    return [
      status(v),
      legend(),
      el("div", { class: "rows" },
        row(t("g.heist_row"), v.heist_row, (id) => Cards.heist(id,
          { actions: groups.byCard[id], marked: id === v.heist })),
        // Empty for want of gangsters only once the deck is (before the first deal it is full).
        row(t("g.market"), v.market, (id) => Cards.gangster(id, { actions: groups.byCard[id] }),
          v.gangster_deck ? null : t("g.market_empty"))),
      currentHeist(ctx, groups),
      el("div", { class: "players" }, others.map((p) => playerPanel(ctx, p, groups))),
      mine ? playerPanel(ctx, mine, groups) : null,
      v.snitches.length ? el("section", { class: "row-box" }, el("h2", {}, t("g.snitches")),
        el("div", { class: "cards mini" }, v.snitches.map((s) => Cards.snitch(s,
          s >= 431 ? v.options.domination_snitches[s - 431] : undefined)))) : null,
    ];
  }

  function seatMark(seat) {
    return el("span", { class: "seat-no" }, String(seat + 1));
  }

  // --- the log -----------------------------------------------------------------------------

  function describe(e, names) {
    const who = (s) => el("strong", {}, names[s]);
    const g = (id) => el("span", { class: "chip" }, Cards.GANGSTERS[id] ? cardName(id) : id);
    const h = (id) => el("span", { class: "chip heist" }, Cards.heistName(id));
    const money = (list) => list.map((n, s) => names[s] + " $" + n).join(", ");
    // Only the seats that got something: a cooperation reward or an income of $0 says nothing.
    const paid = (list) => list.map((n, s) => n ? names[s] + " $" + n : null)
      .filter(Boolean).join(", ");
    const seats = (list) => list.map((s) => names[s]).join(", ");
    // Optional clauses of a line, each its own caption (a sentence in either language).
    const also = (line, ...clauses) =>
      line.concat(...clauses.filter(Boolean).map((c) => [" "].concat(c)));
    switch (e.type) {
      case "game_started": return also(tn("g.ev.started", { name: who(e.start_player) }),
        tn("g.ev.start_money", { money: money(e.money) }),
        tn("g.ev.bosses", { list: e.bosses.map((b, s) => el("span", {}, names[s], " ", g(b))) }));
      case "cards_dealt": return tn("g.ev.dealt." + e.row, { cards: e.cards.map((c) =>
        e.row === "heists" ? (Cards.isSnitch(c) ? t("gangsta.snitch") : h(c)) : g(c)) });
      case "deck_reshuffled": return tn("g.ev.reshuffled." + e.row, { n: e.size });
      case "snitch_shuffled_back": return tn("g.ev.snitch_back", {});
      case "snitch_revealed": return also(tn("g.ev.snitch", { n: e.informants,
        paid: money(e.payments) }),
        e.discards.length ? tn("g.ev.snitch_discards", { list: seats(e.discards) }) : null);
      case "turn_started": return also(tn(e.synchronised ? "g.ev.turn_sync" : "g.ev.turn",
        { name: who(e.seat) }), e.extra ? t("g.ev.turn_extra") : null,
        e.free_readies ? t("g.ev.free_readies", { n: e.free_readies }) : null);
      case "gangster_readied": return tn("g.ev.readied", { name: who(e.seat), card: g(e.gangster),
        n: e.cost });
      case "gangster_hired": return tn(e.from_deck ? "g.ev.hired_deck"
        : e.fast ? "g.ev.hired_fast" : "g.ev.hired",
        { name: who(e.seat), card: g(e.gangster), n: e.cost });
      case "heist_chosen": return tn(e.from_deck ? "g.ev.heist_chosen_deck" : "g.ev.heist_chosen",
        { name: who(e.seat), heist: h(e.heist) });
      case "heist_cancelled": return tn("g.ev.heist_cancelled", { name: who(e.seat),
        heist: h(e.heist) });
      case "gangster_committed": return tn("g.ev.committed", { name: who(e.seat),
        card: g(e.gangster) });
      case "heist_completed": return also(tn("g.ev.heist_done", { name: who(e.seat),
        heist: h(e.heist), n: e.money }),
        e.coop_money.some((n) => n) ? tn("g.ev.coop_money", { list: paid(e.coop_money) }) : null);
      case "skill_learned": return tn("g.ev.learned", { name: who(e.seat), card: g(e.gangster),
        skill: t("skill." + e.skill) });
      case "money_stolen": return tn("g.ev.stolen", { name: who(e.seat), target: who(e.target),
        n: e.amount });
      case "gangster_diverted": return tn("g.ev.diverted", { name: who(e.seat), card: g(e.gangster) });
      case "assassination_ordered": return tn("g.ev.assassination", { name: who(e.seat),
        target: who(e.target) });
      case "gang_rallied": return tn("g.ev.rallied", { name: who(e.seat) });
      case "play_again": return tn(e.granted ? "g.ev.play_again" : "g.ev.play_again_lost",
        { name: who(e.seat) });
      case "reward_skipped": return tn(e.forced ? "g.ev.reward_impossible" : "g.ev.reward_skipped",
        { name: who(e.seat), reward: t("reward." + e.reward) });
      case "passed": return tn("g.ev.passed", { name: who(e.seat), n: e.income });
      case "row_card_discarded": return tn("g.ev.row_discard", { name: who(e.seat),
        card: e.row === "heists" ? h(e.card) : g(e.card) });
      case "pass_discard_skipped": return tn("g.ev.pass_discard_skipped", { name: who(e.seat) });
      case "gangster_discarded": return tn(e.hospital ? "g.ev.discarded_hospital"
        : e.chosen_by === e.seat ? "g.ev.discarded"
        : "g.ev.discarded_for", { name: who(e.seat), card: g(e.gangster),
        reason: t("g.reason." + e.reason), chooser: who(e.chosen_by) });
      case "chapter_changed": return also(tn("g.ev.chapter", { name: t("chapter."
        + Cards.CHAPTERS[e.chapter - 1]) }),
        e.income.some((n) => n) ? tn("g.ev.opportunity", { income: paid(e.income) }) : null);
      case "gang_war": return also(tn("g.ev.gang_war",
        { list: e.mercenaries.map((n, s) => names[s] + " " + n).join(", ") }),
        e.losers.length ? tn("g.ev.gang_war_losers", { list: seats(e.losers) }) : null,
        e.chooser !== null ? tn("g.ev.gang_war_chooser", { name: who(e.chooser) }) : null);
      case "game_ended": return [t("reason." + e.reason), " "].concat(tn("g.ev.ended", {
        scores: e.scores.map((score, s) =>
        t(e.resource_influence.length ? "g.ev.score_resources" : "g.ev.score", { name: names[s],
          n: score, gang: e.gang_influence[s], heists: e.heist_influence[s],
          res: e.resource_influence[s], money: e.money_bonus[s], size: e.size_bonus[s] }))
          .join("; ") }));
      default: return describeResource(e, who, g, h) || [e.type];
    }
  }

  // Captions of the resources module's events (a card only its owner saw is null for others).
  function describeResource(e, who, g, h) {
    const r = (id) => el("span", { class: "chip resource" }, t("resource." + id + ".name"));
    const used = (key, id) => id === null ? tn(key + "_declined", { name: who(e.seat) })
      : tn(key + "_used", { name: who(e.seat), card: g(id) });
    switch (e.type) {
      case "resources_dealt": return tn("g.ev.resources_dealt", {});
      case "resource_kept": return e.card === null
        ? tn("g.ev.resource_kept_hidden", { name: who(e.seat) })
        : tn("g.ev.resource_kept", { name: who(e.seat), card: r(e.card) });
      case "resources_revealed": return tn("g.ev.resources_revealed",
        { list: e.cards.map((c) => t("resource." + c + ".name")).join(", ") });
      case "resource_activated": return tn("g.ev.resource_activated",
        { name: who(e.seat), card: r(e.card) });
      case "resource_discarded": return tn("g.ev.resource_discarded",
        { name: who(e.seat), card: r(e.card) });
      case "money_printed": return tn("g.ev.money_printed", { name: who(e.seat), n: e.amount });
      case "heist_peeked": return e.card === null
        ? tn("g.ev.heist_peeked_hidden", { name: who(e.seat) })
        : tn("g.ev.heist_peeked", { name: who(e.seat),
          card: Cards.isSnitch(e.card) ? t("gangsta.snitch") : h(e.card) });
      case "gangster_peeked": return e.card === null
        ? tn("g.ev.gangster_peeked_hidden", { name: who(e.seat) })
        : tn("g.ev.gangster_peeked", { name: who(e.seat), card: g(e.card) });
      case "headquarters_used": return tn("g.ev.headquarters_used",
        { name: who(e.seat), n: e.cost });
      case "skill_ignored": return tn("g.ev.skill_ignored",
        { name: who(e.seat), skill: t("skill." + e.skill) });
      case "private_jet_used": return used("g.ev.private_jet", e.gangster);
      case "secret_society_used": return used("g.ev.secret_society", e.gangster);
      case "hospital_discharged": return e.gangsters.length
        ? tn("g.ev.hospital_discharged", { name: who(e.seat), n: e.gangsters.length })
        : tn("g.ev.hospital_declined", { name: who(e.seat) });
      default: return null;
    }
  }

  function cardName(id) {
    const c = Cards.GANGSTERS[id];
    const skills = Cards.SKILLS.filter((s) => c.skills[s]).map((s) => t("skill.short." + s)
      + (c.skills[s] > 1 ? "×" + c.skills[s] : ""));
    return (c.boss ? t("gangsta.boss") + " " : "") + t("clan." + c.clan) + " (" + skills.join("/") + ")";
  }

  // The completed heists of every player at each step of a finished game's replay (they are
  // hidden only while the game runs; history names every heist taken).
  function heists(events, seats) {
    const taken = Array.from({ length: seats }, () => []);
    return events.map((e) => {
      if (e.type === "heist_completed") taken[e.seat].push(e.heist);
      return taken.map((list) => [...list]);
    });
  }

  // A replay step of a finished game: the view with every player's heists taken by then
  // (``revealed``: heists()), and their influence.
  function replayStep(view, taken) {
    const players = view.players.map((p, seat) => {
      const influence = taken[seat].reduce((sum, h) => sum + Cards.HEISTS[h].reward.influence, 0);
      return Object.assign({}, p, { heists: taken[seat], heist_influence: influence });
    });
    return { view: Object.assign({}, view, { players }), hands: null };
  }

  // A command in words (the review's move played and best move): its button's label at the
  // version it was decided at (`view`), then the card or player it names.
  function describeCommand(c, names, seat, view) {
    const field = CARD_FIELD[c.type];
    const id = field === undefined ? null : c[field];
    const card = id === null ? null : refusalParam(field, id) || t("resource." + id + ".name");
    return [el("strong", {}, names[seat]), ": ", label({ view, seat }, c),
      card === null ? null : [" — ", el("span", { class: "chip" }, card)],
      c.target === undefined ? null : [" — ", el("strong", {}, names[c.target])]];
  }

  // What a seat could know at a decision (the review's knowledge, docs/players.md): the cards it
  // has not seen, and each opponent's influence of heists (the history tells it exactly; the
  // view alone only bounds it). Pairs of a term and its value.
  function knowledge(k, names) {
    const chip = (text) => el("span", { class: "chip" }, text);
    const heist = (id) => chip(Cards.isSnitch(id) ? t("gangsta.snitch") : Cards.heistName(id));
    return [
      [t("review.know.g.gangsters", { n: k.gangster_deck.length }),
        k.gangster_deck.map((id) => chip(cardName(id)))],
      [t("review.know.g.heists", { n: k.heist_deck.length }), k.heist_deck.map(heist)],
      k.resources.length ? [t("review.know.g.resources"),
        k.resources.map((id) => chip(t("resource." + id + ".name")))] : null,
      ...k.opponents.map((o) => [names[o.seat], t("review.know.g.opponent", { heists: o.heists,
        n: o.influence, low: o.low, high: o.high })]),
    ].filter(Boolean);
  }

  // A refusal's param as the page names it: a gangster or a heist by its card.
  function refusalParam(name, value) {
    if (name === "heist" && Cards.HEISTS[value]) return Cards.heistName(value);
    if ((name === "gangster" || name === "card") && Cards.GANGSTERS[value]) return cardName(value);
    if (name === "card" && Cards.HEISTS[value]) return Cards.heistName(value);
    return null;
  }

  return { EVENTS, reset, prompt, board, describe, describeCommand, knowledge, seatMark, hireCost,
           refusalParam, revealed: heists, replayStep };
})();
