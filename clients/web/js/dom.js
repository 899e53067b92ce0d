// Small DOM helpers: build elements from data (never from HTML strings: every text the
// server or a player sent goes in as text), and the page's one status line.

/** An element: h("button", {class: "x", onclick: f, "aria-label": "..."}, "text", child). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "value") el.value = value;
    else if (key === "checked" || key === "disabled" || key === "hidden" || key === "selected") el[key] = !!value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Empty `el` and fill it with `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** A fresh id for label/aria wiring. */
export function newId(prefix = "id") {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A labelled field: [label, control], the control given an id the label points at. */
export function field(labelText, control, hint) {
  control.id = control.id || newId("f");
  const label = h("label", { for: control.id }, labelText);
  const parts = [label, control];
  if (hint) {
    const hintEl = h("small", { class: "hint", id: newId("hint") }, hint);
    control.setAttribute("aria-describedby", hintEl.id);
    parts.push(hintEl);
  }
  return h("div", { class: "field" }, parts);
}

/**
 * A modal dialog (the native <dialog>: it keeps focus inside, and Escape closes it).
 * Returns {el, body, close}. `onClose` runs once it is closed, however.
 */
export function modal(title, build, onClose) {
  const titleId = newId("dlg");
  const body = h("div", { class: "dialog-body" });
  const closeBtn = h("button", { type: "button", class: "close", "aria-label": "Close" }, "×");
  const el = h("dialog", { "aria-labelledby": titleId },
    h("div", { class: "dialog-head" }, h("h2", { id: titleId }, title), closeBtn), body);
  document.body.append(el);
  const close = () => { if (el.open) el.close(); };
  closeBtn.addEventListener("click", close);
  el.addEventListener("close", () => {
    el.remove();
    if (onClose) onClose();
  });
  build(body, close);
  el.showModal();
  return { el, body, close };
}

/** A time (server seconds) as the reader's local date and time. */
export function when(seconds) {
  if (!seconds) return "";
  return new Date(seconds * 1000).toLocaleString();
}
