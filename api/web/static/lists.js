// Lists of games: the start page's "your games", the open games (lobby) and "your turn".
"use strict";

const Lists = (() => {
  const { api, el, t, showError, seatNames, pageUrl } = Omerta;

  function when(ms) {
    return new Date(ms).toLocaleString(Omerta.LANG === "ja" ? "ja-JP" : "en-GB",
      { dateStyle: "short", timeStyle: "short" });
  }

  async function join(entry) {
    try {
      await api("POST", `/games/${entry.game_id}/join`, {});
      location.href = pageUrl(entry.game_id);
    } catch (err) {
      showError(err);
    }
  }

  // A finished game of the player's: won, lost or shared, with the scores in seat order.
  function outcome(entry) {
    const { winners, scores } = entry.result;
    const key = !winners.includes(entry.your_seat) ? "list.lost"
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
      links.push(el("button", { type: "button", class: "primary", onclick: () => join(entry) },
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
      el("span", { class: "who" }, seatNames(entry.seats).join(" · ")),
      el("span", { class: "when" }, t("list.created", { when: when(entry.created) }),
        status ? el("strong", { class: "status" }, " · " + status) : null),
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

  // A list kept fresh while it is shown: moves, seats taken and ends arrive meanwhile. A light
  // poll of the read models, not a stream: the lists come from what the workers project after
  // each move of any of the player's games, and no per-player stream of those exists (a game's
  // event stream covers one game only); one cheap read every few seconds, none while the tab
  // is hidden.
  const POLL_MS = 4000;
  function keepFresh(box, kind) {
    fill(box, kind);
    setInterval(() => { if (!document.hidden) fill(box, kind); }, POLL_MS);
  }

  // A page that is one list.
  function page(kind) { keepFresh(document.getElementById(kind), kind); }

  return { fill, keepFresh, page, POLL_MS };
})();
