// The lobby: first a card per game (its board's picture, one line, the buttons that start
// it at once), built from welcome.games (games are the server's plugins: no list here);
// every option one tap away ("More options"); a live game to watch; then rooms to watch or
// join (filters, pages), high scores, ratings and finished games; a private room by its code.

import { h, fill, field, when, modal } from "./dom.js";
import { dailyPanel } from "./daily.js";
import { thumb } from "./thumbs.js";
import { ratingText, roomState } from "./words.js";
import { applyPatch, PatchError } from "./patch.js";
import { loadBoard, mountBoard } from "./boards.js";

const TABS = [
  ["rooms", "Rooms"],
  ["daily", "Today's deal"],
  ["scores", "High scores"],
  ["ratings", "Ratings"],
  ["history", "My games"],
];

const REFRESH_MS = 10000;

export class Lobby {
  constructor(app) {
    this.app = app;
    this.tab = sessionStorage.getItem("tilehall.tab") || "rooms";
    this.timer = null;
    this.destroyed = false;
    this.filters = { game: "", status: "" };
    this.pages = 0;
    this.busy = false;
    this.live = null; // the room shown small under "Watch a game": {room, seq, view, handle}
  }

  show(main) {
    this.root = h("section", { id: "lobby", "aria-labelledby": "lobby-h" });
    this.tabButtons = new Map();
    const nav = h("nav", { class: "tabs", "aria-label": "Lobby" }, TABS.map(([key, label]) => {
      const b = h("button", { type: "button", onclick: () => this.select(key) }, label);
      this.tabButtons.set(key, b);
      return b;
    }));
    this.panel = h("div", { class: "panel" });
    this.mineEl = h("div", { class: "mine", hidden: true });
    this.liveEl = h("section", { class: "live", "aria-labelledby": "live-h", hidden: true });
    this.codeEl = h("div", { class: "code-box" });
    fill(this.root, h("h2", { id: "lobby-h", class: "visually-hidden" }, "Lobby"),
      this.mineEl, this.cards(), this.liveEl, nav, this.panel, this.codeEl);
    fill(main, this.root);
    this.showMine();
    this.showCodeLink();
    this.select(TABS.some(([k]) => k === this.tab) ? this.tab : "rooms");
    // The first room list marks the lobby ready, whatever tab shows.
    if (this.tab !== "rooms") this.fetchRooms(false).catch(() => {});
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.timer);
    clearInterval(this.liveTimer);
    this.dropLive(true);
    if (this.dialog) this.dialog.close(); // a room made from it: the dialog goes with the lobby
  }

  resume(welcome) {
    this.showMine();
    if (this.tab === "rooms") this.fetchRooms(false).catch(() => {});
    if (this.live) this.watchLive(this.live.room);
  }

  request(msg) {
    return this.app.conn.request(msg).catch((err) => {
      if (!this.destroyed) this.app.say(err.message, "error");
      throw err;
    });
  }

  select(key) {
    this.tab = key;
    sessionStorage.setItem("tilehall.tab", key);
    for (const [k, b] of this.tabButtons) b.setAttribute("aria-pressed", k === key ? "true" : "false");
    clearInterval(this.timer);
    this.panel.replaceChildren();
    ({ rooms: () => this.showRooms(), scores: () => this.showScores(),
      ratings: () => this.showRatings(), history: () => this.showHistory(),
      daily: () => this.panel.append(dailyPanel(this.app, this.app.dailyGame)) })[key]();
  }

  gameSelect(withAll, only) {
    const sel = h("select", {});
    if (withAll) sel.append(h("option", { value: "" }, "All games"));
    for (const g of this.app.games.values()) {
      if (!only || only(g)) sel.append(h("option", { value: g.name }, g.title));
    }
    return sel;
  }

  // -- one card per game ----------------------------------------------------------------

  cards() {
    const games = [...this.app.games.values()];
    return h("section", { class: "play", "aria-labelledby": "play-h" },
      h("h2", { id: "play-h" }, "Play"),
      games.length ? h("ul", { class: "game-cards" }, games.map((g) => this.card(g)))
        : h("p", { class: "note" }, "This server offers no game."));
  }

  /** One game's card: its picture, its line, and the buttons that start it now. A solo
   * game starts with its defaults; a game of several players against the computer, with
   * whoever asks for it too (quick match), or with a friend the room's link is sent to. */
  card(spec) {
    const titleId = `card-${spec.name}`;
    const go = (text, run, primary) => h("button", {
      type: "button", class: primary ? "primary" : "", "aria-describedby": titleId,
      onclick: () => this.start(run),
    }, text);
    const buttons = spec.max_seats <= 1
      ? [go("Play", () => this.createAndJoin(spec, {}), true),
        spec.daily ? h("button", { type: "button", class: "daily-card", "aria-describedby": titleId,
          onclick: () => this.openDaily(spec.name) }, "Today's deal") : null]
      : [
        spec.bots && spec.bots.length ? go("Play the computer", () => this.createAndJoin(spec, { seats: [this.app.player, ...Array(Math.max(1, spec.min_seats - 1)).fill("COMP:normal")] }), true) : null,
        go("Quick match", () => this.quickMatch(spec, {}), !(spec.bots && spec.bots.length)),
        go("Play with a friend", () => this.createAndJoin(spec, { seats: [this.app.player, ...Array(Math.max(1, spec.min_seats - 1)).fill(null)], private: true })),
      ];
    return h("li", { class: "game-card", dataset: { game: spec.name } },
      thumb(spec),
      h("div", { class: "card-text" },
        h("h3", { id: titleId }, spec.title),
        spec.summary ? h("p", { class: "card-line" }, spec.summary) : null),
      h("div", { class: "card-buttons" }, buttons,
        h("button", { type: "button", class: "link more", "aria-haspopup": "dialog", "aria-describedby": titleId, onclick: () => this.moreOptions(spec) }, "More options")));
  }

  /** The card's "Today's deal": the deal's panel on that game (your result, the day's table,
   * play it), where the lobby's tab shows it. */
  openDaily(game) {
    this.app.dailyGame = game;
    this.select("daily");
    this.panel.scrollIntoView({ block: "start" });
  }

  /** Run one card's start, one at a time (a second tap while the first is under way does nothing). */
  async start(run) {
    if (this.busy) return;
    this.busy = true;
    this.root.setAttribute("aria-busy", "true");
    try {
      await run();
    } catch (err) {
      if (!this.destroyed) this.app.say(err.message, "error");
    } finally {
      this.busy = false;
      this.root.removeAttribute("aria-busy");
    }
  }

  /** Make a room of `spec` (`fields`: seats, options, private), take seat 1, go there. */
  async createAndJoin(spec, fields) {
    const created = await this.app.conn.request({ t: "create", game: spec.name, ...fields });
    if (created.code) this.app.codes.set(created.room, created.code);
    const joined = await this.app.conn.request(created.code ? { t: "join", code: created.code } : { t: "join", room: created.room });
    this.app.pendingJoined = joined;
    this.app.go(this.app.roomPath(created.room, created.code));
  }

  async quickMatch(spec, fields) {
    const joined = await this.app.conn.request({ t: "match", game: spec.name, ...fields });
    this.app.pendingJoined = joined;
    this.app.go(this.app.roomPath(joined.room));
  }

  /** Every option of `spec`, in a dialog: only those that apply to it. */
  moreOptions(spec) {
    this.dialog = modal(`${spec.title}: more options`, (body) => {
      const formBody = h("div", { class: "options" });
      const errorEl = h("p", { class: "error", role: "alert" });
      const form = h("form", { class: "new-game" }, formBody, errorEl);
      form.addEventListener("submit", (ev) => ev.preventDefault());
      body.append(form);
      this.buildGameForm(spec, formBody, errorEl);
    });
  }

  // -- a live game to watch ---------------------------------------------------------------

  /** The busiest game being played now (most people watching or playing), drawn small; of
   * as busy ones, people's before the server's own all-COMP game (`showcase`), which a
   * server keeps going while nobody plays in public. */
  async findLive() {
    clearInterval(this.liveTimer);
    this.liveTimer = setInterval(() => {
      if (!document.hidden && (!this.live || this.live.view.status === "over")) this.findLive();
    }, REFRESH_MS);
    let reply;
    try {
      reply = await this.app.conn.request({ t: "rooms", status: "playing", limit: 50 });
    } catch (_) { return; }
    if (this.destroyed) return;
    const people = (r) => r.spectators + r.seats.filter((s) => s.connected && !s.bot).length;
    const best = reply.rooms.filter((r) => (!r.paused || r.paused === "unwatched") && !r.suspended && !this.mine(r) && r.room !== (this.live && this.live.room))
      .sort((a, b) => people(b) - people(a) || (a.showcase ? 1 : 0) - (b.showcase ? 1 : 0))[0];
    if (!best) {
      if (!this.live) this.liveEl.hidden = true;
      return;
    }
    await this.watchLive(best.room, best);
  }

  async watchLive(room, summary) {
    let reply;
    try {
      reply = await this.app.conn.request({ t: "watch", room });
    } catch (_) { return; }
    if (this.destroyed) {
      this.app.conn.request({ t: "leave", room }).catch(() => {});
      return;
    }
    if (this.live && this.live.room === room) { // again, after a gap: the same drawing, caught up
      this.live.seq = reply.seq;
      this.live.view = reply.view;
      this.updateLive(reply.view);
      return;
    }
    const board = await loadBoard(reply.view.game);
    if (this.destroyed) return;
    this.dropLive(true);
    // drawn at a room's size on a stage, shrunk by CSS: each board lays itself out as usual
    const frame = h("div", { class: "live-stage" });
    const shown = h("div", { class: "live-board", inert: true, "aria-hidden": "true" }, frame);
    const spec = this.app.game(reply.view.game);
    const title = spec ? spec.title : reply.view.game;
    const seats = summary ? summary.seats.map((s) => s.name || "open").join(", ") : "";
    this.liveInfo = h("p", { class: "live-line" });
    fill(this.liveEl,
      h("h2", { id: "live-h" }, "Watch a game"),
      h("div", { class: "live-card" }, shown,
        h("div", { class: "live-text" },
          h("h3", {}, title), seats ? h("p", { class: "note" }, seats) : null,
          summary && summary.showcase ? h("p", { class: "note showcase-note" }, "The computer against itself, while nobody plays.") : null,
          this.liveInfo,
          h("button", { type: "button", class: "primary", "aria-label": `Watch ${title} ${room}`, onclick: () => this.app.go(this.app.roomPath(room)) }, "Watch"))));
    this.liveEl.hidden = false;
    const ctx = { game: reply.view.game, room, seat: null, readOnly: true, act: () => Promise.reject(new Error("watching")),
      say: () => {}, prefs: { ...this.app.prefs, reducedMotion: true }, options: (summary && summary.options) || {},
      bots: summary ? summary.seats.flatMap((s, i) => (s.bot ? [i] : [])) : null, players: summary ? summary.seats.map((s) => s.name) : [] };
    const mounted = mountBoard(board, frame, ctx);
    this.live = { room, seq: reply.seq, view: reply.view, handle: mounted.handle };
    this.updateLive(reply.view);
  }

  updateLive(view) {
    try { this.live.handle.update(view, []); } catch (err) { console.warn(err); }
    const scores = Array.isArray(view.scores) ? view.scores.join(" – ") : "";
    this.liveInfo.textContent = view.status === "over" ? "Game over." : scores ? `Scores ${scores}` : "";
  }

  dropLive(leave) {
    if (!this.live) return;
    try { this.live.handle.destroy(); } catch (_) { /* gone */ }
    if (leave && this.app.conn && this.app.conn.online) this.app.conn.request({ t: "leave", room: this.live.room }).catch(() => {});
    this.live = null;
  }

  /** The shell's pushes while the lobby shows: the live game's updates. */
  onPush(frame) {
    const live = this.live;
    if (!live || frame.t !== "update" || frame.room !== live.room || frame.seq <= live.seq) return;
    try {
      if (frame.seq !== live.seq + 1) throw new PatchError("a gap"); // (updates that came while the board loaded)
      live.view = frame.view !== undefined ? frame.view : applyPatch(live.view, frame.patch || []);
      live.seq = frame.seq;
    } catch (err) {
      if (!(err instanceof PatchError)) throw err;
      this.watchLive(live.room);
      return;
    }
    this.updateLive(live.view);
  }

  // -- my unfinished games, my rating, a private room by its code ---------------------------

  showMine() {
    const rooms = this.app.welcome.rooms || [];
    const ratings = Object.entries(this.app.welcome.ratings || {})
      .filter(([, r]) => r && r.games > 0)
      .map(([game, r]) => `${this.app.title(game)} ${ratingText(r)}`);
    fill(this.mineEl,
      rooms.length ? h("div", { class: "resume" }, h("h3", {}, "Your unfinished games"),
        h("ul", { class: "plain" }, rooms.map((r) => h("li", {},
          h("button", { type: "button", class: "primary", onclick: () => this.app.go(this.app.roomPath(r)) }, `Resume room ${r}`))))) : null,
      ratings.length ? h("p", { class: "my-rating" }, `Your rating: ${ratings.join(", ")}`) : null);
    this.mineEl.hidden = !this.mineEl.childElementCount;
  }

  /** "Join with a code": a small link that opens the code's form in its place. */
  showCodeLink() {
    const open = h("button", { type: "button", class: "link", "aria-expanded": "false" }, "Join with a code");
    const code = h("input", { type: "text", autocomplete: "off", spellcheck: "false", maxlength: "64" });
    const byCode = async (how) => {
      const c = code.value.trim();
      if (!c) {
        code.focus();
        return;
      }
      try {
        const reply = await this.request({ t: how, code: c });
        this.app.codes.set(reply.room, c);
        this.app.pendingJoined = reply;
        this.app.go(this.app.roomPath(reply.room, c));
      } catch (_) { /* said */ }
    };
    const form = h("form", { class: "inline code-form", hidden: true },
      field("Private room code", code), h("button", { type: "submit" }, "Join by code"),
      h("button", { type: "button", onclick: () => byCode("watch") }, "Watch by code"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      byCode("join");
    });
    open.addEventListener("click", () => {
      form.hidden = !form.hidden;
      open.setAttribute("aria-expanded", form.hidden ? "false" : "true");
      if (!form.hidden) code.focus();
    });
    fill(this.codeEl, h("p", { class: "code-link" }, open), form);
  }

  // -- rooms ----------------------------------------------------------------------------

  showRooms() {
    const game = this.gameSelect(true);
    game.value = this.filters.game;
    const status = h("select", {},
      h("option", { value: "" }, "Any status"), h("option", { value: "waiting" }, "Waiting for players"),
      h("option", { value: "playing" }, "Playing"), h("option", { value: "over" }, "Over"));
    status.value = this.filters.status;
    const changed = () => {
      this.filters = { game: game.value, status: status.value };
      this.fetchRooms(false).catch(() => {});
    };
    game.addEventListener("change", changed);
    status.addEventListener("change", changed);
    this.roomsBody = h("ul", { class: "rooms-list", "aria-label": "Rooms" });
    this.refreshBtn = h("button", { type: "button", onclick: () => this.fetchRooms(false).catch(() => {}) }, "Refresh");
    this.moreBtn = h("button", { type: "button", hidden: true, onclick: () => this.fetchRooms(true).catch(() => {}) }, "More rooms");
    this.roomsNote = h("p", { class: "note", "aria-live": "polite" });
    fill(this.panel,
      h("div", { class: "filters" }, field("Game", game), field("Status", status),
        this.refreshBtn),
      this.roomsNote, this.roomsBody, this.moreBtn);
    this.fetchRooms(false).catch(() => {});
    this.timer = setInterval(() => {
      if (this.pages <= 1 && this.app.conn && this.app.conn.online && !document.hidden) this.fetchRooms(false).catch(() => {});
    }, REFRESH_MS);
  }

  async fetchRooms(more) {
    const msg = { t: "rooms" };
    if (this.filters.game) msg.game = this.filters.game;
    if (this.filters.status) msg.status = this.filters.status;
    if (more && this.next) msg.cursor = this.next;
    const reply = await this.request(msg);
    if (this.destroyed) return;
    this.root.dataset.ready = "1";
    if (!this.liveAsked) { // after the list: the lobby is usable first, the live game comes next
      this.liveAsked = true;
      this.findLive();
    }
    if (this.tab !== "rooms" || !this.roomsBody) return;
    this.next = reply.next;
    this.pages = more ? this.pages + 1 : 1;
    // A refresh must not throw away the keyboard's place: the same button keeps the focus.
    const focused = this.roomsBody.contains(document.activeElement) ? document.activeElement : null;
    const place = focused && [focused.closest(".room-row")?.dataset.room, focused.getAttribute("aria-label")];
    if (!more) this.roomsBody.replaceChildren();
    for (const room of reply.rooms) this.roomsBody.append(this.roomRow(room));
    if (place) {
      const row = [...this.roomsBody.children].find((r) => r.dataset.room === place[0]);
      const again = row && [...row.querySelectorAll("button")].find((b) => b.getAttribute("aria-label") === place[1]);
      (again || this.refreshBtn).focus();
    }
    this.moreBtn.hidden = !reply.next;
    this.roomsNote.textContent = this.roomsBody.childElementCount ? "" : "No rooms here yet: start a game above.";
  }

  roomRow(room) {
    const spec = this.app.game(room.game);
    const seats = room.seats.map((s) => {
      if (!s.name) return "open";
      if (s.bot) return s.name;
      if (!s.taken) return `${s.name} (reserved)`;
      // a finished game's players are not "away": nobody is expected back
      return s.connected || room.status === "over" ? s.name : `${s.name} (away)`;
    });
    const open = room.seats.some((s) => !s.taken && !s.name);
    const status = roomState(room);
    const options = changedOptions(spec, room.options);
    const label = `${spec ? spec.title : room.game} ${room.room}`;
    const actions = [];
    if (room.status === "waiting" && open) {
      actions.push(h("button", { type: "button", class: "primary", "aria-label": `Join ${label}`, onclick: () => this.joinRoom(room.room) }, "Join"));
    }
    if (room.status !== "over") {
      actions.push(h("button", { type: "button", "aria-label": `Watch ${label}`, onclick: () => this.app.go(this.app.roomPath(room.room)) }, "Watch"));
    } else {
      actions.push(h("button", { type: "button", "aria-label": `Replay ${label}`, onclick: () => this.app.go(`/#replay=${encodeURIComponent(room.room)}`) }, "Replay"));
    }
    const mine = this.mine(room);
    return h("li", { class: mine ? "room-row mine-row" : "room-row", dataset: { room: room.room } },
      h("div", { class: "room-main" },
        h("strong", {}, spec ? spec.title : room.game), " ", h("span", { class: "room-id" }, room.room),
        mine ? h("span", { class: "tag" }, " · yours") : null,
        h("div", { class: "room-meta" }, `${status} · ${seats.join(", ")} · ${room.spectators} watching`
          + (options ? ` · ${options}` : ""))),
      h("div", { class: "room-buttons" }, actions));
  }

  /** Whether I hold a seat of `room` (a rooms entry): the room is mine to play, not to watch. */
  mine(room) {
    return (this.app.welcome.rooms || []).includes(room.room)
      || room.seats.some((s) => s.name === this.app.player);
  }

  /** Take any open seat of a listed room, and go there. */
  async joinRoom(room) {
    try {
      const reply = await this.request({ t: "join", room });
      this.app.pendingJoined = reply;
      this.app.go(this.app.roomPath(room));
    } catch (_) {
      this.fetchRooms(false).catch(() => {}); // taken meanwhile: show the list as it is now
    }
  }

  // -- every option of a game (More options) ---------------------------------------------

  buildGameForm(spec, body, errorEl) {
    errorEl.textContent = "";
    const controls = spec.options.map((opt) => optionControl(opt));
    const seatsWrap = h("div", { class: "seat-rows" });
    let count = null;
    let seatRows = [];
    if (spec.max_seats > 1) {
      count = h("select", {});
      for (let n = spec.min_seats; n <= spec.max_seats; n++) count.append(h("option", { value: String(n) }, String(n)));
      const rebuild = () => {
        const n = Number(count.value);
        const old = seatRows;
        seatRows = [];
        for (let i = 1; i < n; i++) seatRows.push(old[i - 1] || seatControl(spec, i));
        fill(seatsWrap, seatRows.map((r) => r.el));
      };
      count.addEventListener("change", rebuild);
      rebuild();
    }
    const priv = h("input", { type: "checkbox" });
    const botsAfter = h("input", { type: "number", min: "0", max: "3600", value: "30", inputmode: "numeric" });
    const level = h("select", {}, (spec.bots || ["normal"]).map((b) => h("option", { value: b, selected: b === "normal" }, b)));
    const create = h("button", { type: "button", class: "primary" }, "Create");
    const quick = h("button", { type: "button" }, "Quick game");
    const options = () => {
      const out = {};
      for (const c of controls) {
        const v = c.value();
        if (v !== c.opt.default) out[c.opt.name] = v;
      }
      return out;
    };
    create.addEventListener("click", async () => {
      errorEl.textContent = "";
      const msg = { t: "create", game: spec.name };
      const opts = options();
      if (Object.keys(opts).length) msg.options = opts;
      if (count) msg.seats = [this.app.player, ...seatRows.map((r) => r.value())];
      if (priv.checked) msg.private = true;
      try {
        const created = await this.app.conn.request(msg);
        if (created.code) this.app.codes.set(created.room, created.code);
        const joined = await this.app.conn.request(created.code ? { t: "join", code: created.code } : { t: "join", room: created.room });
        this.app.pendingJoined = joined;
        this.app.go(this.app.roomPath(created.room, created.code));
      } catch (err) {
        errorEl.textContent = err.message;
      }
    });
    quick.addEventListener("click", async () => {
      errorEl.textContent = "";
      const msg = { t: "match", game: spec.name };
      const opts = options();
      if (Object.keys(opts).length) msg.options = opts;
      if (count) msg.seats = Number(count.value);
      const after = Number(botsAfter.value);
      if (Number.isInteger(after) && after >= 0 && after <= 3600) msg.bots_after = after;
      msg.level = level.value;
      try {
        const joined = await this.app.conn.request(msg);
        this.app.pendingJoined = joined;
        this.app.go(this.app.roomPath(joined.room));
      } catch (err) {
        errorEl.textContent = err.message;
      }
    });
    // Only what applies: a solo game has nobody to keep out and no seats to fill.
    const solo = !count;
    fill(body,
      spec.options.length ? h("fieldset", {}, h("legend", {}, `${spec.title} options`), controls.map((c) => c.el)) : h("p", { class: "note" }, `${spec.title} has no options.`),
      count ? h("fieldset", {}, h("legend", {}, "Players"), field("Seats", count), h("p", { class: "note" }, `Seat 1 is yours (${this.app.player}).`), seatsWrap) : null,
      solo ? null : h("div", { class: "field check" }, h("label", {}, priv, " Private (only those with its link or code can join)")),
      h("div", { class: "buttons" }, create),
      solo ? null : h("fieldset", {}, h("legend", {}, "Quick game"),
        h("p", { class: "note" }, "Play whoever else asks for this game with these options; computer players fill the seats nobody takes in time."),
        field("Computer players after (seconds)", botsAfter), field("Their level", level), quick));
  }

  // -- high scores, ratings, my games ------------------------------------------------------

  showScores() {
    const game = this.gameSelect(false);
    const table = h("select", {});
    const bots = h("input", { type: "checkbox" });
    const out = h("div", { class: "scores-out", "aria-live": "polite" });
    const load = async (keepTable) => {
      const msg = { t: "scores", game: game.value };
      if (keepTable && table.value) msg.table = table.value;
      if (bots.checked) msg.bots = true;
      let r;
      try { r = await this.request(msg); } catch (_) { return; }
      if (this.destroyed) return;
      fill(table, r.tables.map((t) => h("option", { value: t, selected: t === r.table }, t)));
      fill(out,
        r.entries.length ? h("table", {}, h("caption", {}, `${this.app.title(r.game)}: ${r.table}${r.bots ? " (bot programs)" : ""}`),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Game"))),
          h("tbody", {}, r.entries.map((e, i) => h("tr", {}, h("td", {}, String(i + 1)), h("td", {}, e.name), h("td", {}, String(e.score)), h("td", {}, when(e.at)),
            h("td", {}, e.room ? h("button", { type: "button", class: "link", "aria-label": `Replay ${e.name}'s game`, onclick: () => this.app.go(`/#replay=${encodeURIComponent(e.room)}`) }, "Replay") : ""))))) : h("p", { class: "note" }, "No scores in this table yet."),
        r.mine && r.mine.length ? h("p", {}, "Your best: ", r.mine.map((m) => `${m.table} ${m.score}`).join(", ")) : null);
    };
    game.addEventListener("change", () => load(false));
    table.addEventListener("change", () => load(true));
    bots.addEventListener("change", () => load(true));
    fill(this.panel, h("div", { class: "filters" }, field("Game", game), field("Table", table),
      h("div", { class: "field check" }, h("label", {}, bots, " Bot programs"))), out);
    load(false);
  }

  showRatings() {
    const rated = (g) => g.rated;
    if (![...this.app.games.values()].some(rated)) {
      fill(this.panel, h("p", {}, "No game on this server is rated."));
      return;
    }
    const game = this.gameSelect(false, rated);
    const list = h("ol", { class: "ratings" });
    const more = h("button", { type: "button", hidden: true }, "More players");
    const mine = h("p", {});
    let next = null;
    const load = async (again) => {
      const msg = { t: "leaderboard", game: game.value };
      if (again && next) msg.cursor = next;
      let r;
      try { r = await this.request(msg); } catch (_) { return; }
      if (!again) list.replaceChildren();
      for (const e of r.entries) list.append(h("li", {}, `${e.name}: ${ratingText(e)}`));
      if (!list.childElementCount) list.append(h("li", { class: "note" }, "Nobody has played a rated game yet."));
      next = r.next;
      more.hidden = !next;
      mine.textContent = r.mine ? `Your rating: ${ratingText(r.mine)}` : "";
    };
    game.addEventListener("change", () => load(false));
    more.addEventListener("click", () => load(true));
    fill(this.panel, h("div", { class: "filters" }, field("Game", game)), mine, list, more);
    load(false);
  }

  showHistory() {
    const game = this.gameSelect(true);
    const player = h("input", { type: "text", maxlength: "24", placeholder: this.app.player, autocomplete: "off" });
    const list = h("ul", { class: "history-list" });
    const more = h("button", { type: "button", hidden: true }, "More games");
    const note = h("p", { class: "note", "aria-live": "polite" });
    let next = null;
    const load = async (again) => {
      const msg = { t: "history" };
      if (game.value) msg.game = game.value;
      if (player.value.trim()) msg.player = player.value.trim();
      if (again && next) msg.cursor = next;
      let r;
      try { r = await this.app.conn.request(msg); } catch (err) {
        // said once, here: not also "has no finished games" from the list before
        list.replaceChildren();
        more.hidden = true;
        note.textContent = err.message;
        return;
      }
      if (!again) list.replaceChildren();
      for (const g of r.rooms) list.append(this.historyRow(g));
      next = r.next;
      more.hidden = !next;
      note.textContent = list.childElementCount ? `Games of ${r.player}, newest first.` : `${r.player} has no finished games yet.`;
    };
    const form = h("form", { class: "filters" }, field("Game", game), field("Player", player), h("button", { type: "submit" }, "Show"));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); load(false); });
    game.addEventListener("change", () => load(false));
    more.addEventListener("click", () => load(true));
    fill(this.panel, form, note, list, more);
    load(false);
  }

  historyRow(g) {
    const players = g.players.map((p, i) => `${p.name}${p.bot ? ` (COMP ${p.bot})` : ""}${g.scores ? ` ${g.scores[i]}` : ""}`);
    const label = `${this.app.title(g.game)} ${g.room}`;
    return h("li", { class: "history-row" },
      h("div", { class: "room-main" }, h("strong", {}, this.app.title(g.game)), " ", h("span", { class: "outcome" }, g.outcome),
        h("div", { class: "room-meta" }, `${players.join(", ")} · ${when(g.finished)}${g.private ? " · private" : ""}`)),
      h("div", { class: "room-buttons" }, h("button", { type: "button", "aria-label": `Replay ${label}`, onclick: () => this.app.go(`/#replay=${encodeURIComponent(g.room)}`) }, "Replay")));
  }
}

