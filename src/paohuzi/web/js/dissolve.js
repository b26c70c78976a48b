// 解散房间 (R8.2, docs/protocol.md §3.1): the button in the table's top bar, the dialog of an open proposal
// (the room's `dissolution`: proposer, each seat's answer, the time left), how a proposal ended (the
// `dissolution` frame), and the summary of a dissolved match.

import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

let deadline = null; // {key, at}: the open proposal's end on this page's clock (performance.now())
let ticker = null;

/** The button that proposes to dissolve the match (while a match is being played and no proposal is open). */
export function dissolveButton(room, send) {
  if (!room || room.status !== "playing" || room.dissolution || room.kind === "public") return null; // no 解散 at a public table
  return h("button", { class: "btn small ghost", "data-action": "dissolve", title: t("dissolve"), "aria-label": t("dissolve"), onclick: () => send({ type: "dissolve" }) }, t("dissolveShort"));
}

/** A `dissolution` frame: how a proposal ended. Refused or lapsed: a toast; agreed: `match_over` follows. */
export function dissolutionEnded(frame, nameOf) {
  if (frame.result === "refused") toast(t("dissolveRefused", { name: nameOf(frame.by) }), "error", 4000);
  else if (frame.result === "expired") toast(t("dissolveExpired"), "error", 4000);
  else toast(t("dissolveAgreed"), "info", 3000);
}

/** The dialog of an open proposal, for every seated player; `rerender` is called each second for the
 * countdown while it is open. */
export function dissolveDialog(room, mySeat, nameOf, send, rerender) {
  const d = room ? room.dissolution : null;
  if (!d) {
    deadline = null;
    if (ticker !== null) {
      clearInterval(ticker);
      ticker = null;
    }
    return null;
  }
  const key = `${room.code}:${d.proposer}:${d.deadline}`;
  if (!deadline || deadline.key !== key) deadline = { key, at: performance.now() + d.remaining_ms };
  if (ticker === null) ticker = setInterval(rerender, 1000);
  const left = Math.max(0, Math.ceil((deadline.at - performance.now()) / 1000));
  const mine = mySeat === null || mySeat === undefined ? true : d.votes[mySeat];
  const rows = d.votes.map((v, seat) =>
    h(
      "li",
      { "data-seat": String(seat), "data-vote": v === true ? "yes" : v === false ? "no" : "wait" },
      h("span", { class: "seat-name", "data-pname": "" }, nameOf(seat)),
      h("span", { class: `ready-mark${v ? " on" : ""}` }, v === true ? t("voteYes") : t("voteWait")),
    ),
  );
  const buttons = h("div", { class: "sheet-buttons" });
  if (mine === null) {
    buttons.append(
      h("button", { class: "btn primary", "data-action": "dissolve-agree", onclick: () => send({ type: "dissolve_vote", agree: true }) }, t("agree")),
      h("button", { class: "btn", "data-action": "dissolve-refuse", onclick: () => send({ type: "dissolve_vote", agree: false }) }, t("refuse")),
    );
  }
  const sheet = h(
    "div",
    { class: "sheet dissolve-sheet" },
    h("h3", {}, t("dissolveAsk", { name: nameOf(d.proposer) })),
    h("p", { class: "room-opts", "data-testid": "dissolve-left" }, t("dissolveLeft", { n: left })),
    h("ul", { class: "seats" }, rows),
    buttons,
  );
  return h("div", { class: "modal dissolve-modal", role: "dialog", "data-testid": "dissolve-dialog", "aria-label": t("dissolve") }, sheet);
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
    h("p", { class: "room-opts" }, t("dissolvedNote")),
    h("ol", { class: "seats ranking" }, rows),
    table,
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn primary", "data-action": "dissolved-ok", onclick: onClose }, t("ok"))),
  );
  return h("div", { class: "modal dissolved-modal", role: "dialog", "data-testid": "dissolved", "aria-label": t("dissolvedTitle") }, sheet);
}
