// Lines (CLines): pick a chip, then an empty square it can reach; the chip travels along
// the path the server's `moved` event gives (no travel under reduced motion); the next
// throw's colours when the room shows them; score, streak, undo, quit (asked twice).
//
// With the symbols preference every colour also has its own shape inside the chip.

import {
  Controls, Grid, Twice, animate, cellName, frame, h, sender, shape, stat,
} from "./common.js";
import { WORDS, describeEvent } from "../words.js";

export const CHIP_NAMES = WORDS.tiles.lines.colours; // the words every client shares
export const CHIP_SHAPES = ["", "dot", "triangle", "square", "diamond", "star", "cross", "ring", "heart", "hourglass"];
const STEP_MS = 45;

const KEYS = [
  ["arrows, h j k l", "move the cursor"],
  ["space, enter", "pick the chip under the cursor, then the square to move it to"],
  ["escape", "drop the picked chip"],
  ["u", "take the last move back (no record table)"],
  ["Q", "end the game (press twice; the score counts)"],
  ["?", "show or hide these keys"],
];

function chipName(colour) {
  return CHIP_NAMES[colour] || `colour ${colour}`;
}

/** A chip: a coloured disc, with its colour's own shape when symbols are on. */
export function chipEl(colour, symbols) {
  const el = h("span", { class: `tb-chip tb-chip-${colour}`, "aria-hidden": "true" });
  if (symbols) el.append(shape(CHIP_SHAPES[colour] || "dot", "#15161a"));
  return el;
}

/** The squares a chip at `from` can reach through empty squares (for display only). */
function reachable(board, from) {
  const rows = board.length, cols = board[0].length;
  const seen = new Set([`${from[0]},${from[1]}`]);
  const todo = [from];
  while (todo.length) {
    const [r, c] = todo.pop();
    for (const [dr, dc] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const nr = r + dr, nc = c + dc;
      const key = `${nr},${nc}`;
      if (nr < 0 || nc < 0 || nr >= rows || nc >= cols || seen.has(key) || board[nr][nc]) continue;
      seen.add(key);
      todo.push([nr, nc]);
    }
  }
  return seen;
}

