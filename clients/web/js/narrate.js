// Events told in words when a board has nothing to say about them (or no board loaded):
// the room's own events (start, pause, stand-ins, undo, the end), then a plain sentence
// built from the event's fields.

import { commonEvent } from "./words.js";

/** Names of the seats, from the room's summary (or a replay's players). */
export function seatName(names, seat) {
  if (seat === null || seat === undefined) return "someone";
  const name = names && names[seat];
  return name ? String(name) : `seat ${seat + 1}`;
}

function words(value) {
  if (Array.isArray(value)) {
    // a square as the boards label it (column letter, row from 1), never `[5, 6]`
    if (value.length === 2 && value.every(Number.isInteger) && value[1] >= 0 && value[1] < 26) {
      return `${"abcdefghijklmnopqrstuvwxyz"[value[1]]}${value[0] + 1}`;
    }
    return value.map(words).join(", ");
  }
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k.replace(/_/g, " ")} ${words(v)}`).join(", ");
  }
  return String(value);
}

/** One event in words, for any game. */
export function generic(event, names) {
  if (!event || typeof event !== "object") return String(event);
  const who = seatName(names, event.seat);
  const common = event.e === "game_over" ? undefined : commonEvent(event, undefined, names);
  if (common !== undefined) return common; // the shared words (words.json)
  switch (event.e) {
    case "game_over": return "The game is over.";
    default: {
      const rest = Object.entries(event)
        .filter(([k]) => k !== "e" && k !== "seat")
        .map(([k, v]) => `${k.replace(/_/g, " ")} ${words(v)}`);
      const what = String(event.e || "event").replace(/_/g, " ");
      const lead = event.seat !== undefined ? `${who}: ${what}` : what[0].toUpperCase() + what.slice(1);
      return rest.length ? `${lead} (${rest.join("; ")}).` : `${lead}.`;
    }
  }
}

/** The end of a game in words, from a view's result. */
export function resultText(view, names) {
  const result = view && view.result;
  if (!result) return "The game is over.";
  const scores = result.scores || view.scores || [];
  const winners = result.winners || [];
  const parts = scores.map((s, i) => `${seatName(names, i)} ${s}`);
  let lead = "The game is over";
  if (scores.length > 1) {
    if (winners.length === 1) lead += `: ${seatName(names, winners[0])} wins`;
    else if (winners.length > 1) lead += `: a draw between ${winners.map((w) => seatName(names, w)).join(" and ")}`;
  }
  return `${lead}. Scores: ${parts.join(", ")}${result.reason ? ` (${String(result.reason).replace(/_/g, " ")})` : ""}.`;
}
