// The settlement (结算) of a hand: the winner's arrangement group by group with 胡息, the 名堂 with their
// 番, the base, each seat's points for the hand and in total; then next hand / play again / leave.

import { cardEl, handColumns, shownHuxi } from "./cards.js";
import { h } from "./dom.js";
import { settleDoubleMark } from "./double_card.js";
import { fairBadge, verdictOf } from "./fair_ui.js";
import { familyFormula, isFamilyOutcome, xingCardEl } from "./formula.js";
import { mingtangText, t, tx } from "./i18n.js";
import { renderSummary } from "./summary.js";
import { nameEl, seatName } from "./table.js";

function arrangementEl(outcome) {
  const wrap = h("div", { class: "arrangement" });
  let markedWon = false;
  for (const group of outcome.groups || []) {
    const hx = shownHuxi(group);
    let mark = !markedWon && outcome.card && group.cards.includes(outcome.card);
    if (mark) markedWon = true;
    const faces = group.cards.map((c) => {
      const won = mark && c === outcome.card;
      if (won) mark = false;
      return cardEl(c, { size: "sm", cls: won ? "won" : "" });
    });
    wrap.append(
      h(
        "div",
        { class: `grp grp-${group.kind}`, "data-kind": group.kind },
        h("div", { class: "stack" }, faces),
        h("div", { class: "grp-label" }, t(`grp_${group.kind}`), h("em", {}, String(hx))),
      ),
    );
  }
  if (outcome.loose && outcome.loose.length) {
    wrap.append(
      h(
        "div",
        { class: "grp grp-loose" },
        h("div", { class: "stack loose" }, outcome.loose.map((c) => cardEl(c, { size: "sm" }))),
        h("div", { class: "grp-label" }, t("loose")),
      ),
    );
  }
  return wrap;
}

/** The 底分 (stake) a hand was paid at: the room's, else what a loser paid per point (R7.3). */
export function stakeOf(outcome, room) {
  const opt = room && room.options ? room.options.stake : null;
  if (typeof opt === "number") return opt;
  const pays = (outcome.payments || []).filter((p) => p < 0).map((p) => -p);
  return outcome.points > 0 && pays.length ? Math.min(...pays) / outcome.points : 1;
}

/** The classic formula (R7.1–R7.3): "2底 × 3番 = 6分 × 底分3 = 18" — what each loser pays. R8.1: 自摸翻倍
 * doubles base × 番, then 封顶 caps it, before × 底分. */
function classicFormula(o, rules, stake) {
  const raw = o.base * o.fan;
  const doubled = rules.zimo === "double" && o.zimo ? raw * 2 : raw;
  const steps = [h("b", {}, String(o.base)), t("base"), " × ", h("b", {}, String(o.fan)), t("fan")];
  if (doubled !== raw) steps.push(" = ", h("b", {}, String(raw)), " × 2 ", h("small", { class: "rule-step" }, t("zimo_double")));
  if (o.points < doubled) steps.push(" = ", h("b", {}, String(doubled)), " → ", h("small", { class: "rule-step" }, t("cappedAt", { n: o.points })));
  steps.push(" = ", h("b", {}, String(o.points)), t("pts"), " × ", t("stakeTimes", { n: stake }), " = ", h("b", { class: "pay" }, String(o.points * stake)));
  return h(
    "div",
    { class: "score-line", "data-formula": `${o.base}x${o.fan}=${o.points}x${stake}=${o.points * stake}` },
    h("span", { "data-huxi": String(o.huxi) }, h("b", {}, String(o.huxi)), t("huxi")),
    h("span", { class: "formula" }, steps),
  );
}

/**
 * `frame`: the hand_over frame (outcome, deltas, scores, view, hand); `ctx`: {room, names, seat,
 * matchOver, nextStarted, onNext, onRematch, onLeave, onReplay, auto, onAutoOff}.
 */
