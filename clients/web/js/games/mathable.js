// Mathable: the 14x14 board with its premium and operator squares, the rack under it, and
// every seat's score, rack (or its size, when racks are hidden) and flags beside it.
//
// A rack tile goes to the board by dragging it (Pointer Events: mouse, pen and touch alike),
// or by picking it (a click, a tap, or 1-7) and then choosing a square (a click, or the
// cursor and Space). Whether it fits is the server's call: the tile shows on its square
// only until the server answers, and a refusal puts the board back as the last view had it.

import {
  Controls, Grid, ServerClock, Twice, attr, cellName, frame, h, keep, mmss, place, plural, SeatName, seatName,
  sender, setText, Stats,
} from "./common.js";
import { describeEvent, equation } from "../words.js";

const SIZE = 14;
const RACK = 7;
const DRAG_SLOP = 6;
const SQUARE_LABELS = { "3x": "3x", "2x": "2x", "+": "+", "-": "\u2212", "*": "\u00d7", "/": "\u00f7" };
const SQUARE_NAMES = { "3x": "triple", "2x": "double", "+": "plus only", "-": "minus only", "*": "times only", "/": "divide only" };

const KEYS = [
  ["1-7", "pick a rack tile (when exchanging: mark it)"],
  ["arrows, h j k l", "move the cursor on the board"],
  ["space, enter", "place the picked tile on the cursor's square"],
  ["escape", "drop the pick / cancel the exchange"],
  ["e", "end the turn (the rack refills)"],
  ["d", "take an earned extra draw"],
  ["x", "exchange: mark tiles, then x again to swap them"],
  ["i", "hint: a rack tile that fits (costs the Hall of Fame)"],
  ["v", "vote to quit (twice when it ends the game; once more withdraws it)"],
  ["?", "show or hide these keys"],
];

/** `21=7×3`: a placed tile and the equations it makes, as every client writes them. */
export const equationText = equation;

