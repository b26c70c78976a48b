// Drawing the screen: the one the state asks for (state.js currentScreen), built whole from the state. The
// table and the replay, redrawn by every frame and step, are morphed into the page (dom.js `morph`: only what
// changed is touched; a press, the focus, the lifted card, scroll positions stay as they are). The other
// screens are drawn anew (`mount`), with what the user was doing carried across (typed text, the focus, the
// scroll): their forms' handlers read the fields they were drawn with. And the countdowns, which tick without
// a redraw.

import { loggedOutNotice } from "./account.js";
import { h, morph, mount } from "./dom.js";
import { t } from "./i18n.js";
import { renderDialog, renderLobby, renderRoom } from "./lobby.js";
import { renderQueue } from "./match.js";
import { renderPage } from "./profile.js";
import { renderReplay } from "./replay.js";
import { currentScreen } from "./state.js";
import { renderTableScreen } from "./table_screen.js";
import { restyleDrag } from "./table.js";

// The screens morphed in place (their handlers read elements from the event, never from their closure).
const MORPHED = new Set(["table", "replay"]);

const SCREENS = { replay: renderReplay, page: renderPage, table: renderTableScreen, room: renderRoom, queue: renderQueue, lobby: renderLobby };

/** Draw the app's screen into `app.root` (nothing before start-up found it). */
export function render(app) {
  const state = app.state;
  const rootEl = app.root;
  if (!rootEl) return;
  const screen = currentScreen(state);
  const wrap = h("div", { class: `screen screen-${screen}`, "data-screen": screen }, SCREENS[screen](app));
  if (state.dialog && screen === "lobby") wrap.append(renderDialog(app, state.dialog));
  if (state.loggedOut) wrap.append(loggedOutNotice());
  if (screen !== "table" && state.conn !== "online" && state.conn !== "idle") {
    wrap.append(h("div", { class: `conn-float conn-${state.conn}`, "data-conn": state.conn }, h("i", {}), t(state.conn)));
  }
  const shown = rootEl.firstElementChild;
  if (MORPHED.has(screen) && shown && shown.dataset.screen === screen) morph(shown, wrap);
  else redraw(rootEl, wrap, state.screen === screen && screen !== "table");
  restyleDrag();
  document.body.dataset.screen = screen;
  // Ready: start-up finished and the game connection is up (what a test waits for before it clicks).
  document.body.toggleAttribute("data-ready", state.booted && state.conn === "online");
  if (state.screen !== screen) {
    state.screen = screen;
    if (screen === "lobby") app.refreshLobby();
  }
}

/** Put `wrap` in place of the screen shown, keeping what the user was doing: what was typed into the page's
 * fields (a username typed before the password), the focus of an input being typed into or of a hand card
 * (keyboard play), and the scroll position (`keepScroll`: the same screen). */
function redraw(rootEl, wrap, keepScroll) {
  const scrollY = window.scrollY;
  const typed = typedFields(rootEl);
  // The focus of an input being typed into (a lobby re-render while typing) …
  const active = document.activeElement;
  const activeName = active && active.name && rootEl.contains(active) ? active.name : null;
  const activeValue = activeName ? active.value : null;
  // … or of a hand card (keyboard play).
  const activeCard = active && active.matches && active.matches(".hand .card[data-key]") && rootEl.contains(active) ? active.dataset : null;
  mount(rootEl, wrap);
  restoreFields(rootEl, typed);
  if (activeCard) {
    const again = rootEl.querySelector(`.hand .card[data-key="${activeCard.key}"][data-card="${activeCard.card}"][tabindex]`);
    if (again) again.focus();
  }
  if (activeName) {
    const again = rootEl.querySelector(`[name="${activeName}"]`);
    if (again && again.tagName === "INPUT" && again.type !== "checkbox") {
      again.value = activeValue;
      again.focus();
    }
  }
  if (keepScroll) window.scrollTo(0, scrollY);
}

/** The page's named fields a person changed and has not sent yet (value ≠ the one it was drawn with). */
function typedFields(root) {
  const out = [];
  for (const el of root.querySelectorAll("input[name], textarea[name]")) {
    if (el.type === "checkbox" || el.type === "radio") {
      if (el.checked !== el.defaultChecked) out.push({ name: el.name, type: el.type, checked: el.checked, drawn: el.defaultChecked });
    } else if (el.type !== "hidden" && el.type !== "file" && el.value !== el.defaultValue) {
      out.push({ name: el.name, type: el.type, value: el.value, drawn: el.defaultValue });
    }
  }
  return out;
}

/** Put them back into the same fields of the new page — where the field was drawn as before (a field the
 * app drew with another value, say the nickname after a rename, shows the app's). */
function restoreFields(root, fields) {
  for (const f of fields) {
    const el = root.querySelector(`[name="${CSS.escape(f.name)}"]`);
    if (!el || el.type !== f.type) continue;
    if (f.checked !== undefined) {
      if (el.defaultChecked === f.drawn) el.checked = f.checked;
    } else if (el.defaultValue === f.drawn) {
      el.value = f.value;
    }
  }
}

/** Countdowns (`[data-deadline]`, on performance.now()'s clock) tick without redrawing the table. */
export function tickCountdowns() {
  const now = performance.now();
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - now) / 1000));
    if (el.textContent !== String(left)) el.textContent = String(left);
    el.classList.toggle("low", left <= 5);
  }
}
