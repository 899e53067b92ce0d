// A room: its board (through the board contract), seats and whose turn, the event log told
// in words, chat, leaving; the same for a spectator, read-only. Keeps the view in step:
// compact patches applied in order, a gap in seq or a patch that does not fit answered by
// joining again with the last seq (PROTOCOL.md, "Compact updates"), and the same after a
// reconnect ("Resuming").

import { h, fill } from "./dom.js";
import { worded } from "./net.js";
import { applyPatch, expandEvents, PatchError } from "./patch.js";
import { loadBoard, mountBoard } from "./boards.js";
import { generic, resultText } from "./narrate.js";
import { dailyOver } from "./daily.js";

/** Whether the page was opened at a loopback address: a room's link made from it opens on
 * this computer only, and a friend sent it gets nothing. */
function onLoopback() {
  const host = location.hostname;
  return host === "localhost" || /^127\./.test(host) || host === "[::1]" || host === "::1";
}

const LOCAL_ONLY = "this computer only: start the server with --host 0.0.0.0 to invite others";

const LOG_MAX = 300;
const CHAT_KEPT = 100; // a room's chat lines kept by the server (PROTOCOL.md, joined.chat)

export class RoomScreen {
  constructor(app, room, code) {
    this.app = app;
    this.room = room;
    this.code = code;
    this.seat = null;
    this.member = false; // joined or watching
    this.seq = 0;
    this.view = null;
    this.derived = {};
    this.summary = null;
    this.board = null;
    this.handle = null;
    this.syncing = false;
    this.destroyed = false;
    this.tick = null;
    this.clockSkew = 0; // server time - local time, from a view's `now`
    this.lastStatus = null;
    this.chatLines = []; // the room's chat as shown: [from, text], oldest first
  }