export function mount(root, ctx) {
  let view = null;
  let picked = null; // index into the shown rack
  let exchanging = null; // Set of rack indices, while choosing
  let pending = null; // {r, c, tile}: sent, not yet answered
  let drag = null;
  let swallowClick = false;
  let hinted = null;
  let recent = new Set();
  let current = new Set();
  let told = []; // the others' placements since our turn (watching: the last turn), in words
  let telling = [];
  const clock = new ServerClock();
  const twice = new Twice();
  const { main, side, signal, close } = frame(root, "mathable", KEYS, ctx);
  const restore = () => {
    pending = null;
    if (view) draw();
  };
  const send = sender(ctx, restore);

  const grid = new Grid({ label: "Mathable board", cls: "tb-mathable-grid", onActivate: (r, c) => activateSquare(r, c) });
  grid.cursor = [6, 8];
  const rackLabel = h("span", { class: "tb-rack-label", text: "Your rack" });
  const rackEl = h("div", { class: "tb-rack", role: "group", "aria-label": "Your rack" });
  const rackNote = h("div", { class: "tb-rack-note", "aria-live": "polite" });
  const controls = new Controls(root, signal);
  controls.add("end", "End turn", () => send({ do: "end" }).then(() => { picked = null; }), { key: "e", tone: "go" });
  controls.add("draw", "Draw", () => send({ do: "draw" }), { key: "d" });
  controls.add("exchange", "Exchange", () => exchange(), { key: "x" });
  controls.add("cancel", "Cancel", () => { exchanging = null; draw(); });
  controls.add("hint", "Hint", () => send({ do: "hint" }), { key: "i" });
  // A vote to quit is asked twice when it would end the game at once: every other person at
  // the table (the seats `ctx.bots` does not name) votes already, or there is none (a solo
  // game against computers). Otherwise it is one vote among several, sent at once. When the
  // shell cannot say which seats are computers, it is always asked twice. Withdrawing a vote
  // is never asked.
  function voteEndsGame() {
    const bots = ctx.bots;
    if (!Array.isArray(bots)) return true;
    const votes = new Set(view.quit_votes || []);
    return (view.scores || []).every((_, seat) => seat === ctx.seat || bots.includes(seat) || votes.has(seat));
  }
  controls.add("vote", "Vote to quit", () => {
    const voted = (view.quit_votes || []).includes(ctx.seat);
    if (voted || !voteEndsGame() || twice.press("vote")) send({ do: "quit", vote: !voted });
    else ctx.say("Press again to vote to quit: when every person at the table votes, the game ends.");
    drawControls();
  }, { key: "v", tone: "danger" });
  main.append(grid.el, h("div", { class: "tb-rack-row" }, rackLabel, rackEl), rackNote, controls.el);

  root.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
    if (/^[1-7]$/.test(ev.key)) {
      pickIndex(Number(ev.key) - 1, false);
      ev.preventDefault();
    } else if (ev.key === "Escape" && (picked !== null || exchanging)) {
      picked = null;
      exchanging = null;
      draw();
      ev.preventDefault();
    }
  }, { signal });

  // -- the rack: pick, drag, mark -----------------------------------------------------------

  rackEl.addEventListener("pointerdown", (ev) => {
    const button = ev.target.closest(".tb-rack-tile");
    if (!button || ev.button > 0 || exchanging || ctx.readOnly || ctx.seat === null) return;
    const index = Number(button.dataset.index);
    drag = { index, tile: rack()[index], x0: ev.clientX, y0: ev.clientY, moved: false, ghost: null, target: null, id: ev.pointerId, was: picked === index };
    picked = index;
    // No text selection and no native drag may start under the tile: Chrome would cancel
    // the pointer (pointercancel) to drag a selection instead.
    ev.preventDefault();
    try {
      button.setPointerCapture(ev.pointerId);
    } catch {
      // a synthetic pointer has nothing to capture; the window's listeners follow it anyway
    }
    drawRack();
  });
  const onMove = (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const dx = ev.clientX - drag.x0, dy = ev.clientY - drag.y0;
    if (!drag.moved && dx * dx + dy * dy > DRAG_SLOP * DRAG_SLOP) {
      drag.moved = true;
      drag.ghost = h("div", { class: "tb-ghost", "aria-hidden": "true" }, h("span", { class: "tb-number", text: String(drag.tile) }));
      document.body.append(drag.ghost);
      drawRack();
    }
    if (!drag.moved) return;
    const size = grid.cell(0, 0).getBoundingClientRect().width * 1.1;
    drag.ghost.style.width = `${size}px`;
    drag.ghost.style.height = `${size}px`;
    drag.ghost.style.left = `${ev.clientX - size / 2}px`;
    drag.ghost.style.top = `${ev.clientY - size / 2}px`;
    const target = cellAt(ev.clientX, ev.clientY);
    if (drag.target !== target) {
      if (drag.target) drag.target.classList.remove("tb-target");
      drag.target = target;
      if (target) target.classList.add("tb-target");
    }
    ev.preventDefault();
  };
  const onUp = (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (d.ghost) d.ghost.remove();
    if (d.target) d.target.classList.remove("tb-target");
    if (d.moved) {
      swallowClick = true;
      setTimeout(() => { swallowClick = false; }, 0);
      const target = ev.type === "pointerup" ? cellAt(ev.clientX, ev.clientY) : null;
      if (target) placeTile(d.index, Number(target.dataset.r), Number(target.dataset.c));
      else drawRack(); // dropped off the board: back on the rack, still picked
    } else {
      swallowClick = true;
      setTimeout(() => { swallowClick = false; }, 0);
      if (d.was) picked = null; // a second press on the picked tile puts it back
      drawRack();
    }
  };
  main.addEventListener("dragstart", (ev) => ev.preventDefault());
  window.addEventListener("pointermove", onMove, { passive: false, signal });
  window.addEventListener("pointerup", onUp, { signal });
  window.addEventListener("pointercancel", onUp, { signal });
  rackEl.addEventListener("click", (ev) => {
    const button = ev.target.closest(".tb-rack-tile");
    if (!button || swallowClick) return;
    pickIndex(Number(button.dataset.index)); // keyboard (Enter/Space on the tile), or a click while exchanging
  });

  function cellAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const cell = el && el.closest && el.closest("[role=gridcell]");
    return cell && grid.el.contains(cell) ? cell : null;
  }

  function rackOwner() {
    return ctx.seat !== null && ctx.seat !== undefined ? ctx.seat : view.to_move;
  }

  function rack() {
    const owner = rackOwner();
    const racks = view.racks || [];
    return owner === null || owner === undefined ? [] : racks[owner] || [];
  }

  function mine() {
    return !!view && view.status === "playing" && !ctx.readOnly && ctx.seat !== null && view.to_move === ctx.seat && !view.paused;
  }

  /** Pick rack tile `i` (a click on the picked one puts it back; a digit always picks). */
  function pickIndex(i, toggle = true) {
    if (ctx.readOnly || ctx.seat === null) return;
    if (i >= rack().length) return;
    if (exchanging) {
      if (exchanging.has(i)) exchanging.delete(i);
      else exchanging.add(i);
    } else {
      picked = picked === i && toggle ? null : i;
    }
    drawRack();
  }

  function exchange() {
    if (!exchanging) {
      exchanging = new Set();
      picked = null;
      ctx.say("Mark the tiles to give back (click them or press 1-7), then Swap.");
      draw();
      return;
    }
    const tiles = [...exchanging].sort().map((i) => rack()[i]).filter((t) => t !== undefined);
    exchanging = null;
    draw();
    if (tiles.length) send({ do: "exchange", tiles });
  }

  function activateSquare(r, c) {
    if (picked === null) {
      const v = valueAt(r, c);
      const kind = ((view.squares || [])[r] || [])[c];
      const watching = ctx.readOnly || ctx.seat === null;
      const what = kind ? `${cellName([r, c])} is a ${SQUARE_NAMES[kind]} square` : `${cellName([r, c])} is empty`;
      ctx.say(v !== null ? `${cellName([r, c])} holds ${v}.` : watching ? `${what}.` : `Pick a rack tile first${kind ? ` (${what})` : ""}.`);
      return;
    }
    placeTile(picked, r, c);
  }

  function placeTile(index, r, c) {
    if (!mine()) {
      ctx.say(view.status === "playing" ? "Wait for your turn." : "The game is not on.");
      drawRack();
      return;
    }
    const tile = rack()[index];
    if (tile === undefined) return;
    if (valueAt(r, c) !== null) {
      ctx.say(`${cellName([r, c])} already holds ${valueAt(r, c)}.`);
      drawRack();
      return;
    }
    pending = { r, c, tile, index };
    picked = null;
    draw();
    send({ do: "place", tile, at: [r, c] });
  }

  // -- drawing ------------------------------------------------------------------------------

  function draw() {
    drawBoard();
    drawRack();
    drawSide();
    drawControls();
  }

  // What each square shows now, as a string, so that an update touches only the squares
  // whose number, look or words changed (a placement: one or two of the 196).
  let shownCells = null;
  let shownFor = null;

  /** The number on a square: the view's (none before play starts), else the pending tile's. */
  function valueAt(r, c) {
    const row = view.board && view.board[r];
    return row ? row[c] ?? null : null;
  }

  function drawBoard() {
    const board = view.board || [];
    const squares = view.squares || [];
    grid.shape(board.length || SIZE, (board[0] || []).length || SIZE);
    if (shownFor !== grid.cells) {
      shownFor = grid.cells;
      shownCells = grid.cells.map((row) => row.map(() => null));
    }
    const placed = new Set(((view.turn && view.turn.placed) || []).map(([r, c]) => `${r},${c}`));
    for (let r = 0; r < grid.rows; r++) {
      for (let c = 0; c < grid.cols; c++) {
        const key = `${r},${c}`;
        const kind = (squares[r] || [])[c] || "";
        let value = valueAt(r, c);
        const isPending = pending && pending.r === r && pending.c === c && value === null;
        if (isPending) value = pending.tile;
        const has = value !== null && value !== undefined;
        const look = !has ? "" : isPending ? "p" : placed.has(key) ? "t" : recent.has(key) ? "r" : "-";
        const sig = `${kind}|${has ? value : ""}|${look}`;
        if (shownCells[r][c] === sig) continue;
        shownCells[r][c] = sig;
        const cell = grid.cell(r, c);
        cell.className = `tb-cell tb-sq${kind ? ` tb-sq-${{ "3x": "x3", "2x": "x2" }[kind] || "op"}` : ""}${grid.cursor[0] === r && grid.cursor[1] === c ? " tb-cursor" : ""}`;
        const name = cellName([r, c]);
        // the name holds what the square shows ("3x"): a voice user says what they see
        const kindWords = kind ? `, ${SQUARE_LABELS[kind]}: ${SQUARE_NAMES[kind]} square` : "";
        if (has) {
          const cls = `tb-number${{ p: " tb-pending", t: " tb-this-turn", r: " tb-recent" }[look] || ""}`;
          const tile = cell.firstElementChild;
          if (tile && tile.classList.contains("tb-number")) { // a tile's look changes: the same span
            if (tile.className !== cls) tile.className = cls;
            setText(tile, String(value));
          } else {
            cell.replaceChildren(h("span", { class: cls, text: String(value) }));
          }
          const note = { p: ", waiting for the server", t: ", placed this turn", r: ", placed lately" }[look] || "";
          cell.setAttribute("aria-label", `${name}, ${value}${note}`);
        } else {
          cell.replaceChildren(kind ? h("span", { class: "tb-sq-label", text: SQUARE_LABELS[kind] }) : "");
          cell.setAttribute("aria-label", `${name}, empty${kindWords}`);
        }
      }
    }
  }

  function drawRack() {
    const owner = rackOwner();
    const tiles = view.racks ? rack() : [];
    const shown = view.racks && owner !== null && owner !== undefined && view.racks[owner] !== null;
    const mineRack = owner === ctx.seat && ctx.seat !== null;
    const label = mineRack ? "Your rack" : owner !== null && owner !== undefined ? `Rack of ${seatName(owner, view, ctx.players)}` : "";
    setText(rackLabel, label);
    if (rackEl.getAttribute("aria-label") !== (label || "Rack")) rackEl.setAttribute("aria-label", label || "Rack");
    drawNote(tiles);
    // the buttons again only when something they show changed (and the focus stays put)
    const away = pending ? pending.index : drag && drag.moved ? drag.index : null;
    const sig = JSON.stringify([shown ? tiles : null, shown ? null : (view.rack_sizes || [])[owner] ?? null, picked,
      exchanging ? [...exchanging] : null, hinted, away, mineRack, view.status]);
    if (sig === shownRack) return;
    shownRack = sig;
    // The buttons are kept and changed in place: a placement changes one tile's number,
    // and only that tile is laid out again.
    const els = [];
    if (shown) {
      tiles.forEach((tile, i) => {
        const isPicked = picked === i && !exchanging;
        const marked = exchanging && exchanging.has(i);
        const gone = away === i;
        const cls = ["tb-rack-tile", isPicked ? "tb-picked" : "", marked ? "tb-marked" : "", tile === hinted && mineRack ? "tb-hinted" : "", gone ? "tb-away" : ""].filter(Boolean).join(" ");
        const words = `${tile}${isPicked ? ", picked" : ""}${marked ? ", to exchange" : ""}${tile === hinted && mineRack ? ", fits somewhere (hint)" : ""}`;
        if (!rackButtons[i]) {
          rackButtons[i] = h("button", { type: "button" }, h("span", { class: "tb-number" }));
          rackButtons[i].dataset.index = i;
        }
        const b = rackButtons[i];
        if (b.className !== cls) b.className = cls;
        attr(b, "aria-label", `Rack tile ${i + 1}: ${words}`);
        attr(b, "aria-pressed", mineRack ? String(!!(isPicked || marked)) : null);
        const disabled = !mineRack || view.status !== "playing";
        if (b.disabled !== disabled) b.disabled = disabled;
        setText(b.firstChild, String(tile));
        els.push(b);
      });
    } else if (owner !== null && owner !== undefined && view.rack_sizes) {
      for (let i = 0; i < (view.rack_sizes[owner] || 0); i++) {
        if (!rackBacks[i]) rackBacks[i] = h("span", { class: "tb-rack-back", "aria-label": "hidden tile" });
        els.push(rackBacks[i]);
      }
    }
    place(rackEl, els);
  }

  const rackButtons = [];
  const rackBacks = [];
  let shownRack = null;

  function drawNote(tiles) {
    let note = "";
    if (exchanging) note = `Exchange ${exchanging.size}: mark tiles, then Swap (Escape cancels).`;
    else if (mine() && hinted !== null && hinted !== undefined) note = `Hint: the ${hinted} fits somewhere.`;
    else if (mine() && picked === null) note = "Your turn: drag a tile to the board, or pick one (1-7) and then a square.";
    else if (mine() && picked !== null) note = `The ${tiles[picked]} is picked: choose a square.`;
    setText(rackNote, note);
  }

  // The bag's tiles, kept (not rebuilt) so that a reader who opened it keeps it open.
  const unseenList = h("div", { class: "tb-unseen-list" });
  const unseenSummary = h("summary");
  const unseenBox = h("details", { class: "tb-unseen" }, unseenSummary, unseenList);

  const seatBoxes = [];
  const stats = new Stats();

  /** The side panel, item by item: only an item whose words changed is built again. */
  function drawSide() {
    const scores = view.scores || [];
    const votes = new Set(view.quit_votes || []);
    const hintedSeats = new Set(view.hinted || []);
    const standins = new Set(view.standins || []);
    const items = scores.map((score, seat) => {
      const toMove = view.status === "playing" && view.to_move === seat;
      const flags = [toMove ? "to move" : "", standins.has(seat) ? "computer stands in" : "", votes.has(seat) ? "votes to quit" : "", hintedSeats.has(seat) ? "hinted" : ""].filter(Boolean);
      const r = (view.racks || [])[seat];
      const size = (view.rack_sizes || [])[seat] || 0;
      const who = seat === ctx.seat ? `${SeatName(seat, null, ctx.players)} (you)` : SeatName(seat, null, ctx.players);
      // each seat's box is kept and its parts changed in place (a score, a rack tile)
      if (!seatBoxes[seat]) {
        const name = h("span", { class: "tb-seat-name" });
        const points = h("span", { class: "tb-seat-score" });
        const flagsEl = h("div", { class: "tb-seat-flags" });
        const minis = h("div", { class: "tb-seat-rack" });
        seatBoxes[seat] = { el: h("div", {}, h("div", { class: "tb-seat-head" }, name, points), flagsEl, minis), name, points, flagsEl, minis, tiles: [] };
      }
      const box = seatBoxes[seat];
      const cls = `tb-seat${toMove ? " tb-to-move" : ""}`;
      if (box.el.className !== cls) box.el.className = cls;
      attr(box.el, "aria-label", `${who}: ${score} points${flags.length ? `, ${flags.join(", ")}` : ""}${r ? `, rack ${r.join(" ")}` : `, ${plural(size, "hidden tile")}`}`);
      setText(box.name, who);
      setText(box.points, String(score));
      setText(box.flagsEl, flags.join(" · "));
      if (box.flagsEl.hidden !== !flags.length) box.flagsEl.hidden = !flags.length;
      const count = r ? r.length : size;
      for (let i = box.tiles.length; i < count; i++) box.tiles.push(h("span", {}));
      for (let i = 0; i < count; i++) {
        const mini = box.tiles[i];
        const miniCls = r ? "tb-mini" : "tb-mini tb-mini-back";
        if (mini.className !== miniCls) mini.className = miniCls;
        setText(mini, r ? String(r[i]) : "");
      }
      place(box.minis, box.tiles.slice(0, count));
      return { key: `seat:${seat}`, sig: "", build: () => box.el };
    });
    if (told.length) {
      const label = ctx.seat === null ? "Last turn" : "Since your turn";
      const lines = told.slice(-8);
      items.push({
        key: "told",
        sig: JSON.stringify([label, lines]),
        build: () => h("div", { class: "tb-told" },
          h("div", { class: "tb-stat-label", text: label }),
          h("ul", {}, lines.map((line) => h("li", { text: line })))),
      });
    }
    items.push(stats.item("Tiles in the bag", view.bag ?? 0));
    const unseen = (view.unseen || []).length;
    if (unseen !== view.bag) items.push(stats.item("Tiles unseen", unseen));
    const turn = view.turn || {};
    if (view.status === "playing") {
      items.push(stats.item("Placed this turn", (turn.placed || []).length));
      if (turn.draws) items.push(stats.item("Extra draws", turn.draws, "tb-big"));
      const left = clock.left(view.deadline);
      if (left !== null) items.push(stats.item("Turn clock", mmss(left), left < 15 ? "tb-urgent" : ""));
      if (view.paused) items.push({ key: "paused", sig: "", build: () => h("div", { class: "tb-paused-note", text: "Paused: every player is away" }) });
    }
    if (view.result) {
      const res = view.result;
      const winners = (res.winners || []).map((s) => seatName(s, view, ctx.players)).join(" and ");
      const over = `Game over (${res.reason === "quit" ? "ended by a quit vote" : "no more moves"}): ${winners} won.`;
      items.push({ key: "over", sig: over, build: () => h("div", { class: "tb-over", text: over }) });
      if (res.penalties) {
        const text = `Rack penalties: ${res.penalties.join(", ")}`;
        items.push({ key: "penalties", sig: text, build: () => h("div", { class: "tb-dim-text", text }) });
      }
    }
    if (view.unseen && view.unseen.length) {
      const counts = new Map();
      for (const t of view.unseen) counts.set(t, (counts.get(t) || 0) + 1);
      setText(unseenSummary, unseen === view.bag ? "In the bag" : "Tiles unseen");
      setText(unseenList, [...counts].map(([t, n]) => (n > 1 ? `${t}\u00d7${n}` : String(t))).join("  "));
      items.push({ key: "unseen", sig: "", build: () => unseenBox });
    }
    keep(side, items);
  }

  function drawControls() {
    const turn = view.turn || {};
    const my = mine();
    const player = !ctx.readOnly && ctx.seat !== null;
    if (controls.el.hidden !== !player) controls.el.hidden = !player;
    controls.set("end", { enabled: my && !exchanging });
    controls.set("draw", { enabled: my && !exchanging && turn.draws > 0, label: turn.draws ? `Draw (${turn.draws})` : "Draw" });
    controls.set("exchange", { enabled: my && !!turn.can_exchange, label: exchanging ? `Swap ${exchanging.size || ""}`.trim() : "Exchange", pressed: !!exchanging });
    controls.set("cancel", { hidden: !exchanging });
    controls.set("hint", { enabled: my && !exchanging });
    const voted = (view.quit_votes || []).includes(ctx.seat);
    const armed = !voted && twice.isArmed("vote");
    controls.set("vote", {
      enabled: player && view.status === "playing",
      label: voted ? "Withdraw quit vote" : armed ? "Vote to quit: sure?" : "Vote to quit",
      pressed: voted || armed,
    });
  }

  const ticker = setInterval(() => {
    if (view && view.deadline && view.status === "playing") drawSide();
  }, 500);

  return {
    update(newView, events = []) {
      view = newView;
      clock.took(view);
      pending = null;
      for (const ev of events) {
        if (ev.e === "placed") {
          const key = `${ev.at[0]},${ev.at[1]}`;
          const line = `${SeatName(ev.seat, view, ctx.players)}: ${equationText(ev)} on ${cellName(ev.at)} +${ev.points}`;
          if (ctx.seat === null) {
            current.add(key);
            telling.push(line);
          } else if (ev.seat !== ctx.seat) {
            recent.add(key);
            told.push(line);
          }
          if (ev.seat === ctx.seat) picked = null;
        } else if (ev.e === "turn_ended") {
          if (ctx.seat === null) {
            recent = current;
            current = new Set();
            told = telling;
            telling = [];
          } else if (ev.seat === ctx.seat) {
            recent = new Set();
            told = [];
          }
        } else if (ev.e === "hint") {
          hinted = ev.tile;
        } else if (ev.e === "turn") {
          hinted = null;
        }
      }
      if (!mine()) exchanging = null;
      if (picked !== null && picked >= rack().length) picked = null;
      draw();
    },
    destroy() {
      clearInterval(ticker);
      if (drag && drag.ghost) drag.ghost.remove();
      close();
    },
  };
}

/** An event in words, as every client says it (words.json's `games`, through words.js):
 * null for housekeeping the log leaves out, undefined for an event with no words. */
export function describe(ev, view, names) {
  return describeEvent("mathable", ev, view, names);
}
