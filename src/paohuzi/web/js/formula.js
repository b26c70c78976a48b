// A regional family's scoring formula on the settlement (R9, issue 29), built from the outcome's own numbers
// (the engine is the referee; nothing is recomputed here but the shown sums): the 囤 (卡胡 when 10 胡息 in
// 十胡卡, R9.2), the 醒 (R9.4), the 底分 bonus, 常德's 自摸 + 1, the 名堂 with how they combine, 自摸翻倍,
// 封顶, the points and the 底分 —
//   "卡胡 3囤 × 红胡2番 × 自摸2 = 12分 × 底分1"
//   "3囤 + 1 自摸 = 4 × (红胡5番 + 黄番3番 = 8番) = 32分 × 底分1"
// and the 醒 card, shown when one was turned (翻醒) or taken (随醒).

import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { mingtangText, t } from "./i18n.js";

const KAHU = "卡胡";

/** Whether the outcome is a family's (it carries 囤); a classic outcome has its own formula (settle.js). */
export function isFamilyOutcome(o) {
  return o && o.kind === "hu" && typeof o.tun === "number";
}

/** The 名堂 that count (番 > 0), or 平胡 1. */
function counted(o) {
  const names = (o.names || []).filter((n) => n.fan > 0);
  return names.length ? names : [{ name: "平胡", fan: 1 }];
}

/** 卡胡: named by the server, else read from the numbers (十胡卡: 10 胡息 scores 3 囤, R9.2). */
function kahu(o, rules) {
  if ((o.names || []).some((n) => n.name === KAHU)) return true;
  return rules.tun === "shihuka" && o.huxi === 10;
}

/** The 番 part: one 名堂, or several that add (番 add up, R9.1, R9.2) or multiply, or the largest. */
function fanPart(o) {
  const names = counted(o);
  const one = (n) => [mingtangText(n.name), h("b", {}, String(n.fan)), t("fan")];
  if (names.length === 1) return one(names[0]);
  if (o.combine === "largest") {
    const best = names.reduce((a, b) => (b.fan > a.fan ? b : a));
    return one(best);
  }
  const joiner = o.combine === "multiply" ? " × " : " + ";
  const out = ["("];
  names.forEach((n, i) => {
    if (i) out.push(joiner);
    out.push(...one(n));
  });
  out.push(" = ", h("b", {}, String(o.fan)), t("fan"), ")");
  return out;
}

/**
 * The steps of the formula (elements for h()) and a compact form for tests (`data-formula`):
 * "tun3+xing2=5x8=40x1". `rules`: the room's rule set; `stake`: the 底分 the hand was paid at.
 */
export function familyFormula(o, rules, stake) {
  const steps = [];
  if (kahu(o, rules)) steps.push(h("span", { class: "kahu" }, mingtangText(KAHU)), " ");
  steps.push(h("b", {}, String(o.tun)), t("tun"));
  let terms = 1;
  const xing = o.xing_card ? o.xing || 0 : null;
  if (xing !== null) {
    steps.push(" + ", h("b", {}, String(xing)), t("xing"));
    terms += 1;
  }
  if (rules.base_bonus === "plus_one") {
    steps.push(" + ", h("b", {}, "1"), " ", h("small", { class: "rule-step" }, t("baseBonus_plus_one")));
    terms += 1;
  } else if (rules.base_bonus === "double") {
    steps.push(" × 2 ", h("small", { class: "rule-step" }, t("baseBonus_double")));
    terms += 1;
  }
  if (o.zimo && rules.zimo === "plus_one" && o.base > o.tun + (xing || 0)) {
    steps.push(" + ", h("b", {}, "1"), " ", h("small", { class: "rule-step" }, t("zimo")));
    terms += 1;
  }
  if (terms > 1) steps.push(" = ", h("b", {}, String(o.base)));
  steps.push(" × ", ...fanPart(o));
  const doubled = !!(o.zimo_double || (o.zimo && rules.zimo === "double"));
  if (doubled) steps.push(" × ", t("zimoTimes2"));
  if (typeof o.uncapped === "number") steps.push(" = ", h("b", {}, String(o.uncapped)), " → ", h("small", { class: "rule-step" }, t("cappedAt", { n: o.points })));
  steps.push(" = ", h("b", {}, String(o.points)), t("pts"), " × ", t("stakeTimes", { n: stake }));
  const compact = `tun${o.tun}${xing !== null ? `+xing${xing}` : ""}=${o.base}x${o.fan}${doubled ? "x2" : ""}=${o.points}x${stake}`;
  return { steps, compact };
}

/** The 醒 card (R9.4) with how it was found and what it counted, or null (no 醒 in this game). */
export function xingCardEl(o, rules) {
  if (!o.xing_card) return null;
  const how = rules.xing === "sui" ? "xing_sui" : "xing_fan";
  return h(
    "div",
    { class: "xing-card", "data-testid": "xing-card", "data-card": o.xing_card, "data-xing": String(o.xing || 0) },
    h("span", {}, t(how)),
    cardEl(o.xing_card, { size: "sm" }),
    h("b", { class: "flag" }, t("xingN", { n: o.xing || 0 })),
  );
}
