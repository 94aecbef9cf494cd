// The game page: loads the game, the viewer's view and legal moves from the API, sends moves,
// and follows the game live through its server-sent events. The game's own module (GameUI,
// from famiglia.js or gangsta.js) draws the board and turns legal moves into things to click.
"use strict";

(() => {
  const { api, el, t, showError, seatNames, commandId, profileUrl } = Omerta;
  const gameId = document.body.dataset.gameId;
  const ctx = {
    game: null, view: null, table: null, legal: [], version: 0, seat: null, names: [], events: [],
    refusal: null, send, redraw: draw, waiting,
  };
  const SEAT_POLL_MS = 3000;
  const RETRY_MS = 300;
  const CATCH_UP_MS = 2500;
  let ended = false;
  let shownKey = "";
  let logVersion = 0;
  const logged = []; // every record shown in the log, oldest first
  let loading = null;
  let again = false;
  let forced = false;
  let following = false; // the live events are followed: they bring each new version
  let behindSince = null; // when a newer version was first seen before its events
  let accuracy; // the finished game's review's accuracies: asked for once (null: none)

  // Fetch the game, the view and (for a seated player) the legal moves at one version. While
  // an AI plays several commands in a row the versions may keep differing: then show the view
  // with nothing to click, and look again shortly (the moves are only offered when current).
  async function fetchAll() {
    let game, view, legal;
    for (let attempt = 0; attempt < 4; attempt++) {
      [game, view] = await Promise.all([
        api("GET", `/games/${gameId}`), api("GET", `/games/${gameId}/view`)]);
      legal = { commands: [], version: view.version };
      if (game.your_seat !== null && !game.result) {
        legal = await api("GET", `/games/${gameId}/legal`);
      }
      if (legal.version === view.version) return { game, view, legal: legal.commands };
    }
    setTimeout(reload, RETRY_MS);
    return { game, view, legal: [] };
  }

  // One reload at a time; a reload asked for meanwhile runs once more afterwards. ``current``:
  // the newest version now, even past moves still being shown step by step (a conflict).
  function reload(current) {
    if (current === true) forced = true;
    if (loading) { again = true; return loading; }
    loading = (async () => {
      try {
        do {
          again = false;
          const { game, view, legal } = await fetchAll();
          if (view.version < ctx.version) continue; // never back to an older version
          // Moves not delivered yet are not skipped over: their events are on the way (a busy
          // store delays them), and are drawn step by step. If they never come, the view
          // jumps ahead after a while.
          if (!forced && following && view.version > Math.max(logVersion, ctx.version)) {
            behindSince = behindSince ?? performance.now();
            if (steps.busy() || performance.now() - behindSince < CATCH_UP_MS) {
              setTimeout(() => { if (!steps.busy()) reload(); }, CATCH_UP_MS);
              continue;
            }
          }
          behindSince = null;
          forced = false;
          const moved = view.version !== ctx.version;
          const names = seatNames(game.seats);
          const renamed = !same(names, ctx.names);
          Object.assign(ctx, { game, view: view.view, table: view.table, legal, version: view.version,
                               seat: game.your_seat, names });
          document.dispatchEvent(new CustomEvent("omerta:game", { detail: game })); // clock.js
          if (renamed) redrawLog(); // a seat taken: its lines name the newcomer now
          if (moved) GameUI.reset();
          // Redraw only what changed: a reload for a burst of events often finds nothing new,
          // and a redraw would take the control under the player's finger or focus away.
          const key = JSON.stringify([game, view.version, legal, ctx.refusal]);
          if (key !== shownKey) draw();
          shownKey = key;
        } while (again);
      } catch (err) {
        showError(err);
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  function draw() {
    // A tab in the background shows when a move is owed.
    Omerta.setTitle("mark", ctx.legal.length ? "● " : "");
    drawSeats();
    drawResult();
    const prompt = document.getElementById("prompt");
    const board = document.getElementById("board");
    const active = document.activeElement;
    const hadFocus = prompt.contains(active) || board.contains(active);
    prompt.replaceChildren(...GameUI.prompt(ctx), ...GameHelp.prompt(ctx));
    if (ctx.refusal) {
      prompt.append(el("p", { class: "refusal", role: "alert" }, ctx.refusal));
    }
    board.replaceChildren(...GameUI.board(ctx).filter(Boolean));
    GameHelp.annotate(board, ctx);
    TableUI.draw(ctx);
    drawOptions();
    document.body.dataset.version = ctx.version; // the version on screen (tests wait on it)
    if (seeing) sendSeen();
    // A keyboard player's focus was on a control that is gone now: move it to the next choice.
    if (hadFocus) {
      const type = active.dataset && active.dataset.type;
      const next = (type && document.querySelector(`#main button[data-type="${type}"]`))
        || board.querySelector(".pickable") || prompt.querySelector("button")
        || board.querySelector("button");
      if (next) next.focus();
    }
  }

  // The prompt while the viewer has no move to make: whom the page waits for. Never the viewer
  // (between a step of the other's moves that hands over the turn and the moves being offered)
  // and never nobody: then the page is still catching up.
  function waiting(seats) {
    const names = seats.filter((s) => s !== ctx.seat).map((s) => ctx.names[s]).join(", ");
    if (!names) return [el("p", { class: "waiting" }, t("game.catching_up"))];
    if (ctx.seat === null) return [el("p", {}, t("game.watching", { name: names }))];
    return [el("p", { class: "waiting" }, t("game.waiting", { name: names }))];
  }

  function drawSeats() {
    const box = document.getElementById("seats");
    const toAct = new Set(ctx.game.to_act);
    box.replaceChildren(...ctx.game.seats.map((s) => el("span", {
      class: "seat" + (toAct.has(s.seat) ? " to-act" : "") + (s.seat === ctx.seat ? " you" : ""),
      dataset: { seat: s.seat },
    }, GameUI.seatMark(s.seat), " ",
      profileUrl(s) ? el("a", { href: profileUrl(s) }, ctx.names[s.seat]) : ctx.names[s.seat],
      Omerta.aiBadge(s),
      s.seat === ctx.seat ? el("span", { class: "you-tag" }, t("seat.you")) : null,
      toAct.has(s.seat) ? el("span", { class: "turn-tag" }, t("seat.to_act")) : null)));
  }

  function drawResult() {
    const box = document.getElementById("result");
    const result = ctx.game.result;
    box.hidden = !result;
    if (!result) return;
    box.replaceChildren(...resultParts(result, ctx.names, ctx.seat, accuracy));
    if (accuracy === undefined) {
      accuracy = null;
      reviewAccuracy(gameId).then((list) => { accuracy = list; if (list) drawResult(); });
    }
  }

  // The game's rule options, each with its explanation (drawn once: they never change).
  function drawOptions() {
    const box = document.getElementById("game-options");
    if (box.childElementCount || !ctx.game) return;
    const value = (key, v) => {
      if (typeof v === "boolean") return t(v ? "opt.on" : "opt.off");
      if (Array.isArray(v)) return v.join(", ");
      return typeof v === "string" ? t("opt." + key + "." + v) : String(v);
    };
    box.replaceChildren(...Object.entries(ctx.game.options).filter(([key]) =>
      Object.prototype.hasOwnProperty.call(Omerta.MESSAGES, "opt." + key + ".help")).map(([key, v]) =>
      el("li", { dataset: { option: key } }, Omerta.optionTip(key), ": ",
        el("strong", {}, value(key, v)))));
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  // A move that would end the game is confirmed first; "Cancel" sends nothing.
  async function confirmed(command) {
    const warning = GameHelp.endWarning(ctx, command);
    return !warning || Omerta.confirmMove(warning.text, warning.yes, warning.note);
  }

  // Sends a move decided on the version on screen. If another player moved first (Gangsta!
  // players may owe decisions at the same time) and the move is still legal, it goes again.
  async function send(command, retried) {
    if (!retried && !(await confirmed(command))) { GameUI.reset(); draw(); return; }
    ctx.refusal = null;
    try {
      const accepted = await api("POST", `/games/${gameId}/commands`,
        { command, expected_version: ctx.version }, { "Idempotency-Key": commandId() });
      // The position right after this move, from the answer: what others (an AI) play next
      // arrives by the live events and is drawn step by step, not skipped over by a reload.
      if (accepted.legal !== null) { await showAt(accepted.version, accepted.legal, accepted.to_act); return; }
    } catch (err) {
      if (!(err instanceof Omerta.ApiError)) { showError(err); return; }
      if (err.code === "conflict" && !retried) {
        await reload(true);
        if (ctx.legal.some((c) => same(c, command))) { await send(command, true); return; }
      }
      // The rule's own message in the page's language, shown where the player is looking.
      ctx.refusal = err.code === "conflict" ? t("game.moved_on")
        : Omerta.refusal(err, document.body.dataset.kind, GameUI.refusalParam);
    }
    await reload();
  }

  // --- the log, and live updates ----------------------------------------------------------

  function addLog(record) {
    if (record.version <= logVersion) return;
    logVersion = record.version;
    ctx.events.push(record.event);
    logged.push(record);
    const line = logLine(record);
    if (!line) return;
    document.getElementById("log").prepend(line);
    TableUI.numberLog();
  }

  function logLine(record) {
    const line = TableUI.describe(record.event, ctx.names) || GameUI.describe(record.event, ctx.names, record);
    const isNew = since && record.version > since.from && record.version <= since.to;
    return line && el("li", { class: isNew ? "since" : null,
      dataset: { version: record.version, type: record.type } }, line);
  }

  function redrawLog() {
    document.getElementById("log").replaceChildren(
      ...logged.map(logLine).filter(Boolean).reverse());
    TableUI.numberLog();
    markSince();
  }

  // --- what the player saw before: kept on the server (PUT /games/{id}/seen), so it follows
  // the player to every device. A version counts as seen once this page has shown it while
  // visible. What happened between the version seen last and the one this page first showed
  // is marked in the log, and a note at the top says so.

  let since = null; // { from, to }: the versions marked as new since the player last looked
  let seeing = false; // the viewer is a player: what this page shows counts as seen
  let looked = false; // the first version seen here was sent: its answer says what is new
  let seenSent = 0;

  async function sendSeen() {
    if (document.hidden || !ctx.version || ctx.version <= seenSent) return;
    const version = seenSent = ctx.version;
    try {
      const { previous } = await api("PUT", `/games/${gameId}/seen`, { version });
      if (!looked) {
        looked = true;
        markNew(previous, version);
      }
    } catch {
      seenSent = 0; // sent again at the next version shown
    }
  }

  // A first look (nothing seen before) or nothing new marks nothing.
  function markNew(previous, version) {
    if (!previous || previous >= version) return;
    since = { from: previous, to: version };
    redrawLog();
    const count = document.querySelectorAll("#log li.since").length;
    if (!count) return;
    document.getElementById("prompt").before(el("p", { class: "since-note", id: "since-note" },
      el("a", { href: "#log" }, t("game.since_note", { n: count }))));
  }

  async function startSeeing() {
    if (!(await Omerta.me().catch(() => null))) return; // a spectator without a player
    seeing = true;
    await sendSeen(); // (a page opened in the background: once it is shown)
  }

  // The boundary between the new lines and the old (the log shows the newest first): under the
  // oldest new line, inside it (an item of its own would shift the log's numbers).
  function markSince() {
    const marked = document.querySelectorAll("#log li.since");
    if (!marked.length) return;
    marked[marked.length - 1].append(
      el("span", { class: "since-marker", role: "note" }, t("game.since_marker")));
  }

  document.addEventListener("visibilitychange", () => { if (seeing) sendSeen(); });

  // The view at ``version`` with the given moves (none: a step of someone else's moves).
  async function showAt(version, legal, toAct) {
    const at = await api("GET", `/games/${gameId}/replay/${version}`);
    if (version <= ctx.version) return;
    Object.assign(ctx, { view: at.view, table: at.table, version, legal });
    if (toAct) ctx.game = Object.assign({}, ctx.game, { to_act: toAct });
    GameUI.reset();
    draw();
  }

  // Others' moves are drawn one command at a time (steps.js), then the current view and moves.
  const steps = Steps.player({
    log: addLog,
    seat: () => ctx.seat,
    shown: () => ctx.version,
    show: (version) => showAt(version, []),
    settle: reload,
  });

  // The game's stream; one refused is opened again from what the log shows (Omerta.keepStream).
  function openStream() {
    const source = new EventSource(`${Omerta.API}/games/${gameId}/events?after=${logVersion}`);
    document.dispatchEvent(new CustomEvent("omerta:events", { detail: source })); // chat.js
    const onEvent = (message) => steps.push(JSON.parse(message.data));
    for (const type of [...GameUI.EVENTS, ...TableUI.EVENTS]) source.addEventListener(type, onEvent);
    source.addEventListener("end", () => {
      source.close();
      ended = true;
      if (!steps.busy()) reload();
    });
    return source;
  }

  function follow() {
    Omerta.keepStream(openStream, () => !ended, reload);
  }

  async function start() {
    try {
      await Omerta.me().catch(() => null);
      // The history before the first draw: the pages work out what the moves offered will do
      // from it (Famiglia's other hand is tracked from the log).
      const history = await api("GET", `/games/${gameId}/history`);
      for (const record of history.events) addLog(record);
      await reload();
      follow();
      following = true;
      await startSeeing();
      // Taking a seat is no game event: while a seat is open, look for newcomers now and then.
      setInterval(() => {
        if (ctx.game && ctx.game.seats.some((s) => s.kind === "open" || s.kind === "reserved")) reload();
      }, SEAT_POLL_MS);
    } catch (err) {
      showError(err);
    }
  }

  start();
})();