  show(main) {
    this.titleEl = h("h2", { id: "room-h" }, `Room ${this.room}`);
    this.infoEl = h("p", { class: "room-info" });
    this.choiceEl = h("div", { class: "seat-choice", hidden: true });
    this.bannerEl = h("p", { class: "banner", role: "status", hidden: true });
    this.countdownEl = h("p", { class: "countdown", role: "timer", "aria-live": "off", hidden: true });
    this.seatsEl = h("ul", { class: "seats", "aria-label": "Seats" });
    this.boardEl = h("div", { id: "board", class: "board" });
    this.logEl = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "What happens", tabindex: "0" });
    const chatInput = h("input", { type: "text", maxlength: "500", autocomplete: "off", "aria-label": "Message" });
    this.chatForm = h("form", { class: "chat" }, chatInput, h("button", { type: "submit" }, "Send"));
    this.chatForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = chatInput.value.trim();
      if (!text) return;
      this.app.conn.request({ t: "chat", room: this.room, text }).then(
        () => { chatInput.value = ""; },
        (err) => this.app.say(err.message, "error"),
      );
    });
    this.leaveBtn = h("button", { type: "button", onclick: () => this.leave() }, "Leave");
    this.replayBtn = h("button", { type: "button", hidden: true, onclick: () => this.app.go(`/#replay=${encodeURIComponent(this.room)}`) }, "Replay this game");
    this.linkBtn = h("button", { type: "button", onclick: () => this.copyLink() }, "Copy link");
    this.section = h("section", { class: "room", "aria-labelledby": "room-h" });
    fill(main, fill(this.section,
      h("div", { class: "room-head" }, this.titleEl,
        h("div", { class: "room-actions" }, this.linkBtn, this.replayBtn, this.leaveBtn)),
      this.infoEl, this.bannerEl, this.countdownEl, this.choiceEl,
      h("div", { class: "room-body" },
        this.boardEl,
        h("aside", { class: "side" },
          h("h3", {}, "Seats"), this.seatsEl,
          h("h3", {}, "Log"), this.logEl, this.chatForm))));
    // Whether the log is scrolled to its end, kept as the reader scrolls: a new line reads
    // no layout (a read after the board's writes would force a layout per event).
    this.logAtEnd = true;
    this.logEl.addEventListener("scroll", () => {
      this.logAtEnd = this.logEl.scrollHeight - this.logEl.scrollTop - this.logEl.clientHeight < 40;
    }, { passive: true });
    this.tick = setInterval(() => this.showCountdown(), 1000);
    this.enter();
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.tick);
    this.unmount();
    if (this.member && this.app.conn && this.app.conn.online) {
      this.app.conn.request({ t: "leave", room: this.room }).catch(() => {});
    }
  }

  unmount() {
    if (this.handle) {
      try { this.handle.destroy(); } catch (err) { console.warn(err); }
    }
    this.handle = null;
    this.boardEl && this.boardEl.replaceChildren();
  }

  where() {
    return this.code ? { code: this.code } : { room: this.room };
  }

  /** First arrival: my seat if I hold one; else watch, and offer the open seats. */
  async enter() {
    const held = (this.app.welcome.rooms || []).includes(this.room);
    const pending = this.app.pendingJoined;
    this.app.pendingJoined = null;
    try {
      if (pending && pending.room === this.room) { // the lobby joined already (create, match, code)
        await this.joined(pending);
        return;
      }
      if (held) {
        await this.joined(await this.app.conn.request({ t: "join", ...this.where() }));
        return;
      }
      const reply = await this.app.conn.request({ t: "watch", ...this.where() });
      await this.joined(reply);
      if (reply.seat === null && reply.view.status === "waiting") {
        // the summary, when it came meanwhile, knows which open seats are reserved for others
        const open = this.summary ? this.openSeats() : reply.view.waiting_for || [];
        if (open.length) this.offerSeats(open);
      }
    } catch (err) {
      this.failed(err);
    }
  }

  failed(err) {
    if (this.destroyed) return;
    const text = err.code === "unknown_room"
      ? `There is no room ${this.room} (or it is private and the link lacks its code).`
      : err.message;
    this.app.say(text, "error");
    this.log(text);
    fill(this.infoEl, text, " ", h("a", { href: "/", onclick: (ev) => { ev.preventDefault(); this.app.go("/"); } }, "Back to the lobby"));
  }

  /** The seats still open to me, from the room's summary (none once play started). */
  openSeats() {
    const s = this.summary;
    if (!s || s.status !== "waiting") return [];
    const me = this.app.player;
    return s.seats.map((seat, i) => (!seat.taken && !seat.bot && (seat.name === null || seat.name === me) ? i : -1))
      .filter((i) => i >= 0);
  }

  offerSeats(open, focus = true) {
    const had = this.choiceEl.contains(document.activeElement) ? document.activeElement.textContent : null;
    const buttons = open.map((seat) => h("button", {
      type: "button", class: "primary", onclick: () => this.takeSeat(seat),
    }, `Take seat ${seat + 1}`));
    fill(this.choiceEl, h("p", {}, "This game waits for players. Take a seat, or watch."), buttons,
      h("button", { type: "button", onclick: () => { this.choiceEl.hidden = true; this.log("You are watching."); } }, "Watch"));
    this.choiceEl.hidden = false;
    const again = buttons.find((b) => b.textContent === had);
    if (again) again.focus();
    else if (focus) buttons[0].focus();
  }

  async takeSeat(seat) {
    try {
      const reply = await this.app.conn.request({ t: "join", ...this.where(), seat });
      this.choiceEl.hidden = true;
      await this.joined(reply);
    } catch (err) {
      this.app.say(err.message, "error");
      if (err.code === "seat_taken" || err.code === "room_full") this.resync();
    }
  }

  /** A `joined` reply: the whole view at its seq, what I missed, how to read short events. */
  async joined(reply) {
    if (this.destroyed) return;
    const first = !this.member;
    const seatBefore = this.seat;
    this.member = true;
    this.room = reply.room;
    this.seat = reply.seat;
    this.derived = reply.derived || {};
    const game = reply.view.game;
    const wasSeat = this.mountedSeat;
    for (const m of reply.missed || []) {
      this.narrate(m.events || [], reply.view);
    }
    this.chatKept(reply.chat || []);
    this.seq = reply.seq;
    this.view = reply.view;
    this.noteClock(reply.view);
    if (!this.board) this.board = await loadBoard(game); // its describe() tells the events
    if (this.destroyed) return;
    await this.draw(game, wasSeat, []);
    if (first || seatBefore !== this.seat) this.log(this.seat === null ? "You are watching." : `You play seat ${this.seat + 1}.`);
    this.showInfo();
    this.showState([]);
  }

  /** The board for the view held: a waiting room's view has only the fields every game
   * shares (no board to draw), so the shell shows who is awaited until play starts. */
  async draw(game, wasSeat, events) {
    if (this.view.status === "waiting") {
      this.unmount();
      const open = (this.view.waiting_for || []).map((i) => i + 1);
      fill(this.boardEl, h("div", { class: "waiting card" },
        h("p", {}, "The game starts when every seat is taken."),
        open.length ? h("p", {}, `Open: ${open.length === 1 ? "seat" : "seats"} ${open.join(", ")}.`) : null,
        h("p", { class: "note" }, "Send the room's link to whoever you are waiting for (Copy link).",
          onLoopback() ? [" It opens on this computer only: start the server with ", h("code", {}, "--host 0.0.0.0"), " to invite others."] : null)));
      this.mountedGame = null;
      return;
    }
    if (!this.handle || wasSeat !== this.seat || this.mountedGame !== game) await this.mount(game, events);
    else this.safeUpdate(this.view, events);
  }

  async mount(game, events = []) {
    const board = await loadBoard(game);
    if (this.destroyed) return;
    this.unmount();
    const ctx = {
      game,
      room: this.room,
      seat: this.seat,
      readOnly: this.seat === null,
      act: (action) => this.act(action),
      say: (text) => this.app.say(text),
      prefs: { ...this.app.prefs },
    };
    const screen = this;
    Object.defineProperty(ctx, "options", {
      enumerable: true,
      get() { return (screen.summary && screen.summary.options) || {}; },
    });
    Object.defineProperty(ctx, "players", { // each seat's name, for the board's words
      enumerable: true,
      get() { return screen.names(); },
    });
    Object.defineProperty(ctx, "bots", {
      enumerable: true,
      get() {
        const seats = screen.summary && screen.summary.seats;
        return seats ? seats.flatMap((seat, i) => (seat && seat.bot ? [i] : [])) : null;
      },
    });
    this.ctx = ctx;
    const mounted = mountBoard(board, this.boardEl, ctx);
    this.board = mounted.board;
    this.handle = mounted.handle;
    this.mountedSeat = this.seat;
    this.mountedGame = game;
    this.safeUpdate(this.view, events);
  }

  prefsChanged() {
    if (this.view && this.handle) this.mount(this.view.game);
  }

  safeUpdate(view, events) {
    try {
      this.handle.update(view, events);
    } catch (err) {
      console.warn("the board failed to draw an update", err);
    }
  }

  act(action) {
    if (this.seat === null) return Promise.reject(new Error("spectators cannot act"));
    return this.app.conn.request({ t: "act", room: this.room, action }).catch(async (err) => {
      // the refusal's squares and tiles named as this game's board shows them
      const text = err.frame ? await worded(err.frame, this.view && this.view.game) : err.message;
      this.app.say(text, "error");
      throw { code: err.code, message: text };
    });
  }

  onPush(frame) {
    if (frame.room !== this.room) return;
    if (frame.t === "update") this.onUpdate(frame);
    else if (frame.t === "room") {
      const named = this.names().join("\n");
      this.summary = frame;
      // a board names its seats from the summary (ctx.players): a seat just taken is drawn
      // again with its player's name, not "seat N", without waiting for the next move
      if (this.handle && this.view && this.names().join("\n") !== named) this.safeUpdate(this.view, []);
      if (!this.choiceEl.hidden && this.seat === null) { // seats come and go while I choose
        const open = this.openSeats();
        if (open.length) this.offerSeats(open, false);
        else this.choiceEl.hidden = true;
      }
      this.showInfo();
    } else if (frame.t === "chat") this.said(frame.from, frame.text);
  }

  /** A line said in the room, in the log. */
  said(from, text) {
    this.chatLines.push([String(from), String(text)]);
    if (this.chatLines.length > CHAT_KEPT) this.chatLines.shift();
    this.log(`${from}: ${text}`, "chat");
  }

  /** `joined.chat`: the room's kept lines (at most 100, oldest first). On entering, every
   * one; after a rejoin (a reconnect), those not shown yet: the lines at its start that the
   * log already ends with are skipped. */
  chatKept(lines) {
    const kept = lines.map((l) => [String(l.from), String(l.text)]);
    const shown = this.chatLines;
    const same = (a, b) => a[0] === b[0] && a[1] === b[1];
    let skip = Math.min(kept.length, shown.length);
    while (skip > 0 && !kept.slice(0, skip).every((l, i) => same(l, shown[shown.length - skip + i]))) skip--;
    for (const [from, text] of kept.slice(skip)) this.said(from, text);
  }

  onError(frame) {
    if (frame.code === "room_closed") this.log(frame.message || "This room was closed.");
  }

  onUpdate(frame) {
    if (this.syncing || !this.view || frame.seq <= this.seq) return; // a resync brings it
    if (frame.seq !== this.seq + 1) {
      this.resync();
      return;
    }
    let view;
    let events;
    try {
      view = frame.view !== undefined ? frame.view : applyPatch(this.view, frame.patch || []);
      events = expandEvents(frame.events || [], view, this.derived);
    } catch (err) {
      if (!(err instanceof PatchError)) throw err;
      console.warn("out of step, asking for the whole view", err.message);
      this.resync();
      return;
    }
    this.seq = frame.seq;
    this.view = view;
    this.noteClock(view);
    if (this.handle && view.status !== "waiting") this.safeUpdate(view, events);
    else this.draw(view.game, this.mountedSeat, events); // play starts, or still waiting
    this.narrate(events, view);
    this.showState(events);
  }

  /** Ask for the whole view again from my last seq (a gap, a patch that does not fit, a
   * reconnect). The updates that arrive meanwhile are covered by the reply. */
  async resync() {
    if (this.syncing || this.destroyed) return;
    this.syncing = true;
    try {
      const msg = this.seat === null
        ? { t: "watch", ...this.where(), seq: this.seq }
        : { t: "join", ...this.where(), seq: this.seq };
      const reply = await this.app.conn.request(msg);
      this.syncing = false;
      await this.joined(reply);
    } catch (err) {
      this.syncing = false;
      if (err.code !== "offline") this.failed(err);
    }
  }

  /** After a reconnect: back in my seat (or watching) from my last seq. */
  resume() {
    if (this.member) this.resync();
    else this.enter();
  }

  names() {
    if (this.summary) return this.summary.seats.map((s) => s.name);
    return [];
  }

  narrate(events, view) {
    for (const event of events) {
      let text;
      if (this.board && typeof this.board.describe === "function") {
        try {
          text = this.board.describe(event, view, this.names());
        } catch (err) {
          console.warn("describe failed", err);
          text = undefined;
        }
      }
      if (text === null) continue; // the board says: not worth telling
      if (text === undefined || text === "") text = generic(event, this.names());
      this.log(text);
    }
  }

  log(text, kind = "event") {
    this.logEl.append(h("p", { class: `entry entry-${kind}` }, text));
    while (this.logEl.childElementCount > LOG_MAX) this.logEl.firstElementChild.remove();
    if (this.logAtEnd && !this.logScroll) { // once a frame, however many lines came
      this.logScroll = requestAnimationFrame(() => {
        this.logScroll = 0;
        this.logEl.scrollTop = this.logEl.scrollHeight;
      });
    }
  }

  noteClock(view) {
    if (view && typeof view.now === "number") this.clockSkew = view.now - Date.now() / 1000;
  }

  /** The room's header: game, status, seats, whose turn. */
  showInfo() {
    // where the page stands, for a person debugging (and a test's wait): its seq and seat
    this.section.dataset.seq = String(this.seq);
    this.section.dataset.seat = this.seat === null ? "" : String(this.seat);
    const s = this.summary;
    const v = this.view;
    const game = (s && s.game) || (v && v.game);
    const title = `${this.app.title(game)} — room ${this.room}`;
    if (this.titleEl.textContent !== title) this.titleEl.textContent = title;
    const turn = v && v.status === "playing" && this.seat !== null && v.to_move === this.seat;
    this.app.setTitle(`${turn ? "Your turn · " : ""}${this.app.title(game)} ${this.room}`);
    const status = v ? v.status : s && s.status;
    const bits = [];
    if (status === "waiting") bits.push("Waiting for players");
    else if (status === "playing") bits.push("Playing");
    else if (status === "over") bits.push("Game over");
    if (s && s.private) bits.push("private");
    if (s) bits.push(`${s.spectators} watching`);
    bits.push(this.seat === null ? "you are watching" : `you are seat ${this.seat + 1}`);
    const info = bits.join(" · ");
    if (this.infoEl.textContent !== info) this.infoEl.textContent = info;
    if (s && s.suspended) this.banner("The room is being restored; moves wait until it is back.");
    else if (s && status === "playing" && s.paused) {
      const why = { away: "its players are away", player: "a player paused it", unwatched: "nobody is watching" }[s.paused] || s.paused;
      this.banner(`The game stands still: ${why}.`);
    } else this.banner(null);
    this.showSeats();
    this.showCountdown();
    if (this.replayBtn.hidden !== (status !== "over")) this.replayBtn.hidden = status !== "over";
    if (this.chatForm.hidden) this.chatForm.hidden = false;
  }

  banner(text) {
    if (this.bannerEl.hidden !== !text) this.bannerEl.hidden = !text;
    if (this.bannerEl.textContent !== (text || "")) this.bannerEl.textContent = text || "";
  }

  /** The seats, each line built again only when its words change (a score, whose turn):
   * an update does not rebuild the list. */
  showSeats() {
    const v = this.view;
    const seats = this.summary ? this.summary.seats : (v && v.scores ? v.scores.map(() => null) : []);
    const kept = this.seatLines || (this.seatLines = []);
    seats.forEach((s, i) => {
      const name = s ? (s.name || "open seat") : `seat ${i + 1}`;
      const turn = v && v.status === "playing" && v.to_move === i;
      const bits = [];
      if (s && s.name && !s.taken && !s.bot) bits.push("reserved, not here yet");
      if (s && s.bot) bits.push("computer");
      if (s && s.taken && !s.bot && !s.connected) bits.push("away");
      if (i === this.seat) bits.push("you");
      const score = v && v.status !== "waiting" && v.scores && v.scores[i] !== undefined ? ` — ${v.scores[i]}` : "";
      const sig = JSON.stringify([name, turn, bits, score]);
      if (kept[i] && kept[i].sig === sig && kept[i].el.parentNode === this.seatsEl) return;
      const li = h("li", { class: turn ? "seat turn" : "seat", "aria-current": turn ? "true" : null },
        h("span", { class: "seat-n" }, `${i + 1}.`), " ",
        h("span", { class: "seat-name" }, name),
        bits.length ? h("span", { class: "seat-tags" }, ` (${bits.join(", ")})`) : null,
        score,
        turn ? h("span", { class: "turn-mark" }, " — to move") : null);
      if (kept[i] && kept[i].el.parentNode === this.seatsEl) kept[i].el.replaceWith(li);
      else this.seatsEl.append(li);
      kept[i] = { sig, el: li };
    });
    while (kept.length > seats.length) kept.pop().el.remove();
  }

  /** A quick-match room tells when COMP players take its open seats: count down to it. */
  showCountdown() {
    const s = this.summary;
    const waiting = this.view && this.view.status === "waiting";
    if (!s || !waiting || !s.bots_at) {
      this.countdownEl.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil(s.bots_at - (Date.now() / 1000 + this.clockSkew)));
    this.countdownEl.hidden = false;
    this.countdownEl.textContent = left > 0
      ? `Computer players take the open seats in ${left} s.`
      : "Computer players are taking the open seats…";
  }

  /** After each update: whose turn, and the end of the game. */
  showState(events) {
    const v = this.view;
    if (!v) return;
    const mine = this.app.welcome.rooms || (this.app.welcome.rooms = []);
    if (this.seat !== null && v.status !== "over" && !mine.includes(this.room)) mine.push(this.room);
    if (v.status === "over" && mine.includes(this.room)) mine.splice(mine.indexOf(this.room), 1);
    if (v.status !== this.lastStatus) {
      if (v.status === "over") {
        this.log(resultText(v, this.names()));
        dailyOver(this).catch(() => {}); // today's deal: the result to share
      }
      this.lastStatus = v.status;
    }
    this.showInfo();
    // "Your turn." when the turn comes to me in a game of several seats (in a solo game it
    // always is); taken back once it is someone else's turn, or the game is over.
    const myTurn = v.status === "playing" && this.seat !== null && v.to_move === this.seat;
    const several = Array.isArray(v.scores) && v.scores.length > 1;
    if (myTurn && several && !this.wasMyTurn) this.app.say("Your turn.");
    else if (!myTurn) this.app.unsay("Your turn.");
    this.wasMyTurn = myTurn; // as this seat: watching first, then seated, it is news
  }

  copyLink() {
    const url = location.origin + this.app.roomPath(this.room, this.code);
    const only = onLoopback() ? ` (${LOCAL_ONLY})` : "";
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(() => this.app.say(`The room's link is copied${only}.`), () => this.app.say(`${url}${only}`));
    } else {
      this.app.say(`The room's link: ${url}${only}`);
    }
  }

  async leave() {
    if (this.member) {
      try {
        await this.app.conn.request({ t: "leave", room: this.room });
      } catch (_) { /* gone or offline: leaving anyway */ }
      this.member = false;
    }
    this.app.go("/");
  }
}
