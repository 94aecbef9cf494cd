// What every page shares: the API client, messages in the page's language, DOM helpers.
"use strict";

const Omerta = (() => {
  const API = document.body.dataset.api;
  const LANG = document.body.dataset.lang;
  const MESSAGES = JSON.parse(document.getElementById("messages").textContent);

  // A message in the page's language; {name} placeholders are filled from params.
  function t(key, params) {
    let text = Object.prototype.hasOwnProperty.call(MESSAGES, key) ? MESSAGES[key] : key;
    for (const [name, value] of Object.entries(params || {})) {
      text = text.split("{" + name + "}").join(String(value));
    }
    return text;
  }

  // Like t(), but params may be DOM nodes (cards in a log line), or lists of them (the cards
  // revealed), shown separated by ", ": returns a flat list of parts (text and nodes).
  function tn(key, params) {
    const text = Object.prototype.hasOwnProperty.call(MESSAGES, key) ? MESSAGES[key] : key;
    const parts = [];
    let last = 0;
    for (const match of text.matchAll(/\{(\w+)\}/g)) {
      parts.push(text.slice(last, match.index));
      const value = (params || {})[match[1]];
      if (value === undefined) parts.push(match[0]);
      else if (Array.isArray(value)) value.forEach((v, i) => parts.push(...(i ? [", ", v] : [v])));
      else parts.push(value);
      last = match.index + match[0].length;
    }
    parts.push(text.slice(last));
    return parts.filter((p) => p !== "");
  }

  // A refusal from the API: `code` is stable, `detail` is the rule's message (English unless
  // asked otherwise), `params` the values it names: refusal() words it in the page's language.
  class ApiError extends Error {
    constructor(status, problem) {
      super(problem.detail || problem.title || String(status));
      this.status = status;
      this.code = problem.code || "";
      this.params = problem.params || {};
      this.version = problem.version;
    }
  }

  const has = (key) => Object.prototype.hasOwnProperty.call(MESSAGES, key);

  // A refusal in the page's language, from the catalogue: the game's rule text first
  // (rule.<game>.<code>, a 422 only), else the service's (error.<code>), each first with its
  // `case`; the API's own detail when the catalogue has none. The same order as
  // api.web.i18n.refusal_keys. `shown(name, value)` may word a param (a card's name).
  function refusal(err, game, shown) {
    const params = err.params || {};
    const bases = (game && err.status === 422 ? ["rule." + game + "." + err.code] : [])
      .concat(["error." + err.code]);
    const keys = bases.flatMap((b) => (params.case ? [b + "." + params.case] : []).concat([b]));
    const key = keys.find(has);
    if (!key) return err.message;
    const words = {};
    for (const [name, value] of Object.entries(params)) {
      const one = (v) => (shown && shown(name, v)) || String(v);
      words[name] = Array.isArray(value) ? value.map(one).join(", ") : one(value);
    }
    return t(key, words);
  }

  async function api(method, path, body, headers) {
    const init = { method, credentials: "same-origin", headers: Object.assign({}, headers) };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(API + path, init);
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (!response.ok) throw new ApiError(response.status, data || {});
    return data;
  }

  // A creating POST (a player, a game, a seat, a webhook) with an Idempotency-Key: a repeat of
  // the same request (a double click, a retry after an error or an answer that never came)
  // gets the first answer. The key is dropped once the request succeeded, so a later
  // deliberate repeat creates anew.
  const creationKeys = new Map();
  async function create(path, body) {
    const request = path + " " + JSON.stringify(body ?? null);
    if (!creationKeys.has(request)) creationKeys.set(request, randomHex(16));
    const made = await api("POST", path, body, { "Idempotency-Key": creationKeys.get(request) });
    creationKeys.delete(request);
    return made;
  }

  // Runs `action` with `buttons` disabled, so a second click while its request is in flight
  // does nothing; a keyboard user's focus on one of them comes back afterwards.
  async function whileBusy(buttons, action) {
    const focused = document.activeElement;
    for (const button of buttons) button.disabled = true;
    try {
      return await action();
    } finally {
      for (const button of buttons) button.disabled = false;
      if (buttons.includes(focused) && document.activeElement === document.body) focused.focus();
    }
  }

  // A form whose submission sends a request: `handler` runs with the form's buttons disabled,
  // and a submission meanwhile (Enter in a field) is dropped.
  function onSubmitOnce(form, handler) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (form.dataset.busy) return;
      form.dataset.busy = "yes";
      try {
        await whileBusy([...form.querySelectorAll("button")], handler);
      } finally {
        delete form.dataset.busy;
      }
    });
  }

  // The player of this browser (the API's cookie), or null when there is none yet: the page
  // says whether the cookie names one (data-signed-in), so a visitor's page never asks.
  let mePromise = null;
  function me() {
    if (!mePromise) {
      mePromise = !("signedIn" in document.body.dataset) ? Promise.resolve(null)
        : api("GET", "/me").catch((err) => {
          if (err.status === 401) return null; // signed out since the page was drawn
          throw err;
        });
    }
    return mePromise;
  }

  // `replace`: the page has asked, and the person wants to leave this browser's player.
  async function createPlayer(name, replace) {
    const made = await create("/players", replace ? { name, replace: true } : { name });
    mePromise = Promise.resolve({ id: made.id, name: made.name });
    showMe();
    document.dispatchEvent(new CustomEvent("omerta:player"));
    return made;
  }

  // el("button", {class: "x", onclick: f}, "text", child...)
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // A term and its explanation: a title for the mouse, and a disclosure (a focusable summary
  // that opens with Enter or a tap) for the keyboard and touch screens. `label` is the term, or
  // null for a "?" mark after one; `id` names the text for aria-describedby elsewhere.
  function tip(label, text, id) {
    const more = t("tip.more");
    return el("details", { class: "tip" + (label === null ? " tip-mark" : "") },
      el("summary", { title: text, "aria-label": label === null ? more : null }, label === null ? "?" : label),
      el("span", { class: "tip-text", role: "note", id }, text));
  }

  // A rule option's name with its explanation (opt.<key> and opt.<key>.help in the catalogue).
  function optionTip(key) {
    return tip(t("opt." + key), t("opt." + key + ".help"));
  }

  // Asks before a move that cannot be taken back: a modal dialog (Escape or "Cancel" says no),
  // `note` one line or a list of lines. Resolves to true only for the confirming button.
  function confirmMove(text, yes, note) {
    return new Promise((resolve) => {
      const dialog = el("dialog", { class: "confirm", "aria-labelledby": "confirm-text" },
        el("p", { id: "confirm-text", class: "confirm-text" }, text),
        [].concat(note || []).map((line) => el("p", { class: "note" }, line)),
        el("div", { class: "buttons" },
          el("button", { type: "button", class: "primary", dataset: { answer: "yes" },
            onclick: () => dialog.close("yes") }, yes),
          el("button", { type: "button", dataset: { answer: "no" },
            onclick: () => dialog.close("no") }, t("game.cancel"))));
      dialog.addEventListener("close", () => {
        dialog.remove();
        resolve(dialog.returnValue === "yes");
      });
      document.body.append(dialog);
      dialog.showModal();
      dialog.querySelector("[data-answer=no]").focus(); // the safe answer first
    });
  }

  let toastTimer = null;
  function toast(message, kind) {
    const box = document.getElementById("toast");
    box.textContent = message;
    box.className = "toast " + (kind || "error");
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 8000);
  }

  // The person's next action (a control clicked, a form sent) dismisses an error shown before:
  // it would cover what that action brings, and belongs to an earlier one. Notes (info) stay.
  function dismissError(event) {
    const box = document.getElementById("toast");
    if (box.hidden || !box.classList.contains("error")) return;
    if (event.type === "submit" || event.target.closest("button, a, summary, select, input")) {
      box.hidden = true;
    }
  }
  document.addEventListener("click", dismissError, true); // before the action's own handler
  document.addEventListener("submit", dismissError, true);

  // Logs a page's fault. A refusal (4xx) is none: the API's answer to what the person asked
  // (a refused webhook URL, a move no longer legal; a 401: this device was signed out), which
  // the toast says in words.
  function logFault(err) {
    if (!(err instanceof ApiError && err.status < 500)) console.error(err);
  }

  function showError(err) {
    logFault(err);
    toast(err instanceof ApiError ? refusal(err, document.body.dataset.kind) : t("error.network"));
  }

  // A name for each seat: the player's name, the AI's own name ("Vito": its level is a badge
  // beside it, aiBadge), or "open seat".
  function seatName(seat) {
    if (seat.kind === "ai") return seat.name;
    if (seat.kind === "open") return t("seat.open");
    if (seat.kind === "reserved") return t("seat.reserved", { name: seat.name || t("seat.player") });
    return seat.name || t("seat.player");
  }

  // The names of a table's seats, told apart: two people of one name (or two open seats) get
  // their seat numbers.
  function seatNames(seats) {
    const names = seats.map(seatName);
    return names.map((name, i) => names.indexOf(name) !== names.lastIndexOf(name)
      ? t("seat.numbered", { name, n: seats[i].seat + 1 }) : name);
  }

  // As domain.bots.level_name reads a seat's level: 0 is random, anything higher greedy.
  const AI_LEVELS = ["random", "greedy"];
  function levelName(level) {
    return typeof level === "number" ? AI_LEVELS[Math.min(level, AI_LEVELS.length - 1)] : level;
  }

  // An AI seat's short level ("AI · expert"), what the level does in its explanation (null for
  // any other seat).
  function aiBadge(seat) {
    if (seat.kind !== "ai") return null;
    const level = levelName(seat.level);
    const badge = tip(t("seat.ai_badge", { level: t("ai.badge." + level) }), t("ai." + level));
    badge.classList.add("ai-badge");
    return badge;
  }

  // The player page of a seat's person (also when a bot took the seat over), or of its AI
  // level (null: an open seat).
  function profileUrl(seat) {
    if (seat.player) return "/profile/" + encodeURIComponent(seat.player);
    if (seat.kind === "ai") return "/profile/" + encodeURIComponent("ai:" + levelName(seat.level));
    return null;
  }

  // A live stream (server-sent events) the page keeps: ``open`` makes it (its URL from what the
  // page shows by then, its listeners) and makes it again a few seconds after the browser gave
  // up on it. The browser retries a dropped stream by itself, but never one refused: a 429, a
  // 503 (``streams_full`` from a process serving the most streams it may, a service
  // restarting) would leave the page's live parts still for good. The wait is spread: a full
  // process refuses a crowd of pages at once, and back together they would be refused again.
  // ``wanted(source)``: whether the page still wants that stream followed (false: it ended or
  // replaced it); ``reopened()``: what to do on a new stream (catch up on what it missed).
  const REOPEN_MS = 2000;
  const REOPEN_SPREAD_MS = 3000;
  function keepStream(open, wanted = () => true, reopened = () => {}) {
    const source = open();
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED || !wanted(source)) return;
      setTimeout(() => {
        if (!wanted(source)) return;
        keepStream(open, wanted, reopened);
        reopened();
      }, REOPEN_MS + Math.random() * REOPEN_SPREAD_MS);
    });
    return source;
  }

  // A date and time in the page's language, one style on every page (the catalogue's date.*):
  // the month in words or with its unit, so day and month are never mixed up, and a 24-hour
  // time in the browser's zone; `timeOnlyToday` (a chat line): just the time for today's. A
  // <time> element whose `datetime` is the instant.
  const pad = (n) => String(n).padStart(2, "0");
  function when(ms, timeOnlyToday) {
    const at = new Date(ms);
    const time = pad(at.getHours()) + ":" + pad(at.getMinutes());
    const date = t("date.day", { day: at.getDate(), year: at.getFullYear(),
                                 month: t("date.months").split(" ")[at.getMonth()] });
    const today = at.toDateString() === new Date().toDateString();
    return el("time", { datetime: at.toISOString() },
      timeOnlyToday && today ? time : t("date.day_time", { date, time }));
  }

  // getRandomValues, unlike randomUUID, works on a plain-http address too.
  function randomHex(size) {
    const bytes = new Uint8Array(size);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function commandId() {
    return "web-" + randomHex(12);
  }

  function pageUrl(gameId, what) {
    return "/play/" + encodeURIComponent(gameId) + (what ? "/" + what : "");
  }

  // The tab's title: the count of games waiting (presence.js), the page's own mark (a move
  // owed here: game.js), then the page's title.
  const title = { count: "", mark: "", base: document.title };
  function setTitle(part, text) {
    title[part] = text;
    document.title = title.count + title.mark + title.base;
  }

  async function showMe() {
    const player = await me().catch(() => null);
    if (!player) return;
    document.getElementById("me-name").textContent = player.name;
  }
  showMe();

  // The language links come back to this page; keep its fragment (an invite code lives there).
  for (const link of document.querySelectorAll(".langs a[hreflang]")) {
    link.addEventListener("click", () => {
      if (location.hash) link.href += encodeURIComponent(location.hash);
    });
  }

  return { API, LANG, MESSAGES, t, tn, api, create, whileBusy, onSubmitOnce, ApiError, refusal,
           me, createPlayer, el, append, toast, logFault, showError, seatName, seatNames, aiBadge,
           commandId, pageUrl, profileUrl, tip, optionTip, confirmMove, setTitle, when, keepStream };
})();
