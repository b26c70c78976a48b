// A tiny DOM helper: h("div", {class: "x", onclick: f}, child, "text", [more]).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) {
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

/** Replace the children of `el`. (Every redraw does: see `keepClicksAcrossRedraws`.) */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
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

// Every redraw replaces the page's elements (`mount`), and a frame can arrive between the press and the release
// of a click: the browser then sends no `click` to the button, because pointerdown and pointerup hit two
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
  const data = [...el.attributes].filter((a) => a.name.startsWith("data-") || a.name === "name").map((a) => `${a.name}=${a.value}`);
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
