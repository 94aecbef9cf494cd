// The start page: choose a name (a new player), then create or join games.
"use strict";

(() => {
  const { t, createPlayer, showError } = Omerta;

  async function show() {
    const player = await Omerta.me().catch(() => null);
    document.getElementById("who").hidden = !!player;
    document.getElementById("hello").hidden = !player;
    if (player) {
      document.getElementById("hello-title").textContent = t("start.hello", { name: player.name });
      document.getElementById("me-name").textContent = player.name;
      Lists.keepFresh(document.getElementById("my-games"), "mine");
    } else {
      document.getElementById("name").focus();
    }
  }

  document.getElementById("name-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await createPlayer(document.getElementById("name").value);
      await show();
    } catch (err) {
      showError(err);
    }
  });

  // An invite link pasted here: go to its join page (same site only).
  document.getElementById("link-form").addEventListener("submit", (event) => {
    event.preventDefault();
    let url;
    try {
      url = new URL(document.getElementById("invite-link").value, location.href);
    } catch (err) {
      url = null;
    }
    if (!url || url.origin !== location.origin || !/^\/play\/[^/]+\/join$/.test(url.pathname)) {
      Omerta.toast(t("start.bad_link"));
      return;
    }
    location.href = url.pathname + url.hash;
  });

  show();
})();
