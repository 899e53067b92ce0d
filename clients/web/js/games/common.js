// What the five boards share: square names, element building, the ARIA grid with its
// roving cursor, buttons with keys, clocks on the server's time, twice-pressed buttons,
// the symbols that stand in for colours. The words for events are words.js's (words.json).
//
// A board keeps no game state of its own beyond input (a cursor, a selection, a drag):
// everything it draws comes from the last view the shell handed it, and a refused action
// simply redraws that view.

export const LETTERS = "abcdefghijklmnopqrstuvwxyz";

// The boards' own styles, loaded once beside this module (the page's CSP allows a
// stylesheet of its own origin; no inline style is used anywhere).
if (typeof document !== "undefined" && !document.querySelector("link[data-tb-games]")) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../../css/games.css", import.meta.url).href;
  link.dataset.tbGames = "";
  document.head.append(link);
}
const SVG_NS = "http://www.w3.org/2000/svg";

/** A square as the terminal client names it: column letter, row from 1 (`[6, 7]` -> `h7`). */
export function cellName(cell) {
  if (!cell) return "-";
  const [r, c] = cell;
  return c >= 0 && c < 26 ? `${LETTERS[c]}${r + 1}` : `${r},${c}`;
}

/** A seat as people say it: "you" for the viewer's own, else its player's name from the
 * room's summary (`names`, one per seat), else "seat N" counted from 1. */
export function seatName(seat, view, names) {
  if (seat === null || seat === undefined) return "nobody";
  if (view && view.seat === seat && seat !== null) return "you";
  if (names && names[seat]) return String(names[seat]);
  return `seat ${seat + 1}`;
}

/** :func:`seatName` to open a sentence: "You", "Seat 2", but a player's name as they wrote it. */
export function SeatName(seat, view, names) {
  const name = seatName(seat, view, names);
  return names && names[seat] && !(view && view.seat === seat) ? name : cap(name);
}

/** Build an element: `h("button", {class: "x", text: "Go", on: {click}, aria-label: ...})`. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Build an SVG element with attributes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child) el.append(child);
  return el;
}

// -- symbols -------------------------------------------------------------------------------

/** Shapes drawn in a 0..100 box: each a distinct outline readable without colour. */
const SHAPES = {
  ring: () => [s("circle", { cx: 50, cy: 50, r: 30, fill: "none", "stroke-width": 14 })],
  triangle: () => [s("polygon", { points: "50,16 86,80 14,80" })],
  square: () => [s("rect", { x: 22, y: 22, width: 56, height: 56 })],
  diamond: () => [s("polygon", { points: "50,12 88,50 50,88 12,50" })],
  star: () => [s("polygon", { points: starPoints(50, 54, 40, 17) })],
  cross: () => [
    s("polygon", { points: "38,12 62,12 62,38 88,38 88,62 62,62 62,88 38,88 38,62 12,62 12,38 38,38" }),
  ],
  heart: () => [s("path", { d: "M50 86 L16 50 A18 18 0 0 1 50 26 A18 18 0 0 1 84 50 Z" })],
  bar: () => [s("rect", { x: 14, y: 38, width: 72, height: 24 })],
  hourglass: () => [s("polygon", { points: "18,16 82,16 50,50 82,84 18,84 50,50" })],
  dot: () => [s("circle", { cx: 50, cy: 50, r: 22 })],
};