/** One control of a game's option, from its welcome description. */
function optionControl(opt) {
  let input;
  let value;
  if (opt.kind === "bool") {
    input = h("input", { type: "checkbox", checked: !!opt.default, name: opt.name });
    value = () => input.checked;
    const el = h("div", { class: "field check" }, h("label", {}, input, ` ${optionLabel(opt)}`), opt.doc ? h("small", { class: "hint" }, opt.doc) : null);
    return { opt, el, value };
  }
  if (opt.kind === "choice") {
    input = h("select", { name: opt.name }, opt.choices.map((c) => h("option", { value: c, selected: c === opt.default }, c)));
    value = () => input.value;
  } else {
    input = h("input", { type: "number", name: opt.name, min: opt.min, max: opt.max, step: "1", value: String(opt.default), inputmode: "numeric" });
    value = () => {
      const n = Number(input.value);
      return Number.isInteger(n) ? n : opt.default;
    };
  }
  return { opt, el: field(optionLabel(opt), input, opt.doc), value };
}

/**
 * What a form shows beside an option: the server's label ("Stand-in after (s)"), or, from a
 * server that predates labels, the wire name in words ("Standin after"), as the Python
 * clients do (clients/words.py, option_label).
 */
function optionLabel(opt) {
  if (typeof opt.label === "string" && opt.label.trim()) return opt.label;
  const s = opt.name.replace(/_/g, " ").trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The choice for one seat after the player's own: open, a computer player, a named person. */
function seatControl(spec, i) {
  const sel = h("select", {},
    h("option", { value: "" }, "Open seat"),
    (spec.bots || ["normal"]).map((b) => h("option", { value: `COMP:${b}` }, `Computer (${b})`)),
    h("option", { value: "=" }, "Reserved for…"));
  const name = h("input", { type: "text", maxlength: "24", hidden: true, "aria-label": `Name for seat ${i + 1}`, autocomplete: "off" });
  sel.addEventListener("change", () => { name.hidden = sel.value !== "="; if (!name.hidden) name.focus(); });
  const el = h("div", { class: "seat-row" }, field(`Seat ${i + 1}`, sel), name);
  return {
    el,
    value() {
      if (sel.value === "") return null;
      if (sel.value === "=") return name.value.trim() || null;
      const [, lvl] = sel.value.split(":");
      return `COMP${i}:${lvl}`;
    },
  };
}

/** A room's options that differ from the game's defaults, in words: "Opponents' racks hidden". */
function changedOptions(spec, options) {
  if (!spec || !options) return "";
  return spec.options.filter((o) => options[o.name] !== undefined && options[o.name] !== o.default)
    .map((o) => `${optionLabel(o)} ${optionValue(options[o.name])}`).join(", ");
}

/** An option's value in a summary: a switch "on"/"off", as the Python clients say it. */
function optionValue(value) {
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value);
}
