// The table's part of the game page (docs/table.md): Concede (confirmed first), Offer a draw,
// Accept or Decline the other player's offer (2 players), Undo (only when the API says
// ``can_undo``), and the log lines of the table's events. game.js calls ``draw(ctx)`` after each
// redraw, asks ``describe`` first for a log line, and follows ``EVENTS`` live. The game and
// replay pages number their logs' lines with ``numberLog``.
"use strict";

const TableUI = (() => {
  const { el, t, tn } = Omerta;
  const EVENTS = ["conceded", "timed_out", "draw_offered", "draw_declined", "draw_agreed", "expired",
    "undone"];

  function describe(e, names) {
    const who = (s) => el("strong", {}, names[s]);
    const two = names.length === 2;
    switch (e.type) {
      case "conceded": return tn(two ? "table.ev.conceded" : "table.ev.conceded_bot", { name: who(e.seat) });
      case "timed_out": return tn(e.forfeit && two ? "table.ev.timed_out.forfeit" : "table.ev.timed_out.bot",
        { name: who(e.seat) });
      case "draw_offered": return tn("table.ev.draw_offered", { name: who(e.seat) });
      case "draw_declined": return tn("table.ev.draw_declined", { name: who(e.seat) });
      case "draw_agreed": return [t("table.ev.draw_agreed")];
      case "expired": return [t("reason.expired", { days: e.days })];
      case "undone": return tn("table.ev.undone", { name: who(e.seat) });
      default: return null;
    }
  }

  function button(type, label, onclick, extra) {
    return el("button", Object.assign({ type: "button", class: "small", dataset: { type }, onclick },
      extra || {}), label);
  }

  async function concede(ctx) {
    const two = ctx.game.seats.length === 2;
    const sure = await Omerta.confirmMove(t(two ? "table.concede.confirm.two" : "table.concede.confirm.more"),
      t("table.concede.yes"));
    if (sure) ctx.send({ type: "concede" });
  }

  // The controls for the viewer's seat: nothing for a spectator, after the end, or for a seat a
  // bot plays now (only the bot moves for it).
  function controls(ctx) {
    const table = ctx.table;
    if (!table || ctx.seat === null || !ctx.game || ctx.game.result) return [];
    if (table.bots.includes(ctx.seat)) return [el("p", { class: "note" }, t("table.bot_note"))];
    const send = (type) => () => ctx.send({ type });
    const out = [];
    if (table.can_undo) {
      out.push(button("undo", t("table.undo"), send("undo"), { title: t("table.undo.help") }));
    }
    if (table.draws && table.draw_offer !== null && table.draw_offer !== ctx.seat) {
      out.push(el("p", { class: "draw-offer", role: "status" },
        tn("table.draw_offered_you", { name: el("strong", {}, ctx.names[table.draw_offer]) })),
      button("accept_draw", t("table.accept_draw"), send("accept_draw")),
      button("decline_draw", t("table.decline_draw"), send("decline_draw")));
    } else if (table.draw_offer === ctx.seat) {
      out.push(el("p", { class: "note" }, t("table.draw_offered_mine")));
    } else if (table.can_offer_draw) {
      out.push(button("offer_draw", t("table.offer_draw"), send("offer_draw")));
    }
    out.push(button("concede", t("table.concede"), () => concede(ctx)));
    return out;
  }

  // The box sits under the move prompt; created once.
  function draw(ctx) {
    let box = document.getElementById("table-actions");
    if (!box) {
      box = el("section", { id: "table-actions", class: "table-actions", "aria-label": t("table.actions") });
      document.getElementById("prompt").after(box);
    }
    const active = document.activeElement;
    const focused = box.contains(active) ? active.dataset.type : null;
    const parts = controls(ctx);
    box.hidden = !parts.length;
    box.replaceChildren(...parts);
    // A keyboard player keeps their place: the same control again, or the first one.
    if (focused) {
      const next = box.querySelector(`button[data-type="${focused}"]`) || box.querySelector("button");
      if (next) next.focus();
    }
  }

  // Numbers the log's lines (newest first: n lines count down from n), each number an element
  // of its own as wide as it needs: the list's own markers sat in a margin two digits wide,
  // and a long game's "175." was cut off at the log's left edge. After every change of the log.
  function numberLog() {
    const lines = document.querySelectorAll("#log > li");
    lines.forEach((li, i) => {
      const number = li.querySelector(":scope > .step-no")
        || li.insertBefore(el("span", { class: "step-no" }), li.firstChild);
      number.textContent = `${lines.length - i}.`;
    });
  }

  return { EVENTS, describe, draw, numberLog };
})();