function starPoints(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 ? inner : outer;
    const angle = (Math.PI / 5) * i - Math.PI / 2;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** An inline SVG of a named shape, filled (or stroked, for the ring) with `ink`. */
export function shape(name, ink = "currentColor", cls = "tb-shape") {
  const parts = (SHAPES[name] || SHAPES.dot)();
  for (const p of parts) {
    if (p.getAttribute("fill") === "none") p.setAttribute("stroke", ink);
    else p.setAttribute("fill", ink);
  }
  const svg = s("svg", { viewBox: "0 0 100 100", class: cls, "aria-hidden": "true", focusable: "false" }, parts);
  svg.dataset.shape = name;
  return svg;
}

// -- the grid ------------------------------------------------------------------------------

const MOVES = {
  ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
  k: [-1, 0], j: [1, 0], h: [0, -1], l: [0, 1],
};

/**
 * A board of squares in the ARIA grid pattern: role=grid > role=row > role=gridcell, one
 * cell in the tab order (the cursor), arrows (or h j k l, as in the terminal) move it,
 * Space or Enter acts on it, a click moves it there and acts.
 */
export class Grid {
  constructor({ label, cls = "", onActivate, onCursor }) {
    this.el = h("div", { class: `tb-grid ${cls}`, role: "grid", "aria-label": label });
    this.onActivate = onActivate;
    this.onCursor = onCursor;
    this.rows = 0;
    this.cols = 0;
    this.cells = [];
    this.cursor = [0, 0];
    this.el.addEventListener("keydown", (ev) => this.key(ev));
    this.el.addEventListener("click", (ev) => {
      const cell = ev.target.closest("[role=gridcell]");
      if (!cell || !this.el.contains(cell)) return;
      const r = Number(cell.dataset.r), c = Number(cell.dataset.c);
      this.setCursor(r, c, false);
      this.onActivate(r, c, "click");
    });
  }

  /** Make the grid `rows` x `cols` (kept as is when it already is). */
  shape(rows, cols) {
    if (rows === this.rows && cols === this.cols) return;
    this.rows = rows;
    this.cols = cols;
    this.el.style.setProperty("--rows", rows);
    this.el.style.setProperty("--cols", cols);
    this.el.setAttribute("aria-rowcount", rows);
    this.el.setAttribute("aria-colcount", cols);
    this.cells = [];
    const rowEls = [];
    for (let r = 0; r < rows; r++) {
      const row = h("div", { role: "row", class: "tb-row", "aria-rowindex": r + 1 });
      const cells = [];
      for (let c = 0; c < cols; c++) {
        const cell = h("div", { role: "gridcell", class: "tb-cell", tabindex: -1, "aria-colindex": c + 1 });
        cell.dataset.r = r;
        cell.dataset.c = c;
        cell.dataset.name = cellName([r, c]);
        row.append(cell);
        cells.push(cell);
      }
      this.cells.push(cells);
      rowEls.push(row);
    }
    this.el.replaceChildren(...rowEls);
    const [r, c] = this.cursor;
    this.setCursor(Math.min(r, rows - 1), Math.min(c, cols - 1), false);
  }

  cell(r, c) {
    return this.cells[r] && this.cells[r][c];
  }

  /** Move the roving tabindex to (r, c); `focus` also moves the keyboard focus there. */
  setCursor(r, c, focus = true) {
    if (!this.rows || !this.cols) return;
    r = Math.max(0, Math.min(this.rows - 1, r));
    c = Math.max(0, Math.min(this.cols - 1, c));
    const old = this.cell(...this.cursor);
    if (old) {
      old.tabIndex = -1;
      old.classList.remove("tb-cursor");
    }
    this.cursor = [r, c];
    const cell = this.cell(r, c);
    cell.tabIndex = 0;
    cell.classList.add("tb-cursor");
    if (focus) cell.focus();
    if (this.onCursor) this.onCursor(r, c);
  }

  hasFocus() {
    return this.el.contains(document.activeElement);
  }

  key(ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const move = MOVES[ev.key];
    const [r, c] = this.cursor;
    if (move) {
      this.setCursor(r + move[0], c + move[1]);
    } else if (ev.key === "Home") {
      this.setCursor(ev.shiftKey ? 0 : r, 0);
    } else if (ev.key === "End") {
      this.setCursor(ev.shiftKey ? this.rows - 1 : r, this.cols - 1);
    } else if (ev.key === " " || ev.key === "Enter") {
      this.onActivate(r, c, "key");
    } else {
      return;
    }
    ev.preventDefault();
    ev.stopPropagation();
  }
}

// -- controls ------------------------------------------------------------------------------

/**
 * The row of a game's own buttons, and the keys that press them while the focus is anywhere
 * in the board (`key` as `KeyboardEvent.key`, so `Q` is shift+q, as in the terminal).
 */
export class Controls {
  constructor(root, signal) {
    this.el = h("div", { class: "tb-controls", role: "toolbar", "aria-label": "Game controls" });
    this.buttons = new Map();
    this.keys = new Map();
    this.onKey = (ev) => {
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
      const name = this.keys.get(ev.key);
      if (!name) return;
      const button = this.buttons.get(name);
      if (!button || button.disabled || button.hidden) return;
      ev.preventDefault();
      button.click();
    };
    root.addEventListener("keydown", this.onKey, { signal });
  }

  add(name, label, onClick, { key, tone } = {}) {
    const button = h("button", {
      type: "button",
      class: `tb-button${tone ? ` tb-${tone}` : ""}`,
      "aria-keyshortcuts": key ? (key === "Q" ? "Shift+Q" : key) : undefined,
      title: key ? `${label} (${key})` : label,
      on: { click: onClick },
    });
    button.textContent = label;
    this.buttons.set(name, button);
    if (key) this.keys.set(key, name);
    this.el.append(button);
    return button;
  }

  get(name) {
    return this.buttons.get(name);
  }

  /** Change only what differs: a write of the same value still dirties the style. */
  set(name, { enabled, label, pressed, hidden } = {}) {
    const b = this.buttons.get(name);
    if (!b) return;
    if (enabled !== undefined && b.disabled !== !enabled) b.disabled = !enabled;
    if (label !== undefined && b.textContent !== label) b.textContent = label;
    const p = pressed ? "true" : "false";
    if (pressed !== undefined && b.getAttribute("aria-pressed") !== p) b.setAttribute("aria-pressed", p);
    if (hidden !== undefined && b.hidden !== hidden) b.hidden = hidden;
  }
}

/** A button that must be pressed twice within a few seconds (quitting a solo game). */
export class Twice {
  constructor(seconds = 3) {
    this.ms = seconds * 1000;
    this.armed = null;
    this.at = 0;
  }

  /** True on the confirming press; false (and armed) on the first. */
  press(what) {
    const now = Date.now();
    if (this.armed === what && now - this.at < this.ms) {
      this.armed = null;
      return true;
    }
    this.armed = what;
    this.at = now;
    return false;
  }

  isArmed(what) {
    return this.armed === what && Date.now() - this.at < this.ms;
  }
}

/**
 * Seconds left until a server deadline, on the server's clock: the view's `now` against our
 * own clock at receipt, so a wrong local clock or an old view still counts right.
 */
export class ServerClock {
  constructor() {
    this.offset = 0;
  }

  took(view) {
    if (view && typeof view.now === "number") this.offset = view.now - Date.now() / 1000;
  }

  left(deadline) {
    if (deadline === null || deadline === undefined) return null;
    return Math.max(0, deadline - (Date.now() / 1000 + this.offset));
  }
}

export function mmss(seconds) {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// -- drawing only what changed ---------------------------------------------------------------

const KEPT = new WeakMap();

/**
 * Fill `parent` with the elements of `items` ({key, sig, build}), building again only the
 * items whose `sig` differs from the last call's for the same key and moving nothing when
 * the order is the same: an update redraws the one score that changed, not the panel (which
 * would make the browser style and lay out every child again, on every update).
 */
export function keep(parent, items) {
  const old = KEPT.get(parent) || new Map();
  const next = new Map();
  const els = [];
  for (const { key, sig, build } of items) {
    let entry = old.get(key);
    if (!entry || entry.sig !== sig) entry = { sig, el: build() };
    next.set(key, entry);
    els.push(entry.el);
  }
  KEPT.set(parent, next);
  place(parent, els);
}

/**
 * Make `els` the children of `parent` with the fewest moves: a child no longer wanted goes,
 * a new one goes in at its place, and the others stay where they are (`replaceChildren`
 * would take every child out and put it back, and the browser lays out each again).
 */
export function place(parent, els) {
  const kids = parent.childNodes;
  let same = kids.length === els.length;
  for (let i = 0; same && i < els.length; i++) same = kids[i] === els[i];
  if (same) return;
  const wanted = new Set(els);
  for (const kid of [...kids]) if (!wanted.has(kid)) kid.remove();
  for (let i = 0; i < els.length; i++) {
    const at = kids[i];
    if (at !== els[i]) parent.insertBefore(els[i], at || null);
  }
}

/** Set (or, for null, remove) an attribute only when it differs. */
export function attr(el, name, value) {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

/** Set an element's text only when it differs (a same-text write still relays it out). */
export function setText(el, text) {
  const only = el.firstChild;
  if (only && only === el.lastChild && only.nodeType === Node.TEXT_NODE) {
    if (only.data !== text) only.data = text; // the same text node: no node out and in
  } else if (el.textContent !== text) {
    el.textContent = text;
  }
}

/** A labelled number in the side panel. */
export function stat(label, value, cls = "") {
  return statEl(label, value, cls);
}

/** Labelled numbers kept from one update to the next, as items of `keep`: a new value
 * changes the number's text, not the element. */
export class Stats {
  constructor() {
    this.els = new Map();
  }

  item(label, value, cls = "") {
    let kept = this.els.get(label);
    if (!kept) {
      const el = statEl(label, value, cls);
      kept = { el, value: el.lastChild };
      this.els.set(label, kept);
    }
    const want = `tb-stat ${cls}`;
    if (kept.el.className !== want) kept.el.className = want;
    setText(kept.value, String(value));
    return { key: `stat:${label}`, sig: "", build: () => kept.el };
  }
}

function statEl(label, value, cls) {
  return h("div", { class: `tb-stat ${cls}` }, h("span", { class: "tb-stat-label", text: label }), h("span", { class: "tb-stat-value", text: String(value) }));
}

/**
 * The frame of a board: the game's area (board and controls) and its side panel. `main`
 * holds the board; `side` the numbers; `help` the keys, shown by `?`; `signal` ends the
 * board's listeners when `close` takes it down.
 */
export function frame(root, game, keys, ctx) {
  const abort = new AbortController();
  const signal = abort.signal;
  root.classList.add("tb-game", `tb-${game}`);
  // Less motion: no CSS animation either (a thrown chip's pop, a path's tracing).
  root.classList.toggle("tb-still", !!ctx && !animate(ctx));
  const main = h("div", { class: "tb-main" });
  const side = h("div", { class: "tb-side", "aria-label": "Game status" });
  const help = h("div", { class: "tb-keys", hidden: true, id: `tb-keys-${game}` },
    h("h3", { text: "Keys" }),
    h("dl", {}, keys.flatMap(([k, what]) => [h("dt", { text: k }), h("dd", { text: what })])));
  const body = h("div", { class: "tb-body" }, main, side);
  root.replaceChildren(body, help);
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "?" && !(ev.target.closest && ev.target.closest("input, textarea"))) {
      help.hidden = !help.hidden;
      ev.preventDefault();
    } else if (ev.key === "Escape" && !help.hidden) {
      help.hidden = true;
    }
  }, { signal });
  // The shell may mount a board again in the same element (a preference changed): every
  // listener a board puts outside its own elements goes with `signal`, and `close` ends them.
  const close = () => {
    abort.abort();
    root.replaceChildren();
    root.classList.remove("tb-game", `tb-${game}`, "tb-still");
  };
  return { main, side, help, signal, close };
}

/**
 * What sends an action: nothing when watching; the server's refusal redraws the last
 * view (the shell has shown its message already).
 */
export function sender(ctx, restore) {
  return async (action) => {
    if (ctx.readOnly || ctx.seat === null || ctx.seat === undefined) {
      ctx.say("You are watching: moves are for the players.");
      return null;
    }
    try {
      return await ctx.act(action);
    } catch (err) {
      restore(err);
      return null;
    }
  };
}

/** Whether the motion of a move should be shown (not under reduced motion). */
export function animate(ctx) {
  // The player's own choice wins (the shell starts it from the system's setting).
  if (ctx.prefs && typeof ctx.prefs.reducedMotion === "boolean") return !ctx.prefs.reducedMotion;
  return !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

// -- words ---------------------------------------------------------------------------------

export function cap(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}
