// Compact updates (protocol/PROTOCOL.md, "Compact updates"): apply a patch to the view of
// seq - 1, and rebuild the events an update sent by name. The same rules as the server's
// protocol/patch.py, so that a client of patches holds exactly the view a client of whole
// views is sent. Pure functions: no DOM, no network; importable on its own (the tests do).

/** A patch or a short event that does not fit the view: the client is out of step and asks
 * for the whole view again (join/watch with its last seq). */
export class PatchError extends Error {
  constructor(message) {
    super(message);
    this.name = "PatchError";
  }
}

const isMap = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

/** A deep copy of what msgpack decodes to: maps, lists and atoms. A patch's values go into
 * the view, which later patches change in place, so they must not be the patch's own. */
export function copy(x) {
  if (Array.isArray(x)) return x.map(copy);
  if (isMap(x)) {
    const out = {};
    for (const k of Object.keys(x)) out[k] = copy(x[k]);
    return out;
  }
  return x;
}

/** Compare two strings by code point (the order of their UTF-8 bytes), as the server sorts;
 * JavaScript's own `<` compares UTF-16 units, which differs past U+FFFF. */
function byCodePoint(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(i);
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** A map's keys in the order the protocol numbers them. */
function order(map) {
  return Object.keys(map).sort(byCodePoint);
}

/** The key of `map` that `key` names: an integer is a place among its sorted keys (the
 * keys of a decoded map are always strings), a string is the key itself. */
function keyOf(map, key, keys) {
  if (typeof key !== "number") return key;
  const sorted = keys || order(map);
  if (!Number.isInteger(key) || key < 0 || key >= sorted.length) {
    throw new PatchError(`no key at place ${key} of a map of ${sorted.length}`);
  }
  return sorted[key];
}

function step(parent, key) {
  if (Array.isArray(parent)) {
    if (!Number.isInteger(key) || key < 0 || key >= parent.length) {
      throw new PatchError(`no item ${JSON.stringify(key)} in a list of ${parent.length}`);
    }
    return parent[key];
  }
  if (isMap(parent)) {
    const k = keyOf(parent, key);
    if (!Object.prototype.hasOwnProperty.call(parent, k)) {
      throw new PatchError(`no key ${JSON.stringify(k)}`);
    }
    return parent[k];
  }
  throw new PatchError(`a path goes through ${JSON.stringify(parent)}`);
}

function walk(view, path) {
  let at = view;
  for (const key of path) at = step(at, key);
  return at;
}

function list(x, what) {
  if (!Array.isArray(x)) throw new PatchError(`${what} needs a list`);
  return x;
}

function applyOne(view, op) {
  if (!Array.isArray(op) || op.length === 0) throw new PatchError("an operation is a list");
  if (Array.isArray(op[0])) {
    const path = op[0];
    if (op.length === 2) {
      if (path.length === 0) return copy(op[1]);
      const parent = walk(view, path.slice(0, -1));
      const last = path[path.length - 1];
      if (Array.isArray(parent)) {
        if (!Number.isInteger(last) || last < 0 || last >= parent.length) {
          throw new PatchError(`cannot set item ${last} of a list of ${parent.length}`);
        }
        parent[last] = copy(op[1]);
      } else if (isMap(parent)) {
        parent[keyOf(parent, last)] = copy(op[1]);
      } else {
        throw new PatchError("a set needs a map or a list");
      }
      return view;
    }
    if (op.length === 1) {
      if (path.length === 0) throw new PatchError("the whole view cannot be removed");
      const parent = walk(view, path.slice(0, -1));
      if (!isMap(parent)) throw new PatchError("only a map key can be removed");
      const k = keyOf(parent, path[path.length - 1]);
      if (!Object.prototype.hasOwnProperty.call(parent, k)) {
        throw new PatchError(`no key ${JSON.stringify(k)} to remove`);
      }
      delete parent[k];
      return view;
    }
    throw new PatchError("a set is [path, value], a removal [path]");
  }
  const [kind, path] = op;
  const target = walk(view, list(path, "a path"));
  switch (kind) {
    case "=": {
      if (!isMap(target) || op.length !== 3) throw new PatchError("'=' sets keys of a map");
      const fields = op[2];
      if (Array.isArray(fields)) {
        if (fields.length % 2) throw new PatchError("'=' takes a key and a value, and so on");
        const keys = order(target); // places are read before any key is set
        const sets = [];
        for (let i = 0; i < fields.length; i += 2) {
          sets.push([keyOf(target, fields[i], keys), fields[i + 1]]);
        }
        for (const [k, v] of sets) target[k] = copy(v);
      } else if (isMap(fields)) {
        for (const k of Object.keys(fields)) target[k] = copy(fields[k]);
      } else {
        throw new PatchError("'=' sets keys of a map, from a map or a list");
      }
      return view;
    }
    case "+":
      list(target, "'+'").push(...copy(list(op[2], "'+'")));
      return view;
    case "<": {
      const n = op[2];
      if (!Array.isArray(target) || !Number.isInteger(n) || n < 0 || n > target.length) {
        throw new PatchError(`cannot cut a list to ${n}`);
      }
      target.length = n;
      return view;
    }
    case "~": {
      const [, , start, count, items] = op;
      list(target, "'~'");
      list(items, "'~'");
      if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 ||
          start + count > target.length) {
        throw new PatchError(`cannot replace ${count} items from ${start} of ${target.length}`);
      }
      target.splice(start, count, ...copy(items));
      return view;
    }
    default:
      throw new PatchError(`unknown operation ${JSON.stringify(kind)}`);
  }
}

/** `view` with `patch` applied, as a new view (`inPlace`: changing `view` itself).
 * Throws PatchError when the patch does not fit. */
export function applyPatch(view, patch, inPlace = false) {
  let out = inPlace ? view : copy(view);
  for (const op of list(patch, "a patch")) {
    try {
      out = applyOne(out, op);
    } catch (err) {
      if (err instanceof PatchError) throw new PatchError(`cannot apply ${JSON.stringify(op)}: ${err.message}`);
      throw new PatchError(`cannot apply ${JSON.stringify(op)}: ${err}`);
    }
  }
  return out;
}

/** The events of a compact update in full: a name, or [name, value, ...], rebuilt by its
 * template (`derived` of `joined`) from those values and `view`, the view after the update. */
export function expandEvents(events, view, templates) {
  const out = [];
  for (const event of events || []) {
    let name;
    let given;
    if (typeof event === "string") {
      name = event;
      given = [];
    } else if (Array.isArray(event) && event.length && typeof event[0] === "string") {
      name = event[0];
      given = event.slice(1);
    } else {
      out.push(event);
      continue;
    }
    const template = templates && Object.prototype.hasOwnProperty.call(templates, name)
      ? templates[name] : null;
    if (!template) throw new PatchError(`event ${JSON.stringify(name)} sent short, and no template for it`);
    const full = { e: name };
    let i = 0;
    for (const field of Object.keys(template)) {
      const path = template[field];
      if (path === null || path === undefined) {
        if (i >= given.length) throw new PatchError(`fewer values than ${name} takes`);
        full[field] = copy(given[i++]);
        continue;
      }
      let value = view;
      for (const key of path) {
        if (value === null || typeof value !== "object" || !(key in value)) {
          throw new PatchError(`the view cannot fill event ${name}`);
        }
        value = value[key];
      }
      full[field] = copy(value);
    }
    if (i !== given.length) throw new PatchError(`more values than ${name} takes`);
    out.push(full);
  }
  return out;
}
