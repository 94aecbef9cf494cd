// The game's chat panel: the messages so far, then new ones live from the game's own stream
// (game.js announces it: "omerta:events"). A finished game's stream ends, so the page then
// follows the chat on a stream that stays open past the end (and brings a rematch offer:
// rematch.js listens to it too), opened again when refused. Seated players write; everyone
// else reads. Every message is shown as text, never as HTML.
"use strict";

(() => {
  const { api, el, t, showError, seatNames } = Omerta;
  const gameId = document.body.dataset.gameId;
  const list = document.getElementById("chat-log");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-text");
  const shown = new Map(); // message id -> its line
  let last = 0; // the highest message id shown
  let names = [];
  let version = 0;
  let alone = null; // the chat's own stream (its first) once the game is over

  function line(message) {
    return el("li", { dataset: { id: message.id } },
      el("span", { class: "who" }, names[message.seat] || t("seat.player")), " ",
      el("span", { class: "text" }, message.text), " ",
      Omerta.when(message.time, true));
  }

  // In id order: the stream and a catch-up may bring a message twice, or out of turn.
  function show(message) {
    if (shown.has(message.id)) return;
    const item = line(message);
    const after = [...shown.keys()].filter((id) => id > message.id).sort((a, b) => a - b)[0];
    if (after === undefined) list.append(item);
    else list.insertBefore(item, shown.get(after));
    shown.set(message.id, item);
    last = Math.max(last, message.id);
    document.getElementById("chat-empty").hidden = true;
    list.scrollTop = list.scrollHeight;
  }

  async function table() {
    const game = await api("GET", `/games/${gameId}`);
    names = seatNames(game.seats);
    version = game.version;
    return game;
  }

  // What was written while no stream was open (the page's start, a reconnection).
  async function catchUp() {
    try {
      const after = last;
      await table();
      const got = await api("GET", `/games/${gameId}/chat?after=${after}`);
      got.messages.forEach(show);
    } catch (err) {
      showError(err);
    }
  }

  function listen(source) {
    source.addEventListener("chat", (message) => show(JSON.parse(message.data)));
    source.addEventListener("open", catchUp);
    source.addEventListener("end", followAlone);
  }

  async function followAlone() {
    if (alone) return;
    alone = true;
    try {
      if (!version) await table(); // (its events are not wanted again: only the chat)
      // Opened again when refused (Omerta.keepStream): its "open" catches up (listen).
      alone = Omerta.keepStream(() => {
        const source = new EventSource(`${Omerta.API}/games/${gameId}/events?after=${version}&chat=${last}`);
        document.dispatchEvent(new CustomEvent("omerta:events", { detail: source }));
        return source;
      });
    } catch (err) {
      alone = null;
      showError(err);
    }
  }

  document.addEventListener("omerta:events", (event) => listen(event.detail));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      show(await Omerta.create(`/games/${gameId}/chat`, { text }));
      input.value = "";
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
      input.focus();
    }
  });

  async function start() {
    try {
      const game = await table();
      form.hidden = game.your_seat === null;
      document.getElementById("chat-note").hidden = game.your_seat !== null;
      await catchUp();
      if (game.result) followAlone();
    } catch (err) {
      showError(err);
    }
  }

  start();
})();
