// What the clients say, written once: ../words.json, which the terminal and the window read
// too (clients/words.py), so that a refusal or a tile reads the same in every client. Here:
// squares as the boards name them, tiles and stones by how they look, each error code in
// words, and a game's refusal worded from the error frame's `cells` and `tiles`.

import WORDS from "../words.json" with { type: "json" };

export { WORDS };

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const STONES = WORDS.tiles.ishido;

/** A square as the boards label it: column letter, row from 1 (`[5, 8]` -> `i6`). */
export function square(cell) {
  if (!cell) return "-";
  const [r, c] = cell;
  return c >= 0 && c < 26 ? `${LETTERS[c]}${r + 1}` : `${r},${c}`;
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, k) => String(values[k]));
}

/** An Ishido stone, `[colour, symbol]`, as it looks: "yellow square". */
export function stoneName(stone) {
  if (!stone) return "no stone";
  return fill(STONES.name, { colour: STONES.colours[stone[0] % 6], symbol: STONES.symbols[stone[1] % 6] });
}

/** A tile as it looks: Match-It's "6 of characters" or "east wind", LinkSame's "F tile",
 * Ishido's "yellow square", Mathable's "6". */
export function tileName(game, tile) {
  if (game === "ishido" && Array.isArray(tile)) return stoneName(tile);
  if (!Number.isInteger(tile)) return String(tile);
  const names = WORDS.tiles[game] || {};
  if (game === "matchit") {
    if (tile >= 0 && tile < 27) return fill(names.number, { n: (tile % 9) + 1, suit: names.suits[Math.floor(tile / 9)] });
    if (tile >= 27 && tile < 27 + names.honours.length) return names.honours[tile - 27];
  } else if (game === "linksame" && tile >= 0 && tile < names.labels.length) {
    return fill(names.name, { label: names.labels[tile] });
  } else if (game === "mathable") {
    return fill(names.name, { n: tile });
  }
  return String(tile);
}

function the(names) {
  const said = names.map((n) => `the ${n}`);
  return said.length === 1 ? said[0] : `${said.slice(0, -1).join(", ")} and ${said[said.length - 1]}`;
}

/** A game's refusal in the shared words, from the error frame's cells and tiles; null when
 * there is no template for it or the frame lacks what it names (an older server's). */
export function refusalText(code, game, cells, tiles) {
  let template = WORDS.refusals[`${game}.${code}`] || WORDS.refusals[code];
  cells = cells || [];
  tiles = tiles || [];
  if (Array.isArray(template)) template = template[Math.min(Math.max(tiles.length - 2, 0), template.length - 1)];
  if (typeof template !== "string") return null;
  const names = tiles.map((t) => tileName(game, t));
  const values = {
    cell: cells.length ? square(cells[0]) : null,
    cell2: cells.length > 1 ? square(cells[1]) : null,
    tile: names.length ? names[0] : null,
    tile2: names.length > 1 ? names[1] : null,
    tiles: names.length ? names.join(", ") : null,
    others: names.length > 1 ? the(names.slice(1)) : null,
  };
  for (const [, k] of template.matchAll(/\{(\w+)\}/g)) if (values[k] === null || values[k] === undefined) return null;
  return fill(template, values);
}

/** A message with its `[row, col]` squares named as the boards do (a rack, a list of tiles,
 * keeps its numbers; Ishido's stones and the tile games' tiles are named as they look). */
export function boardWords(message, game) {
  let text = String(message || "");
  if (game === "ishido") {
    text = text.replace(/\b(stone|holds) \[(\d+), (\d+)\]/g, (_, w, a, b) => `${w} the ${stoneName([+a, +b])}`);
  }
  if (game === "matchit" || game === "linksame") {
    text = text.replace(/\b(\d+)(?= at \[)/g, (_, n) => tileName(game, +n));
  }
  return text.split(/(\brack \[[^\]]*\])/).map((part) => (part.startsWith("rack [")
    ? part
    : part.replace(/(?<![\w\]])\[(-?\d+), (-?\d+)\]/g, (_, r, c) => square([+r, +c])))).join("");
}

/** A refusal (an `error` frame) as the player reads it, in every client's words: a game's
 * refusal from its cells and tiles; a code whose message names the field or value at fault,
 * that message with its squares named; any other code, its words. */
export function errorText(frame, game = null) {
  const code = String(frame.code || "");
  const worded = refusalText(code, game, frame.cells, frame.tiles);
  if (worded !== null) return worded;
  const detail = boardWords(frame.message, game);
  const known = WORDS.errors[code];
  if (known === undefined) return detail || code.replace(/_/g, " ");
  if (WORDS.detailed.includes(code) && detail) return detail;
  return known;
}

