// Ishido: the 12x8 board, the stone to place, the squares where it may go (the view's
// `legal`, highlighted), help, undo, quit (asked twice), score and 4-ways.
//
// A stone is a colour and a symbol; the symbol is always drawn, and with the symbols
// preference the colour is written too (its letter), so that no stone is told by colour only.

import {
  Controls, Grid, Twice, cellName, frame, h, plural, sender, shape, stat,
} from "./common.js";
import { WORDS, describeEvent, stoneName as sharedStoneName } from "../words.js";

const ROWS = 8;
const COLS = 12;
// Colours and symbols by name, from the words every client shares (words.json).
export const COLOURS = WORDS.tiles.ishido.colours;
export const COLOUR_LETTERS = WORDS.tiles.ishido.letters;
export const SYMBOLS = WORDS.tiles.ishido.symbols;

const KEYS = [
  ["arrows, h j k l", "move the cursor"],
  ["space, enter", "place the stone on the cursor's square"],
  ["n, N", "next / previous square where the stone fits (Tab leaves the board)"],
  ["i", "help: the best square for this stone (counted)"],
  ["u", "take the last stone back (no record table)"],
  ["Q", "end the game (press twice)"],
  ["?", "show or hide these keys"],
];

/** A stone in words: "red star" (the shared words' stoneName). */
export const stoneName = sharedStoneName;

/** The element drawing a stone: its colour, its symbol, and (symbols on) its colour letter. */
export function stoneEl(stone, symbols) {
  const el = h("span", { class: `tb-stone tb-col-${stone[0] % 6}`, "aria-hidden": "true" });
  el.append(shape(SYMBOLS[stone[1] % 6], "#1c1c22"));
  if (symbols) el.append(h("span", { class: "tb-stone-letter", text: COLOUR_LETTERS[stone[0] % 6] }));
  return el;
}

