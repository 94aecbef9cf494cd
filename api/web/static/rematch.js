// A finished game's rematch: "Rematch" for its players; once one was asked for, everyone sees
// "Rematch offered by X" with "Join" (the viewer's seat waits in it) or "Go to rematch". The
// offer comes live on the finished game's stream (chat.js opens it: "omerta:events").
"use strict";

(() => {
  const { api, el, t, showError, pageUrl } = Omerta;
  const gameId = document.body.dataset.gameId;
  const box = document.getElementById("rematch");
  let game = null;
  let me = null;

  async function ask() {
    try {
      const made = await api("POST", `/games/${gameId}/rematch`);
      location.assign(pageUrl(made.game_id));
    } catch (err) {
      showError(err);
    }
  }

  function draw() {
    box.hidden = !game || !game.result || (!game.rematch && game.your_seat === null);
    if (box.hidden) return;
    if (!game.rematch) {
      box.replaceChildren(el("button", { class: "primary", onclick: ask }, t("rematch.ask")));
      return;
    }
    const by = game.seats.find((s) => s.player === game.rematch_by);
    const mine = me && me.id === game.rematch_by;
    const offer = mine ? t("rematch.made")
      : t("rematch.offered", { name: by ? by.name : t("seat.player") });
    const action = game.your_seat !== null && !mine
      ? el("button", { class: "primary", onclick: ask }, t("rematch.join"))
      : el("a", { class: "button primary", href: pageUrl(game.rematch) }, t("rematch.go"));
    box.replaceChildren(el("span", { class: "offer" }, offer), " ", action);
  }

  async function refresh() {
    try {
      game = await api("GET", `/games/${gameId}`);
      draw();
    } catch (err) {
      showError(err);
    }
  }

  document.addEventListener("omerta:events", (event) => {
    event.detail.addEventListener("end", refresh);
    event.detail.addEventListener("rematch", refresh);
  });

  (async () => {
    me = await Omerta.me().catch(() => null);
    await refresh();
  })();
})();
