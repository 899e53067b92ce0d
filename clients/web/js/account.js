// Keeping a name (PROTOCOL.md, "Keeping a name"): the password a protected name is asked for
// at hello, the Account dialog that sets or changes it and signs out (here or everywhere),
// and what the page does when the server ends a session for good (close 4001 or 4002).
// The page never keeps a password: the token the welcome gives stands for it from then on.

import { h, fill, field, modal } from "./dom.js";
import * as names from "./names.js";
import { Connection, NAME_DISABLED } from "./net.js";

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
    ? `The host has barred the name ${name}. This browser keeps its key: once the host lifts the bar, ${name} plays on here.`
    : `${name} was signed out on another device or by the host. Sign in again with its password, or pick another name.`;
  app.endSession(why, "error");
}

/**
 * What happens if `name` is signed out (or forgotten) here or everywhere, and what is lost.
 * A name with no password cannot be signed out (the server refuses `no_password`): nobody,
 * its owner included, could sign in as it again.
 */
export function signOutWords(name, hasPassword, everywhere) {
  if (!hasPassword) {
    return `${name} has no password. Signed out, nobody could play as ${name} again, you neither: ` +
      "its games, ratings and seats would be lost. Set a password first; then its password signs in again, here or on any device.";
  }
  if (everywhere) {
    return `Sign ${name} out everywhere? Every device's key for ${name} stops working and its other windows close. ${name}'s password signs in again.`;
  }
  return `Sign ${name} out of this browser? Its key here is forgotten; ${name}'s other devices stay signed in, and its password signs in again.`;
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
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      setPassword();
    });

    const out = signOutSection(app, player, close, () => pw.focus());
    const setPassword = async () => {
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
        app.welcome.password = true;
        out.refresh();
        fill(done, `Password set. ${player} now signs in with it on any device.`);
      } catch (err) {
        const wait = err.frame && err.frame.retry_after;
        fill(failed, wait ? `${err.message} Try again in ${waitText(wait)}.` : err.message);
      } finally {
        setBtn.disabled = false;
      }
    };
    body.append(form, out.el);
  }, () => { if (opener && opener.isConnected) opener.focus(); });
}

/**
 * The Account dialog's "Sign out" part: each button asks first, saying what happens. A name
 * with no password is offered a password instead (`askPassword` focuses its field): signed
 * out, it would be lost. `refresh()` redraws it once a password is set.
 */
function signOutSection(app, player, closeDialog, askPassword) {
  const question = h("div", { class: "account-confirm" });
  const outFailed = h("p", { class: "error", role: "alert" });
  const note = h("p", { class: "note" });
  const el = h("section", { class: "account-out", "aria-labelledby": "account-out-h" },
    h("h3", { id: "account-out-h" }, "Sign out"), note,
    h("div", { class: "account-buttons" },
      h("button", { type: "button", onclick: () => ask(false) }, "Sign out here"),
      h("button", { type: "button", onclick: () => ask(true) }, "Sign out everywhere")),
    question, outFailed);
  const hasPassword = () => !!(app.welcome && app.welcome.password);
  const refresh = () => {
    fill(question);
    fill(note, hasPassword()
      ? "This browser forgets the name's key; the name stays in its list, and its password signs in again."
      : `${player} has no password yet: set one above before signing out, or ${player} would be lost.`);
  };
  const signOut = async (everywhere) => {
    fill(outFailed, "");
    try {
      if (!app.conn) throw new Error("not connected to the server");
      await app.conn.request({ t: "sign_out", everywhere });
    } catch (err) {
      fill(outFailed, err.message);
      return;
    }
    closeDialog();
    names.dropToken(player);
    app.endSession(everywhere
      ? `${player} is signed out on every device. Its password signs in again.`
      : `${player} is signed out here. Its password signs in again.`, "note");
  };
  const ask = (everywhere) => {
    fill(outFailed, "");
    const yes = hasPassword()
      ? h("button", { type: "button", class: "danger", onclick: () => signOut(everywhere) },
        everywhere ? "Yes, sign out everywhere" : "Yes, sign out here")
      : h("button", { type: "button", class: "primary", onclick: () => { refresh(); askPassword(); } },
        "Set a password first");
    fill(question,
      h("p", { role: "alert" }, signOutWords(player, hasPassword(), everywhere)),
      h("div", { class: "account-buttons" }, yes,
        h("button", { type: "button", onclick: refresh }, hasPassword() ? "Stay signed in" : "Not now")));
    yes.focus();
  };
  refresh();
  return { el, refresh };
}

