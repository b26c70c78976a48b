// A regional family's scoring formula on the settlement (R9, issue 29), built from the outcome's own numbers
// (the engine is the referee; nothing is recomputed here but the shown sums): the 囤 (卡胡 when 10 胡息 in
// 十胡卡, R9.2), the 醒 (R9.4), the 底分 bonus, 常德's 自摸 + 1, the 名堂 with how they combine, 自摸翻倍,
// 封顶, the points and the 底分 —
//   "卡胡 3囤 × 红胡2番 × 自摸2 = 12分 × 底分1"
//   "(3囤 + 自摸1) × (红胡5番 + 黄番3番) = 32分 × 底分1"
// and the 醒 card, shown when one was turned (翻醒) or taken (随醒).

import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { mingtangText, t, tx } from "./i18n.js";

const KAHU = "卡胡";

/** Whether the outcome is a family's (it carries 囤); a classic outcome has its own formula (settle.js). */
export function isFamilyOutcome(o) {
  return !!o && o.kind === "hu" && typeof o.tun === "number";
}

const num = (n) => h("b", {}, String(n));
// One term of the formula, kept on one line when the formula wraps (a phone): "红胡2番", "14分".
const term = (...parts) => [h("span", { class: "term" }, ...parts)];

/** Items joined by `sep`, in parentheses when there are several (as paohuzi.scoring.formula writes them). */
function joined(items, sep) {
  const out = [];
  items.forEach((item, i) => {
    if (i) out.push(sep);
    out.push(...item);
  });
  return items.length > 1 ? ["(", ...out, ")"] : out;
}

/**
 * The formula as elements for h() — the text of ``paohuzi.scoring.formula`` (R7, R9) with the 底分 added:
 * 卡胡 (十胡卡, 10 胡息: R9.2), the base terms (囤, 醒, 底分 bonus, 自摸 + 1) in parentheses when several, × the
 * 名堂 that add 番 (in parentheses when several, as they combine), × 自摸2 (自摸翻倍), = points (before 封顶),
 * 封顶, × 底分. `rules`: the room's rule set; `stake`: the 底分 the hand was paid at. Also a compact form for
 * tests (`data-formula`): "tun3+xing2=5x8=40x1".
 */
export function familyFormula(o, rules, stake) {
  let terms = [term(...tx("fTun", { n: num(o.tun) }))];
  const xing = o.xing || 0;
  let core = o.tun + xing;
  if (xing) terms.push(term(...tx("fXing", { n: num(xing) })));
  if (rules.base_bonus === "plus_one") {
    terms.push(term(t("fBonus1")));
    core += 1;
  } else if (rules.base_bonus === "double") {
    terms = [[...joined(terms, " + "), " × ", ...term(t("fBonus2"))]];
    core *= 2;
  }
  if (o.base > core) terms.push(term(t("fZimo1"))); // 自摸 + 1 (R7.1, R9.1)
  const names = (o.names || []).filter((n) => n.fan > 0).map((n) => term(...tx("fFan", { name: mingtangText(n.name), n: num(n.fan) })));
  const steps = [];
  if (rules.tun === "shihuka" && o.huxi === 10) steps.push(h("span", { class: "kahu" }, mingtangText(KAHU)), " ");
  steps.push(...joined(terms, " + "));
  if (names.length) steps.push(" × ", ...joined(names, " + "));
  // 自摸翻倍 and 封顶 as the classic formula reads them (the outcome carries base, 番 and the points)
  const doubled = !!(o.zimo_double || (o.zimo && rules.zimo === "double"));
  if (doubled) steps.push(" × ", ...term(t("zimoTimes2")));
  const before = typeof o.uncapped === "number" ? o.uncapped : Math.max(o.points, o.base * o.fan * (doubled ? 2 : 1));
  steps.push(" = ", ...term(...tx("fPoints", { n: num(before) })));
  if (o.points < before) steps.push(", ", ...term(...tx("fCap", { n: num(o.points) })));
  steps.push(" × ", ...term(t("stakeTimes", { n: stake })));
  const compact = `tun${o.tun}${xing ? `+xing${xing}` : ""}=${o.base}x${o.fan}${doubled ? "x2" : ""}=${o.points}x${stake}`;
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
