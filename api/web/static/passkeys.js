// Passkeys for the devices and sign-in pages: the server's WebAuthn options (JSON, bytes as
// base64url) to the browser's navigator.credentials and its answers back to JSON, and whether
// this page can use passkeys at all (the origin must be the service's own, which the page names
// in data-origin: empty when the service has none).
"use strict";

const OmertaPasskeys = (() => {
  const { t, api, el } = Omerta;

  function toBytes(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
  }

  function toText(buffer) {
    const raw = String.fromCharCode(...new Uint8Array(buffer));
    return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map((d) => ({ ...d, id: toBytes(d.id) }));
  }

  // "here": passkeys work on this page; otherwise why not ("elsewhere": at data-origin).
  function where(box) {
    const origin = box.dataset.origin;
    if (!origin) return "unavailable";
    if (!window.PublicKeyCredential || !navigator.credentials) return "unsupported";
    return location.origin === origin ? "here" : "elsewhere";
  }

  // Shows the panel's note of why passkeys do not work here; true when they do.
  function explain(box) {
    const state = where(box);
    const note = box.querySelector(".passkeys-why");
    if (state === "here") {
      note.hidden = true;
      return true;
    }
    if (state === "elsewhere") {
      const there = box.dataset.origin + location.pathname;
      note.replaceChildren(t("passkeys.elsewhere"), " ", el("a", { href: there }, there));
    } else {
      note.textContent = t("passkeys." + state);
    }
    note.hidden = false;
    return false;
  }

  function credentialJson(credential) {
    const r = credential.response;
    const response = { clientDataJSON: toText(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toText(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = toText(r.authenticatorData);
      response.signature = toText(r.signature);
      if (r.userHandle) response.userHandle = toText(r.userHandle);
    }
    return {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      response,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
    };
  }

  // What the browser's own refusals mean to the person (closing its dialog is no failure), as
  // a message key; null for the service's refusals and the network's, which showError words.
  function problem(err) {
    if (!(err instanceof DOMException)) return null;
    if (err.name === "NotAllowedError" || err.name === "AbortError") return "passkeys.cancelled";
    if (err.name === "InvalidStateError") return "passkeys.already";
    return "passkeys.failed";
  }

  async function register() {
    const options = await api("POST", "/me/passkeys/options");
    const publicKey = {
      ...options,
      challenge: toBytes(options.challenge),
      user: { ...options.user, id: toBytes(options.user.id) },
      excludeCredentials: descriptors(options.excludeCredentials),
    };
    const credential = await navigator.credentials.create({ publicKey });
    return api("POST", "/me/passkeys", { credential: credentialJson(credential) });
  }

  async function signIn() {
    const options = await api("POST", "/signin/passkey/options");
    const publicKey = {
      ...options,
      challenge: toBytes(options.challenge),
      allowCredentials: descriptors(options.allowCredentials),
    };
    const credential = await navigator.credentials.get({ publicKey });
    return api("POST", "/signin/passkey", { credential: credentialJson(credential) });
  }

  return { explain, register, signIn, problem };
})();
