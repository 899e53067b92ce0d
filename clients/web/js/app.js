// The shell: who is playing, the connection, and which screen shows (lobby, room, replay).
// Routes: "/" the lobby, "/r/ROOM" a room (a private one's code in the fragment,
// "#code=XYZ", so it never reaches a server log), "/#replay=ROOM" a finished game's replay.

import { Connection, preconnect, worded } from "./net.js";
import * as names from "./names.js";
import { h, fill, modal } from "./dom.js";
import { Lobby } from "./lobby.js";
import { RoomScreen } from "./room.js";
import { ReplayScreen } from "./replay.js";
import { loadPrefs, savePrefs } from "./prefs.js";
import { askPassword, forgetName, openAccount, refusal, sessionEnded } from "./account.js";

class App {
  constructor() {
    this.main = document.getElementById("main");
    this.statusEl = document.getElementById("status");
    this.announcer = document.getElementById("announcer");
    this.whoEl = document.getElementById("who");
    this.conn = null;
    this.welcome = null;
    this.games = new Map();
    this.screen = null;
    this.prefs = loadPrefs();
    this.codes = new Map(); // room -> private code, learnt from links and `created`
    window.addEventListener("popstate", () => this.route());
    window.addEventListener("hashchange", () => this.route()); // a link pasted with its #code
    window.addEventListener("online", () => this.conn && this.conn.retryNow());
    // a phone woken up: try at once rather than at the end of a long back-off
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.conn) this.conn.retryNow();
    });
    document.getElementById("home").addEventListener("click", (ev) => {
      if (!this.welcome) return;
      ev.preventDefault();
      this.go("/");
    });
    this.setupPrefs();
  }

  get player() {
    return this.welcome ? this.welcome.player : null;
  }

  game(name) {
    return this.games.get(name) || null;
  }

  title(name) {
    const spec = this.game(name);
    return spec ? spec.title : name;
  }

  /** Take back what the status line says if it is still `text` (it no longer holds). */
  unsay(text) {
    const line = this.announcer.firstElementChild;
    if (line && line.textContent === text) this.announcer.replaceChildren();
  }

  /** Tell the player something: the status line, and the screen reader's live region. */
  say(text, kind = "info") {
    const line = h("p", { class: `say say-${kind}` }, text);
    fill(this.announcer, line);
  }

  setStatus(state) {
    const el = this.statusEl;
    el.dataset.state = state;
    if (state === "online") fill(el, "");
    else if (state === "connecting") fill(el, "Connecting…");
    else if (state === "offline") {
      fill(el, "Offline: reconnecting… ",
        h("button", { type: "button", onclick: () => this.conn && this.conn.retryNow() }, "Reconnect now"));
    } else fill(el, "");
  }

  // -- names ---------------------------------------------------------------------------

  /** Who is playing? `taken`: a name the server refused as another's, to offer others. */
  askName(message, kind = "error", taken = null) {
    this.leaveScreen();
    this.whoEl.replaceChildren();
    const input = h("input", {
      id: "name", name: "name", type: "text", autocomplete: "nickname", maxlength: "24",
      required: true, spellcheck: "false",
    });
    const err = h("p", { class: kind === "error" ? "error" : "note", role: kind === "error" ? "alert" : "status" }, message || "");
    // what a player can do about a taken name: another one, in one tap, or its password
    const offer = taken ? h("div", { class: "taken" },
      h("p", {}, `Play as another name:`),
      h("ul", { class: "known-names" }, alternatives(taken).map((alt) => h("li", {},
        h("button", { type: "button", class: "name-button", onclick: () => this.signIn(alt) }, alt)))),
      h("p", { class: "note" }, `If ${taken} is yours: on the device that plays it, open Account and set a password; then type that password here.`)) : null;
    const limit = h("p", { class: "note", id: "name-limit", "aria-live": "polite" });
    input.setAttribute("aria-describedby", "name-limit");
    input.addEventListener("input", () => {
      limit.textContent = input.value.length >= 24 ? "A name has at most 24 characters." : "";
    });
    const form = h("form", { class: "name-form" },
      h("div", { class: "field" }, h("label", { for: "name" }, "Your name"), input),
      h("button", { type: "submit", class: "primary" }, "Play"));
    const known = names.remembered();
    const list = known.length ? h("div", { class: "known" },
      h("h3", { id: "known-h" }, "Play as"),
      h("ul", { class: "known-names", "aria-labelledby": "known-h" },
        known.map((k, i) => h("li", {}, h("button", {
          type: "button", class: "name-button", id: `known-${i}`, onclick: () => this.signIn(k.name),
        }, k.name), k.token ? null : h("span", { class: "note" }, "(signed out)"), h("button", {
          // named "Forget", described by the name: the list's one button per name stays the
          // only button whose name holds it
          type: "button", class: "link forget", "aria-describedby": `known-${i}`,
          onclick: () => forgetName(this, k, (said) => this.askName(said, "note")),
        }, "forget"))))) : null;
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      // spaces as the server keeps them: none at the ends, never two in a row
      const name = input.value.trim().replace(/\s+/g, " ");
      if (name) this.signIn(name);
      else {
        err.className = "error";
        err.textContent = "A name needs at least one letter or digit.";
        input.focus();
      }
    });
    fill(this.main, h("section", { class: "card name-dialog", role: "dialog", "aria-labelledby": "name-h" },
      h("h2", { id: "name-h" }, "Who is playing?"),
      h("p", {}, "Pick a name others will see. This browser remembers it (and its key) for next time."),
      list, form, limit, err, offer));
    input.focus();
  }

  /** Say hello as `name`: with its remembered token, else by name (with `password` when
   * the player typed one: see account.js). */
  async signIn(name, password) {
    if (this.conn) this.conn.close();
    const known = names.find(name);
    this.setStatus("connecting");
    const conn = new Connection({
      onPush: (frame, mine) => this.onPush(frame, mine),
      onStatus: (s, detail) => {
        if (conn !== this.conn) return;
        if (s === "ended" || (s === "refused" && detail && detail.code === "bad_token")) {
          sessionEnded(this, s === "ended" ? detail : 4001); // signed out elsewhere, or barred
          return;
        }
        if (s === "refused") { // the server no longer takes our key: who is playing?
          this.conn = null;
          this.welcome = null;
          this.setStatus("closed");
          this.askName(detail && detail.message);
          return;
        }
        this.setStatus(s);
      },
      onWelcome: (w, resumed) => { if (conn === this.conn && resumed) this.onResumed(w); },
    });
    this.conn = conn;
    let welcome;
    try {
      welcome = await conn.open(password !== undefined ? { name, password }
        : known && known.token ? { token: known.token } : { name });
    } catch (err) {
      if (err.code === "bad_token" && known) {
        // The server no longer knows this key (its data was reset): ask for the name anew.
        names.dropToken(known.name);
        return this.signIn(known.name);
      }
      conn.close();
      this.conn = null;
      this.setStatus("closed");
      if (["password_required", "bad_password", "too_many_attempts"].includes(err.code)) {
        askPassword(this, name, err);
        return;
      }
      this.askName(err.code === "offline" ? `Cannot reach the server: ${err.message}` : refusal(name, err) || err.message,
        "error", err.code === "name_taken" ? name : null);
      return;
    }
    this.welcome = welcome;
    this.games = new Map((welcome.games || []).map((g) => [g.name, g]));
    names.remember(welcome.player, welcome.token);
    fill(this.whoEl, h("span", { class: "me" }, welcome.player),
      h("button", { type: "button", class: "link", onclick: () => this.changeName() }, "Change name"),
      h("button", { type: "button", class: "link", "aria-haspopup": "dialog", onclick: (ev) => openAccount(this, ev.currentTarget) }, "Account"));
    this.route();
  }

  changeName() {
    this.endSession();
  }

  /** Leave the server (the connection closed, no reconnect) and ask who plays, saying why. */
  endSession(message, kind) {
    if (this.conn) this.conn.close();
    this.conn = null;
    this.welcome = null;
    this.setStatus("closed");
    if (location.pathname !== "/" || location.hash) history.pushState(null, "", "/");
    this.askName(message, kind);
  }

  onResumed(welcome) {
    this.welcome = welcome;
    this.say("Back online.");
    if (this.screen && this.screen.resume) this.screen.resume(welcome);
  }

  onPush(frame, mine) {
    if (frame.t === "error" && !mine) {
      const view = this.screen && this.screen.view;
      worded(frame, view && view.game).then((text) => this.say(text, "error"));
      if (this.screen && this.screen.onError) this.screen.onError(frame);
      return;
    }
    if (this.screen && this.screen.onPush) this.screen.onPush(frame, mine);
  }

  // -- screens -------------------------------------------------------------------------

  leaveScreen() {
    if (this.screen) this.screen.destroy();
    this.screen = null;
  }

  /** Go to `path` (pushing it to the history) and show it. */
  go(path) {
    if (location.pathname + location.hash !== path) history.pushState(null, "", path);
    this.route();
  }

  route() {
    if (!this.welcome) return;
    const hash = new URLSearchParams(location.hash.slice(1));
    const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
    this.leaveScreen();
    this.announcer.replaceChildren(); // what the last screen said ("Press Quit again") is not this one's
    if (m) {
      const room = decodeURIComponent(m[1]);
      const code = hash.get("code");
      if (code) this.codes.set(room, code);
      this.screen = new RoomScreen(this, room, this.codes.get(room) || null);
    } else if (hash.get("replay")) {
      this.screen = new ReplayScreen(this, hash.get("replay"), Number(hash.get("seq")) || 1);
    } else {
      if (hash.get("daily")) { // a shared result's link: today's deal of that game
        this.dailyGame = hash.get("daily");
        sessionStorage.setItem("tilehall.tab", "daily");
      }
      this.screen = new Lobby(this);
    }
    this.screen.show(this.main);
    // A new screen: the reader starts at its top (its own controls may take focus after).
    this.main.focus({ preventScroll: true });
    this.setTitle(m ? `Room ${decodeURIComponent(m[1])}` : hash.get("replay") ? "Replay" : "Lobby");
  }

  /** The tab's title: where the player is, then the site. */
  setTitle(where) {
    const title = where ? `${where} — Tilehall` : "Tilehall";
    if (document.title !== title) document.title = title; // once per update: write only a change
  }

  /** The address of a room: a private one's carries its code in the fragment. */
  roomPath(room, code) {
    const c = code || this.codes.get(room);
    return `/r/${encodeURIComponent(room)}${c ? `#code=${encodeURIComponent(c)}` : ""}`;
  }

  /** The keys of the page, in a dialog (Escape closes it). */
  help() {
    const keys = [
      ["Tab, Shift+Tab", "go from control to control"],
      ["Enter, Space", "press the button in focus"],
      ["Escape", "close this dialog"],
      ["← →", "in a replay: the move before, the move after"],
      ["Home, End", "in a replay: the deal, the end"],
      ["Space", "in a replay: play or pause"],
      ["?", "on a board: that game's own keys"],
    ];
    modal("Keys", (body) => {
      body.append(
        h("dl", { class: "keys-list" }, keys.map(([k, what]) => [h("dt", {}, k), h("dd", {}, what)])),
        h("p", { class: "note" }, "Symbols draws a symbol on each colour; Less motion turns animations off."));
    });
  }

  // -- preferences ---------------------------------------------------------------------

  setupPrefs() {
    const box = document.getElementById("prefs");
    const symbols = h("input", { type: "checkbox", id: "pref-symbols", checked: this.prefs.symbols });
    const motion = h("input", { type: "checkbox", id: "pref-motion", checked: this.prefs.reducedMotion });
    const changed = () => {
      this.prefs = { symbols: symbols.checked, reducedMotion: motion.checked };
      savePrefs(this.prefs);
      document.documentElement.classList.toggle("reduce-motion", this.prefs.reducedMotion);
      if (this.screen && this.screen.prefsChanged) this.screen.prefsChanged();
    };
    symbols.addEventListener("change", changed);
    motion.addEventListener("change", changed);
    fill(box,
      h("label", { for: "pref-symbols" }, symbols, " Symbols"),
      h("label", { for: "pref-motion" }, motion, " Less motion"),
      h("button", { type: "button", class: "link", onclick: () => this.help() }, "Help"));
    document.documentElement.classList.toggle("reduce-motion", this.prefs.reducedMotion);
  }
}

/** Names to offer for one that is taken: the same with a number, within 24 characters. */
function alternatives(name) {
  return [2, 3, 7].map((n) => `${name.slice(0, 24 - String(n).length)}${n}`);
}

preconnect(); // the socket's handshakes meanwhile: the name prompt is up next
const app = new App();
// For debugging from the console only; the tests read the server's state themselves.
globalThis.tilehall = app;
// A room's (or a replay's) link opened with one name remembered (and its key): straight in
// as that name ("Change name" at the top offers to switch); with several, or none, ask.
const known = names.remembered();
const deep = /^\/r\/[^/]+\/?$/.test(location.pathname) || new URLSearchParams(location.hash.slice(1)).has("replay");
if (deep && known.length === 1 && known[0].token) app.signIn(known[0].name);
else app.askName();
