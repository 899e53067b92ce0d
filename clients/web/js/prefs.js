// The player's display preferences, passed to boards in ctx.prefs: symbols as well as
// colours, and no animation (by default what the system's prefers-reduced-motion says).

const KEY = "tilehall.prefs";

export function loadPrefs() {
  const reduced = globalThis.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch (_) {
    saved = {};
  }
  return {
    symbols: !!saved.symbols,
    reducedMotion: saved.reducedMotion === undefined ? !!reduced : !!saved.reducedMotion,
  };
}

export function savePrefs(prefs) {
  try {
    localStorage.setItem(KEY, JSON.stringify(prefs));
  } catch (_) { /* not remembered: fine */ }
}
