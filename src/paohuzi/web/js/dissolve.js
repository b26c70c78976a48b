// 解散房间 (R8.2, docs/protocol.md §3.7): the button in the table's top bar, the bar of an open proposal
// (the room's `dissolution`: proposer, each seat's answer, the time left), how a proposal ended (the
// `dissolution` frame), and the summary of a dissolved match.

import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

let deadline = null; // {key, at}: the open proposal's end on this page's clock (performance.now())

/** The button that proposes to dissolve the match (while a match is being played and no proposal is open). */
export function dissolveButton(room, send) {
  if (!room || room.status !== "playing" || room.dissolution || room.kind === "public") return null; // no 解散 at a public table
  return h("button", { class: "btn small ghost", "data-action": "dissolve", title: t("dissolve"), "aria-label": t("dissolve"), onclick: () => send({ type: "dissolve" }) }, t("dissolveShort"));
}

/** A `dissolution` frame: how a proposal ended. Refused, withdrawn or lapsed: a toast; agreed: `match_over` follows. */
export function dissolutionEnded(frame, nameOf) {
  if (frame.result === "refused") toast(t("dissolveRefused", { name: nameOf(frame.by) }), "error", 4000);
  else if (frame.result === "withdrawn") toast(t("dissolveWithdrawn", { name: nameOf(frame.proposer) }), "info", 4000);
  else if (frame.result === "expired") toast(t("dissolveExpired"), "error", 4000);
  else toast(t("dissolveAgreed"), "info", 3000);
}

/**
 * The bar of an open proposal (R8.2: the hand goes on meanwhile), for every seated player. It never covers
 * the table: table_screen.js puts it in the table's bar row, above the claim buttons and the hand (`floating`: over
 * the settlement between hands, where no hand is played). Who asked, each seat's answer, the seconds left
 * (ticked by render.js's `[data-deadline]` ticker, no redraw), and the one thing this player may do: answer
 * (同意/拒绝), or withdraw (撤回) a proposal of its own. Once answered it is a one-line status.
 */
export function dissolvePanel(room, mySeat, nameOf, send, floating = false) {
  const d = room ? room.dissolution : null;
  if (!d) {
    deadline = null;
    return null;
  }
  const key = `${room.code}:${d.proposer}:${d.deadline}`;
  if (!deadline || deadline.key !== key) deadline = { key, at: performance.now() + d.remaining_ms };
  const left = Math.max(0, Math.ceil((deadline.at - performance.now()) / 1000));
  const seated = mySeat !== null && mySeat !== undefined;
  const proposer = seated && mySeat === d.proposer;
  const answer = seated ? d.votes[mySeat] : true;
  const state = proposer ? "proposer" : answer === null || answer === undefined ? "asked" : "voted";
  const votes = h(
    "span",
    { class: "dissolve-votes" },
    d.votes.map((v, seat) =>
      h(
        "span",
        { class: `dissolve-vote${v === true ? " yes" : ""}`, "data-seat": String(seat), "data-vote": v === true ? "yes" : v === false ? "no" : "wait", title: v === true ? t("voteYes") : t("voteWait") },
        h("i", { "aria-hidden": "true" }, v === true ? "✓" : "…"),
        h("span", { "data-pname": "" }, nameOf(seat)),
      ),
    ),
  );
  const buttons = [];
  if (state === "asked") {
    buttons.push(
      h("button", { class: "btn small primary", "data-action": "dissolve-agree", onclick: () => send({ type: "dissolve_vote", agree: true }) }, t("agree")),
      h("button", { class: "btn small", "data-action": "dissolve-refuse", onclick: () => send({ type: "dissolve_vote", agree: false }) }, t("refuse")),
    );
  } else if (state === "proposer") {
    buttons.push(h("button", { class: "btn small", "data-action": "dissolve-withdraw", onclick: () => send({ type: "dissolve_withdraw" }) }, t("withdraw")));
  }
  const title = proposer ? t("dissolveMine") : t("dissolveBarAsk", { name: nameOf(d.proposer) });
  return h(
    "div",
    {
      class: `dissolve-bar${floating ? " floating" : ""}`,
      role: "status",
      "data-testid": "dissolve-panel",
      "data-state": state,
      title: t("dissolveRule"),
    },
    h("b", { class: "dissolve-title" }, title),
    votes,
    h("span", { class: "dissolve-left", "data-testid": "dissolve-left" }, h("b", { class: left <= 5 ? "low" : null, "data-deadline": String(Math.round(deadline.at)) }, String(left)), t("secondsShort")),
    buttons.length ? h("span", { class: "dissolve-buttons" }, buttons) : null,
  );
}

/** The summary of a dissolved match (`match_over` with status `dissolved`): the hand in play is void, the
 * hands already settled stand, nobody pays 逃跑. `table`: the 总结算 (summary.js) once loaded, or null. */
export function dissolvedSummary(matchOver, nameOf, table, onClose) {
  const rows = matchOver.ranking.map((seat, i) =>
    h("li", { "data-seat": String(seat) }, h("span", { class: "seat-name" }, `${i + 1}. `, h("span", { "data-pname": "" }, nameOf(seat))), h("b", {}, String(matchOver.scores[seat]))),
  );
  const sheet = h(
    "div",
    { class: "sheet" },
    h("h3", {}, t("dissolvedTitle")),
    // `void_hand` null: the vote passed between hands, so no hand was voided (docs/protocol.md §3.7)
    h("p", { class: "room-opts", "data-testid": "dissolved-note" }, t(matchOver.void_hand === null ? "dissolvedNoteBetween" : "dissolvedNote")),
    h("ol", { class: "seats ranking" }, rows),
    table,
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn primary", "data-action": "dissolved-ok", onclick: onClose }, t("ok"))),
  );
  return h("div", { class: "modal dissolved-modal", role: "dialog", "data-testid": "dissolved", "aria-label": t("dissolvedTitle") }, sheet);
}
