// The account page (issue 13 §1, docs/protocol.md §2 "Accounts"): claim the guest account with a username and
// password, log in on this device (replacing the guest token), log out here or everywhere, the sessions with
// revoke, export my data (a JSON download), delete the account. Route: #/account (profile.js routes it).
//
// Changing who this device is (log in, log out, deletion) stores the new token (or none) and reloads the page:
// the socket, the lobby and every cache start again as that player (a device logged out plays as a new guest).

import { api, ApiError, setToken } from "./api.js";
import { h, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";

/** The page's data: {account, sessions, current} from GET /api/me/account. */
export async function loadAccount() {
  return api("GET", "/api/me/account");
}

/** Start again as whoever the stored token says (none: a new guest), on the lobby. */
function restart() {
  history.replaceState(null, "", location.pathname);
  location.reload();
}

/** A form's error line: the translated message of the server's code (or of a check made here). */
function errorLine() {
  return h("p", { class: "form-error", role: "alert", "data-testid": "form-error" });
}

function showError(line, err) {
  const code = err instanceof ApiError ? err.code : err && err.code ? err.code : "internal";
  line.textContent = errorText(code, err && err.message);
  line.dataset.code = code;
}

function input(name, type, attrs = {}) {
  return h("input", { name, type, autocomplete: attrs.autocomplete || "off", required: true, ...attrs });
}

function field(label, el, hint) {
  return h("label", { class: "field" }, h("span", {}, label), el, hint ? h("small", { class: "field-hint" }, hint) : null);
}

/** Run `fn` with the form's button disabled; errors go to the form's error line. */
async function submitting(form, line, fn) {
  const button = form.querySelector("button[type=submit]");
  line.textContent = "";
  delete line.dataset.code;
  if (button) button.disabled = true;
  try {
    await fn();
  } catch (err) {
    showError(line, err);
  } finally {
    if (button) button.disabled = false;
  }
}

function claimForm(app) {
  const line = errorLine();
  const user = input("username", "text", { maxlength: "32", autocomplete: "username", autocapitalize: "off", spellcheck: "false" });
  const pass = input("password", "password", { maxlength: "128", autocomplete: "new-password" });
  const again = input("password2", "password", { maxlength: "128", autocomplete: "new-password" });
  const form = h(
    "form",
    { class: "account-form", "data-form": "claim" },
    h("h3", {}, t("claimTitle")),
    h("p", { class: "muted" }, t("claimWhy")),
    field(t("username"), user, t("usernameRules")),
    field(t("password"), pass, t("passwordRules")),
    field(t("passwordAgain"), again),
    line,
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn primary", type: "submit", "data-action": "claim" }, t("claimButton"))),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitting(form, line, async () => {
      if (pass.value !== again.value) throw { code: "password_mismatch" };
      await api("POST", "/api/me/claim", { username: user.value, password: pass.value });
      toast(t("claimed"), "info");
      await app.reloadPage();
    });
  });
  return form;
}

function loginForm(app, guest) {
  const line = errorLine();
  const user = input("login-username", "text", { maxlength: "32", autocomplete: "username", autocapitalize: "off", spellcheck: "false" });
  const pass = input("login-password", "password", { maxlength: "128", autocomplete: "current-password" });
  const form = h(
    "form",
    { class: "account-form", "data-form": "login" },
    h("h3", {}, t("loginTitle")),
    guest ? h("p", { class: "muted warn-text" }, t("loginReplacesGuest")) : h("p", { class: "muted" }, t("loginOther")),
    field(t("username"), user),
    field(t("password"), pass),
    line,
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn primary", type: "submit", "data-action": "login" }, t("loginButton"))),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const S = app.state;
    const progress = S.player && (S.player.hands_played > 0 || S.player.points !== 0);
    if (guest && progress && !confirm(t("loginLoseGuest"))) return;
    submitting(form, line, async () => {
      const made = await api("POST", "/api/login", { username: user.value, password: pass.value });
      setToken(made.token);
      restart();
    });
  });
  return form;
}

/** "Chrome on Linux" … from a user agent: the browser and system words, else the first 40 characters. */
function deviceName(agent) {
  const text = String(agent || "");
  const browser = ["Edg", "Firefox", "Chrome", "Safari"].find((b) => text.includes(`${b}/`)) || "";
  const system = ["Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux"].find((s) => text.includes(s)) || "";
  const name = [browser === "Edg" ? "Edge" : browser, system].filter(Boolean).join(" · ");
  return name || text.slice(0, 40) || t("unknownDevice");
}

