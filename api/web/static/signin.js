// The sign-in page: the personal sign-in link's secret arrives in the fragment (never sent to
// the server with the page, so it stays out of logs and Referer); this page posts it, or the
// recovery code typed here, and this browser becomes one of the player's devices.
"use strict";

(() => {
  const { t, api, showError, confirmMove } = Omerta;
  const status = document.getElementById("signin-status");

  async function signIn(sent) {
    // This browser may play as someone already: ask before it becomes the link's player.
    const current = await Omerta.me().catch(() => null);
    if (current) {
      const name = current.name;
      if (!(await confirmMove(t("signin.replace_confirm", { name }), t("signin.go")))) return;
    }
    status.textContent = t("signin.working");
    try {
      const player = await api("POST", "/signin", sent);
      status.textContent = t("signin.done", { name: player.name });
      document.getElementById("me-name").textContent = player.name;
      document.getElementById("signin-done").hidden = false;
      document.getElementById("code-form").hidden = true;
      document.querySelector("#signin-done a").focus();
    } catch (err) {
      status.textContent = t("signin.intro");
      showError(err);
    }
  }

  document.getElementById("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn({ code: document.getElementById("recovery-code").value });
  });

  const secret = location.hash.slice(1);
  if (secret) {
    history.replaceState(null, "", location.pathname); // the secret leaves the address bar
    signIn({ link: secret });
  }
})();
