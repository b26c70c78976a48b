// Cards (R1) and groups (R3) as the protocol writes them, and how they are drawn.
//
// A card is its notation: "x1"…"x10" (小字 一…十) or "d1"…"d10" (大字 壹…拾). The client never decides a
// rule: it only draws what the server sends. The one exception is the 胡息 of a group (R3), a fixed
// table used to label groups on screen; the server's totals are always shown where it sends them.

import { h } from "./dom.js";

const SMALL = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
const BIG = ["壹", "贰", "叁", "肆", "伍", "陆", "柒", "捌", "玖", "拾"];
export const CARDS = [
  ...SMALL.map((_, i) => `x${i + 1}`),
  ...BIG.map((_, i) => `d${i + 1}`),
];

/** The point (牌点) of a card, 1–10. */
export function point(card) {
  return Number(card.slice(1));
}

/** True for 大字 (壹…拾). */
export function isBig(card) {
  return card[0] === "d";
}

/** 红字: 二 七 十 贰 柒 拾 (R1). */
export function isRed(card) {
  const p = point(card);
  return p === 2 || p === 7 || p === 10;
}

/** The Chinese character of a card. */
export function cardChar(card) {
  const p = point(card);
  return (isBig(card) ? BIG : SMALL)[p - 1] || "?";
}

/** The card of a Chinese character or a notation token; null if it is neither. */
export function parseCard(text) {
  if (CARDS.includes(text)) return text;
  const s = SMALL.indexOf(text);
  if (s >= 0) return `x${s + 1}`;
  const b = BIG.indexOf(text);
  if (b >= 0) return `d${b + 1}`;
  return null;
}

/** Order of cards on screen: 一…十 then 壹…拾. */
export function cardIndex(card) {
  return (isBig(card) ? 10 : 0) + point(card) - 1;
}

export function sortCards(cards) {
  return [...cards].sort((a, b) => cardIndex(a) - cardIndex(b));
}

/**
 * A card face (CSS text on a drawn card). Options: `back` (face down), `size` ("xs"|"sm"|"md"|"lg"),
 * `ghost` (face shown on a back: your own 偎), `cls` extra classes, `attrs` extra attributes.
 */
export function cardEl(card, opts = {}) {
  const classes = ["card"];
  if (opts.size) classes.push(`card-${opts.size}`);
  if (opts.cls) classes.push(opts.cls);
  if (opts.back || !card) {
    classes.push("back");
    if (opts.ghost && card) classes.push("ghost");
    const el = h("span", { class: classes.join(" "), "data-card": card || "", ...(opts.attrs || {}) });
    if (opts.ghost && card) el.append(h("b", { class: isRed(card) ? "red" : "" }, cardChar(card)));
    else el.setAttribute("aria-label", "🂠");
    return el;
  }
  classes.push(isBig(card) ? "big" : "small");
  if (isRed(card)) classes.push("red");
  return h(
    "span",
    { class: classes.join(" "), "data-card": card, title: card, ...(opts.attrs || {}) },
    h("b", {}, cardChar(card)),
    h("i", { "aria-hidden": "true" }, cardChar(card)),
  );
}

// ---- groups ---------------------------------------------------------------------------------------

/** Chinese names of group kinds (R3). */
export const GROUP_ZH = {
  ti: "提", pao: "跑", wei: "偎", chouwei: "臭偎", kan: "坎", peng: "碰", ju: "句", jiao: "绞", jiang: "将",
};

/** 胡息 of a group as shown: the server's `huxi` (R3, from the engine's shape table); 0 for a hidden group
 *  (another seat's 偎, sent without cards or 胡息). The client never computes 胡息 itself. */
export function shownHuxi(group) {
  return group.huxi || 0;
}

/**
 * How a table group is shown: which of its cards are face up (R5). `open` (明偎, R9.3: the room chose it): a
 * 偎 and a 臭偎 lie face up for everyone — the server then sends their cards to every seat.
 */
export function groupFaces(group, own, open = false) {
  const n = group.cards ? group.cards.length : 3;
  const cards = group.cards || [null, null, null];
  if (open && group.cards && (group.kind === "wei" || group.kind === "chouwei")) return cards.map((c) => ({ card: c, back: false }));
  switch (group.kind) {
    case "wei":
      // 偎: all face down; its owner sees the kind (ghost faces).
      return cards.map((c) => ({ card: c, back: true, ghost: !!c }));
    case "chouwei":
      return cards.map((c, i) => ({ card: c, back: i < n - 1, ghost: !!c && i < n - 1 }));
    case "ti":
      return cards.map((c, i) => ({ card: c, back: i < n - 1, ghost: i < n - 1 }));
    default:
      return cards.map((c) => ({ card: c, back: false }));
  }
}

/**
 * The hand as columns for display: each 坎 (three of a kind in hand, R3) is a locked column; the other
 * cards stand in columns by point, 小字 above 大字 — the way players hold 字牌.
 */
export function handColumns(hand) {
  const counts = new Map();
  for (const c of hand) counts.set(c, (counts.get(c) || 0) + 1);
  const kans = [];
  for (const c of CARDS) {
    if ((counts.get(c) || 0) >= 3) {
      kans.push({ kan: true, cards: [c, c, c] });
      counts.set(c, counts.get(c) - 3);
    }
  }
  const columns = [];
  for (let p = 1; p <= 10; p++) {
    const col = [];
    for (const c of [`x${p}`, `d${p}`]) for (let i = 0; i < (counts.get(c) || 0); i++) col.push(c);
    if (col.length) columns.push({ kan: false, cards: col });
  }
  return [...kans, ...columns];
}
