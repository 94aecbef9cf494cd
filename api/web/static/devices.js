// The devices page: the player's sign-in link and recovery code (made, shown once, revoked),
// their passkeys (added, deleted), and the devices signed in as this player, each of which can
// be signed out.
"use strict";

(() => {
  const { t, tn, api, el, showError, toast, confirmMove, when } = Omerta;

  async function showLinkState() {
    const state = await api("GET", "/me/signin");
    document.getElementById("link-state").replaceChildren(...(state.created === null
      ? [t("devices.link_none")] : tn("devices.link_made", { when: when(state.created) })));
    document.getElementById("link-make").textContent =
      t(state.created === null ? "devices.link_make" : "devices.link_remake");
    document.getElementById("link-revoke").hidden = state.created === null;
  }

  // The server's QR code (SVG paths, no script or style), parsed as SVG, never as HTML.
  function showQr(svg) {
    const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
    const box = document.getElementById("signin-qr");
    box.replaceChildren(document.importNode(parsed, true));
  }

  async function showDevices() {
    const { devices } = await api("GET", "/me/devices");
    const list = document.getElementById("devices");
    list.replaceChildren(...devices.map((device) => el("li", { class: "device", dataset: { device: device.id } },
      el("span", { class: "device-label" }, device.label || t("devices.unknown_label")),
      device.current ? el("strong", { class: "device-current" }, " · " + t("devices.this_device")) : null,
      el("span", { class: "note" }, " · ", tn("devices.last_used", { when: when(device.used) })),
      " ",
      el("button", { type: "button", onclick: () => signOutOne(device) }, t("devices.sign_out")))));
    document.getElementById("out-others").disabled = devices.length < 2;
  }

  const passkeyBox = document.getElementById("passkeys-panel");

  async function showPasskeys() {
    const { passkeys } = await api("GET", "/me/passkeys");
    document.getElementById("passkeys-none").hidden = passkeys.length > 0;
    const list = document.getElementById("passkeys");
    list.replaceChildren(...passkeys.map((passkey) => {
      const label = passkey.label || t("passkeys.unnamed");
      return el("li", { class: "device passkey", dataset: { passkey: passkey.id } },
        el("span", { class: "device-label" }, label),
        el("span", { class: "note" }, " · ", tn("passkeys.created", { when: when(passkey.created) })),
        el("span", { class: "note" }, " · ", passkey.used
          ? tn("passkeys.last_used", { when: when(passkey.used) }) : t("passkeys.never_used")),
        " ",
        el("button", { type: "button", onclick: () => deletePasskey(passkey, label) }, t("passkeys.delete")));
    }));
  }

  async function deletePasskey(passkey, label) {
    if (!(await confirmMove(t("passkeys.delete_confirm", { label }), t("passkeys.delete")))) return;
    try {
      await api("DELETE", "/me/passkeys/" + encodeURIComponent(passkey.id));
      toast(t("passkeys.deleted"), "info");
      await showPasskeys();
    } catch (err) {
      showError(err);
    }
  }

  document.getElementById("passkey-add").addEventListener("click", async () => {
    try {
      await OmertaPasskeys.register();
      toast(t("passkeys.added"), "info");
      await showPasskeys();
    } catch (err) {
      const said = OmertaPasskeys.problem(err);
      if (said) toast(t(said), "info");
      else showError(err);
    }
  });

  async function signOutOne(device) {
    try {
      await api("DELETE", "/me/devices/" + encodeURIComponent(device.id));
      if (device.current) location.href = "/";
      else await showDevices();
    } catch (err) {
      showError(err);
    }
  }

  async function signOutMany(which) {
    try {
      const done = await api("POST", "/me/devices/signout", { devices: which });
      toast(t("devices.signed_out", { n: done.signed_out }), "info");
      if (which === "all") location.href = "/";
      else await showDevices();
    } catch (err) {
      showError(err);
    }
  }

  // One link at a time: a second click meanwhile would revoke the link the first one shows.
  const linkMake = document.getElementById("link-make");
  linkMake.addEventListener("click", async () => {
    try {
      const made = await Omerta.whileBusy([linkMake], () => api("POST", "/me/signin"));
      document.getElementById("signin-link").value = made.link;
      document.getElementById("signin-code").value = made.code;
      showQr(made.qr);
      document.getElementById("link-shown").hidden = false;
      await showLinkState();
      document.getElementById("signin-link").focus();
    } catch (err) {
      showError(err);
    }
  });

  document.getElementById("link-revoke").addEventListener("click", async () => {
    if (!(await confirmMove(t("devices.revoke_confirm"), t("devices.link_revoke")))) return;
    try {
      await api("DELETE", "/me/signin");
      document.getElementById("link-shown").hidden = true;
      document.getElementById("signin-qr").replaceChildren();
      await showLinkState();
      toast(t("devices.revoked"), "info");
    } catch (err) {
      showError(err);
    }
  });

  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copy);
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        toast(t("devices.copied"), "info");
      } catch (err) {
        toast(t("devices.copy_by_hand"), "info"); // selected: the person copies it
      }
    });
  }

  document.getElementById("out-others").addEventListener("click", () => signOutMany("others"));
  document.getElementById("out-all").addEventListener("click", async () => {
    if (await confirmMove(t("devices.all_confirm"), t("devices.sign_out_all"))) signOutMany("all");
  });

  (async () => {
    const player = await Omerta.me().catch(() => null);
    document.getElementById("devices-none").hidden = !!player;
    if (!player) return;
    document.getElementById("signin-panel").hidden = false;
    document.getElementById("devices-panel").hidden = false;
    passkeyBox.hidden = false;
    const usable = OmertaPasskeys.explain(passkeyBox);
    document.getElementById("passkey-add-line").hidden = !usable;
    try {
      await Promise.all([showLinkState(), showDevices(), usable ? showPasskeys() : null]);
    } catch (err) {
      showError(err);
    }
  })();
})();
