// The notification settings page: which events each channel carries (GET/PUT
// /me/notifications), browser notifications on this device (a service worker, /sw.js, and a
// push subscription made with the server's VAPID key, POST/DELETE /me/push), and the
// player's webhooks (/me/webhooks).
"use strict";

(() => {
  const { t, tn, api, el, showError } = Omerta;
  const CHANNELS = ["push", "email", "webhook"];
  const EVENTS = ["your_turn", "game_ended", "player_joined", "time_low"];

  function say(id, text) {
    document.getElementById(id).textContent = text;
  }

  // --- preferences -------------------------------------------------------------------------

  function showPrefs(prefs) {
    const head = document.getElementById("prefs-head");
    head.replaceChildren(head.firstElementChild,
      ...CHANNELS.map((c) => el("th", { scope: "col" }, t("notify.channel." + c))));
    document.getElementById("prefs-body").replaceChildren(...EVENTS.map((event) =>
      el("tr", {},
        el("th", { scope: "row" }, t("notify.event." + event)),
        CHANNELS.map((channel) => el("td", {},
          el("input", {
            type: "checkbox",
            checked: prefs[channel][event],
            "aria-label": t("notify.check", { event: t("notify.event." + event),
                                              channel: t("notify.channel." + channel) }),
            dataset: { channel, event },
            onchange: savePref,
          }))))));
  }

  async function savePref(ev) {
    const box = ev.target;
    const { channel, event } = box.dataset;
    say("prefs-state", "");
    try {
      const prefs = await api("PUT", "/me/notifications", { [channel]: { [event]: box.checked } });
      box.checked = prefs[channel][event];
      say("prefs-state", t("notify.saved"));
    } catch (err) {
      box.checked = !box.checked;
      showError(err);
    }
  }

  // --- browser notifications on this device ------------------------------------------------

  const pushSwitch = document.getElementById("push-switch");
  const supported = "serviceWorker" in navigator && "PushManager" in window
    && "Notification" in window;

  // The VAPID key as pushManager.subscribe wants it: bytes, from base64url.
  function keyBytes(key) {
    const raw = atob(key.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  function sameKey(subscription, key) {
    const held = subscription.options && subscription.options.applicationServerKey;
    if (!held) return true; // the browser does not say: trust it
    const a = new Uint8Array(held);
    const b = keyBytes(key);
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }

  async function registration() {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    return navigator.serviceWorker.ready;
  }

  async function showCount() {
    const listed = await api("GET", "/me/push");
    say("push-count", t("notify.push_others", { n: listed.subscriptions.length }));
  }

  async function showPush() {
    if (!supported) {
      pushSwitch.disabled = true;
      say("push-state", t("notify.push_unsupported"));
      return;
    }
    const reg = await registration();
    const subscription = await reg.pushManager.getSubscription();
    pushSwitch.checked = !!subscription && Notification.permission === "granted";
    // Posted again on every visit: the server may have dropped it (its push service said it
    // was gone), and the browser may have renewed its keys.
    if (pushSwitch.checked) await api("POST", "/me/push", subscription.toJSON());
    say("push-state", t(pushSwitch.checked ? "notify.push_on" : "notify.push_off"));
    await showCount();
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say("push-state", t("notify.push_denied"));
      return false;
    }
    const [reg, { key }] = await Promise.all([registration(), api("GET", "/push/key")]);
    let subscription = await reg.pushManager.getSubscription();
    if (subscription && !sameKey(subscription, key)) { // the server's key was made again
      await subscription.unsubscribe();
      subscription = null;
    }
    if (!subscription) {
      try {
        subscription = await reg.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(key) });
      } catch (err) {
        say("push-state", t("notify.push_failed", { reason: err.message || err.name }));
        return false;
      }
    }
    await api("POST", "/me/push", subscription.toJSON());
    say("push-state", t("notify.push_on"));
    return true;
  }

  async function turnOff() {
    const reg = await registration();
    const subscription = await reg.pushManager.getSubscription();
    if (subscription) {
      await api("DELETE", "/me/push", { endpoint: subscription.endpoint }).catch((err) => {
        if (err.status !== 404) throw err; // already gone from the server: unsubscribe here
      });
      await subscription.unsubscribe();
    }
    say("push-state", t("notify.push_off"));
    return false;
  }

  pushSwitch.addEventListener("change", async () => {
    const wanted = pushSwitch.checked;
    pushSwitch.disabled = true;
    say("push-state", t("notify.push_working"));
    try {
      pushSwitch.checked = await (wanted ? turnOn() : turnOff());
      await showCount();
    } catch (err) {
      pushSwitch.checked = !wanted;
      say("push-state", "");
      showError(err);
    } finally {
      pushSwitch.disabled = false;
    }
  });

  // --- webhooks ----------------------------------------------------------------------------

  // A hook's last failed delivery ("last delivery failed: …"), or nothing.
  function hookFailure(failure) {
    if (!failure) return "";
    const reason = t("notify.hook_reason_" + failure.reason, { status: failure.status });
    const key = failure.given_up ? "notify.hook_failed_given_up" : "notify.hook_failed";
    return el("span", { class: "note hook-failure" },
      tn(key, { reason, when: Omerta.when(failure.at) }));
  }

  function showHooks(listed) {
    const hooks = listed.webhooks;
    document.getElementById("hooks-none").hidden = hooks.length > 0;
    document.getElementById("hooks").replaceChildren(...hooks.map((hook) =>
      el("li", { class: "device" },
        el("span", { class: "hook-url" }, hook.url), " ",
        hookFailure(hook.last_failure), " ",
        el("button", {
          type: "button",
          "aria-label": t("notify.hook_delete_label", { url: hook.url }),
          onclick: () => deleteHook(hook.id),
        }, t("notify.hook_delete")))));
  }

  async function deleteHook(id) {
    try {
      showHooks(await api("DELETE", "/me/webhooks/" + encodeURIComponent(id)));
      document.getElementById("hook-secret").hidden = true;
    } catch (err) {
      showError(err);
    }
  }

  Omerta.onSubmitOnce(document.getElementById("hook-form"), async () => {
    const input = document.getElementById("hook-url");
    try {
      const made = await Omerta.create("/me/webhooks", { url: input.value });
      const secret = document.getElementById("hook-secret");
      secret.textContent = t("notify.hook_secret", { url: made.url, secret: made.secret });
      secret.hidden = false;
      input.value = "";
      showHooks(await api("GET", "/me/webhooks"));
    } catch (err) {
      showError(err);
    }
  });

  // -----------------------------------------------------------------------------------------

  async function show() {
    const player = await Omerta.me();
    document.getElementById("notify-none").hidden = !!player;
    if (!player) return;
    const [prefs, hooks] = await Promise.all([
      api("GET", "/me/notifications"), api("GET", "/me/webhooks")]);
    showPrefs(prefs);
    showHooks(hooks);
    for (const id of ["prefs-panel", "push-panel", "hooks-panel"]) {
      document.getElementById(id).hidden = false;
    }
    await showPush();
  }

  show().catch(showError);
})();
