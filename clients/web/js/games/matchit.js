// Match-It: 16x6 sheets of mahjong tiles against the clock, with lives, helps and sheet
// bonuses. Tiles read by their number and suit letter (as in the terminal: 3d, 7b, 9c,
// Rd, E, Pl, Su...), so colour is never the only difference.

import { cellName, h, mmss, stat } from "./common.js";
import { mountShisen } from "./shisen.js";
import { describeEvent, tileName as sharedTileName } from "../words.js";

const HONOURS = ["Rd", "Gd", "Wd", "E", "S", "W", "N", "Pl", "Or", "Ch", "Bm", "Sp", "Su", "Au", "Wi"];

const KEYS = [
  ["arrows, h j k l", "move the cursor"],
  ["space, enter", "select a tile, then its match"],
  ["escape", "drop the selection"],
  ["m (or right click)", "mark every tile matching the cursor's (-4)"],
  ["i", "help: remove a pair for me (uses a help)"],
  ["g", "give up this sheet (costs a life; press twice)"],
  ["u", "take the last pair back (no record table)"],
  ["p", "pause (the sheet is hidden) / resume"],
  ["Q", "end the game (press twice; the score counts)"],
  ["?", "show or hide these keys"],
];

/** A tile in at most two characters: 1d..9d, 1b..9b, 1c..9c, Rd Gd Wd, E S W N, flowers, seasons. */
export function tileLabel(kind) {
  if (kind >= 0 && kind < 27) return `${(kind % 9) + 1}${"dbc"[Math.floor(kind / 9)]}`;
  if (kind >= 27 && kind < 42) return HONOURS[kind - 27];
  return String(kind);
}

/** A tile as it looks, in the words every client shares (6 of characters, east wind). */
export function tileName(kind) {
  return sharedTileName("matchit", kind);
}

function family(kind) {
  if (kind < 9) return "dots";
  if (kind < 18) return "bamboo";
  if (kind < 27) return "chars";
  if (kind === 27) return "red";
  if (kind === 28) return "green";
  if (kind === 29) return "white";
  if (kind < 34) return "wind";
  if (kind < 38) return "flower";
  return "season";
}

function tileEl(kind) {
  const label = tileLabel(kind);
  const el = h("span", { class: `tb-tile tb-mi-${family(kind)}`, "aria-hidden": "true" });
  if (kind < 27) {
    el.append(h("span", { class: "tb-tile-main", text: label[0] }), h("span", { class: "tb-tile-sub", text: label[1] }));
  } else {
    el.append(h("span", { class: "tb-tile-main", text: label }));
  }
  return el;
}

function panel(view, api) {
  const left = api.clock.left(view.deadline);
  const time = view.status === "playing" ? (left === null ? view.time_left : left) : 0;
  const used = new Set(view.margins_used || []);
  const margins = ["top", "bottom", "left", "right"].filter((m) => !used.has(m));
  const items = [
    stat("Score", view.score ?? 0, "tb-big"),
    stat("Time", mmss(time || 0), time !== null && time < 30 && view.status === "playing" ? "tb-urgent" : ""),
    stat("Level", view.level ?? 1),
    stat("Sheets", view.sheets ?? 0),
    stat("Lives", view.lives ?? 0),
    stat("Helps", view.helps ?? 0),
    stat("Tiles", view.tiles_left ?? 0),
    stat("Pedigree bonus", view.pedigree ? "still on" : "lost"),
    stat("Margins unused", margins.length ? margins.join(" ") : "none"),
    h("div", { class: "tb-dim-text", text: `Sheet difficulty ${view.difficulty ?? 0}; ${view.sheet_time ?? 0} s a sheet` }),
  ];
  if (view.status === "over") {
    items.push(h("div", { class: "tb-over", text: `Game over (${view.end === "quit" ? "you ended it" : "no lives left"}): ${view.score} points.` }));
  }
  return items;
}

export function mount(root, ctx) {
  return mountShisen(root, ctx, {
    game: "matchit",
    label: "Match-It",
    aspect: 0.78,
    keys: KEYS,
    tileEl,
    tileLabel,
    tileName,
    panel,
    controls(controls, api) {
      controls.add("highlight", "Mark matches", () => {
        const [r, c] = api.cursor;
        if (api.tileAt(r, c) === null) return api.ctx.say(`Put the cursor on a tile first (${cellName([r, c])} is empty).`);
        api.send({ do: "highlight", at: [r, c] });
      }, { key: "m" });
      controls.add("help", "Help", () => api.send({ do: "help" }), { key: "i" });
      controls.add("giveup", "New sheet", () => {
        if (api.twice.press("giveup")) api.send({ do: "giveup" });
        else api.ctx.say("Giving up this sheet costs a life: press again to do it.");
        api.redraw();
      }, { key: "g" });
    },
    buttons(api, on) {
      const v = api.view;
      api.controls.set("highlight", { enabled: on });
      api.controls.set("help", { enabled: on && v.helps > 0, label: `Help (${v.helps ?? 0})` });
      api.controls.set("giveup", { enabled: on, pressed: api.twice.isArmed("giveup"), label: api.twice.isArmed("giveup") ? "New sheet: sure?" : "New sheet" });
    },
    rightClick(r, c, api) {
      if (!api.playing() || api.tileAt(r, c) === null) return;
      api.send({ do: "highlight", at: [r, c] });
    },
    marks(view, events) {
      const ev = events.find((e) => e.e === "highlight");
      return new Set(ev ? ev.cells.map(([r, c]) => `${r},${c}`) : []);
    },
  });
}

/** An event in words, as every client says it (words.json's `games`, through words.js):
 * null for housekeeping the log leaves out, undefined for an event with no words. */
export function describe(ev, view, names) {
  return describeEvent("matchit", ev, view, names);
}
