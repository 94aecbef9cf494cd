// The player's presence on every page: one live stream (GET /me/events) brings the number of
// games waiting for the player; the header's badge and the tab's title show it. Other scripts
// of the page hear each message as an "omerta:inbox" event on the document (detail: the
// message's data: count, games that changed). A page without a player opens nothing.
"use strict";

(() => {
  const { API, t } = Omerta;
  const RECONNECT_MS = 5000;
  let source = null;

  function show(count) {
    const badge = document.getElementById("inbox-count");
    badge.textContent = count || "";
    badge.hidden = !count;
    badge.setAttribute("aria-label", count ? t("nav.waiting", { n: count }) : "");
    Omerta.setTitle("count", count ? `(${count}) ` : "");
  }

  // The stream ends after a while and the browser reconnects by itself (Last-Event-ID: the
  // first message then lists what changed meanwhile). It gives up on an error answer (a 429,
  // a 5xx while the service restarts): then a new stream, a little later.
  function follow() {
    const current = source = new EventSource(`${API}/me/events`);
    current.addEventListener("inbox", (message) => {
      const data = JSON.parse(message.data);
      show(data.count);
      document.dispatchEvent(new CustomEvent("omerta:inbox", { detail: data }));
    });
    current.addEventListener("error", () => {
      if (current.readyState === EventSource.CLOSED && current === source) {
        setTimeout(() => { if (current === source) start(); }, RECONNECT_MS);
      }
    });
  }

  async function start() {
    if (source) source.close();
    source = null;
    const player = await Omerta.me().catch(() => null);
    if (player && !source) follow();
  }

  start();
  // A player made on this page (the start page), or another one in its place.
  document.addEventListener("omerta:player", start);
})();
