// 提示 (hints, issue #16; docs/protocol.md §3.1 `hint`): the button in the table's top bar, the answer the
// server sends (`hint` frame: the suggested move, and for each discard the 听牌 it would leave), the panel
// that lists it, and the highlight of the suggested card or claim on the table.
//
// The server decides from the seat's own view only (R5); the client shows what it is told. A hint belongs to
// the position it was asked in: it is dropped as soon as the view changes (a new `seq` or hand). The state
// holds it (`hintAsked`, `hint`: state.js; the `hint` frame in reducer.js); this module draws it.

import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Whether this room offers hints: quick play, and friend rooms whose `hints` option is on (never a public table). */
export function hintsAllowed(room) {
  if (!room) return false;
  if (room.kind === "quick") return true;
  return room.kind === "private" && !(room.options && room.options.hints === false);
}

/** The `hint` frame answering the position on the table, or null (`shown`: state.hint). */
function current(g, shown) {
  return shown && g && shown.hand === g.hand && shown.seq === g.seq ? shown.frame : null;
}

/** The 提示 button, while the room offers hints and the seat has a decision to make; `ask` sends the request. */
export function hintButton(room, g, shown, ask) {
  if (!g || !hintsAllowed(room) || !g.view || !g.view.deciding) return null;
  const on = !!current(g, shown);
  return h(
    "button",
    {
      class: `btn small ghost hint-btn${on ? " on" : ""}`,
      "data-action": "hint",
      "aria-pressed": on ? "true" : "false",
      onclick: ask,
    },
    t("hint"),
  );
}


function actionText(action) {
  const [kind, ...cards] = action.split(" | ")[0].split(" ");
  if (kind === "discard") return [t("hintDiscard"), cardEl(cards[0], { size: "xs" })];
  if (kind === "chi") return [t("chi"), ...cards.map((c) => cardEl(c, { size: "xs" }))];
  return [t(kind)];
}

/** The panel of the current hint (or null): the suggestion, then each discard with the 听牌 it leaves. */
export function hintPanel(g, shown) {
  const frame = current(g, shown);
  if (!frame) return null;
  const panel = h("div", { class: "hint-panel", role: "status", "data-testid": "hint", "data-suggest": frame.suggest || "" });
  panel.append(h("div", { class: "hint-suggest" }, h("b", {}, t("hintSuggest")), " ", ...(frame.suggest ? actionText(frame.suggest) : [t("hintNone")])));
  const rows = (frame.discards || []).filter((d) => d.waits.length);
  if (rows.length) {
    const list = h("ul", { class: "hint-waits" });
    for (const d of rows) {
      list.append(
        h(
          "li",
          { "data-discard": d.card, "data-waits": String(d.waits.length) },
          t("hintDiscard"),
          " ",
          cardEl(d.card, { size: "xs" }),
          " → ",
          t("ting"),
          " ",
          ...d.waits.map((w) => h("span", { class: "hint-wait", "data-card": w.card }, cardEl(w.card, { size: "xs" }), h("small", {}, t("hintPoints", { points: w.points })))),
        ),
      );
    }
    panel.append(list);
  } else if ((frame.discards || []).length) {
    panel.append(h("div", { class: "hint-none" }, t("hintNoTing")));
  }
  return panel;
}

/** Marks the suggested card in the hand (its first copy) or the suggested claim button, in `root`. */
export function highlightHint(root, g, shown) {
  const frame = current(g, shown);
  if (!frame || !frame.suggest || !root) return;
  const [kind, card] = frame.suggest.split(" ");
  const el =
    kind === "discard"
      ? root.querySelector(`.table:not(.readonly) .hand .card[data-card="${card}"]`)
      : root.querySelector(`.table:not(.readonly) .act[data-action="${kind}"]`);
  if (el) {
    el.classList.add("hinted");
    el.setAttribute("data-hinted", "true");
  }
}
