// A tiny DOM helper: h("div", {class: "x", onclick: f}, child, "text", [more]); and the morph that redraws a
// screen in place (`morph`): the new tree is built whole from the state, then the page's tree is patched to
// match it, so what did not change stays the same element (no restyle, relayout or repaint of it; a press,
// the focus, a typed value, an open <details> or a scroll position on it are kept).

// Event handlers live in a table per element (type → functions), which one listener per type (`dispatch`)
// reads when the event comes: when the morph keeps an element, it takes the new element's table, so a kept
// button calls the handler of the latest drawing. A handler reads elements from its event
// (`ev.currentTarget`, a form's `elements`), never from the closure: the element it was drawn with may be
// the one thrown away.
const handlers = new WeakMap(); // element → {type: [fn]}

function dispatch(ev) {
  const table = handlers.get(ev.currentTarget);
  const fns = table && table[ev.type];
  if (fns) for (const fn of fns) fn.call(ev.currentTarget, ev);
}

/** Listen to `type` events on `el` (h()'s `onclick: f` is `on(el, "click", f)`). */
export function on(el, type, fn) {
  let table = handlers.get(el);
  if (!table) handlers.set(el, (table = {}));
  (table[type] || (table[type] = [])).push(fn);
  el.addEventListener(type, dispatch);
  return el;
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      on(el, key.slice(2), value);
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) {
        if (v === undefined || v === null) continue;
        if (prop.startsWith("--")) el.style.setProperty(prop, v);
        else el.style[prop] = v;
      }
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
}

/** Replace the children of `el` (a screen drawn anew: see `keepClicksAcrossRedraws`). */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  remember(el);
  return el;
}

// ---- the morph ---------------------------------------------------------------------------------------

// What a field (input, select, textarea) or a <details> was last drawn with: the value, `checked` or `open`
// the app asked for. A redraw that asks for the same leaves the person's own (typed, ticked, opened); one
// that asks for another puts the app's (a preset chosen elsewhere, a slider moved by a button).
const drawn = new WeakMap();
const FIELDS = "input, select, textarea, details";

function fieldValue(el) {
  switch (el.nodeName) {
    case "INPUT":
      return el.type === "checkbox" || el.type === "radio" ? el.checked : el.value;
    case "SELECT":
    case "TEXTAREA":
      return el.value;
    case "DETAILS":
      return el.open;
    default:
      return undefined;
  }
}

function setFieldValue(el, value) {
  if (el.nodeName === "DETAILS") el.open = value;
  else if (el.type === "checkbox" || el.type === "radio") el.checked = value;
  else if (el.type !== "file") el.value = value;
}

function remember(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  if (node.matches(FIELDS)) drawn.set(node, fieldValue(node));
  for (const el of node.querySelectorAll(FIELDS)) drawn.set(el, fieldValue(el));
}

// The key that tells siblings apart where a list may change: `data-key`, an id, a field's name.
function keyOf(el) {
  return el.getAttribute("data-key") || el.id || el.getAttribute("name") || "";
}

// What a `fresh` element shows (a card just played, a group just made): a new one is put in, not patched, so
// its entrance animation plays — once, not again on the next redraw of the same thing.
function freshSignature(el) {
  return `${el.getAttribute("data-card")}|${el.getAttribute("data-from")}|${el.getAttribute("data-kind")}|${el.textContent}`;
}

/** Whether the page's node `old` can be patched into the drawn node `neu` (else it is replaced). */
function same(old, neu) {
  if (old.nodeType !== neu.nodeType) return false;
  if (old.nodeType !== Node.ELEMENT_NODE) return true;
  if (old.nodeName !== neu.nodeName || old.namespaceURI !== neu.namespaceURI || keyOf(old) !== keyOf(neu)) return false;
  if (old.nodeName === "INPUT" && old.type !== neu.type) return false;
  // A button or link that now means something else is another control: a press begun on it is not finished
  // by the new one (as when a redraw replaces it: `keepClicksAcrossRedraws`).
  if ((old.nodeName === "BUTTON" || old.nodeName === "A") && signature(old) !== signature(neu)) return false;
  if (neu.classList.contains("fresh")) return old.classList.contains("fresh") && freshSignature(old) === freshSignature(neu);
  return true;
}

