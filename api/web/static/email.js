// The email page: a player sets their address (a link verifies it); without a player in this
// browser, it asks for a sign-in link by mail.
"use strict";

(() => {
  const { t, api, showError } = Omerta;

  function showState(email) {
    const state = document.getElementById("email-state");
    if (!email) {
      state.textContent = t("email.none");
      return;
    }
    state.textContent = t(email.verified ? "email.verified" : "email.unverified",
      { address: email.address });
    document.getElementById("address").value = email.address;
  }

  async function show() {
    const player = await Omerta.me().catch(() => null);
    document.getElementById("mine").hidden = !player;
    document.getElementById("signin").hidden = !!player;
    if (!player) return;
    const email = await api("GET", "/me/email").catch((err) => {
      if (err.status === 404) return null;
      throw err;
    });
    showState(email);
  }

  document.getElementById("email-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      showState(await api("POST", "/me/email", { address: document.getElementById("address").value }));
    } catch (err) {
      showError(err);
    }
  });

  document.getElementById("signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/signin/email", { address: document.getElementById("signin-address").value });
      document.getElementById("signin-sent").hidden = false;
    } catch (err) {
      showError(err);
    }
  });

  show().catch(showError);
})();
