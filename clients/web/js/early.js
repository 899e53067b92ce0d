// The page's WebSocket, opened by the first script the page runs. This module imports
// nothing and the page loads it `async`, so it runs as soon as it arrives, while the rest of
// the page's modules are still being fetched and read: the TCP and WebSocket handshakes then
// overlap all of that and the name prompt, instead of following them. net.js hands the socket
// to the first Connection (the same module instance: a module runs once per page).

/** The page's own server: ws:// or wss:// by the page's scheme, path "/". */
export function serverUrl(loc = globalThis.location) {
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/`;
}

let early = null;

/** Open the page's socket now (again, if the one opened before is gone). The server waits
 * for `hello` as long as it takes. */
export function preconnect(url = serverUrl()) {
  if (early && early.readyState <= WebSocket.OPEN && early.url === new URL(url).href) return;
  try {
    early = new WebSocket(url);
    early.binaryType = "arraybuffer";
  } catch {
    early = null; // a bad address: the connection will say so itself
  }
}

/** The socket opened early, for the first Connection to `url`; null if there is none (or it
 * closed meanwhile, or is for another address: then it is closed and a new one is made). */
export function takeEarly(url) {
  const ws = early;
  early = null;
  if (!ws || ws.readyState > WebSocket.OPEN || ws.url !== new URL(url).href) {
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    return null;
  }
  return ws;
}

preconnect();
