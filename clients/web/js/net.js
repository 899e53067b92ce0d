// The connection: binary msgpack frames over one WebSocket, request ids and their replies,
// pacing by welcome.limits, a keepalive that notices a dead link, and reconnecting by itself
// with back-off (the app then resumes its seats with the player's token: PROTOCOL.md,
// "Resuming").

const { encode, decode } = globalThis.MessagePack;

/** The page's own server: ws:// or wss:// by the page's scheme, path "/". */
export function serverUrl(loc = globalThis.location) {
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/`;
}

/** An `error` frame the server sent, or a request that could not be answered. */
export class ServerError extends Error {
  constructor(code, message, frame = null) {
    super(message || code);
    this.name = "ServerError";
    this.code = code;
    this.frame = frame;
  }
}

let early = null;

let words = null;
/** A refusal in the clients' shared words (js/words.js, loaded at the first refusal: the
 * lobby's first paint needs none); the server's message if they cannot be loaded. */
export function worded(frame, game = null) {
  words = words || import("./words.js");
  return words.then((w) => w.errorText(frame, game), () => frame.message || frame.code);
}

/**
 * Open the page's socket now, before anyone has said who plays: the TCP and WebSocket
 * handshakes then overlap the name prompt (or a remembered name's click) instead of
 * following it. The server waits for `hello` as long as it takes; the first `Connection`
 * takes this socket, and one that closed meanwhile is simply replaced.
 */
export function preconnect(url = serverUrl()) {
  try {
    early = new WebSocket(url);
    early.binaryType = "arraybuffer";
  } catch {
    early = null; // a bad address: the connection will say so itself
  }
}

function takeEarly(url) {
  const ws = early;
  early = null;
  if (!ws || ws.readyState > WebSocket.OPEN || ws.url !== new URL(url).href) {
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    return null;
  }
  return ws;
}

const KEEPALIVE_MS = 15000; // a ping this often while nothing else is asked ...
const DEAD_MS = 10000; // ... and a link that answers nothing for this long is dead
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
/** Close codes that end a session for good (PROTOCOL.md, "Close codes"). */
export const SIGNED_OUT = 4001;
export const NAME_DISABLED = 4002;

/**
 * One player's link to the server, kept open: `open(hello)` connects and says hello;
 * after a drop it reconnects and says hello again with the token the first welcome gave,
 * then calls `onWelcome(welcome, resumed=true)` so the app can join its rooms again.
 *
 * Callbacks: onPush(frame) for frames without `re` (update, room, chat, reconnect, error
 * pushes), onStatus("online" | "offline" | "connecting" | "closed", detail), with "refused"
 * (a hello again after a drop was refused: detail the ServerError) and "ended" (closed with
 * 4001 or 4002: detail the code; no reconnect follows), onWelcome(welcome, resumed).
 */
export class Connection {
  constructor({ url = serverUrl(), onPush = () => {}, onStatus = () => {}, onWelcome = () => {} } = {}) {
    this.url = url;
    this.onPush = onPush;
    this.onStatus = onStatus;
    this.onWelcome = onWelcome;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, cost}
    this.hello = null;
    this.welcome = null;
    this.closed = false;
    this.attempt = 0;
    this.lastHeard = 0;
    this.timer = null;
    this.retryTimer = null;
    // pacing: a bucket of requests (welcome.limits)
    this.limits = { rate: 50, burst: 100, initial_burst: 20, rooms_per_request: 50 };
    this.tokens = 20;
    this.filled = performance.now();
    this.queue = [];
    this.pumpTimer = null;
  }

  /** Connect and say `hello` (fields without `t`/`id`); resolves with the welcome or rejects
   * with the ServerError `hello` gave (bad_name, name_taken, password_required, ...).
   * A `password` is sent with this first hello only: the welcome's token stands for it. */
  open(hello) {
    this.hello = { t: "hello", v: 1, compact: true, ...hello };
    this.closed = false;
    return this._connect(false);
  }

  _connect(resumed) {
    return new Promise((resolve, reject) => {
      this.onStatus("connecting");
      let ws = takeEarly(this.url);
      try {
        ws = ws || new WebSocket(this.url);
      } catch (err) {
        reject(new ServerError("offline", String(err)));
        return;
      }
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      let greeted = false;
      ws.onopen = () => {
        this.tokens = this.limits.initial_burst;
        this.filled = performance.now();
        this.lastHeard = performance.now();
        this._send(ws, { ...this.hello }, 1).then(
          (welcome) => {
            greeted = true;
            this.attempt = 0;
            this.welcome = welcome;
            if (welcome.limits) this.limits = { ...this.limits, ...welcome.limits };
            // Come back as the same player from now on, whatever name first said hello.
            this.hello = { t: "hello", v: 1, compact: true, token: welcome.token };
            this.onStatus("online");
            this._keepalive();
            resolve(welcome);
            this.onWelcome(welcome, resumed);
          },
          (err) => {
            reject(err);
            if (err.code === "unavailable" || err.code === "rate_limited") {
              ws.close(1000); // the server asks for patience: the back-off tries again
            } else if (err.code !== "offline") {
              this.closed = true; // a refused hello: the app asks the player again
              ws.close(1000);
              if (resumed) this.onStatus("refused", err);
            }
          },
        );
      };
      ws.onmessage = (ev) => { if (this.ws === ws) this._receive(ev.data); };
      ws.onclose = (ev) => ws.drop(ev.code);
      if (ws.readyState === WebSocket.OPEN) ws.onopen(); // the early socket, open already
      ws.drop = (code) => {
        if (this.ws !== ws) return;
        this.ws = null;
        clearTimeout(this.timer);
        for (const [, p] of this.pending) p.reject(new ServerError("offline", "the connection dropped"));
        this.pending.clear();
        if (!greeted) reject(new ServerError("offline", `cannot reach the server (${code})`));
        if (code === SIGNED_OUT || code === NAME_DISABLED) {
          // the token was taken back (signed out elsewhere) or the name barred: a reconnect
          // with it could only be refused, so none is tried; the app says why
          this.closed = true;
          this.onStatus("ended", code);
          return;
        }
        if (this.closed) {
          this.onStatus("closed");
          return;
        }
        this.onStatus("offline", code);
        this._retry();
      };
    });
  }

  _retry() {
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt++;
    const wait = base / 2 + Math.random() * base / 2;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.closed) return;
      this._connect(true).catch(() => {}); // onclose retries again
    }, wait);
  }

  /** Try again now (the player pressed "Reconnect", or the browser came back online). */
  retryNow() {
    if (this.closed || this.ws) return;
    this.attempt = 0;
    clearTimeout(this.retryTimer);
    this._connect(true).catch(() => {});
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close(1000);
  }

  get online() {
    return !!(this.ws && this.ws.readyState === WebSocket.OPEN && this.welcome);
  }

  /** Send a request and resolve with its reply; rejects with a ServerError for an `error`
   * reply (or "offline" when the connection drops first). */
  async request(msg) {
    // `unavailable` (the server's database is away) and `rate_limited` say when to try
    // again, and that nothing was done: a few tries before the player hears of it.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this._request(msg);
      } catch (err) {
        const wait = err.frame && err.frame.retry_after;
        if (attempt >= 3 || typeof wait !== "number" || !(err.code === "unavailable" || err.code === "rate_limited")) throw err;
        await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000));
      }
    }
  }

  _request(msg) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ServerError("offline", "not connected to the server"));
    }
    let cost = 1;
    if (msg.t === "rooms") cost = Math.ceil((msg.limit || 50) / (this.limits.rooms_per_request || 50));
    return this._send(ws, msg, cost);
  }

  _send(ws, msg, cost) {
    return new Promise((resolve, reject) => {
      const id = this.nextId;
      this.nextId = this.nextId >= 0x7fffffff ? 1 : this.nextId + 1;
      this.queue.push({ ws, frame: { ...msg, id }, id, cost, resolve, reject });
      this._pump();
    });
  }

  /** Send what the budget allows now; the rest when it has grown back. */
  _pump() {
    clearTimeout(this.pumpTimer);
    const now = performance.now();
    const { rate, burst } = this.limits;
    this.tokens = Math.min(burst, this.tokens + ((now - this.filled) / 1000) * rate);
    this.filled = now;
    while (this.queue.length) {
      const item = this.queue[0];
      if (item.ws !== this.ws || item.ws.readyState !== WebSocket.OPEN) {
        this.queue.shift();
        item.reject(new ServerError("offline", "the connection dropped"));
        continue;
      }
      if (this.tokens < 1) {
        this.pumpTimer = setTimeout(() => this._pump(), Math.ceil(((1 - this.tokens) / rate) * 1000));
        return;
      }
      this.queue.shift();
      this.tokens -= item.cost;
      this.pending.set(item.id, item);
      item.ws.send(encode(item.frame));
    }
  }

  _receive(data) {
    this.lastHeard = performance.now();
    let frame;
    try {
      frame = decode(new Uint8Array(data));
    } catch (err) {
      console.warn("an undecodable frame", err);
      return;
    }
    if (frame === null || typeof frame !== "object") return;
    const re = frame.re;
    if (re !== undefined && re !== null && this.pending.has(re)) {
      const p = this.pending.get(re);
      this.pending.delete(re);
      if (p.frame.t === "rooms" && frame.t === "rooms") {
        // a page shorter than its limit costs less: take back what it did not hold
        const used = Math.max(1, Math.ceil((frame.rooms || []).length / (this.limits.rooms_per_request || 50)));
        this.tokens += Math.max(0, p.cost - used);
      }
      // signed out: the server closes this connection next, and it must stay closed
      if (frame.t === "signed_out") this.closed = true;
      if (frame.t === "error") worded(frame).then((text) => p.reject(new ServerError(frame.code, text, frame)));
      else p.resolve(frame);
      if (frame.t === "update") this.onPush(frame, true); // our own act's update: everyone's news
      if (frame.t === "chat") this.onPush(frame, true);
      return;
    }
    if (frame.t === "reconnect" && frame.url) {
      // a cluster node stopping: its rooms moved to the node named; the drop that follows retries there
      try {
        const u = new URL(frame.url);
        if (u.protocol === "ws:" || u.protocol === "wss:") this.url = frame.url;
      } catch (_) { /* keep the address we have */ }
    }
    this.onPush(frame, false);
  }

  /** An application ping whenever the link has been quiet, so that a link that died
   * without a close (a cable pulled, a laptop asleep) is noticed and reconnected. */
  _keepalive() {
    clearTimeout(this.timer);
    const ws = this.ws;
    this.timer = setTimeout(() => {
      if (ws !== this.ws || !ws) return;
      if (performance.now() - this.lastHeard < KEEPALIVE_MS) {
        this._keepalive();
        return;
      }
      const dead = setTimeout(() => {
        if (ws !== this.ws) return;
        ws.drop(4000); // a close handshake may never finish on a dead link: go now
        ws.close(4000);
      }, DEAD_MS);
      this.request({ t: "ping" }).then(
        () => { clearTimeout(dead); this._keepalive(); },
        () => clearTimeout(dead),
      );
    }, KEEPALIVE_MS / 3);
  }
}
