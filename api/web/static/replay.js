// The replay: step through a game event by event. Each step shows the board as the viewer may
// see it at that version (GET /games/{id}/replay/{version}); a finished game shows everything
// (its history is complete then: both Famiglia hands, every Gangsta! player's heists).
// The review (review.js) moves it with ``Replay.show`` once ``Replay.ready`` has the game.
"use strict";

const Replay = (() => {
  const { api, el, t, showError, seatNames } = Omerta;
  const gameId = document.body.dataset.gameId;
  const slider = document.getElementById("step");
  const views = new Map();
  let records = [];
  let game = null;
  let names = [];
  let revealed = null; // per step: what the finished game's history reveals
  let step = 1;
  let lines = []; // the log's line of each step (null: an event the log does not show)
  let accuracy = null; // each seat's accuracy once the game's review is done

  // Each version's view, asked for once (a promise, so a step shown while its view is still
  // on the way does not ask again); a failed request is asked again when next needed.
  function viewAt(version) {
    if (!views.has(version)) {
      const asked = api("GET", `/games/${gameId}/replay/${version}`).then((r) => r.view);
      asked.catch(() => views.delete(version));
      views.set(version, asked);
    }
    return views.get(version);
  }

  async function show(n) {
    step = Math.min(Math.max(1, n), records.length);
    slider.value = String(step);
    history.replaceState(null, "", "#v=" + step);
    document.getElementById("step-label").textContent =
      t("replay.step_label", { n: step, total: records.length });
    const record = records[step - 1];
    const line = TableUI.describe(record.event, names) || GameUI.describe(record.event, names, record);
    const caption = document.getElementById("step-event");
    caption.replaceChildren();
    Omerta.append(caption, [line || record.type]); // as the live log draws it (nested parts)
    drawLog();
    const wanted = step;
    try {
      const shown = await viewAt(wanted);
      if (wanted !== step) return; // another step was asked for meanwhile
      // A finished game's step shows what its history reveals (the game's GameUI says what).
      const { view, hands } = revealed ? GameUI.replayStep(shown, revealed[wanted - 1])
        : { view: shown, hands: null };
      const ctx = { view, legal: [], seat: game.your_seat, names, version: wanted, hands,
        send: () => {}, redraw: () => {} };
      document.getElementById("board").replaceChildren(...GameUI.board(ctx).filter(Boolean));
      const result = document.getElementById("result");
      result.hidden = !view.result;
      if (view.result) result.replaceChildren(...resultParts(view.result, names, game.your_seat, accuracy));
      document.body.dataset.step = String(wanted); // this step is drawn
      if (wanted < records.length) viewAt(wanted + 1).catch(() => {}); // the next, ahead
    } catch (err) {
      showError(err);
    }
  }

  // The log up to this step, newest first, as the game page's: the step's own line marked.
  function drawLog() {
    const shown = lines.slice(0, step);
    for (const li of lines) if (li) li.removeAttribute("aria-current");
    if (shown[step - 1]) shown[step - 1].setAttribute("aria-current", "step");
    document.getElementById("log").replaceChildren(...shown.filter(Boolean).reverse());
    TableUI.numberLog();
  }

  function bind(id, delta) {
    document.getElementById(id).addEventListener("click", () => show(delta(step)));
  }

  // The result's accuracy column, from the review (shown at the last step).
  function showAccuracy(list) {
    accuracy = list;
    return show(step);
  }

  async function start() {
    await Omerta.me().catch(() => null);
    game = await api("GET", `/games/${gameId}`);
    names = seatNames(game.seats);
    records = (await api("GET", `/games/${gameId}/history`)).events;
    const events = records.map((r) => r.event);
    lines = records.map((r) => {
      const line = TableUI.describe(r.event, names) || GameUI.describe(r.event, names, r);
      return line && el("li", { dataset: { version: r.version, type: r.type } }, line);
    });
    if (game.result) {
      revealed = GameUI.revealed(events, game.seats.length);
    } else {
      document.getElementById("step-event").before(el("p", { class: "note" }, t("replay.live")));
    }
    document.getElementById("seats").replaceChildren(...game.seats.map((s) =>
      el("span", { class: "seat" + (s.seat === game.your_seat ? " you" : "") },
        GameUI.seatMark(s.seat), " ", names[s.seat], " ", Omerta.aiBadge(s))));
    slider.max = String(records.length);
    bind("first", () => 1);
    bind("prev", (s) => s - 1);
    bind("next", (s) => s + 1);
    bind("last", () => records.length);
    slider.addEventListener("input", () => show(Number(slider.value)));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "INPUT") return;
      if (event.key === "ArrowRight") show(step + 1);
      if (event.key === "ArrowLeft") show(step - 1);
    });
    const asked = Number(new URLSearchParams(location.hash.slice(1)).get("v"));
    await show(asked || 1);
    return { game, names };
  }

  const ready = start();
  ready.catch(showError);
  return { ready, show, viewAt, showAccuracy };
})();