// -- the events every game may send -------------------------------------------------------

const EVENTS = WORDS.events;

/** `42 s`, `3 min 5 s`: how long a pause lasted. */
export function duration(seconds) {
  const whole = Math.round(seconds || 0);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** Why a game stands still: by reason, for a room of one (or a reader who is its player),
 * else the other way ("every player is away", "its player paused it"). */
export function pausedWhy(why, view) {
  const said = EVENTS.paused_why[why];
  if (!said) return why || "paused";
  const seats = view && view.scores ? view.scores.length : 1;
  const player = !!view && view.seat !== null && view.seat !== undefined;
  const other = why === "away" ? seats > 1 : why === "player" ? !player : false;
  return said[Math.min(other ? 1 : 0, said.length - 1)];
}

/** An action taken back: "the stone on h7", "c6-b5", "the pair a1+b1". */
export function undoneWhat(game, action) {
  const table = EVENTS.undone_what;
  const template = table[`${game}.${action.do}`] || table[action.do];
  if (template === undefined) return action.do || table[""];
  const cells = {};
  for (const [k, v] of Object.entries(action)) if (Array.isArray(v)) cells[k] = square(v);
  return fill(template, cells);
}

/** A seat by its player's name, as written; else "seat N" ("Seat N" to open a sentence). */
function playerName(seat, names, opens = false) {
  if (seat === null || seat === undefined) return "-";
  return names && names[seat] ? String(names[seat]) : `${opens ? "Seat" : "seat"} ${seat + 1}`;
}

/** The events of the room that any game may send (start, pause, stand-ins, undo) in the
 * words every client says them; undefined for a game's own. */
export function commonEvent(ev, view, names) {
  switch (ev.e) {
    case "started": return EVENTS.started;
    case "paused": return fill(EVENTS.paused, { why: pausedWhy(ev.why, view) });
    case "resumed": return fill(EVENTS.resumed, { duration: duration(ev.paused_for) });
    case "stand_in": return fill(EVENTS.stand_in, { who: playerName(ev.seat, names) });
    case "stand_back": return fill(EVENTS.stand_back, { who: playerName(ev.seat, names, true) });
    case "undone":
      return fill(EVENTS.undone, { what: undoneWhat(view && view.game, ev.action || {}), undos: ev.undos });
    default: return undefined;
  }
}

// -- each game's own events: rendered from words.json's `games` ---------------------------
//
// The template language is words.json's (its `about` says it) and clients/words.py renders
// it the same way: a change to one of the two renderers is a change to the other.

function isTrue(v) {
  return !(v === null || v === undefined || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0));
}

/** A value as a template writes it (as Python's renderer does: null is "", lists ", "). */
function text(v) {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(text).join(", ");
  return String(v);
}

/** A node's leaf for this event: `if`/`then`/`else` and `by` followed down. */
function pick(node, values) {
  while (node !== null && typeof node === "object" && !Array.isArray(node)) {
    if ("if" in node) {
      node = isTrue(values[node.if]) ? node.then : node.else;
      if (node === undefined) node = "";
    } else if ("by" in node) {
      const key = text(values[node.by]);
      node = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : (node["*"] ?? "");
    } else {
      return "";
    }
  }
  return node;
}

/** `1 life`, `3 lives`: the shared words' odd plurals, else an `s`. */
export function plural(n, word) {
  return `${text(n)} ${n === 1 ? word : (WORDS.plurals[word] ?? `${word}s`)}`;
}

/** A placed Mathable tile and its equations as people write them: `21=7×3` (the larger
 * operand first for - and /, as clients/mathable.py's `operands`). */
export function equation(ev) {
  const ops = WORDS.tiles.mathable.ops;
  const parts = (ev.equations || []).map((q) => {
    let { a, b } = q;
    const op = q.op;
    if (op === "-") [a, b] = [Math.max(a, b), Math.min(a, b)];
    else if (op === "/" && !(b !== 0 && a === ev.tile * b)) [a, b] = [b, a];
    return `${a}${ops[op] ?? op}${b}`;
  });
  return [String(ev.tile), ...parts].join("=");
}

