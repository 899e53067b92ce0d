// The names this browser played under on this server, each with its token (the player's
// password: PROTOCOL.md, "A session"). localStorage is the server's own (one origin), so
// the list is this server's. A list, not one name: a family shares a browser.

const KEY = "tilehall.names";

function read() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(list) ? list.filter((x) => x && typeof x.name === "string") : [];
  } catch (_) {
    return [];
  }
}

function write(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
  } catch (_) {
    /* storage full or refused (a private window): the name just is not remembered */
  }
}

/** Every remembered name, the last used first: [{name, token, used}]. */
export function remembered() {
  return read().sort((a, b) => (b.used || 0) - (a.used || 0));
}

/** The entry for `name` as typed (names compare as the server's do only roughly here:
 * case-insensitively after NFKC; the server has the last word). */
export function find(name) {
  const key = fold(name);
  return read().find((x) => fold(x.name) === key) || null;
}

function fold(name) {
  return String(name).normalize("NFKC").trim().toLowerCase();
}

/** Remember `name` (as the server spells it) with its token, as the last used. */
export function remember(name, token) {
  const list = read().filter((x) => fold(x.name) !== fold(name) && x.token !== token);
  list.push({ name, token, used: Date.now() });
  write(list);
}

/** Forget a name (its token no longer works, or the player asked). */
export function forget(name) {
  write(read().filter((x) => fold(x.name) !== fold(name)));
}

/** Keep `name` in the list but drop its token: the server took it back (signed out here or
 * everywhere, or the host barred the name). Picking the name again asks for its password. */
export function dropToken(name) {
  write(read().map((x) => (fold(x.name) === fold(name) ? { name: x.name, used: x.used } : x)));
}
