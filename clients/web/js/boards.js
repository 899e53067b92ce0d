// Loading a game's board (js/games/<game>.js, the contract in clients/web/README.md), and
// the plain-text board used when a game has none: the view as text, so that any game the
// server adds can still be watched.

import { h } from "./dom.js";

const loaded = new Map();

const rawBoard = {
  mount(root) {
    const pre = h("pre", { class: "raw-view", tabindex: "0", "aria-label": "The game's state, as text" });
    root.append(pre);
    return {
      update(view) {
        // one line per field: a board's rows stay rows
        pre.textContent = Object.entries(view || {})
          .map(([k, v]) => `${k}: ${Array.isArray(v) && v.some(Array.isArray) ? `\n  ${v.map((row) => JSON.stringify(row)).join("\n  ")}` : JSON.stringify(v)}`)
          .join("\n");
      },
      destroy() { pre.remove(); },
    };
  },
  describe() { return undefined; },
  raw: true,
};

/** The board module of `game`, or the text board when it has none (or fails to load). */
export async function loadBoard(game) {
  if (!/^[a-z][a-z0-9_]*$/.test(game)) return rawBoard;
  if (!loaded.has(game)) {
    loaded.set(game, import(`./games/${game}.js`).then(
      (mod) => (typeof mod.mount === "function" ? mod : rawBoard),
      () => rawBoard,
    ));
  }
  return loaded.get(game);
}

/** Mount `board` in `root`, falling back to the text board if mounting throws. */
export function mountBoard(board, root, ctx) {
  try {
    return { board, handle: board.mount(root, ctx) };
  } catch (err) {
    console.warn(`the ${ctx.game} board failed to mount`, err);
    root.replaceChildren();
    return { board: rawBoard, handle: rawBoard.mount(root, ctx) };
  }
}
