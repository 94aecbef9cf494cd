// Gangsta!: why hiring or a heist is not on offer, the heist's Commit buttons within reach, and
// a warning before a hire that ends the game. The server's legal moves decide what is offered;
// these texts only explain, from the view.
"use strict";

const GameHelp = (() => {
  const { el, t } = Omerta;

  // Skills of a gang member, the learned one included.
  function skillsOf(member) {
    const have = Object.assign({}, Cards.GANGSTERS[member.card].skills);
    if (member.learned) have[member.learned] = (have[member.learned] || 0) + 1;
    return have;
  }

  function add(total, skills) {
    for (const [skill, n] of Object.entries(skills)) total[skill] = (total[skill] || 0) + n;
    return total;
  }

  // Skills of the Available gangsters of the given players.
  function available(players) {
    return players.flatMap((p) => p.gang).filter((m) => !m.engaged)
      .reduce((total, m) => add(total, skillsOf(m)), {});
  }

  // What keeps a heist from being started: the skills missing among the Available gangsters
  // (for a cooperative heist everyone's count, but the first must be the player's own).
  function heistBlock(v, seat, id) {
    const heist = Cards.HEISTS[id];
    const mine = v.players[seat];
    const have = available(heist.cooperative ? v.players : [mine]);
    const missing = Cards.SKILLS.filter((s) => (heist.requires[s] || 0) > (have[s] || 0))
      .map((s) => [s, heist.requires[s] - (have[s] || 0)]);
    if (missing.length) return { missing };
    const own = available([mine]);
    if (!Object.keys(heist.requires).some((s) => own[s])) return { ownFirst: true };
    return null;
  }

  const myTurn = (ctx) => ctx.view && ctx.view.stage === "turn" && ctx.legal.length
    && ctx.view.active === ctx.seat && !ctx.view.owed.length;

  // While a heist is being committed to, its Commit buttons are in the prompt too: the prompt
  // stays in view on a phone, the gang's cards may be far down the page.
  function commitBar(ctx) {
    const commits = ctx.legal.filter((c) => c.type === "commit");
    if (!commits.length) return [];
    return [el("div", { class: "buttons commit-bar", role: "group", "aria-label": t("g.act.commit") },
      commits.map((c) => {
        const g = Cards.GANGSTERS[c.gangster];
        const name = (g.boss ? t("gangsta.boss") + " " : "") + t("clan." + g.clan);
        return el("button", { type: "button", class: "act act-commit primary",
          dataset: { type: "commit", card: c.gangster }, onclick: () => ctx.send(c),
          "aria-label": t("g.act.commit") + ": " + name + " (" + Cards.SKILLS.filter((s) =>
            g.skills[s]).map((s) => t("skill.short." + s)).join(", ") + ")" },
          t("g.act.commit"), " ", name, Cards.SKILLS.filter((s) => g.skills[s]).map((s) =>
            Cards.glyph(s)));
      }))];
  }

  // What the prompt adds below the game's own: reasons for missing actions (and Commit buttons).
  function prompt(ctx) {
    if (ctx.view && ctx.view.stage === "heist") return commitBar(ctx);
    if (!myTurn(ctx)) return [];
    const v = ctx.view;
    const open = new Set(ctx.legal.map((c) => c.type));
    const out = [];
    if (!open.has("hire")) {
      const me = v.players[ctx.seat];
      const cheapest = Math.min(...v.market.map((id) => GameUI.hireCost(ctx, id)));
      out.push(["hire", v.market.length ? t("g.why.hire.money", { n: cheapest, money: me.money })
        : t("g.why.hire.empty")]);
    }
    if (!open.has("choose_heist")) {
      out.push(["choose_heist", v.heist_row.length ? t("g.why.heist.none")
        : t("g.why.heist.empty")]);
    }
    if (!out.length) return [];
    return [el("details", { class: "why-not" },
      el("summary", {}, t("game.why_title", { n: out.length })),
      el("ul", {}, out.map(([action, text]) => el("li", { dataset: { why: action } },
        el("strong", {}, t("g.why.action." + action)), " — ", text))))];
  }

  // On each heist of the row that cannot be started now: what it lacks.
  function annotate(board, ctx) {
    if (!myTurn(ctx)) return;
    const startable = new Set(ctx.legal.filter((c) => c.type === "choose_heist").map((c) => c.heist));
    for (const id of ctx.view.heist_row) {
      if (startable.has(id) || Cards.isSnitch(id)) continue;
      const card = board.querySelector(`.rows .hcard[data-card="${id}"]`);
      const block = heistBlock(ctx.view, ctx.seat, id);
      if (!card || !block) continue;
      const text = block.ownFirst ? t("g.why.own_first")
        : t("g.why.lacks", { skills: block.missing.map(([s, n]) =>
          t("skill.short." + s) + (n > 1 ? " ×" + n : "")).join(", ") });
      card.append(el("span", { class: "cannot" }, text));
      card.setAttribute("aria-label", card.getAttribute("aria-label") + " · " + text);
    }
  }

  // Scores from what the viewer may see: gangsters' influence, the viewer's own heists (and
  // everyone's with public_heist_influence), the money and size bonuses as they would be.
  function visibleScores(v, gangs, money) {
    const majority = (values) => {
      const top = Math.max(...values);
      const bonus = values.filter((x) => x === top).length === 1 ? 2 : 1;
      return values.map((x) => (x === top ? bonus : 0));
    };
    const clans = [...new Set(gangs.flat().map((id) => Cards.GANGSTERS[id].clan))];
    const size = v.options.clans
      ? clans.reduce((total, clan) => majority(gangs.map((g) =>
        g.filter((id) => Cards.GANGSTERS[id].clan === clan).length)).map((b, i) => total[i] + b),
      gangs.map(() => 0))
      : majority(gangs.map((g) => g.length));
    const cash = majority(money);
    return v.players.map((p, i) => gangs[i].reduce((sum, id) =>
      sum + (Cards.GANGSTERS[id].influence || 0), 0) + (p.heist_influence || 0) + cash[i] + size[i]);
  }

  // A hire (or fast recruitment) in Domination that makes the ninth gangster ends the game.
  function endWarning(ctx, command) {
    const v = ctx.view;
    if (!v || (command.type !== "hire" && command.type !== "fast_recruit") || v.chapter !== 3
        || v.players[ctx.seat].gang.length + 1 < 9) return null;
    const gangs = v.players.map((p) => p.gang.map((m) => m.card));
    gangs[ctx.seat].push(command.gangster);
    const money = v.players.map((p) => p.money);
    money[ctx.seat] -= GameUI.hireCost(ctx, command.gangster);
    const scores = visibleScores(v, gangs, money);
    const hidden = v.players.filter((p) => p.heist_influence === null && p.heists_completed);
    return {
      text: t("confirm.g.hire", { scores: scores.map((n, s) => ctx.names[s] + " " + n).join(" : ") }),
      yes: t("confirm.yes.hire"),
      note: [t("confirm.g.nine")].concat(hidden.length ? [t("confirm.g.hidden", { list: hidden
        .map((p) => t("confirm.g.hidden_of", { name: ctx.names[p.seat], n: p.heists_completed }))
        .join(", ") })] : []),
    };
  }

  return { prompt, endWarning, annotate };
})();
