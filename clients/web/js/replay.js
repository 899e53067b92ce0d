// A finished game step by step: `replay` at each seq, drawn by the game's board read-only.
// Arrows step, Home/End go to the deal and the end, Space plays and pauses.

import { h, fill } from "./dom.js";
import { loadBoard, mountBoard } from "./boards.js";
import { generic, resultText } from "./narrate.js";

const PLAY_MS = 700;

export class ReplayScreen {
  constructor(app, room, seq) {
    this.app = app;
    this.room = room;
    this.seq = seq;
    this.want = seq; // where the player asked to go: steps count from it while one loads
    this.last = null;
    this.cache = new Map();
    this.handle = null;
    this.board = null;
    this.playing = null;
    this.destroyed = false;
    this.loading = 0;
  }

  show(main) {
    this.titleEl = h("h2", { id: "replay-h" }, `Replay of room ${this.room}`);
    this.posEl = h("p", { class: "replay-pos", "aria-live": "polite" });
    this.boardEl = h("div", { id: "board", class: "board" });
    this.logEl = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "What happened", tabindex: "0" });
    this.playersEl = h("ul", { class: "seats", "aria-label": "Players" });
    const b = (text, fn) => h("button", { type: "button", onclick: fn }, text);
    this.playBtn = b("Play", () => this.toggle());
    this.controls = h("div", { class: "replay-controls", role: "toolbar", "aria-label": "Replay" },
      b("« First", () => this.goTo(1)),
      b("‹ Back", () => this.goTo(this.want - 1)),
      this.playBtn,
      b("Next ›", () => this.goTo(this.want + 1)),
      b("Last »", () => this.goTo(this.last || this.want)));
    this.keys = (ev) => this.onKey(ev);
    document.addEventListener("keydown", this.keys);
    fill(main, h("section", { class: "replay", "aria-labelledby": "replay-h" },
      h("div", { class: "room-head" }, this.titleEl,
        h("div", { class: "room-actions" }, h("button", { type: "button", onclick: () => this.app.go("/") }, "Back to the lobby"))),
      h("p", { class: "note" }, "Keys: ← → step, Home and End, Space plays or pauses."),
      this.controls, this.posEl,
      h("div", { class: "room-body" }, this.boardEl,
        h("aside", { class: "side" }, h("h3", {}, "Players"), this.playersEl, h("h3", {}, "Log"), this.logEl))));
    this.goTo(this.seq);
  }

  destroy() {
    this.destroyed = true;
    this.stop();
    document.removeEventListener("keydown", this.keys);
    if (this.handle) {
      try { this.handle.destroy(); } catch (err) { console.warn(err); }
    }
  }

  resume() {
    if (!this.cache.has(this.seq)) this.goTo(this.seq);
  }

  onKey(ev) {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || document.querySelector("dialog[open]")) return;
    const keys = {
      ArrowRight: () => this.goTo(this.want + 1),
      ArrowLeft: () => this.goTo(this.want - 1),
      Home: () => this.goTo(1),
      End: () => this.goTo(this.last || this.seq),
      " ": () => this.toggle(),
    };
    const fn = keys[ev.key];
    if (!fn) return;
    // Space and arrows on a focused button of the page keep their own meaning, except ours.
    if (ev.key === " " && tag === "BUTTON" && !this.controls.contains(ev.target)) return;
    ev.preventDefault();
    fn();
  }

  async fetch(seq) {
    if (this.cache.has(seq)) return this.cache.get(seq);
    const reply = await this.app.conn.request({ t: "replay", room: this.room, seq });
    this.cache.set(seq, reply);
    return reply;
  }

  async goTo(seq) {
    if (this.last !== null) seq = Math.max(1, Math.min(this.last, seq));
    else seq = Math.max(1, seq);
    this.want = seq;
    const ticket = ++this.loading;
    let r;
    try {
      r = await this.fetch(seq);
    } catch (err) {
      if (this.destroyed) return;
      this.stop();
      this.app.say(err.message, "error");
      if (this.last === null) fill(this.posEl, err.message);
      return;
    }
    if (this.destroyed || ticket !== this.loading) return;
    this.want = r.seq;
    const first = this.last === null;
    this.last = r.last;
    this.seq = r.seq;
    this.players = r.players;
    const view = { ...r.view, ...(r.revealed || {}) };
    if (first) {
      this.titleEl.textContent = `Replay: ${this.app.title(r.game)}, room ${this.room}`;
      fill(this.playersEl, r.players.map((p) => h("li", {}, p)));
      const board = await loadBoard(r.game);
      if (this.destroyed) return;
      const mounted = mountBoard(board, this.boardEl, {
        game: r.game, room: this.room, seat: null, readOnly: true,
        act: () => Promise.reject({ code: "spectator", message: "a replay cannot be played" }),
        say: (text) => this.app.say(text), prefs: { ...this.app.prefs }, options: {},
        players: r.players,
      });
      this.board = mounted.board;
      this.handle = mounted.handle;
    }
    try {
      this.handle.update(view, r.events || []);
    } catch (err) {
      console.warn("the board failed to draw", err);
    }
    this.posEl.textContent = `Move ${r.seq} of ${r.last}`;
    // The log tells the game up to the move shown: a step back takes away what came after.
    for (const entry of [...this.logEl.children]) {
      if (Number(entry.dataset.seq) >= r.seq) entry.remove();
    }
    const tell = (cls, text) => this.logEl.append(h("p", { class: cls, dataset: { seq: String(r.seq) } }, text));
    tell("entry entry-step", `— ${r.seq} —`);
    for (const ev of r.events || []) {
      let text;
      try { text = this.board.describe ? this.board.describe(ev, view, r.players) : undefined; } catch (_) { text = undefined; }
      if (text === null) continue;
      tell("entry", text || generic(ev, r.players));
    }
    if (r.seq === r.last && view.status === "over") tell("entry", resultText(view, r.players));
    while (this.logEl.childElementCount > 300) this.logEl.firstElementChild.remove();
    this.logEl.scrollTop = this.logEl.scrollHeight;
    if (this.playing && r.seq >= r.last) this.stop();
  }

  prefsChanged() {
    if (this.handle) {
      try { this.handle.destroy(); } catch (_) { /* replaced */ }
      this.handle = null;
    }
    this.last = null;
    this.boardEl.replaceChildren();
    this.goTo(this.seq);
  }

  toggle() {
    if (this.playing) this.stop();
    else {
      if (this.last !== null && this.want >= this.last) this.goTo(1);
      this.playing = setInterval(() => this.goTo(this.want + 1), PLAY_MS);
      this.playBtn.textContent = "Pause";
    }
  }

  stop() {
    clearInterval(this.playing);
    this.playing = null;
    if (this.playBtn) {
      this.playBtn.textContent = "Play";
    }
  }
}