function syncAttributes(old, neu) {
  const keepOpen = old.nodeName === "DETAILS"; // the person's, unless drawn otherwise (`drawn`)
  for (const a of neu.attributes) {
    if (keepOpen && a.name === "open") continue;
    if (old.getAttribute(a.name) === a.value) continue;
    if (a.name === "style") old.style.cssText = a.value; // the page's CSP allows styles set through the CSSOM only
    else old.setAttribute(a.name, a.value);
  }
  for (let i = old.attributes.length - 1; i >= 0; i--) {
    const name = old.attributes[i].name;
    if (!(keepOpen && name === "open") && !neu.hasAttribute(name)) old.removeAttribute(name);
  }
}

function patch(old, neu) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.data !== neu.data) old.data = neu.data;
    return;
  }
  syncAttributes(old, neu);
  const table = handlers.get(neu);
  if (table) {
    handlers.set(old, table);
    for (const type of Object.keys(table)) old.addEventListener(type, dispatch); // once per type and element
  } else {
    handlers.delete(old);
  }
  patchChildren(old, neu);
  const want = fieldValue(neu); // after the children: a <select>'s options first
  if (want !== undefined && drawn.get(old) !== want) {
    setFieldValue(old, want);
    drawn.set(old, want);
  }
}

// The drawn children in order: each takes the first page node from here on that it can be patched into (those
// skipped over are gone), else it is put in.
function patchChildren(parent, neu) {
  let cur = parent.firstChild;
  for (let n = neu.firstChild; n; ) {
    const next = n.nextSibling;
    let match = cur;
    while (match && !same(match, n)) match = match.nextSibling;
    if (match) {
      while (cur !== match) {
        const gone = cur;
        cur = cur.nextSibling;
        gone.remove();
      }
      patch(match, n);
      cur = match.nextSibling;
    } else {
      remember(n);
      parent.insertBefore(n, cur);
    }
    n = next;
  }
  while (cur) {
    const gone = cur;
    cur = cur.nextSibling;
    gone.remove();
  }
}

/** Make the page's element `old` look like the drawn `neu` (built by h(), not in the page), changing only
 * what differs; answers the element now in the page (`old`, or `neu` where they cannot be matched). */
export function morph(old, neu) {
  if (!same(old, neu)) {
    remember(neu);
    old.replaceWith(neu);
    return neu;
  }
  patch(old, neu);
  return old;
}

/** A short-lived toast message at the top of the screen. */
export function toast(text, kind = "info", ms = 2600) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", role: "status" });
    document.body.append(box);
  }
  const item = h("div", { class: `toast toast-${kind}` }, text);
  box.append(item);
  setTimeout(() => item.classList.add("out"), ms);
  setTimeout(() => item.remove(), ms + 400);
}

// A screen drawn anew (`mount`) replaces the page's elements, and so does the morph where a button changed
// beyond patching; a frame can arrive between the press and the release of a click: the browser then sends no `click` to the button, because pointerdown and pointerup hit two
// different elements — a tap that silently does nothing. The press is remembered here instead, and when it
// ends over the button that replaced the pressed one (the same control: tag, data-* attributes, text), that
// button is clicked — once: not when the browser clicked it itself. Hand cards have their own gestures
// (table.js); a control whose meaning changed under the finger (another text) is not clicked.
let pressed = null; // {sig, id}

function buttonAt(target) {
  const el = target && target.closest ? target.closest("button") : null;
  return el && !el.disabled ? el : null;
}

function signature(el) {
  const data = [...el.attributes].filter((a) => a.name.startsWith("data-") || a.name === "name" || a.name === "href").map((a) => `${a.name}=${a.value}`);
  return `${el.tagName}|${data.sort().join("|")}|${el.textContent}`;
}

export function keepClicksAcrossRedraws() {
  document.addEventListener(
    "pointerdown",
    (ev) => {
      const el = ev.button === 0 ? buttonAt(ev.target) : null;
      pressed = el ? { el, sig: signature(el), id: ev.pointerId } : null;
    },
    true,
  );
  document.addEventListener("pointercancel", () => { pressed = null; }, true);
  document.addEventListener(
    "pointerup",
    (ev) => {
      const press = pressed;
      pressed = null;
      if (!press || ev.pointerId !== press.id || press.el.isConnected) return; // no redraw: the browser clicks
      const now = () => buttonAt(document.elementFromPoint(ev.clientX, ev.clientY));
      const el = now();
      if (!el || signature(el) !== press.sig) return;
      let clicked = false;
      const seen = (e) => {
        if (e.target instanceof Node && el.contains(e.target)) clicked = true;
      };
      document.addEventListener("click", seen, true);
      setTimeout(() => {
        document.removeEventListener("click", seen, true);
        if (clicked) return;
        const again = el.isConnected ? el : now(); // one more redraw in between
        if (again && signature(again) === press.sig) again.click();
      }, 0);
    },
    true,
  );
}
