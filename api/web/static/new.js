// Creating a game: the game, its seats (you, friends by invite link, AI and its level) and the
// rule options, drawn from the API's option schemas and presets (GET /games): an option the
// rules add appears here without a change to this page.
"use strict";

(() => {
  const { api, el, t, showError, pageUrl } = Omerta;
  const form = document.getElementById("new-form");
  let kinds = [];

  const current = () => kinds.find((k) => k.name === form.elements.kind.value);

  function drawKinds() {
    document.getElementById("kinds").replaceChildren(...kinds.map((k, i) =>
      el("label", { class: "choice" },
        el("input", { type: "radio", name: "kind", value: k.name, checked: i === 0,
          onchange: drawAll }),
        " ", t("game." + k.name),
        el("span", { class: "sub" }, k.min_seats === k.max_seats
          ? t("new.n_players", { n: k.min_seats })
          : t("new.range_players", { min: k.min_seats, max: k.max_seats })))));
  }

  function drawSeats() {
    const kind = current();
    const count = document.getElementById("seat-count");
    const keep = Number(count.value) || kind.min_seats;
    count.replaceChildren(...Array.from({ length: kind.max_seats - kind.min_seats + 1 },
      (_, i) => el("option", { value: kind.min_seats + i }, String(kind.min_seats + i))));
    count.value = String(Math.min(Math.max(keep, kind.min_seats), kind.max_seats));
    count.onchange = drawSeatRows;
    drawSeatRows();
  }

  // The AI levels a seat may get, weakest to strongest, where the game offers them (GET /games:
  // ai_levels); the value after "ai-" is what the API is sent.
  const DEFAULT_AI = "ai-1"; // greedy: a fair first opponent, and quick
  function aiChoices(kind) {
    const labels = [["ai-0", "random", t("new.seat_ai_random")],
      ["ai-1", "greedy", t("new.seat_ai_greedy")],
      ["ai-medium", "medium", t("new.seat_ai_medium")],
      ["ai-expert", "expert", t("new.seat_ai_expert")]];
    return labels.filter(([, level]) => kind.ai_levels.includes(level))
      .map(([value, , text]) => [value, text]);
  }

  function drawSeatRows() {
    const n = Number(document.getElementById("seat-count").value);
    const rows = [];
    for (let seat = 0; seat < n; seat++) {
      const id = "seat-" + seat;
      const choices = seat === 0 ? [["you", t("new.seat_you")]]
        : [...aiChoices(current()), ["friend", t("new.seat_friend")]];
      rows.push(el("div", { class: "seat-row" },
        el("label", { for: id }, t("new.seat_n", { n: seat + 1 })),
        el("select", { id, name: id, disabled: seat === 0 },
          choices.map(([value, text]) => el("option", { value, selected: value === DEFAULT_AI },
            text)))));
    }
    document.getElementById("seat-rows").replaceChildren(...rows);
  }

  // --- rule options: a preset (as described / as published / custom), then each option --------

  const PRESETS = ["description", "published"];
  let preset = "description";
  let values = {};

  const offered = (kind) => Object.entries(kind.options.$defs.Options.properties)
    .filter(([key]) => !kind.unavailable.includes(key));

  // Each option: its name with a "?" explanation, and an input described by that explanation.
  function optionField(kind, key, schema) {
    const id = "opt-" + key;
    const help = id + "-help";
    const locked = preset !== "custom";
    const value = values[key];
    const data = { option: key };
    let input;
    if (schema.type === "boolean") {
      input = el("input", { type: "checkbox", id, name: id, checked: value === true,
        disabled: locked, "aria-describedby": help, dataset: Object.assign({ kind: "boolean" }, data) });
      return el("div", { class: "field check-field" },
        el("label", { class: "check", for: id }, input, " ", t("opt." + key)),
        Omerta.tip(null, t("opt." + key + ".help"), help));
    }
    if (schema.enum) {
      input = el("select", { id, name: id, disabled: locked, "aria-describedby": help,
        dataset: Object.assign({ kind: "enum" }, data) },
        schema.enum.map((v) => el("option", { value: v, selected: v === value },
          t("opt." + key + "." + v))));
    } else if (schema.type === "integer") {
      input = el("input", { type: "number", id, name: id, min: schema.minimum,
        max: schema.maximum, value, required: true, disabled: locked, "aria-describedby": help,
        dataset: Object.assign({ kind: "integer" }, data) });
    } else if (schema.type === "array") {
      // A list of values is a choice between the presets' lists (the description's, the
      // printed cards'), never free text.
      const choices = PRESETS.filter((p) => kind.presets[p]).filter((p, i, all) =>
        all.findIndex((q) => same(kind.presets[q][key], kind.presets[p][key])) === i);
      input = el("select", { id, name: id, disabled: locked, "aria-describedby": help,
        dataset: Object.assign({ kind: "array" }, data) },
        choices.map((p) => el("option", { value: JSON.stringify(kind.presets[p][key]),
          selected: same(kind.presets[p][key], value) }, t("opt." + key + "." + p))));
    } else {
      return null;
    }
    return el("div", { class: "field" }, el("label", { for: id }, t("opt." + key)), input,
      Omerta.tip(null, t("opt." + key + ".help"), help));
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  function presetChoice(kind) {
    const names = PRESETS.filter((p) => kind.presets[p]).concat(["custom"]);
    return el("div", { class: "presets", role: "radiogroup", "aria-label": t("preset.label") },
      names.map((name) => {
        const id = "preset-" + name;
        return el("div", { class: "check-field" },
          el("label", { class: "check", for: id },
            el("input", { type: "radio", name: "preset", id, value: name,
              checked: name === preset, "aria-describedby": id + "-help",
              onchange: () => { preset = name; if (kind.presets[name]) values = { ...kind.presets[name] }; drawOptions(); } }),
            " ", t("preset." + name)),
          Omerta.tip(null, t("preset." + name + ".help"), id + "-help"));
      }));
  }

  function drawOptions() {
    const kind = current();
    const fields = offered(kind).map(([key, s]) => optionField(kind, key, s)).filter(Boolean);
    document.getElementById("options").replaceChildren(presetChoice(kind), ...fields);
  }

  function resetOptions() {
    preset = "description";
    values = { ...current().presets.description };
  }

  function drawAll() { drawSeats(); resetOptions(); drawOptions(); }

  // The preset by name; custom options only where they differ from the description's.
  function chosenOptions() {
    if (preset === "description") return {};
    if (preset !== "custom") return { preset };
    const defaults = current().presets.description;
    const out = {};
    for (const input of form.querySelectorAll("[data-option]")) {
      const key = input.dataset.option;
      const value = {
        boolean: () => input.checked,
        enum: () => input.value,
        integer: () => Number(input.value),
        array: () => JSON.parse(input.value),
      }[input.dataset.kind]();
      if (!same(value, defaults[key])) out[key] = value;
    }
    return out;
  }

  // The time control and the time-out policy (issue 15): "per_move:<s>", "bank:<initial>:
  // <increment>:<cap>" and "<policy>:<bot level>" in the selects' values.
  const clockSelect = document.getElementById("clock");
  const timeoutSelect = document.getElementById("on-timeout");
  clockSelect.addEventListener("change", () => {
    timeoutSelect.disabled = clockSelect.value === "none";
  });

  function chosenClock() {
    const [type, ...n] = clockSelect.value.split(":");
    if (type === "none") return {};
    const [policy, level] = timeoutSelect.value.split(":");
    const clock = type === "per_move" ? { type, seconds: Number(n[0]) }
      : { type, initial: Number(n[0]), increment: Number(n[1]), cap: Number(n[2]) };
    return { clock, on_timeout: { policy, level } };
  }

  function inviteLink(gameId, code) {
    return `${location.origin}${pageUrl(gameId, "join")}#invite=${encodeURIComponent(code)}`;
  }

  // A game with seats for friends: their invite links first.
  function showCreated(made) {
    form.hidden = true;
    const box = document.getElementById("invites");
    box.replaceChildren(...made.invites.map((inv) => {
      const id = "invite-" + inv.seat;
      const input = el("input", { id, readonly: true, value: inviteLink(made.game_id, inv.code),
        class: "invite-link", dataset: { seat: inv.seat } });
      const copy = el("button", { type: "button", onclick: async () => {
        input.select();
        await navigator.clipboard.writeText(input.value).catch(() => null);
        copy.textContent = t("new.copied");
      } }, t("new.copy"));
      return el("div", { class: "field" },
        el("label", { for: id }, t("new.invite_for", { n: inv.seat + 1 })), input, copy);
    }));
    const go = document.getElementById("go-play");
    go.href = pageUrl(made.game_id);
    document.getElementById("created").hidden = false;
    go.focus();
  }

  Omerta.onSubmitOnce(form, async () => {
    const n = Number(document.getElementById("seat-count").value);
    const ai = {};
    for (let seat = 1; seat < n; seat++) {
      const choice = form.elements["seat-" + seat].value;
      if (choice.startsWith("ai-")) {
        const level = choice.slice(3);
        ai[seat] = /^[0-9]+$/.test(level) ? Number(level) : level;
      }
    }
    try {
      const made = await Omerta.create("/games", { game: current().name, seats: n, ai, seat: 0,
        options: chosenOptions(), public: document.getElementById("public").checked,
        ...chosenClock() });
      // Nobody to invite (only AI opponents): straight to the game.
      if (!made.invites.length) location.assign(pageUrl(made.game_id));
      else showCreated(made);
    } catch (err) {
      showError(err);
    }
  });

  async function start() {
    try {
      if (!(await Omerta.me())) { document.getElementById("need-name").hidden = false; return; }
      kinds = await api("GET", "/games");
      drawKinds();
      drawAll();
      form.hidden = false;
    } catch (err) {
      showError(err);
    }
  }
  start();
})();