function and(items) {
  if (!items.length) return "";
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function applyFilter(spec, value, game, who) {
  const at = spec.indexOf(":");
  const name = at < 0 ? spec : spec.slice(0, at);
  const arg = at < 0 ? "" : spec.slice(at + 1);
  const items = Array.isArray(value) ? value : [];
  switch (name) {
    case "square": return square(value);
    case "squares": return items.map(square);
    case "tile": return value === null || value === undefined ? "-" : tileName(game, value);
    case "tiles": return items.map((t) => tileName(game, t));
    case "who": case "Who": return who(value, name === "Who");
    case "seats": return items.map((s) => who(s, false));
    case "chip": {
      const colours = WORDS.tiles.lines.colours;
      return Number.isInteger(value) && value > 0 && value < colours.length ? colours[value] : `colour ${text(value)}`;
    }
    case "movement": return WORDS.movement[text(value)] ?? text(value);
    case "from1": return Number.isInteger(value) ? value + 1 : value;
    case "signed": return typeof value === "number" && value >= 0 ? `+${text(value)}` : value;
    case "count": return items.length;
    case "distinct": return [...new Set(items)];
    case "and": return and(items.map(text));
    case "list": return items.map(text).join(", ");
    case "duration": return duration(value);
    case "plural": return plural(value, arg);
    case "cap": { const t = text(value); return t.slice(0, 1).toUpperCase() + t.slice(1); }
    default: throw new Error(`words.json: no filter ${name}`);
  }
}

/** `template` with each `{name|filter...}` filled from `parts` (nodes, rendered in turn from
 * `values` alone: a part may name the field it is named after) or `values`. */
export function fillIn(template, values, game, who, parts = null) {
  return template.replace(/\{([\w|: ]+)\}/g, (_, spec) => {
    const [name, ...filters] = spec.split("|");
    let value = parts && Object.prototype.hasOwnProperty.call(parts, name)
      ? fillIn(String(pick(parts[name], values)), values, game, who)
      : values[name];
    for (const f of filters) value = applyFilter(f, value, game, who);
    return text(value);
  });
}

/** A seat as a sentence names it: "you" for the reader's own (`view.seat`), else its
 * player's name, else "seat N"; `opens`: "You", "Seat 2", a name as its player wrote it. */
function seatWho(view, names) {
  return (seat, opens) => {
    let name;
    if (seat === null || seat === undefined) name = "nobody";
    else if (view && view.seat === seat) name = "you";
    else name = names && names[seat] ? String(names[seat]) : `seat ${seat + 1}`;
    return opens && (name === "you" || name === "nobody" || /^seat \d+$/.test(name)) ? name[0].toUpperCase() + name.slice(1) : name;
  };
}

/** A rating as every client writes it (words.json's `rating`): `1642 ± 142 (18 games)`, the
 * margin twice the deviation (about 95 % sure). */
export function ratingText(r) {
  const values = {
    rating: Math.round(Number(r.rating) || 0),
    margin: Math.round(2 * (Number(r.rd) || 0)),
    games: Number(r.games) || 0,
  };
  return fillIn(pick(WORDS.rating, values), values, "", (s) => String(s));
}

/** A listed room's state as every lobby says it (words.json's `rooms`), from its summary:
 * the server's own game reads as one to watch until over, a room being rebuilt says so, a
 * paused one says why; else its status (one words.json lacks, as sent). */
export function roomState(summary) {
  const rooms = WORDS.rooms;
  const status = String(summary.status || "");
  if (status === "over") return rooms.over;
  if (summary.showcase) return rooms.showcase;
  if (summary.suspended) return rooms.suspended;
  if (summary.paused && status === "playing") return rooms.paused[summary.paused] || rooms.paused[""];
  return typeof rooms[status] === "string" ? rooms[status] : status;
}

/** One of `game`'s own events in the shared words: {text, tone, minor}, or undefined when
 * words.json has no entry for it. `view` gives the reader's seat, `names` the seats' names. */
export function gameEvent(game, ev, view, names) {
  const table = WORDS.games[game];
  const entry = table && Object.prototype.hasOwnProperty.call(table, ev.e) ? table[ev.e] : undefined;
  if (entry === undefined) return undefined;
  const spec = entry !== null && typeof entry === "object" && "text" in entry ? entry : { text: entry };
  const values = { ...ev };
  values.mine = ev.seat !== null && ev.seat !== undefined && !!view && ev.seat === view.seat;
  if (ev.equations !== null && ev.equations !== undefined && ev.tile !== null && ev.tile !== undefined) values.equation = equation(ev);
  const who = seatWho(view, names);
  return {
    text: fillIn(String(pick(spec.text, values)), values, game, who, spec.parts || {}),
    tone: String(pick(spec.tone ?? "plain", values)),
    minor: pick(spec.minor ?? false, values) === true,
  };
}

/** An event as a board's log tells it: the room's and the game's in the shared words; null
 * for housekeeping a log leaves out (`minor`); undefined for an event with no words. */
export function describeEvent(game, ev, view, names) {
  const common = commonEvent(ev, view ? { ...view, game } : { game }, names);
  if (common !== undefined) return common;
  const said = gameEvent(game, ev, view, names);
  if (said === undefined) return undefined;
  return said.minor ? null : said.text;
}