export function mount(root, ctx) {
  let view = null;
  let hint = null;
  const twice = new Twice();
  const { main, side, signal, close } = frame(root, "ishido", KEYS, ctx);
  const restore = () => view && draw();
  const send = sender(ctx, restore);

  const grid = new Grid({
    label: "Ishido board",
    cls: "tb-ishido-grid",
    onActivate: (r, c) => place(r, c),
  });
  grid.cursor = [3, 6];
  const current = h("div", { class: "tb-current", "aria-live": "polite" });
  const controls = new Controls(root, signal);
  controls.add("help", "Help", () => send({ do: "help" }), { key: "i" });
  controls.add("undo", "Undo", () => send({ do: "undo" }), { key: "u" });
  controls.add("quit", "Quit", () => {
    if (twice.press("quit")) send({ do: "quit" });
    else ctx.say("Press Quit again to end the game here (no end bonus).");
    draw();
  }, { key: "Q", tone: "danger" });
  main.append(grid.el, controls.el);
  grid.el.addEventListener("keydown", (ev) => {
    if (ev.key === "n" || ev.key === "N") {
      nextLegal(ev.key === "n" ? 1 : -1);
      ev.preventDefault();
    }
  });

  function legalSet() {
    return new Set((view.legal || []).map(([r, c]) => `${r},${c}`));
  }

  function place(r, c) {
    if (!playable()) return;
    if (view.board[r][c]) {
      ctx.say(`${cellName([r, c])} already holds a stone.`);
      return;
    }
    send({ do: "place", at: [r, c] });
  }

  function playable() {
    if (ctx.readOnly || ctx.seat === null) {
      ctx.say("You are watching.");
      return false;
    }
    if (!view || view.status !== "playing") {
      ctx.say(view && view.status === "over" ? "The game is over." : "The game has not started.");
      return false;
    }
    return true;
  }

  function nextLegal(step) {
    const legal = (view && view.legal) || [];
    if (!legal.length) {
      ctx.say("The stone fits nowhere.");
      return;
    }
    const key = ([r, c]) => r * COLS + c;
    const here = key(grid.cursor);
    const sorted = legal.slice().sort((a, b) => key(a) - key(b));
    const next = step > 0
      ? sorted.find((cell) => key(cell) > here) || sorted[0]
      : sorted.slice().reverse().find((cell) => key(cell) < here) || sorted[sorted.length - 1];
    grid.setCursor(next[0], next[1]);
  }

  function draw() {
    const board = view.board || [];
    grid.shape(board.length || ROWS, (board[0] || []).length || COLS);
    const legal = legalSet();
    const last = view.last && view.last.at;
    const symbols = !!(ctx.prefs && ctx.prefs.symbols);
    const playing = view.status === "playing";
    for (let r = 0; r < grid.rows; r++) {
      for (let c = 0; c < grid.cols; c++) {
        const cell = grid.cell(r, c);
        const stone = board[r] && board[r][c];
        const ring = r === 0 || r === grid.rows - 1 || c === 0 || c === grid.cols - 1;
        const isLegal = playing && legal.has(`${r},${c}`);
        const isHint = hint && hint[0] === r && hint[1] === c;
        const isLast = last && last[0] === r && last[1] === c;
        cell.classList.toggle("tb-ring", ring);
        cell.classList.toggle("tb-legal", isLegal);
        cell.classList.toggle("tb-hint", !!isHint);
        cell.classList.toggle("tb-last", !!isLast);
        cell.classList.toggle("tb-dim", playing && !stone && !isLegal);
        const name = cellName([r, c]);
        let label;
        if (stone) {
          label = `${name}, ${stoneName(stone)}${isLast ? ", placed last" : ""}`;
          cell.replaceChildren(stoneEl(stone, symbols));
        } else {
          label = `${name}, empty${isLegal ? ", the stone fits" : ""}${isHint ? ", best square" : ""}${ring ? ", outer ring" : ""}`;
          // Pointing at (or the cursor on) a square where the stone fits shows it there.
          if (isLegal && view.current) {
            const ghost = stoneEl(view.current, symbols);
            ghost.classList.add("tb-ghost-stone");
            cell.replaceChildren(ghost);
          } else {
            cell.replaceChildren();
          }
        }
        cell.setAttribute("aria-label", label);
      }
    }
    const stone = view.current;
    current.replaceChildren(
      h("span", { class: "tb-current-label", text: view.status === "over" ? (stone && !(view.result && view.result.reason === "quit") ? "Stuck stone" : "Stone left") : "Stone to place" }),
      stone ? stoneEl(stone, symbols) : h("span", { text: "none" }),
      h("span", { class: "tb-current-name", text: stone ? stoneName(stone) : "" }),
    );
    const score = (view.scores || [0])[0];
    const items = [
      current,
      stat("Score", score, "tb-big"),
      stat("Left", `${view.left ?? 0} (pouch ${view.pouch ?? 0})`),
      stat("Placed", view.placed ?? 0),
      stat("4-ways", view.fourways ?? 0),
      stat("Helps used", view.helps ?? 0),
      playing ? stat("Fits on", plural((view.legal || []).length, "square")) : null,
      h("div", { class: "tb-dim-text", text: `${view.scoring || "modern"} scoring, 4-way ${view.four_way || "touching"}` }),
    ];
    if (view.undos) items.push(h("div", { class: "tb-warn", text: `Undos ${view.undos}: no record table` }));
    if (view.last) {
      const l = view.last;
      items.push(stat("Last", `${stoneName(l.stone)} on ${cellName(l.at)} +${(l.points || 0) + (l.bonus || 0)}`));
    }
    const result = view.result;
    if (result) {
      const over = result.won ? "You won!" : result.reason === "quit" ? "Game over: you ended it." : "Game over: the stone fits nowhere.";
      items.push(h("div", { class: "tb-over", text: `${over} ${plural(result.left ?? 0, "stone")} left, end bonus ${result.end_bonus ?? 0}.` }));
    }
    side.replaceChildren(...items.filter(Boolean));
    const mine = !ctx.readOnly && ctx.seat !== null && playing;
    controls.set("help", { enabled: mine });
    controls.set("undo", { enabled: mine && (view.placed || 0) > 0 });
    controls.set("quit", { enabled: mine, pressed: twice.isArmed("quit"), label: twice.isArmed("quit") ? "Quit: sure?" : "Quit" });
    controls.el.hidden = ctx.readOnly || ctx.seat === null;
  }

  return {
    update(newView, events = []) {
      view = newView;
      for (const ev of events) {
        if (ev.e === "help") {
          hint = ev.at;
          if (!ctx.readOnly && grid.hasFocus()) grid.setCursor(ev.at[0], ev.at[1]);
        } else if (ev.e === "placed" || ev.e === "undone") {
          hint = null;
        }
      }
      draw();
    },
    destroy() {
      close();
    },
  };
}

/** An event in words, as every client says it (words.json's `games`, through words.js):
 * null for housekeeping the log leaves out, undefined for an event with no words. */
export function describe(ev, view, names) {
  return describeEvent("ishido", ev, view, names);
}
