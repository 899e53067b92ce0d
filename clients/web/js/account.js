// Keeping a name (PROTOCOL.md, "Keeping a name"): the password a protected name is asked for
// at hello, the Account dialog that sets or changes it and signs out (here or everywhere),
// and what the page does when the server ends a session for good (close 4001 or 4002).
// The page never keeps a password: the token the welcome gives stands for it from then on.

import { h, fill, field, modal } from "./dom.js";
import * as names from "./names.js";
import { NAME_DISABLED } from "./net.js";

/** `seconds` as a person says a wait: "40 seconds", "3 minutes". */
export function waitText(seconds) {
  const s = Math.max(1, Math.ceil(Number(seconds) || 0));
  if (s < 90) return `${s} second${s === 1 ? "" : "s"}`;
  const m = Math.ceil(s / 60);
  return `${m} minutes`;
}

/**
 * Ask for `name`'s password in the page's main area (the server said `password_required`,
 * `bad_password` or `too_many_attempts` to a hello by name). `err` is that ServerError.
 * After `too_many_attempts` the button stays disabled for the wait the server gave, so no
 * burst of tries (which would each be refused, and count) can go out.
 */
export function askPassword(app, name, err) {
  app.leaveScreen();
  app.whoEl.replaceChildren();
  const input = h("input", {
    type: "password", name: "password", autocomplete: "current-password", required: true,
    maxlength: "1024",
  });
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const asked = !err || err.code === "password_required";
  let text = asked ? `${name} is kept with a password. Type it to play as ${name} on this device.` : err.message;
  const wait = err && err.code === "too_many_attempts" ? Number(err.frame && err.frame.retry_after) || 1 : 0;
  if (wait) text = `${err.message} Try again in ${waitText(wait)}.`;
  const said = h("p", { class: asked ? "note" : "error", role: asked ? "status" : "alert" }, text);
  const form = h("form", { class: "name-form" },
    // for password managers: whose password this is
    h("input", { type: "text", name: "username", autocomplete: "username", value: name, hidden: true }),
    field("Password", input),
    submit);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (submit.disabled || !input.value) return;
    submit.disabled = true;
    app.signIn(name, input.value);
  });
  if (wait) {
    submit.disabled = true;
    setTimeout(() => {
      if (!submit.isConnected) return;
      submit.disabled = false;
      app.say("You may try the password again now.");
    }, wait * 1000);
  }
  fill(app.main, h("section", { class: "card name-dialog", role: "dialog", "aria-labelledby": "password-h" },
    h("h2", { id: "password-h" }, `Sign in as ${name}`),
    said, form,
    h("p", {}, h("button", { type: "button", class: "link", onclick: () => app.askName() }, "Play under another name"))));
  input.focus();
}

/** The words for a hello refused for good: a barred name; null for any other refusal. */
export function refusal(name, err) {
  if (err.code === "name_disabled") return `The host has barred the name ${name}: ${err.message}`;
  return null;
}

/**
 * The server ended this session for good: closed with 4001 (signed out, on another device or
 * everywhere) or 4002 (the host barred the name), or refused the token at a hello again. A
 * signed-out name stays in this browser's list without its token; the player is asked who plays.
 */
export function sessionEnded(app, code) {
  const name = app.player;
  for (const open of document.querySelectorAll("dialog[open]")) open.close(); // its controls are dead
  // a barred name's token comes back to life if the host lifts the bar: it is kept
  if (name && code !== NAME_DISABLED) names.dropToken(name);
  const why = code === NAME_DISABLED
    ? `The host has barred the name ${name}.`
    : `${name} was signed out on another device. Sign in again with its password, or pick another name.`;
  app.endSession(why, "error");
}

/**
 * The Account dialog: set or change the name's password, sign out here or everywhere.
 * `opener` (the header's Account button) gets the focus back when the dialog closes.
 */
export function openAccount(app, opener) {
  const player = app.player;
  if (!player) return;
  modal(`Account: ${player}`, (body, close) => {
    const old = h("input", { type: "password", name: "old-password", autocomplete: "current-password", maxlength: "1024" });
    const pw = h("input", {
      type: "password", name: "new-password", autocomplete: "new-password",
      maxlength: "256", required: true,
    });
    const setBtn = h("button", { type: "submit", class: "primary" }, "Set password");
    const done = h("p", { class: "note", role: "status" });
    const failed = h("p", { class: "error", role: "alert" });
    const form = h("form", { class: "account-form", "aria-labelledby": "account-pw-h" },
      h("h3", { id: "account-pw-h" }, "Password"),
      h("p", { class: "note" }, `With a password, ${player} signs in on another device (or after signing out) with it.`),
      h("input", { type: "text", name: "username", autocomplete: "username", value: player, hidden: true }),
      field("Current password", old, "Only to change a password the name already has."),
      field("New password", pw, "10 to 256 characters."),
      setBtn, done, failed);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      fill(done, "");
      fill(failed, "");
      const msg = { t: "set_password", password: pw.value };
      if (old.value) msg.old_password = old.value;
      setBtn.disabled = true;
      try {
        if (!app.conn) throw new Error("not connected to the server");
        await app.conn.request(msg);
        old.value = "";
        pw.value = "";
        fill(done, `Password set. ${player} now signs in with it on any device.`);
      } catch (err) {
        const wait = err.frame && err.frame.retry_after;
        fill(failed, wait ? `${err.message} Try again in ${waitText(wait)}.` : err.message);
      } finally {
        setBtn.disabled = false;
      }
    });

    const outFailed = h("p", { class: "error", role: "alert" });
    const signOut = async (everywhere) => {
      fill(outFailed, "");
      try {
        if (!app.conn) throw new Error("not connected to the server");
        await app.conn.request({ t: "sign_out", everywhere });
      } catch (err) {
        fill(outFailed, err.message);
        return;
      }
      close();
      names.dropToken(player);
      app.endSession(everywhere
        ? `${player} is signed out on every device. Its password signs in again.`
        : `${player} is signed out here. Its password signs in again.`, "note");
    };
    const out = h("section", { class: "account-out", "aria-labelledby": "account-out-h" },
      h("h3", { id: "account-out-h" }, "Sign out"),
      h("p", { class: "note" }, "This browser forgets the name's key; the name stays in its list."),
      h("div", { class: "account-buttons" },
        h("button", { type: "button", onclick: () => signOut(false) }, "Sign out here"),
        h("button", { type: "button", onclick: () => signOut(true) }, "Sign out everywhere")),
      outFailed);
    body.append(form, out);
  }, () => { if (opener && opener.isConnected) opener.focus(); });
}
