// Gangsta!'s cards: gangsters and bosses with their skills, heists with their rewards,
// snitches, resource cards.
"use strict";

Object.assign(Cards, (() => {
  const { el, t } = Omerta;
  const { DATA, glyph } = Cards;

  Cards.addGlyphs({
    // The skills: a hat, a pistol, a badge, a crosshair, a fist, a laptop.
    leader: "M3 16h18v2.5H3zM7 16l1.2-8q3.8-2 7.6 0L17 16z",
    mercenary: "M3 7h17v4h-9l-1.5 6h-4l1.5-6H3zM12 11h3v2h-3z",
    informant: "M12 2l2.9 6.3 6.9.7-5.2 4.6 1.5 6.8L12 17l-6.1 3.4 1.5-6.8L2.2 9l6.9-.7z",
    sniper: "M11 2h2v5h-2zM11 17h2v5h-2zM2 11h5v2H2zM17 11h5v2h-5zM12 6a6 6 0 1 0 .01 0zM12 8.5a3.5 3.5 0 1 1-.01 0z",
    brawler: "M5 10a2 2 0 0 1 3.5-1.3A2 2 0 0 1 12 8a2 2 0 0 1 3.5.7A2 2 0 0 1 19 10v5a6 6 0 0 1-6 6h-2a6 6 0 0 1-6-6z",
    hacker: "M5 5h14v10H5zM7 7v6h10V7zM2 17h20l-2 3H4z",
  });

  const SKILLS = DATA.skills.map((s) => s.key);
  const GANGSTERS = {};
  for (const g of DATA.bosses) GANGSTERS[g.id] = Object.assign({ boss: true }, g);
  for (const g of DATA.gangsters) GANGSTERS[g.id] = g;
  const HEISTS = {};
  const CHAPTERS = ["genesis", "gang_war", "domination"];
  for (const [chapter, list] of Object.entries(DATA.heists)) {
    for (const h of list) HEISTS[h.id] = Object.assign({ chapter }, h);
  }
  const SNITCHES = {};
  for (const [chapter, list] of Object.entries(DATA.snitches)) {
    for (const s of list) SNITCHES[s.id] = Object.assign({ chapter }, s);
  }

  function heistName(id) {
    const h = HEISTS[id];
    return h ? t("heist." + h.name.toLowerCase().replace(/ /g, "_")) : String(id);
  }

  function skillChips(counts, learned) {
    const chips = [];
    for (const skill of SKILLS) {
      const n = (counts[skill] || 0);
      for (let i = 0; i < n; i++) chips.push(glyph(skill, t("skill." + skill)));
    }
    if (learned) {
      const chip = glyph(learned, t("gangsta.learned", { skill: t("skill." + learned) }));
      chip.classList.add("learned");
      chips.push(chip);
    }
    return el("span", { class: "skills" }, chips);
  }

  function gangsterLabel(id, member) {
    const g = GANGSTERS[id];
    const skills = SKILLS.filter((s) => g.skills[s]).map((s) =>
      t("skill." + s) + (g.skills[s] > 1 ? " ×" + g.skills[s] : ""));
    if (member && member.learned) skills.push(t("skill." + member.learned));
    const parts = [g.boss ? t("gangsta.boss") : t("gangsta.gangster"), t("clan." + g.clan),
      skills.join(", ")];
    if (!g.boss) parts.push(t("gangsta.cost", { n: g.cost }), t("gangsta.influence", { n: g.influence }));
    if (member) parts.push(t(member.engaged ? "gangsta.engaged" : "gangsta.available"));
    return parts.join(" · ");
  }

  // A gangster or Boss; member: {engaged, learned} when in a gang. actions: buttons below.
  function gangster(id, opts) {
    opts = opts || {};
    const g = GANGSTERS[id];
    const member = opts.member;
    return el("div", {
      class: "card gcard clan-" + g.clan + (g.boss ? " boss" : "")
        + (member && member.engaged ? " engaged" : "") + (opts.marked ? " marked" : "")
        + (opts.actions && opts.actions.length ? " has-actions" : ""),
      role: "group",
      "aria-label": gangsterLabel(id, member),
      dataset: { card: id },
    },
      el("span", { class: "ghead" },
        g.boss ? el("span", { class: "tagline" }, t("gangsta.boss"))
          : el("span", { class: "cost", title: t("gangsta.cost", { n: g.cost }) }, "$" + g.cost),
        el("span", { class: "clan" }, t("clan." + g.clan))),
      skillChips(g.skills, member && member.learned),
      el("span", { class: "gfoot" },
        g.boss ? el("span", { class: "money" }, t("gangsta.start_money", { n: g.start_money }))
          : el("span", { class: "infl", title: t("gangsta.influence", { n: g.influence }) },
            "★" + g.influence),
        member ? el("span", { class: "state" }, t(member.engaged ? "gangsta.engaged"
          : "gangsta.available")) : null),
      opts.actions && opts.actions.length ? el("span", { class: "card-actions" }, opts.actions) : null);
  }

  // A heist's special rewards: [reward key, text on the card] in the rules' order.
  function rewardTags(h) {
    const r = h.reward;
    const tags = [];
    if (r.fast_recruit) tags.push(["fast_recruit", t("reward.fast_recruit")]);
    if (r.learn_skill) tags.push(["learn_skill", t("reward.learn", { skill: t("skill." + r.learn_skill) })]);
    if (r.theft) tags.push(["theft", t("reward.theft_n", { n: r.theft })]);
    if (r.diversion) tags.push(["diversion", t("reward.diversion_n", { n: r.diversion })]);
    if (r.assassination) tags.push(["assassination", t("reward.assassination")]);
    if (r.rally) tags.push(["rally", t("reward.rally")]);
    if (r.play_again) tags.push(["play_again", t("reward.play_again")]);
    return tags;
  }

  // A special reward with what it does (the rules page's words), for mouse and keyboard alike.
  function rewardTip([key, text]) {
    return Omerta.tip(text, t("tip.reward." + key));
  }

  // A heist card: what it requires (glyphs) and what it pays.
  function heist(id, opts) {
    opts = opts || {};
    const h = HEISTS[id];
    const r = h.reward;
    const tags = rewardTags(h);
    const label = [heistName(id), t("chapter." + h.chapter),
      h.cooperative ? t("gangsta.cooperative") : null,
      t("gangsta.money", { n: r.money }), t("gangsta.influence", { n: r.influence }),
      r.coop_money ? t("gangsta.coop_money", { n: r.coop_money }) : null, ...tags.map((x) => x[1])]
      .filter(Boolean).join(" · ");
    return el("div", {
      class: "card hcard ch-" + h.chapter + (h.cooperative ? " coop" : "")
        + (opts.marked ? " marked" : "") + (opts.actions && opts.actions.length ? " has-actions" : ""),
      role: "group", "aria-label": label, dataset: { card: id },
    },
      el("span", { class: "hname" }, heistName(id)),
      h.cooperative ? el("span", { class: "coop-tag" }, t("gangsta.cooperative")) : null,
      el("span", { class: "needs" }, skillChips(h.requires)),
      el("span", { class: "pays" },
        el("span", { class: "money", title: t("gangsta.money", { n: r.money }) }, "$" + r.money),
        el("span", { class: "infl", title: t("gangsta.influence", { n: r.influence }) },
          "★" + r.influence),
        r.coop_money ? el("span", { class: "coopm", title: t("gangsta.coop_money",
          { n: r.coop_money }) }, t("gangsta.coop_short", { n: r.coop_money })) : null),
      tags.length ? el("span", { class: "special" }, tags.map(rewardTip)) : null,
      opts.actions && opts.actions.length ? el("span", { class: "card-actions" }, opts.actions) : null);
  }

  function snitch(id, informants) {
    const s = SNITCHES[id];
    const n = informants !== undefined ? informants : s.informants;
    return el("div", { class: "card scard", role: "group",
      "aria-label": t("gangsta.snitch_n", { n }) },
      el("span", { class: "hname" }, t("gangsta.snitch")),
      el("span", { class: "needs" }, Array.from({ length: n }, () =>
        glyph("informant", t("skill.informant")))));
  }

  function isSnitch(id) { return id in SNITCHES; }

  // A resource card (901-912) by name, with its ability as an explanation (GANGSTA.md,
  // "Resources module"); the texts are catalogue keys resource.<id>.name / .ability.
  function resourceText(id) {
    return { name: t("resource." + id + ".name"), ability: t("resource." + id + ".ability") };
  }

  function resourceTip(id) {
    const { name, ability } = resourceText(id);
    return Omerta.tip(name, ability);
  }

  return { gangster, heist, snitch, isSnitch, heistName, resourceText, resourceTip, GANGSTERS,
           HEISTS, SKILLS, CHAPTERS };
})());
