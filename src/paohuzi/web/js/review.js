// 复盘 (issue 34) in the replay viewer: the "复盘" button asks the server to judge every decision of the seat
// shown (GET /api/replays/{id}/review?seat=N, or …/code/{code}/review for a hand opened by its replay code;
// docs/protocol.md §2 "Reviews"); the answer gives the hand's figure (准确率, points lost), the mistakes as
// chips that jump to their step, and on a step of that seat's decision the better move with its expected points.

import { api } from "./api.js";
import { h } from "./dom.js";
import { errorText, t, tx } from "./i18n.js";
import { nameEl } from "./table.js";

/** The seat a review is for: the seat whose view is shown, or the player's own seat in the full view. */
export function reviewSeat(rp) {
  return typeof rp.view === "number" ? rp.view : rp.bottom || 0;
}

function reviewOf(rp) {
  return rp.reviews ? rp.reviews[reviewSeat(rp)] : undefined;
}

/** Ask the server for the shown seat's review (kept in `rp.reviews[seat]`: {loading} | {review} | {error}). */
export async function requestReview(app, rp) {
  const seat = reviewSeat(rp);
  rp.reviews = rp.reviews || {};
  rp.reviews[seat] = { loading: true };
  app.rerender();
  const path = rp.code
    ? `/api/replays/code/${encodeURIComponent(rp.code)}/review?seat=${seat}`
    : `/api/replays/${rp.handId}/review?seat=${seat}`;
  try {
    const answer = await api("GET", path);
    rp.reviews[seat] = { review: answer.review };
  } catch (err) {
    rp.reviews[seat] = { error: err };
  }
  if (app.state.replay === rp) app.rerender();
}

const points = (x) => (x > 0 ? "+" : "") + x.toFixed(1);

function failed(err) {
  if (err && err.code === "rate_limited") return t("reviewLimited");
  return t("reviewFailed", { message: errorText(err && err.code, err && err.message) });
}

/** The panel under the view picker: the button, then the figure and one chip per marked decision. */
export function reviewPanel(app, rp, seatLabel, actionText) {
  const got = reviewOf(rp);
  const button = h(
    "button",
    { class: "btn small primary", "data-action": "review", disabled: Boolean(got && got.loading), onclick: () => requestReview(app, rp) },
    t("reviewButton"),
  );
  const panel = h("div", { class: "review-panel" }, button);
  if (!got) {
    panel.append(h("span", { class: "note" }, tx("reviewHint", { name: nameEl(seatLabel, "pname") })));
    return panel;
  }
  if (got.loading) {
    panel.append(h("span", { class: "note", "data-testid": "review-loading" }, t("reviewLoading")));
    return panel;
  }
  if (got.error) {
    panel.append(h("span", { class: "review-error", "data-testid": "review-error" }, failed(got.error)));
    return panel;
  }
  const r = got.review;
  const figure = tx("reviewFigure", {
    name: nameEl(seatLabel, "pname"),
    accuracy: Math.round(r.accuracy * 1000) / 10,
    lost: r.points_lost.toFixed(1),
    marked: r.marked,
    judged: r.judged,
  });
  panel.append(h("span", { class: "review-figure", "data-testid": "review-figure", "data-marked": String(r.marked) }, figure));
  const marked = r.decisions.filter((d) => d.marked);
  const chips = h("div", { class: "review-chips" });
  if (!marked.length) chips.append(h("span", { class: "note" }, t("reviewNoMistake")));
  for (const d of marked) {
    const go = () => {
      rp.index = d.index + 1; // step 0 is the deal; step i follows the record's action i - 1
      app.rerender();
    };
    chips.append(h("button", { class: "review-chip", "data-decision": String(d.index), onclick: go }, t("stepShort", { i: d.index + 2 }), " ", actionText(d.played), " → ", actionText(d.best)));
  }
  panel.append(chips);
  return panel;
}

/** Under the caption of step `i`: the judgement of the decision that led to it, if the review has one. */
export function decisionNote(rp, i, actionText) {
  const got = reviewOf(rp);
  if (!got || !got.review || i < 1) return null;
  const d = got.review.decisions.find((x) => x.index === i - 1);
  if (!d) return null;
  const played = d.choices.find((c) => c.action === d.played) || d.choices[0];
  const best = d.choices[0];
  if (!d.marked) {
    return h("div", { class: "review-note good", "data-testid": "review-ok", "data-index": String(d.index) }, "✓ ", t("reviewGood", { mean: points(played.mean) }));
  }
  return h(
    "div",
    { class: "review-note bad", "data-testid": "review-mark", "data-index": String(d.index) },
    "✗ ",
    t("reviewBetter"),
    " ",
    actionText(d.best),
    " ",
    t("reviewPoints", { best: points(best.mean), played: points(played.mean), loss: d.loss.toFixed(1), se: d.loss_se.toFixed(1) }),
  );
}
