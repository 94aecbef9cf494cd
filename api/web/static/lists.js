// Lists of games: the start page's "your games", the open games (lobby) and "your turn".
"use strict";

const Lists = (() => {
  const { api, el, t, tn, showError, seatNames, aiBadge, pageUrl, when } = Omerta;

  // How long ago, roughly: "3 h", "2 d" (the client's clock against the server's times).
  function ago(ms) {
    const minutes = Math.floor(Math.max(0, Date.now() - ms) / 60000);
    if (minutes < 1) return t("time.now");
    if (minutes < 60) return t("time.minutes", { n: minutes });
    const hours = Math.floor(minutes / 60);
    return hours < 48 ? t("time.hours", { n: hours }) : t("time.days", { n: Math.floor(hours / 24) });
  }

  // A running game: whose move it is, and how long the player's seat has waited on its own.
  function progress(entry) {
    if (entry.over || !entry.to_act.length) return null;
    const names = seatNames(entry.seats);
    return el("span", { class: "progress" },
      el("span", { class: "to-move" },
        t("list.to_move", { names: entry.to_act.map((s) => names[s]).join(", ") })),
      entry.waiting_since ? el("span", { class: "waited", dataset: { since: entry.waiting_since } },
        " · " + t("list.waited", { time: ago(entry.waiting_since) })) : null);
  }

  // The time control, and the countdown of the caller's seat (else the first to run out).
  function clock(entry) {
    if (!entry.clock || entry.over) return null;
    const deadlines = entry.deadlines || {};
    const mine = deadlines[entry.your_seat];
    const first = mine ?? Math.min(...Object.values(deadlines));
    return el("span", { class: "clock" }, Clock.describe(entry.clock, entry.on_timeout),
      Number.isFinite(first) ? [" · ", Clock.countdown(first)] : null);
  }

  async function join(entry, button) {
    try {
      await Omerta.whileBusy([button], () => Omerta.create(`/games/${entry.game_id}/join`, {}));
      location.href = pageUrl(entry.game_id);
    } catch (err) {
      showError(err);
    }
  }

  // A finished game of the player's: won, lost, shared or a draw (everybody won, as the
  // profile page counts it), with the scores in seat order; or expired, nobody having joined it.
  function outcome(entry) {
    const { winners, scores, reason, details } = entry.result;
    if (reason === "expired") return t("reason.expired", details);
    const key = !winners.includes(entry.your_seat) ? "list.lost"
      : winners.length === scores.length ? "list.draw"
        : winners.length > 1 ? "list.shared" : "list.won";
    return t(key, { scores: scores.join(" : ") });
  }

  function row(entry, kind) {
    const mine = entry.your_seat !== null;
    const myTurn = mine && entry.to_act.includes(entry.your_seat);
    const status = entry.over ? (mine && entry.result ? outcome(entry) : t("list.over"))
      : myTurn ? t("list.your_turn") : mine ? t("list.waiting") : null;
    const links = [];
    if (kind === "lobby" && !mine) {
      links.push(el("button", { type: "button", class: "primary", onclick: (event) => join(entry, event.currentTarget) },
        t("list.join")));
      links.push(el("a", { class: "button", href: pageUrl(entry.game_id) }, t("list.watch")));
    } else {
      links.push(el("a", { class: "button" + (myTurn ? " primary" : ""),
        href: pageUrl(entry.game_id) },
        entry.over ? t(mine ? "list.result" : "list.watch") : t("list.open")));
    }
    links.push(el("a", { class: "button", href: pageUrl(entry.game_id, "replay") },
      t("list.replay")));
    return el("li", { class: "game-entry" + (myTurn ? " my-turn" : ""),
      dataset: { gameId: entry.game_id } },
      el("span", { class: "kind" }, t("game." + entry.game)),
      el("span", { class: "who" }, seatNames(entry.seats).map((name, i) =>
        [i ? " · " : "", name, entry.seats[i].kind === "ai" ? " " : "", aiBadge(entry.seats[i])])),
      el("span", { class: "when" }, tn("list.created", { when: when(entry.created) }),
        status ? el("strong", { class: "status" }, " · " + status) : null),
      progress(entry),
      clock(entry),
      el("span", { class: "links" }, links));
  }

  async function fill(box, kind) {
    const path = { lobby: "/lobby", inbox: "/me/inbox", mine: "/me/games" }[kind];
    try {
      if (kind !== "lobby" && !(await Omerta.me())) {
        box.replaceChildren(el("p", {}, el("a", { href: "/" }, t("list.need_name"))));
        return;
      }
      // In the API's order: the inbox lists the longest-waiting game first.
      const games = (await api("GET", path)).games;
      // Unchanged: keep the rows (and the focus of a keyboard user on one of their links).
      const key = JSON.stringify(games);
      if (box.dataset.shown === key) return;
      box.dataset.shown = key;
      box.replaceChildren(games.length
        ? el("ul", { class: "games" }, games.map((g) => row(g, kind)))
        : el("p", { class: "empty" }, t("list.empty_" + kind)));
    } catch (err) {
      showError(err);
    }
  }

  // A list kept fresh while it is shown: moves, seats taken and ends arrive meanwhile. The
  // player's own lists are read again whenever the player's stream (presence.js) says one of
  // their games was projected anew; the lobby holds others' games, which no stream of the
  // player's covers: a light poll of the read models, none while the tab is hidden. The
  // waited times grow by themselves.
  const POLL_MS = 4000;
  const CLOCK_MS = 30000;
  function keepFresh(box, kind) {
    fill(box, kind);
    if (kind === "lobby") {
      setInterval(() => { if (!document.hidden) fill(box, kind); }, POLL_MS);
    } else {
      document.addEventListener("omerta:inbox", () => fill(box, kind));
    }
    setInterval(() => {
      for (const span of box.querySelectorAll(".waited[data-since]")) {
        span.textContent = " · " + t("list.waited", { time: ago(Number(span.dataset.since)) });
      }
    }, CLOCK_MS);
  }

  // A page that is one list.
  function page(kind) { keepFresh(document.getElementById(kind), kind); }

  return { fill, keepFresh, page, POLL_MS };
})();
