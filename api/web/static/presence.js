// The player's presence on every page: one live stream (GET /me/events) brings the number of
// games waiting for the player; the header's badge and the tab's title show it. Other scripts
// of the page hear each message as an "omerta:inbox" event on the document (detail: the
// message's data: count, games that changed). A page without a player opens nothing.
//
// The tabs of one browser share one stream: over HTTP/1.1 a browser opens at most six
// connections to one server, and a game page holds its game's stream as well. The tab that
// holds the lock "omerta-presence:<player>" follows the stream and passes each message on to
// the others (a BroadcastChannel); when it goes, another tab takes the lock and the stream. A
// browser without these has a stream in each page.
"use strict";

(() => {
  const { API, t } = Omerta;
  const shared = "locks" in navigator && "BroadcastChannel" in window;
  const channel = shared ? new BroadcastChannel("omerta-presence") : null;
  let player = null; // the id of this browser's player
  let source = null; // this tab's stream, if it holds it
  let release = null; // gives the lock back
  let last = null; // the stream's last message, for tabs opened later

  function show(count) {
    const badge = document.getElementById("inbox-count");
    badge.textContent = count || "";
    badge.hidden = !count;
    badge.setAttribute("aria-label", count ? t("nav.waiting", { n: count }) : "");
    Omerta.setTitle("count", count ? `(${count}) ` : "");
  }

  function deliver(data) {
    last = data;
    show(data.count);
    document.dispatchEvent(new CustomEvent("omerta:inbox", { detail: data }));
  }

  if (channel) {
    channel.addEventListener("message", ({ data }) => {
      if (data.player !== player) return; // another tab's player, since replaced here
      if (data.kind === "inbox") deliver(data.data);
      if (data.kind === "hello" && source && last) {
        channel.postMessage({ kind: "inbox", player, data: last });
      }
    });
  }

  // The stream ends after a while and the browser reconnects by itself (Last-Event-ID: the
  // first message then lists what changed meanwhile). One refused is opened again a little
  // later (Omerta.keepStream) while it is still this tab's.
  function follow() {
    Omerta.keepStream(() => {
      source = new EventSource(`${API}/me/events`);
      source.addEventListener("inbox", (message) => {
        deliver(JSON.parse(message.data));
        if (channel) channel.postMessage({ kind: "inbox", player, data: last });
      });
      return source;
    }, (current) => current === source);
  }

  function stop() {
    if (source) source.close();
    source = null;
    if (release) release();
    release = null;
  }

  async function start() {
    stop();
    const me = await Omerta.me().catch(() => null);
    player = me ? me.id : null;
    if (!player) return;
    if (!shared) { follow(); return; }
    const mine = player;
    // Held until this page goes (or another player replaces this one here).
    navigator.locks.request(`omerta-presence:${mine}`, () => {
      if (player !== mine) return null;
      follow();
      return new Promise((resolve) => { release = resolve; });
    });
    channel.postMessage({ kind: "hello", player }); // the tab with the stream answers
  }

  start();
  // A player made on this page (the start page), or another one in its place.
  document.addEventListener("omerta:player", start);
})();
