// Clocks (issue 15): the time control in words, and live countdowns. Every element with a
// data-deadline (ms since the epoch, from the API) counts down each second on its own, without
// asking the server: the pages redraw those elements from the live updates they already get.
// On the game page it draws the seats' clocks (#clocks) from each game answer game.js fetches
// (the "omerta:game" event), and again after a projection the player's stream announces.
"use strict";

const Clock = (() => {
  const { el, t, seatNames } = Omerta;

  // A time control's length in words: "45 s", "30 min", "24 h", "3 d".
  function length(seconds) {
    if (seconds % 86400 === 0 && seconds >= 2 * 86400) return t("time.days", { n: seconds / 86400 });
    if (seconds % 3600 === 0) return t("time.hours", { n: seconds / 3600 });
    if (seconds >= 60 && seconds % 60 === 0) return t("time.minutes", { n: seconds / 60 });
    return seconds + " s";
  }

  // What is left, to the second: "1 d 02:03:04", "02:03:04", "03:04".
  function left(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const days = Math.floor(total / 86400);
    const pad = (n) => String(n).padStart(2, "0");
    const h = Math.floor(total / 3600) % 24, m = Math.floor(total / 60) % 60, s = total % 60;
    const clock = (days || h ? pad(h) + ":" : "") + pad(m) + ":" + pad(s);
    return days ? t("clock.days", { n: days }) + " " + clock : clock;
  }

  function describe(clock, onTimeout) {
    if (!clock) return t("clock.none");
    const control = clock.type === "per_move"
      ? t("clock.per_move", { time: length(clock.seconds) })
      : t("clock.bank", { initial: length(clock.initial), increment: length(clock.increment),
          cap: length(clock.cap ?? clock.initial) });
    if (!onTimeout) return control;
    const policy = onTimeout.policy === "forfeit" ? t("clock.forfeit")
      : t("clock.takeover", { level: t("ai." + onTimeout.level) });
    return control + " · " + policy;
  }

  function text(deadline) {
    const ms = deadline - Date.now();
    return ms > 0 ? t("clock.left", { time: left(ms) }) : t("clock.up");
  }

  // A countdown to ``deadline``; it ticks by itself (see ``tick``).
  function countdown(deadline, paused) {
    return el("span", { class: "countdown", dataset: { deadline } },
      text(deadline), paused ? " (" + t("clock.paused") + ")" : "");
  }

  function tick() {
    for (const span of document.querySelectorAll(".countdown[data-deadline]")) {
      const first = span.firstChild;
      const now = text(Number(span.dataset.deadline));
      if (first && first.nodeType === Node.TEXT_NODE && first.data !== now) first.data = now;
      span.classList.toggle("up", Number(span.dataset.deadline) <= Date.now());
    }
  }
  setInterval(tick, 1000);

  // A seat not to move: what its bank holds, or under a per-move clock the time its next
  // move will have (`bank` is then that limit, not a bank).
  function allowance(clock, ms) {
    return clock.type === "per_move"
      ? el("span", { class: "next-move" }, t("clock.next_move", { time: length(ms / 1000) }))
      : el("span", { class: "bank" }, t("clock.bank_left", { time: left(ms) }));
  }

  // The game page: each seat of a person, with its countdown or its allowance.
  function drawGame(game) {
    const box = document.getElementById("clocks");
    if (!box) return;
    if (!game.clock) { box.hidden = true; return; }
    const names = seatNames(game.seats);
    const over = Boolean(game.result);
    const rows = over ? [] : game.clocks.map((c) => el("li", {
      class: "seat-clock" + (c.seat === game.your_seat ? " mine" : ""),
      dataset: { seat: c.seat } },
      el("span", { class: "who" }, names[c.seat]), " ",
      c.deadline !== null ? countdown(c.deadline, c.paused) : allowance(game.clock, c.bank)));
    box.replaceChildren(
      el("h2", {}, t("clock.title")),
      el("p", { class: "control" }, describe(game.clock, game.on_timeout)),
      el("ul", {}, rows));
    box.hidden = false;
  }
  let shown = null; // the game answer drawn last
  document.addEventListener("omerta:game", (event) => { shown = event.detail; drawGame(shown); });

  // The clocks come from the read model: an answer drawn before the projection caught up (its
  // clocks_version behind) is drawn again when the player's stream (presence.js) says one of
  // their games was projected anew, as is this game's whenever it is named there.
  document.addEventListener("omerta:inbox", async (event) => {
    if (!shown || !shown.clock) return;
    const named = event.detail.games.some((g) => g.game_id === shown.game_id);
    if (!named && shown.clocks_version === shown.version) return;
    try {
      const game = await Omerta.api("GET", `/games/${shown.game_id}`);
      if (game.version >= shown.version) { shown = game; drawGame(game); }
    } catch (err) {
      Omerta.showError(err);
    }
  });

  return { countdown, describe, left, length };
})();
