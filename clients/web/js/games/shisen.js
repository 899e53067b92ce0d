// What Match-It and LinkSame share: a Shisen-Sho board with a one-square margin, two tiles
// picked to make a pair, the path the server's `removed` event gives drawn for a moment
// (drawn at once, without its tracing, under reduced motion), pause hiding the board, a
// clock on the server's time. Each game gives its tiles, its panel and its own buttons.

import {
  Controls, Grid, ServerClock, Twice, animate, cellName, frame, h, s, sender,
} from "./common.js";

const SHOW_PATH_MS = 650;

/**
 * Mount a Shisen-Sho board.
 * spec: {game, label, aspect, keys, tileEl(kind), tileName(kind), panel(view, api),
 *        controls(controls, api), marks(view, events), secondClick?}
 */
export function mountShisen(root, ctx, spec) {
  let view = null;
  let selected = null;
  let shown = null; // the board drawn while a path shows (the one it ran on)
  let path = null;
  let pathTimer = null;
  let marked = new Set();
  const clock = new ServerClock();
  const twice = new Twice();
  const { main, side, signal, close } = frame(root, spec.game, spec.keys, ctx);
  const restore = () => {
    selected = null;
    if (view) draw();
  };
  const send = sender(ctx, restore);
  const grid = new Grid({ label: `${spec.label} board`, cls: `tb-shisen-grid`, onActivate: (r, c) => activate(r, c) });
  const overlay = s("svg", { class: "tb-path", "aria-hidden": "true", preserveAspectRatio: "none" });
  const wrap = h("div", { class: "tb-shisen-wrap" }, grid.el, overlay);
  wrap.style.setProperty("--aspect", spec.aspect || 0.78);
  const pausedBox = h("div", { class: "tb-paused", hidden: true });
  const controls = new Controls(root, signal);
  const api = {
    ctx, send, twice, clock, controls,
    get view() { return view; },
    get cursor() { return grid.cursor; },
    redraw: () => view && draw(),
    playing: () => !!view && view.status === "playing" && !ctx.readOnly && ctx.seat !== null,
    tileAt: (r, c) => (view && view.board && view.board[r] ? view.board[r][c] : null),
  };
  spec.controls(controls, api);
  controls.add("pause", "Pause", () => send({ do: view && view.paused ? "resume" : "pause" }), { key: "p" });
  controls.add("undo", "Undo", () => send({ do: "undo" }), { key: "u" });
  controls.add("quit", "Quit", () => {
    if (twice.press("quit")) send({ do: "quit" });
    else ctx.say("Press Quit again to end the game.");
    draw();
  }, { key: "Q", tone: "danger" });
  main.append(wrap, pausedBox, controls.el);
  grid.el.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && selected) {
      selected = null;
      draw();
      ev.preventDefault();
    }
  });
  grid.el.addEventListener("contextmenu", (ev) => {
    const cell = ev.target.closest("[role=gridcell]");
    if (!cell || !spec.rightClick) return;
    ev.preventDefault();
    grid.setCursor(Number(cell.dataset.r), Number(cell.dataset.c), false);
    spec.rightClick(Number(cell.dataset.r), Number(cell.dataset.c), api);
  });
  const ticker = setInterval(() => view && view.status === "playing" && drawSide(), 250);

  function activate(r, c) {
    endPath();
    if (ctx.readOnly || ctx.seat === null) return ctx.say("You are watching.");
    if (!view || view.status !== "playing") return ctx.say("The game is not on.");
    if (view.paused) return ctx.say("The game is paused.");
    if (view.board[r][c] === null) {
      ctx.say(`No tile on ${cellName([r, c])}.`);
      return;
    }
    if (!selected) selected = [r, c];
    else if (selected[0] === r && selected[1] === c) selected = null;
    else {
      const a = selected;
      selected = null;
      draw();
      send({ do: "pair", a, b: [r, c] });
      return;
    }
    draw();
  }

  function endPath() {
    if (path || shown) {
      clearTimeout(pathTimer);
      path = null;
      shown = null;
      if (view) draw();
    }
  }

  function drawPath(corners, cls, traced) {
    const points = corners.map(([r, c]) => `${c + 0.5},${r + 0.5}`).join(" ");
    const line = s("polyline", { points, class: cls, "vector-effect": "non-scaling-stroke", pathLength: 100 });
    if (traced) line.classList.add("tb-traced");
    overlay.append(line);
  }

  function draw() {
    const board = shown || view.board;
    const hidden = !view.board;
    // The focus must not fall out of the board when the squares hide or come back, or its
    // keys (p to resume) would stop working.
    const hadFocus = root.contains(document.activeElement) || document.activeElement === document.body;
    const focusInGrid = grid.hasFocus();
    const focusInPause = pausedBox.contains(document.activeElement);
    wrap.hidden = hidden;
    pausedBox.hidden = !hidden || view.status !== "playing";
    if (hidden) {
      const why = view.paused === "player" ? "You paused the game" : "The game is paused: the player is away";
      pausedBox.replaceChildren(h("p", { text: `${why}. The board is hidden while the clock stands still.` }));
      if (view.paused === "player" && !ctx.readOnly) {
        pausedBox.append(h("button", { type: "button", class: "tb-button tb-go", text: "Resume", on: { click: () => send({ do: "resume" }) } }));
      }
    }
    if (board) {
      const rows = board.length, cols = board[0].length;
      grid.shape(rows, cols);
      wrap.style.setProperty("--cols", cols);
      wrap.style.setProperty("--rows", rows);
      overlay.setAttribute("viewBox", `-1 -1 ${cols + 2} ${rows + 2}`);
      const hint = view.hint;
      const hintCells = new Set(hint ? [hint.a, hint.b].map(([r, c]) => `${r},${c}`) : []);
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const cell = grid.cell(r, c);
          const kind = board[r][c];
          const key = `${r},${c}`;
          const isSel = selected && selected[0] === r && selected[1] === c;
          const isMark = marked.has(key) || hintCells.has(key);
          cell.classList.toggle("tb-selected", !!isSel);
          cell.classList.toggle("tb-marked", isMark);
          const name = cellName([r, c]);
          if (kind === null || kind === undefined) {
            cell.replaceChildren();
            cell.classList.add("tb-empty");
            cell.setAttribute("aria-label", `${name}, empty`);
          } else {
            cell.classList.remove("tb-empty");
            const tile = spec.tileEl(kind);
            cell.replaceChildren(tile);
            // the name holds what the tile shows ("6c"), then what it is ("6 of characters")
            const shown = spec.tileLabel ? spec.tileLabel(kind) : "";
            const named = spec.tileName(kind);
            const words = shown && !named.includes(shown) ? `${shown}, ${named}` : named;
            cell.setAttribute("aria-label", `${name}, ${words}${isSel ? ", selected" : ""}${hintCells.has(key) ? ", hinted" : isMark ? ", marked" : ""}`);
          }
        }
      }
      overlay.replaceChildren();
      if (path) drawPath(path, "tb-path-line", animate(ctx));
      else if (hint && hint.path && !shown) drawPath(hint.path, "tb-hint-line", false);
    }
    if (hadFocus && hidden && focusInGrid) {
      const resume = pausedBox.querySelector("button") || controls.get("pause");
      if (resume) resume.focus();
    } else if (hadFocus && !hidden && focusInPause) {
      grid.setCursor(...grid.cursor);
    }
    drawSide();
    const mine = api.playing();
    const paused = view.paused;
    controls.set("pause", { enabled: mine && (paused === null || paused === "player" || paused === undefined), label: paused ? "Resume" : "Pause", pressed: !!paused });
    controls.set("undo", { enabled: mine && !paused });
    controls.set("quit", { enabled: mine && !paused, pressed: twice.isArmed("quit"), label: twice.isArmed("quit") ? "Quit: sure?" : "Quit" });
    if (spec.buttons) spec.buttons(api, mine && !paused);
    controls.el.hidden = ctx.readOnly || ctx.seat === null;
  }

  function drawSide() {
    const items = spec.panel(view, api);
    if (view.paused && view.status === "playing") {
      items.unshift(h("div", { class: "tb-paused-note", text: view.paused === "player" ? "Paused: p resumes" : "Paused: the player is away" }));
    }
    if (view.undos) items.push(h("div", { class: "tb-warn", text: `Undos ${view.undos}: no record table` }));
    if (selected) items.push(h("div", { text: `Selected ${cellName(selected)}` }));
    side.replaceChildren(...items.filter(Boolean));
  }

  return {
    update(newView, events = []) {
      const before = view && view.board;
      view = newView;
      clock.took(view);
      marked = spec.marks ? spec.marks(view, events) : new Set();
      const removed = events.filter((ev) => ev.e === "removed");
      clearTimeout(pathTimer);
      path = null;
      shown = null;
      if (removed.length) {
        const last = removed[removed.length - 1];
        path = last.path;
        // The path ran on the board as it was: show it without the pair while the path
        // shows (tiles that slid, or a new sheet, come after).
        if (removed.length === 1 && before && !events.some((ev) => ev.e === "undone")) {
          shown = before.map((row) => row.slice());
          shown[last.a[0]][last.a[1]] = null;
          shown[last.b[0]][last.b[1]] = null;
        }
        pathTimer = setTimeout(endPath, SHOW_PATH_MS);
      }
      if (selected && !(view.board && view.board[selected[0]] && view.board[selected[0]][selected[1]] !== null)) selected = null;
      if (events.some((ev) => ["undone", "shuffled", "restarted", "sheet", "stage"].includes(ev.e))) selected = null;
      draw();
    },
    destroy() {
      clearInterval(ticker);
      clearTimeout(pathTimer);
      close();
    },
  };
}
