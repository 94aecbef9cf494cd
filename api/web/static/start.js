// The start page: choose a name (a new player), then create or join games.
"use strict";

(() => {
  const { t, createPlayer, showError, confirmMove } = Omerta;

  let listed = false;
  async function show() {
    const player = await Omerta.me().catch(() => null);
    document.getElementById("who").hidden = !!player;
    document.getElementById("hello").hidden = !player;
    if (player) {
      document.getElementById("hello-title").textContent = t("start.hello", { name: player.name });
      document.getElementById("me-name").textContent = player.name;
      const box = document.getElementById("my-games");
      if (listed) Lists.fill(box, "mine"); // a new player in this browser: their games now
      else Lists.keepFresh(box, "mine");
      listed = true;
    } else {
      document.getElementById("name").focus();
    }
  }

  Omerta.onSubmitOnce(document.getElementById("name-form"), async () => {
    try {
      // This browser's player lives only in its cookie: replacing it loses its seats, so ask.
      const existing = await Omerta.me().catch(() => null);
      if (existing) {
        const name = existing.name;
        if (!(await confirmMove(t("start.replace_confirm", { name }), t("start.replace_yes", { name })))) return;
      }
      await createPlayer(document.getElementById("name").value, !!existing);
      await show();
    } catch (err) {
      showError(err);
    }
  });

  // Someone else at this browser: the name form, which asks before replacing the player.
  document.getElementById("replace-show").addEventListener("click", () => {
    document.getElementById("who").hidden = false;
    document.getElementById("name").focus();
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