function sessionsBox(app, data) {
  const list = h("ul", { class: "sessions", "data-testid": "sessions" });
  for (const s of data.sessions || []) {
    const mine = s.id === data.current;
    list.append(
      h(
        "li",
        { "data-session": String(s.id), class: mine ? "current" : "" },
        h(
          "span",
          { class: "s-text" },
          h("b", {}, deviceName(s.user_agent)),
          h("small", {}, t(s.kind === "guest" ? "sessionGuest" : "sessionLogin"), " · ", (s.created_at || "").replace("T", " ").slice(0, 16)),
        ),
        mine
          ? h("span", { class: "badge" }, t("thisDevice"))
          : h("button", { class: "btn small", "data-action": "revoke", onclick: () => app.guard(async () => { await api("DELETE", `/api/me/sessions/${s.id}`); await app.reloadPage(); }) }, t("revoke")),
      ),
    );
  }
  return h(
    "section",
    { class: "card-box" },
    h("h3", {}, t("sessionsTitle")),
    list,
    h(
      "div",
      { class: "sheet-buttons" },
      h("button", { class: "btn", "data-action": "logout", onclick: () => app.guard(async () => { await api("POST", "/api/me/logout"); setToken(null); restart(); }) }, t("logout")),
      h(
        "button",
        {
          class: "btn danger",
          "data-action": "logout-everywhere",
          onclick: () => {
            if (!confirm(t("logoutEverywhereConfirm"))) return;
            app.guard(async () => {
              await api("POST", "/api/me/logout-everywhere");
              setToken(null);
              restart();
            });
          },
        },
        t("logoutEverywhere"),
      ),
    ),
  );
}

/** Download all that is kept about me (GET /api/me/export) as a JSON file. */
async function exportData(app) {
  const data = await api("GET", "/api/me/export");
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: `paohuzi-export-${data.player ? data.player.id : "me"}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  app.state.exported = true;
}

function deleteBox(claimed) {
  const line = errorLine();
  const pass = claimed ? input("delete-password", "password", { maxlength: "128", autocomplete: "current-password" }) : null;
  const sure = h("input", { name: "delete-sure", type: "checkbox", required: true });
  const form = h(
    "form",
    { class: "account-form danger-zone", "data-form": "delete" },
    h("h3", {}, t("deleteTitle")),
    h("p", { class: "muted" }, t("deleteWhat")),
    pass ? field(t("password"), pass) : null,
    h("label", { class: "check" }, sure, t("deleteSure")),
    line,
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn danger", type: "submit", "data-action": "delete-account" }, t("deleteButton"))),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!confirm(t("deleteConfirm"))) return;
    submitting(form, line, async () => {
      await api("DELETE", "/api/me", pass ? { password: pass.value } : {});
      setToken(null);
      restart();
    });
  });
  return form;
}

/** The account page. `data`: GET /api/me/account. */
export function renderAccount(app, data) {
  const account = (data && data.account) || {};
  const claimed = !!account.username;
  const out = [];
  out.push(
    h(
      "section",
      { class: "card-box account-head", "data-testid": "account-state", "data-claimed": claimed ? "yes" : "no" },
      claimed
        ? [h("span", {}, t("signedInAs")), " ", h("b", { "data-pname": "", "data-testid": "username" }, account.username)]
        : h("span", {}, t("guestState")),
    ),
  );
  if (!claimed) out.push(h("section", { class: "card-box" }, claimForm(app)));
  out.push(h("section", { class: "card-box" }, loginForm(app, !claimed)));
  if (claimed) out.push(sessionsBox(app, data));
  out.push(
    h(
      "section",
      { class: "card-box" },
      h("h3", {}, t("exportTitle")),
      h("p", { class: "muted" }, t("exportWhat")),
      h("div", { class: "sheet-buttons" }, h("button", { class: "btn", "data-action": "export", onclick: () => app.guard(() => exportData(app)) }, t("exportButton"))),
    ),
  );
  out.push(h("section", { class: "card-box" }, deleteBox(claimed)));
  return out;
}

/** The websocket was refused with 4001 (this session was revoked, or the account deleted elsewhere). */
export function loggedOutNotice() {
  return h(
    "div",
    { class: "modal", role: "dialog", "data-testid": "logged-out" },
    h(
      "div",
      { class: "sheet" },
      h("h3", {}, t("loggedOutTitle")),
      h("p", {}, t("loggedOutText")),
      h(
        "div",
        { class: "sheet-buttons" },
        h("button", { class: "btn primary", "data-action": "logged-out-ok", onclick: () => { setToken(null); restart(); } }, t("ok")),
      ),
    ),
  );
}