/**
 * "Forget" beside a remembered name: ask first, saying what happens. With its key, the page
 * asks the server (a hello with the key) whether the name has a password: with one, forgetting
 * signs it out here (the key stops working) and its password signs in again; without one,
 * the name would be lost, so only a password is offered (the server would refuse the sign-out
 * `no_password` anyway). `done(message)` shows the names again, saying what was done.
 */
export function forgetName(app, entry, done) {
  const name = entry.name;
  let asking = null; // the connection that asked the server: closed with the dialog
  modal(`Forget ${name}?`, (body, close) => {
    const said = h("p", { role: "status" }, entry.token ? `Asking the server about ${name}…` : "");
    const buttons = h("div", { class: "account-buttons" });
    body.append(said, buttons);
    const keep = h("button", { type: "button", onclick: close }, `Keep ${name}`);
    const forgetHere = (text) => { names.forget(name); close(); done(text); };
    if (!entry.token) {
      fill(said, `This browser forgets ${name}. It was signed out here already: nothing else changes, and its password (if it has one) still signs in.`);
      fill(buttons, h("button", { type: "button", class: "danger", onclick: () => forgetHere(`This browser forgot ${name}.`) }, `Forget ${name}`), keep);
      keep.focus();
      return;
    }
    fill(buttons, keep);
    keep.focus();
    askServer(entry).then(({ conn, welcome, err }) => {
      asking = conn;
      if (!body.isConnected) { if (conn) conn.close(); return; }
      if (err && err.code === "bad_token") {
        fill(said, `${name}'s key no longer works (it was signed out, or the server's data was reset): forgetting it loses nothing.`);
        fill(buttons, h("button", { type: "button", class: "danger", onclick: () => forgetHere(`This browser forgot ${name}.`) }, `Forget ${name}`), keep);
      } else if (err && err.code === "name_disabled") {
        fill(said, `The host has barred ${name}. This browser keeps its key so that ${name} plays on here once the bar is lifted; forgotten, ${name} is lost to this browser unless it has a password.`);
        fill(buttons, keep, h("button", { type: "button", class: "danger", onclick: () => forgetHere(`This browser forgot ${name}.`) }, "Forget anyway"));
      } else if (err) {
        fill(said, `Cannot ask the server now (${err.message}); nothing was forgotten.`);
      } else if (!welcome.password) {
        conn.close();
        fill(said, signOutWords(name, false, false));
        fill(buttons, h("button", { type: "button", class: "primary", onclick: async () => {
          close();
          await app.signIn(name);
          if (app.player) openAccount(app, null);
        } }, `Play as ${name} and set a password`), keep);
      } else {
        fill(said, `Forget ${name} here? This browser signs ${name} out (its key here stops working) and drops it from its list. ${name}'s password signs in again, here or anywhere.`);
        fill(buttons, h("button", { type: "button", class: "danger", onclick: async () => {
          try {
            await conn.request({ t: "sign_out" });
          } catch (failed) {
            fill(said, `${failed.message} Nothing was forgotten.`);
            return;
          }
          forgetHere(`This browser forgot ${name}: it is signed out here, and its password signs in again.`);
        } }, `Forget ${name}`), keep);
      }
      const first = buttons.querySelector("button");
      if (first) first.focus();
    });
  }, () => { if (asking) asking.close(); });
}

/** A connection with `entry`'s key, to learn whether its name has a password. */
async function askServer(entry) {
  const conn = new Connection({});
  try {
    const welcome = await conn.open({ token: entry.token });
    return { conn, welcome, err: null };
  } catch (err) {
    conn.close();
    return { conn: null, welcome: null, err };
  }
}
