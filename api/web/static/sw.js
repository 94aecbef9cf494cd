// The service worker (served as /sw.js, scope "/"): shows the server's pushes as notifications
// and opens (or focuses) the game's page when one is clicked. A push is JSON (services.push):
// title and body already in the player's language, url a path on this site.
"use strict";

function ownUrl(path) {
  try {
    const url = new URL(path || "/", self.location.origin);
    if (url.origin === self.location.origin) return url.href;
  } catch (err) {
    // not a URL: the site's start page
  }
  return self.location.origin + "/";
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (err) {
    data = {};
  }
  const options = {
    body: data.body || "",
    icon: "/web/static/icon.svg",
    data: { url: ownUrl(data.url), event: data.event || "", game_id: data.game_id || "" },
  };
  // One notification per game: a newer one replaces it (and alerts again).
  if (data.game_id) {
    options.tag = "game-" + data.game_id;
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(data.title || "Omerta", options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || ownUrl("/");
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const same = open.find((client) => client.url === url);
    if (same) return same.focus();
    return self.clients.openWindow(url);
  })());
});
