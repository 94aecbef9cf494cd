// The sign-in page: the personal sign-in link's secret arrives in the fragment (never sent to
// the server with the page, so it stays out of logs and Referer); this page posts it, or the
// recovery code typed here, or signs in with a passkey, and this browser becomes one of the
// player's devices.
"use strict";

(() => {
  const { t, api, showError, confirmMove, toast } = Omerta;
  const status = document.getElementById("signin-status");

  // `how` signs in and answers with the player; this browser may play as someone already:
  // ask before it becomes another one.
  async function signIn(how) {
    const current = await Omerta.me().catch(() => null);
    if (current) {
      const name = current.name;
      if (!(await confirmMove(t("signin.replace_confirm", { name }), t("signin.go")))) return;
    }
    status.textContent = t("signin.working");
    try {
      const player = await how();
      status.textContent = t("signin.done", { name: player.name });
      document.getElementById("me-name").textContent = player.name;
      document.getElementById("signin-done").hidden = false;
      document.getElementById("code-form").hidden = true;
      document.getElementById("passkey-signin").hidden = true;
      document.querySelector("#signin-done a").focus();
    } catch (err) {
      status.textContent = t("signin.intro");
      const said = OmertaPasskeys.problem(err);
      if (said) toast(t(said), "info");
      else showError(err);
    }
  }

  const passkeyBox = document.getElementById("passkey-signin");
  document.getElementById("passkey-go-line").hidden = !OmertaPasskeys.explain(passkeyBox);
  document.getElementById("passkey-go").addEventListener("click", () => signIn(OmertaPasskeys.signIn));

  document.getElementById("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = document.getElementById("recovery-code").value;
    signIn(() => api("POST", "/signin", { code }));
  });

  const secret = location.hash.slice(1);
  if (secret) {
    history.replaceState(null, "", location.pathname); // the secret leaves the address bar
    signIn(() => api("POST", "/signin", { link: secret }));
  }
})();