export function renderSettlement(frame, ctx) {
  const o = frame.outcome || {};
  const me = ctx.seat;
  // A name as an element, "（你）" added for your own seat: the leaver's name too (ctx.names keeps it).
  const name = (s) => [nameEl(seatName(ctx.room, s, ctx.names), "pname"), s === me ? t("you_paren") : null];
  let title;
  if (o.kind === "hu") title = tx("huBy", { name: name(o.winner) });
  else if (o.kind === "escape") title = tx("escapeBy", { name: name(o.leaver) });
  else title = [t("drawGame")];

  const sheet = h("div", { class: `sheet settle settle-${o.kind}${o.kind === "hu" && o.winner === me ? " i-won" : ""}` });
  if (ctx.auto) {
    // 托管 stays on between hands: the way off is right here, not under the sheet.
    sheet.append(h("div", { class: "auto-bar in-sheet" }, h("span", {}, t("autoBar")), h("button", { class: "btn small primary", "data-action": "auto-off", onclick: ctx.onAutoOff }, t("autoOff"))));
  }
  sheet.append(h("h2", { class: "settle-title" }, title));
  if (o.kind === "escape" && o.leaver !== null && o.leaver !== undefined && frame.deltas) {
    const paid = -frame.deltas[o.leaver];
    sheet.append(h("p", { class: "penalty", "data-penalty": String(paid) }, o.leaver === me ? t("youEscaped", { n: paid }) : tx("escapedPenalty", { n: paid })));
  }

  if (o.kind === "hu") {
    const flags = [];
    if (o.tianhu) flags.push(t("tianhu"));
    if (o.zimo) flags.push(t("zimo"));
    if (o.haidi) flags.push(t("haidi"));
    if (o.card) {
      sheet.append(h("div", { class: "won-card" }, h("span", {}, t("cardWon")), cardEl(o.card, { size: "sm" }), flags.map((f) => h("b", { class: "flag" }, f))));
    } else if (flags.length) {
      sheet.append(h("div", { class: "won-card" }, flags.map((f) => h("b", { class: "flag" }, f))));
    }
    const rules = (ctx.room && ctx.room.options && ctx.room.options.rules) || {};
    sheet.append(xingCardEl(o, rules) || []); // 醒 (R9.4): the card turned up or won, and its count
    sheet.append(arrangementEl(o));
    const names = (o.names || []).filter((n) => n.fan > 0);
    sheet.append(
      h(
        "div",
        { class: "mingtang" },
        (names.length ? names.map((n) => ({ name: mingtangText(n.name), fan: n.fan })) : [{ name: t("pinghu"), fan: 1 }]).map((n) => h("span", { class: "chip" }, n.name, h("em", {}, `${n.fan}${t("fan")}`))),
      ),
    );
    // 胡息, then the formula with the 底分 (R7.3): the classic one, or a regional family's (R9).
    const stake = stakeOf(o, ctx.room);
    if (isFamilyOutcome(o)) {
      // R9: a regional family's formula (囤, 醒, 名堂 as they combine) — formula.js
      const { steps, compact } = familyFormula(o, rules, stake);
      sheet.append(
        h(
          "div",
          { class: "score-line family", "data-formula": compact },
          h("span", { "data-huxi": String(o.huxi) }, h("b", {}, String(o.huxi)), t("huxi")),
          h("span", { class: "formula" }, steps),
        ),
      );
    } else {
      sheet.append(classicFormula(o, rules, stake));
    }
  }

  // Each seat: this hand and the match total; at a table of beans (a tier with a multiplier, R7.3) each seat's
  // change of 欢乐豆 too — the hand's points × the multiplier, never doubled, a loser paying at most what it holds.
  const seats = (frame.deltas || []).map((_, s) => s);
  const multiplier = ctx.room && ctx.room.options ? ctx.room.options.multiplier || 0 : 0;
  const beans = frame.beans && (multiplier > 0 || frame.beans.some((b) => b !== 0)) ? frame.beans : null;
  const signed = (n) => (n > 0 ? "+" : "") + n;
  const table = h(
    "table",
    { class: "results" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("thisHand")), h("th", {}, t("total")), beans ? h("th", {}, t("beansTimes", { m: multiplier })) : null)),
    h(
      "tbody",
      {},
      seats.map((s) => {
        const d = frame.deltas[s];
        return h(
          "tr",
          { class: `${s === me ? "me" : ""}${o.winner === s ? " winner" : ""}`, "data-seat": String(s) },
          h("td", {}, o.winner === s ? h("span", { class: "win-mark" }, t("winnerMark")) : null, o.kind === "escape" && o.leaver === s ? h("span", { class: "esc-mark" }, t("escapeHand", { name: "" }).trim()) : null, name(s), settleDoubleMark(frame, s)),
          h("td", { class: d > 0 ? "plus" : d < 0 ? "minus" : "", "data-points": String(d) }, signed(d)),
          h("td", {}, String(frame.scores ? frame.scores[s] : "")),
          beans ? h("td", { class: `beans-cell ${beans[s] > 0 ? "plus" : beans[s] < 0 ? "minus" : ""}`, "data-beans": String(beans[s]) }, signed(beans[s])) : null,
        );
      }),
    ),
  );
  sheet.append(table);

  // Every hand, shown at the end (R5).
  const view = frame.view || {};
  if (view.hands) {
    const det = h("details", { class: "all-hands" }, h("summary", {}, t("hands_shown")));
    view.hands.forEach((cards, s) => {
      if (!cards || s === o.winner) return;
      const line = h("div", { class: "hand-line" }, h("span", { class: "hl-name" }, name(s)));
      for (const gr of (view.tables && view.tables[s]) || []) {
        line.append(h("span", { class: "mini-grp" }, (gr.cards || []).map((c) => cardEl(c, { size: "xs" }))));
      }
      for (const col of handColumns(cards)) line.append(h("span", { class: "mini-grp loose" }, col.cards.map((c) => cardEl(c, { size: "xs" }))));
      det.append(line);
    });
    sheet.append(det);
  }

  const isPublic = !!(ctx.room && ctx.room.kind === "public"); // 匹配: one hand per match, 继续 / 换桌 / 离开
  if (ctx.matchOver && !isPublic) {
    const mo = ctx.matchOver;
    sheet.append(h("h3", { class: "match-over" }, t("matchOver")));
    if (mo.ranking) {
      sheet.append(
        h(
          "ol",
          { class: "ranking" },
          mo.ranking.map((s, i) => h("li", { class: s === me ? "me" : "" }, h("span", {}, `${i + 1}. `, name(s)), h("b", {}, String(mo.scores[s])))),
        ),
      );
    }
    if (ctx.summary) sheet.append(renderSummary(ctx.summary, { me, onReplay: ctx.onReplay, onShare: ctx.onShare }));
    if (mo.penalty && o.kind !== "escape") sheet.append(h("p", { class: "penalty" }, t("penalty", { n: mo.penalty })));
  }

  const buttons = h("div", { class: "settle-buttons" });
  if (isPublic && ctx.matchOver) {
    buttons.append(h("button", { class: "btn primary", "data-action": "rematch", onclick: ctx.onRematch }, t("continue")));
    buttons.append(h("button", { class: "btn", "data-action": "change-table", onclick: ctx.onChangeTable }, t("changeTable")));
    buttons.append(h("button", { class: "btn", "data-action": "leave", onclick: ctx.onLeave }, t("backLobby")));
  } else if (ctx.matchOver) {
    buttons.append(h("button", { class: "btn primary", "data-action": "rematch", onclick: ctx.onRematch }, t("rematch")));
    buttons.append(h("button", { class: "btn", "data-action": "leave", onclick: ctx.onLeave }, t("backLobby")));
  } else {
    buttons.append(
      h("button", { class: "btn primary", "data-action": "next", onclick: ctx.onNext }, ctx.nextStarted ? t("nextStarted") : t("nextHand")),
    );
    if (ctx.onQuit) buttons.append(h("button", { class: "btn", "data-action": "quit", onclick: ctx.onQuit }, t("leave")));
  }
  if (frame.replay_code) {
    // The hand's replay code (issue 12 item 4): whoever has it may watch the hand; the link opens it.
    const link = `${location.origin}${location.pathname}#/r/${frame.replay_code}`;
    sheet.append(h("p", { class: "replay-code" }, t("replayCode"), " ", h("a", { href: link, "data-testid": "replay-code" }, frame.replay_code)));
  }
  const fair = fairBadge(verdictOf(frame.hand)); // 可验证发牌: checked in this browser (fair_ui.js)
  if (fair) sheet.append(fair);
  if (frame.hand !== undefined && ctx.onReplay) {
    buttons.append(h("button", { class: "btn ghost", "data-action": "replay", onclick: () => ctx.onReplay(frame.hand) }, t("replay")));
  }
  sheet.append(buttons);
  return h("div", { class: "modal settle-modal", role: "dialog", "aria-label": sheet.querySelector(".settle-title").textContent }, sheet);
}