export function mount(root, ctx) {
  let view = null;
  let selected = null;
  let travel = null; // {to: [r, c], anim}
  let marks = { gone: new Set(), thrown: new Set(), trail: new Set() };
  let fadeTimer = null;
  const twice = new Twice();
  const { main, side, signal, close } = frame(root, "lines", KEYS, ctx);
  const restore = () => {
    selected = null;
    if (view) draw();
  };
  const send = sender(ctx, restore);
  const grid = new Grid({ label: "Lines board", cls: "tb-lines-grid", onActivate: (r, c) => activate(r, c) });
  const wrap = h("div", { class: "tb-lines-wrap" }, grid.el);
  const controls = new Controls(root, signal);
  controls.add("undo", "Undo", () => send({ do: "undo" }), { key: "u" });
  controls.add("quit", "Quit", () => {
    if (twice.press("quit")) send({ do: "quit" });
    else ctx.say("Press Quit again to end the game here (its score counts).");
    draw();
  }, { key: "Q", tone: "danger" });
  main.append(wrap, controls.el);
  grid.el.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && selected) {
      selected = null;
      draw();
      ev.preventDefault();
    }
  });

  function activate(r, c) {
    if (ctx.readOnly || ctx.seat === null) return ctx.say("You are watching.");
    if (!view || view.status !== "playing") return ctx.say("The game is not on.");
    const board = view.board;
    if (board[r][c]) {
      selected = selected && selected[0] === r && selected[1] === c ? null : [r, c];
      draw();
      return;
    }
    if (!selected) return ctx.say("Pick a chip first.");
    const from = selected;
    if (!reachable(board, from).has(`${r},${c}`)) {
      ctx.say(`No free path from ${cellName(from)} to ${cellName([r, c])}.`);
    }
    send({ do: "move", from, to: [r, c] });
  }

  function draw() {
    const board = view.board || [];
    grid.shape(board.length, (board[0] || []).length);
    const symbols = !!(ctx.prefs && ctx.prefs.symbols);
    const reach = selected && view.status === "playing" ? reachable(board, selected) : null;
    for (let r = 0; r < grid.rows; r++) {
      for (let c = 0; c < grid.cols; c++) {
        const cell = grid.cell(r, c);
        const key = `${r},${c}`;
        const colour = board[r][c];
        const isSel = selected && selected[0] === r && selected[1] === c;
        const hidden = travel && travel.to[0] === r && travel.to[1] === c;
        cell.classList.toggle("tb-selected", !!isSel);
        cell.classList.toggle("tb-reach", !!(reach && !colour && reach.has(key)));
        cell.classList.toggle("tb-gone", marks.gone.has(key) && !colour);
        cell.classList.toggle("tb-trail", marks.trail.has(key) && !colour);
        cell.classList.toggle("tb-thrown", marks.thrown.has(key) && !!colour);
        const name = cellName([r, c]);
        if (colour) {
          cell.replaceChildren(chipEl(colour, symbols));
          if (hidden) cell.firstChild.classList.add("tb-arriving");
          cell.setAttribute("aria-label", `${name}, ${chipName(colour)} chip${isSel ? ", picked" : ""}`);
        } else {
          cell.replaceChildren();
          cell.setAttribute("aria-label", `${name}, empty${reach && reach.has(key) ? ", reachable" : ""}`);
        }
      }
    }
    const items = [stat("Score", view.score ?? 0, "tb-big"), stat("Moves", view.moves ?? 0), stat("Streak", view.streak ?? 0)];
    if (view.next) {
      items.push(h("div", { class: "tb-next", "aria-label": `Next throw: ${view.next.map(chipName).join(", ")}` },
        h("span", { class: "tb-stat-label", text: "Next" }),
        ...view.next.map((colour) => h("span", { class: "tb-next-chip" }, chipEl(colour, symbols)))));
    }
    items.push(h("div", { class: "tb-dim-text", text: `${view.width}x${view.height}, ${view.colours} colours, lines of ${view.min_line}, throws ${view.throw}` }));
    if (view.undos) items.push(h("div", { class: "tb-warn", text: `Undos ${view.undos}: no record table` }));
    else if (view.eligible === false) items.push(h("div", { class: "tb-dim-text", text: "Not for the record table" }));
    if (view.warning) items.push(h("div", { class: "tb-warn", text: view.warning }));
    if (symbols) {
      items.push(h("div", { class: "tb-legend" }, Array.from({ length: view.colours || 0 }, (_, i) =>
        h("span", { class: "tb-legend-item" }, chipEl(i + 1, true), chipName(i + 1)))));
    }
    if (view.status === "over") {
      const why = { no_room: "no room to throw", board_full: "the board is full", board_empty: "the throw cleared the board", quit: "you ended it" }[view.reason] || view.reason || "";
      items.push(h("div", { class: "tb-over", text: `Game over: ${why}. Score ${view.score}.` }));
    }
    if (selected) items.push(h("div", { text: `Picked ${cellName(selected)}` }));
    side.replaceChildren(...items);
    const mine = !ctx.readOnly && ctx.seat !== null && view.status === "playing";
    controls.set("undo", { enabled: mine && (view.moves || 0) > 0 });
    controls.set("quit", { enabled: mine, pressed: twice.isArmed("quit"), label: twice.isArmed("quit") ? "Quit: sure?" : "Quit" });
    controls.el.hidden = ctx.readOnly || ctx.seat === null;
  }

  function stopTravel() {
    if (travel) {
      if (travel.anim) travel.anim.cancel();
      if (travel.el) travel.el.remove();
      travel = null;
    }
  }

  /** The chip goes along its path, square by square, over the board. */
  function startTravel(ev) {
    stopTravel();
    if (!animate(ctx) || !ev.path || ev.path.length < 2) return;
    const rows = grid.rows, cols = grid.cols;
    const symbols = !!(ctx.prefs && ctx.prefs.symbols);
    const el = h("div", { class: "tb-traveller", "aria-hidden": "true" }, chipEl(ev.colour, symbols));
    el.style.width = `${100 / cols}%`;
    el.style.height = `${100 / rows}%`;
    wrap.append(el);
    const frames = ev.path.map(([r, c]) => ({ left: `${(100 * c) / cols}%`, top: `${(100 * r) / rows}%` }));
    const anim = el.animate(frames, { duration: STEP_MS * (ev.path.length - 1), easing: "linear", fill: "forwards" });
    travel = { to: ev.to, anim, el };
    anim.onfinish = () => {
      if (travel && travel.anim === anim) {
        stopTravel();
        if (view) draw();
      }
    };
  }

  return {
    update(newView, events = []) {
      view = newView;
      const gone = new Set(), thrown = new Set(), trail = new Set();
      let moved = null;
      for (const ev of events) {
        if (ev.e === "moved") {
          moved = ev;
          for (const [r, c] of ev.path.slice(0, -1)) trail.add(`${r},${c}`);
        } else if (ev.e === "removed") {
          for (const [r, c] of ev.cells) gone.add(`${r},${c}`);
        } else if (ev.e === "thrown") {
          for (const [r, c] of ev.cells) thrown.add(`${r},${c}`);
        }
      }
      if (moved || events.some((ev) => ev.e === "undone")) selected = null;
      if (selected && !(view.board[selected[0]] || [])[selected[1]]) selected = null;
      if (moved || gone.size || thrown.size) {
        marks = { gone, thrown, trail };
        clearTimeout(fadeTimer);
        fadeTimer = setTimeout(() => {
          marks = { gone: new Set(), thrown: new Set(), trail: new Set() };
          if (view) draw();
        }, 900);
      }
      if (moved) startTravel(moved);
      else stopTravel();
      draw();
    },
    destroy() {
      stopTravel();
      clearTimeout(fadeTimer);
      close();
    },
  };
}

/** An event in words, as every client says it (words.json's `games`, through words.js):
 * null for housekeeping the log leaves out, undefined for an event with no words. */
export function describe(ev, view, names) {
  return describeEvent("lines", ev, view, names);
}
