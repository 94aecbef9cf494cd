// Following other players' moves one at a time: the live events are queued, and each command
// of another player (an AI's chain of moves, several AI turns in a row) is drawn at its own
// version for a moment, with what it changed highlighted, before the next one.
"use strict";

const Steps = (() => {
  const REDUCED = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const PAUSE_MS = REDUCED ? 250 : 700;
  const MAX_STEPS = 12; // further behind than this (a tab back from the background): jump ahead
  // Event fields that name a card or gangster on the board.
  const CARD_FIELDS = ["card", "gangster", "heist", "hand_card", "area_card", "target",
    "to_area", "back_to_hand"];

  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  // The board elements an event's cards are drawn as: marked until the next step.
  function highlight(records) {
    const names = new Set();
    for (const { event } of records) {
      for (const field of CARD_FIELDS) {
        if (typeof event[field] === "string" || typeof event[field] === "number") {
          names.add(String(event[field]));
        }
      }
      for (const card of event.cards || []) names.add(String(card));
    }
    for (const node of document.querySelectorAll("#board [data-card]")) {
      if (names.has(node.dataset.card)) node.classList.add("changed");
    }
    for (const old of document.querySelectorAll("#log li.fresh")) old.classList.remove("fresh");
    for (const record of records) {
      const line = document.querySelector(`#log li[data-version="${record.version}"]`);
      if (line) line.classList.add("fresh");
    }
  }

  // hooks: log(record) adds a log line; seat() is the viewer's; shown() is the version on
  // screen; show(version) draws the view at that version, without moves; settle() loads the
  // current view and moves.
  function player(hooks) {
    const queue = [];
    let running = false;

    // The next command's records: every event one command appended shares its command id.
    function nextGroup() {
      const id = queue[0].command_id;
      let n = 0;
      while (n < queue.length && queue[n].command_id === id) n++;
      return queue.splice(0, n);
    }

    function commandsQueued() {
      return new Set(queue.map((r) => r.command_id)).size;
    }

    async function run() {
      running = true;
      try {
        while (queue.length) {
          const group = nextGroup();
          for (const record of group) hooks.log(record);
          const version = group[group.length - 1].version;
          // The viewer's own moves are on screen already (drawn when sent).
          const step = group.some((r) => r.actor !== hooks.seat()) && version > hooks.shown()
            && !document.hidden && commandsQueued() < MAX_STEPS;
          if (step) {
            await hooks.show(version);
            highlight(group);
            await sleep(PAUSE_MS);
          }
        }
      } catch (err) {
        Omerta.logFault(err); // a step that cannot be drawn: the current view follows anyway
        queue.length = 0;
      }
      try {
        await hooks.settle();
      } finally {
        running = false;
      }
      if (queue.length) push();
    }

    // A live event: queued, drawn in turn (a short wait gathers the rest of its command).
    function push(record) {
      if (record) queue.push(record);
      if (!running) {
        running = true;
        setTimeout(run, 60);
      }
    }

    return { push, busy: () => running };
  }

  return { player, highlight, PAUSE_MS };
})();
