// An invite link's page: take the seat (choosing a name first if this browser has none).
"use strict";

(() => {
  const { create, t, createPlayer, showError, pageUrl } = Omerta;
  const gameId = document.body.dataset.gameId;
  // The code travels in the fragment (#invite=...): browsers never send it to a server's logs.
  const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
  const form = document.getElementById("join-form");
  const name = document.getElementById("name");

  async function prepare() {
    if (!invite) { Omerta.toast(t("join.no_invite")); form.hidden = true; return; }
    const player = await Omerta.me().catch(() => null);
    name.hidden = !!player;
    name.required = !player;
    document.getElementById("name-label").hidden = !!player;
  }

  Omerta.onSubmitOnce(form, async () => {
    try {
      if (!(await Omerta.me())) await createPlayer(name.value);
      await create(`/games/${gameId}/join`, { invite });
      location.href = pageUrl(gameId);
    } catch (err) {
      showError(err);
    }
  });

  prepare();
})();
