// LinkSame: nine Shisen-Sho stages whose tiles slide after every pair, scored for speed
// with a shot clock (Timed) or played without a score (Practice). Tiles read as a letter
// or a sign, each kind with one of nine colours, so the label tells them apart. The labels are
// the other clients' (clients/words.py): no I/1 and no O/0, look-alikes that are different tiles.

import { h, stat } from "./common.js";
import { mountShisen } from "./shisen.js";
import { WORDS, describeEvent, tileName as sharedTileName } from "../words.js";

const LABELS = WORDS.tiles.linksame.labels;
export const MOVEMENT = WORDS.movement; // the words every client shares

const KEYS = [
  ["arrows, h j k l", "move the cursor"],
  ["space, enter", "select a tile, then its twin"],
  ["escape", "drop the selection"],
  ["i", "hint: show a pair (-10 when timed)"],
  ["s", "shuffle the tiles (-20 when timed)"],
  ["r", "restart this stage"],
  ["u", "take the last pair back (no record table)"],
  ["p", "pause (the board is hidden) / resume"],
  ["Q", "end the game (press twice)"],
  ["?", "show or hide these keys"],
];

export function tileLabel(kind) {
  return kind >= 0 && kind < LABELS.length ? LABELS[kind] : String(kind);
}

function tileName(kind) {
  return sharedTileName("linksame", kind); // "F tile", in the words every client shares
}

function tileEl(kind) {
  return h("span", { class: `tb-tile tb-ls-${kind % 9}`, "aria-hidden": "true" }, h("span", { class: "tb-tile-main", text: tileLabel(kind) }));
}

function panel(view, api) {
  const timed = view.mode === "timed";
  const items = [timed ? stat("Score", view.score ?? 0, "tb-big") : h("div", { class: "tb-warn", text: "Practice: no clock, no score" })];
  items.push(stat("Stage", `${(view.stage ?? 0) + 1} of ${view.stages ?? 9}`));
  items.push(h("div", { class: "tb-dim-text", text: MOVEMENT[view.movement] || view.movement || "" }));
  items.push(stat("Tiles", view.tiles_left ?? 0));
  if (timed && view.status === "playing") {
    const shot = api.clock.left(view.shot_deadline);
    items.push(stat("Shot clock", shot === null ? "waits for a pair" : `${Math.ceil(shot)} s`, shot !== null && shot <= 3 ? "tb-urgent" : ""));
    const bonus = api.clock.left(view.bonus_until);
    items.push(stat("Speed bonus", bonus ? `${Math.ceil(bonus)} s` : "-"));
  }
  items.push(h("div", { class: "tb-dim-text", text: `${view.size || ""} ${view.cols}x${view.rows}, ${view.kinds} kinds` }));
  if (view.status === "over") {
    items.push(h("div", { class: "tb-over", text: `Game over (${view.end === "completed" ? "all stages cleared" : "ended"})${timed ? `: ${view.score} points` : ""}.` }));
  }
  return items;
}

export function mount(root, ctx) {
  return mountShisen(root, ctx, {
    game: "linksame",
    label: "LinkSame",
    aspect: 0.82,
    keys: KEYS,
    tileEl,
    tileName,
    panel,
    controls(controls, api) {
      controls.add("hint", "Hint", () => api.send({ do: "hint" }), { key: "i" });
      controls.add("shuffle", "Shuffle", () => api.send({ do: "shuffle" }), { key: "s" });
      controls.add("restart", "Restart stage", () => api.send({ do: "restart" }), { key: "r" });
    },
    buttons(api, on) {
      const timed = api.view.mode === "timed";
      api.controls.set("hint", { enabled: on, label: timed ? "Hint (-10)" : "Hint" });
      api.controls.set("shuffle", { enabled: on, label: timed ? "Shuffle (-20)" : "Shuffle" });
      api.controls.set("restart", { enabled: on });
    },
  });
}

/** An event in words, as every client says it (words.json's `games`, through words.js):
 * null for housekeeping the log leaves out, undefined for an event with no words. */
export function describe(ev, view, names) {
  return describeEvent("linksame", ev, view, names);
}
