// Creating a game: the game, its seats (you, friends by invite link, AI and its level) and the
// rule options, drawn from the API's option schemas (GET /games).
"use strict";

(() => {
  const { api, el, t, showError, pageUrl } = Omerta;
  // Options the rules refuse as not implemented: offering them could only end in a refusal.
  const NOT_OFFERED = new Set(["action1_strict_order", "resources"]);
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

  function drawSeatRows() {
    const n = Number(document.getElementById("seat-count").value);
    const rows = [];
    for (let seat = 0; seat < n; seat++) {
      const id = "seat-" + seat;
      const choices = seat === 0 ? [["you", t("new.seat_you")]] : [
        ["ai-1", t("new.seat_ai_greedy")], ["ai-0", t("new.seat_ai_random")],
        ["friend", t("new.seat_friend")]];
      rows.push(el("div", { class: "seat-row" },
        el("label", { for: id }, t("new.seat_n", { n: seat + 1 })),
        el("select", { id, name: id, disabled: seat === 0 },
          choices.map(([value, text]) => el("option", { value }, text)))));
    }
    document.getElementById("seat-rows").replaceChildren(...rows);
  }

  function optionField(key, schema) {
    const id = "opt-" + key;
    const label = t("opt." + key);
    if (schema.type === "boolean") {
      return el("label", { class: "check" }, el("input", { type: "checkbox", id, name: id,
        checked: schema.default === true, dataset: { option: key, kind: "boolean" } }),
        " ", label);
    }
    let input;
    if (schema.enum) {
      input = el("select", { id, name: id, dataset: { option: key, kind: "enum" } },
        schema.enum.map((v) => el("option", { value: v, selected: v === schema.default },
          t("opt." + key + "." + v))));
    } else if (schema.type === "integer") {
      input = el("input", { type: "number", id, name: id, min: schema.minimum,
        max: schema.maximum, value: schema.default, required: true,
        dataset: { option: key, kind: "integer" } });
    } else if (schema.type === "array") {
      input = el("input", { id, name: id, value: schema.default.join(", "), required: true,
        pattern: "\\s*\\d+(\\s*,\\s*\\d+)*\\s*", dataset: { option: key, kind: "array" } });
    } else {
      return null;
    }
    return el("div", { class: "field" }, el("label", { for: id }, label), input);
  }

  function drawOptions() {
    const schema = current().options;
    const props = schema.$defs.Options.properties;
    document.getElementById("options").replaceChildren(...Object.entries(props)
      .filter(([key]) => !NOT_OFFERED.has(key))
      .map(([key, s]) => optionField(key, s)).filter(Boolean));
  }

  function drawAll() { drawSeats(); drawOptions(); }

  // Only the options changed from their defaults: the game records the resolved ones anyway.
  function chosenOptions() {
    const props = current().options.$defs.Options.properties;
    const out = {};
    for (const input of form.querySelectorAll("[data-option]")) {
      const key = input.dataset.option;
      const value = {
        boolean: () => input.checked,
        enum: () => input.value,
        integer: () => Number(input.value),
        array: () => input.value.split(",").map((x) => Number(x.trim())),
      }[input.dataset.kind]();
      if (JSON.stringify(value) !== JSON.stringify(props[key].default)) out[key] = value;
    }
    return out;
  }

  function inviteLink(gameId, code) {
    return `${location.origin}${pageUrl(gameId, "join")}#invite=${encodeURIComponent(code)}`;
  }

  function showCreated(made) {
    form.hidden = true;
    const box = document.getElementById("invites");
    box.replaceChildren(...(made.invites.length ? made.invites.map((inv) => {
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
    }) : [el("p", {}, t("new.no_invites"))]));
    const go = document.getElementById("go-play");
    go.href = pageUrl(made.game_id);
    document.getElementById("created").hidden = false;
    go.focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const n = Number(document.getElementById("seat-count").value);
    const ai = {};
    for (let seat = 1; seat < n; seat++) {
      const choice = form.elements["seat-" + seat].value;
      if (choice.startsWith("ai-")) ai[seat] = Number(choice.slice(3));
    }
    try {
      const made = await api("POST", "/games", { game: current().name, seats: n, ai, seat: 0,
        options: chosenOptions(), public: document.getElementById("public").checked });
      showCreated(made);
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
