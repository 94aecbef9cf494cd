// Lists of games: the start page's "your games", the open games (lobby) and "your turn".
"use strict";

const Lists = (() => {
  const { api, el, t, showError, seatName, pageUrl } = Omerta;

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

  function row(entry, kind) {
    const mine = entry.your_seat !== null;
    const myTurn = mine && entry.to_act.includes(entry.your_seat);
    const status = entry.over ? t("list.over")
      : myTurn ? t("list.your_turn") : mine ? t("list.waiting") : null;
    const links = [];
    if (kind === "lobby" && !mine) {
      links.push(el("button", { type: "button", class: "primary", onclick: () => join(entry) },
        t("list.join")));
      links.push(el("a", { class: "button", href: pageUrl(entry.game_id) }, t("list.watch")));
    } else {
      links.push(el("a", { class: "button" + (myTurn ? " primary" : ""),
        href: pageUrl(entry.game_id) }, entry.over ? t("list.watch") : t("list.open")));
    }
    links.push(el("a", { class: "button", href: pageUrl(entry.game_id, "replay") },
      t("list.replay")));
    return el("li", { class: "game-entry" + (myTurn ? " my-turn" : ""),
      dataset: { gameId: entry.game_id } },
      el("span", { class: "kind" }, t("game." + entry.game)),
      el("span", { class: "who" }, entry.seats.map(seatName).join(" · ")),
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
      box.replaceChildren(games.length
        ? el("ul", { class: "games" }, games.map((g) => row(g, kind)))
        : el("p", { class: "empty" }, t("list.empty_" + kind)));
    } catch (err) {
      showError(err);
    }
  }

  // A page that is one list, refreshed now and then (moves arrive while it is open).
  function page(kind) {
    const box = document.getElementById(kind);
    fill(box, kind);
    setInterval(() => fill(box, kind), 10000);
  }

  return { fill, page };
})();
