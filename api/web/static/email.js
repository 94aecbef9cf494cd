// The email page: a player sets their address (a link verifies it); without a player in this
// browser, it asks for a sign-in link by mail.
"use strict";

(() => {
  const { t, api, showError } = Omerta;

  // `email.address` null: no address yet.
  function showState(email) {
    const state = document.getElementById("email-state");
    showNotices(email);
    if (!email.address) {
      state.textContent = t("email.none");
      return;
    }
    state.textContent = t(email.verified ? "email.verified" : "email.unverified",
      { address: email.address });
    document.getElementById("address").value = email.address;
  }

  // Whether notification mails go out (a verified address, not unsubscribed), and the button
  // that turns them off or back on.
  function showNotices(email) {
    document.getElementById("notices").hidden = !email.address;
    if (!email.address) return;
    const toggle = document.getElementById("notices-toggle");
    let state = "email.notices_pending";
    if (email.unsubscribed) state = "email.notices_off";
    else if (email.verified) state = "email.notices_on";
    document.getElementById("notices-state").textContent = t(state);
    document.getElementById("notices-switch").hidden = state === "email.notices_pending";
    toggle.textContent = t(email.unsubscribed ? "email.notices_on_button" : "email.notices_off_button");
    toggle.dataset.subscribe = email.unsubscribed ? "1" : "";
  }

  document.getElementById("notices-toggle").addEventListener("click", async (event) => {
    const subscribed = event.currentTarget.dataset.subscribe === "1";
    try {
      showState(await api("PUT", "/me/email/subscription", { subscribed }));
    } catch (err) {
      showError(err);
    }
  });

  async function show() {
    const player = await Omerta.me().catch(() => null);
    document.getElementById("mine").hidden = !player;
    document.getElementById("signin").hidden = !!player;
    if (!player) return;
    showState(await api("GET", "/me/email"));
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
