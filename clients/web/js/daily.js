// Today's deal: one deal a day for each solo game, the same for everyone (UTC days).
// The lobby's panel (the day's table, your result, play it), the result to share when a
// game of it ends (the server's words, with its link to the deal, and a copy button), and
// the link itself (/#daily=GAME opens this panel on that game). One module: the lobby, the
// room and the router each call it once.

import { h, fill } from "./dom.js";

/** This module's styles, linked once, the first time it draws (css/daily.css). */
function styled() {
  if (document.getElementById("daily-css")) return;
  document.head.append(h("link", { id: "daily-css", rel: "stylesheet", href: "/css/daily.css" }));
}

/** The games of welcome.games that offer today's deal, in the server's order. */
export function dailyGames(app) {
  return ((app.welcome && app.welcome.games) || []).filter((g) => g.daily).map((g) => g.name);
}

/** What a player is told before a game of the deal starts: whether it counts. */
export function tryWords(created) {
  const day = created.daily || "today";
  if (created.resumed) return `Back to your game of the deal of ${day}.`;
  if (created.practice) return `Practice: your try of the deal of ${day} is played; this game is on no table.`;
  return `The deal of ${day}: this game is your try, it counts on the day's table.`;
}

/** Make (or resume) the player's room of `game`'s deal, say whether it counts, and go in. */
export async function playDaily(app, game) {
  const created = await app.conn.request({ t: "create", game, daily: true });
  if (created.code) app.codes.set(created.room, created.code);
  const joined = await app.conn.request(created.code ? { t: "join", code: created.code } : { t: "join", room: created.room });
  app.pendingJoined = joined;
  app.go(app.roomPath(created.room, created.code));
  app.say(tryWords(created)); // after go: the room's screen would take the line down
}

/** The result to share, as the server words it, with a button that copies it. */
export function shareBox(app, text) {
  styled();
  const copy = h("button", { type: "button", class: "primary", onclick: () => copyText(app, text) }, "Copy result");
  return h("div", { class: "daily-share", "aria-label": "Your result to share" },
    h("pre", { class: "share-text" }, text), copy);
}

function copyText(app, text) {
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => app.say("Your result is copied."), () => app.say(text));
  } else {
    app.say(text); // no clipboard for a page that is not a secure context: the text, to select
  }
}

/** The lobby's panel: a game of the deal, your result of today, the day's table. */
export function dailyPanel(app, wanted) {
  const games = dailyGames(app);
  let game = games.includes(wanted) ? wanted : games[0];
  styled();
  const root = h("section", { class: "daily", "aria-labelledby": "daily-h" });
  if (!game) return fill(root, h("p", {}, "This server has no daily deal."));
  const pick = h("select", { "aria-label": "Game", onchange: () => { game = pick.value; load(); } },
    games.map((g) => h("option", { value: g, selected: g === game }, app.title(g))));
  const play = h("button", { type: "button", class: "primary", onclick: () => playDaily(app, game).catch((err) => app.say(err.message, "error")) }, "Play today's deal");
  const mine = h("p", { class: "daily-mine" });
  const share = h("div");
  const table = h("ol", { class: "daily-table", "aria-label": "The day's table" });
  const note = h("p", { class: "note" });
  const past = h("div", { class: "daily-past" });
  fill(root,
    h("h3", { id: "daily-h" }, "Today's deal"),
    h("p", { class: "note" }, "The same deal for every player today (UTC). Your first game of it counts on the day's table; later ones are practice."),
    h("div", { class: "daily-bar" }, pick, play), mine, share, table, note, past);
  async function load() {
    const asked = game;
    const reply = await app.conn.request({ t: "scores", game: asked, table: "daily" });
    if (asked !== game) return;
    root.dataset.day = reply.day;
    const best = (reply.mine || [])[0];
    mine.textContent = best
      ? `Your result today: ${best.score}. Another game is practice.`
      : `You have not played today's ${app.title(game)} deal: your first game is the one that counts.`;
    play.textContent = best ? "Practice again" : "Play today's deal";
    fill(share, reply.share ? shareBox(app, reply.share) : null);
    fill(table, (reply.entries || []).map((e, i) => h("li", {},
      `${e.name} — ${e.score}`,
      reply.replays && i < 3
        ? [" ", h("button", { type: "button", class: "link", onclick: () => app.go(`/#replay=${encodeURIComponent(e.room)}`) }, "Replay")]
        : null)));
    note.textContent = !(reply.entries || []).length
      ? "Nobody has played it yet today."
      : reply.replays ? "" : "The day's games can be replayed once the day is over (UTC).";
    await showPast(app, asked, reply.day, past, () => asked !== game);
  }
  load().catch((err) => app.say(err.message, "error"));
  return root;
}

/** The day before `day`, YYYY-MM-DD (UTC). */
export function dayBefore(day) {
  const t = new Date(`${day}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() - 1);
  return t.toISOString().slice(0, 10);
}

/** Yesterday's best three of `game`, each a tap from its replay: that day is over. */
async function showPast(app, game, today, el, stale) {
  const day = dayBefore(today);
  let reply;
  try {
    reply = await app.conn.request({ t: "scores", game, table: `daily-${day}` });
  } catch (_) {
    return; // a day the server keeps no table of (a new server): nothing to show
  }
  if (stale()) return;
  const top = (reply.entries || []).slice(0, 3);
  fill(el, top.length ? [
    h("h4", {}, `Yesterday's deal (${day}): the best three`),
    h("ol", { class: "daily-table" }, top.map((e) => h("li", {}, `${e.name} — ${e.score} `,
      reply.replays ? h("button", { type: "button", class: "link", "aria-label": `Replay ${e.name}'s game of ${day}`, onclick: () => app.go(`/#replay=${encodeURIComponent(e.room)}`) }, "Replay") : null))),
  ] : null);
}

/** A room's game just ended: for a game of the deal, show the result to share (asked again
 * while the table does not hold it yet: it is kept just after the game's last update). */
export async function dailyOver(screen) {
  const s = screen.summary;
  if (!s || !s.daily || screen.seat === null || screen.sharing) return;
  screen.sharing = true;
  if (s.practice) {
    screen.log("Practice: this game is on no table.");
    return;
  }
  for (let i = 0; i < 40 && !screen.destroyed; i++) {
    const reply = await screen.app.conn.request({ t: "scores", game: s.game, table: `daily-${s.daily}` });
    if (reply.share) {
      if (!screen.destroyed) screen.infoEl.after(shareBox(screen.app, reply.share));
      return;
    }
    await new Promise((done) => setTimeout(done, 150));
  }
}
