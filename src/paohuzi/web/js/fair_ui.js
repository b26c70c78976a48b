// 可验证发牌 in the client (issue 32; docs/client.md): answer each `deal_commit` with a fresh client seed,
// remember the commitment seen before the deal, check the revealed deal of every `hand_over` in the browser
// (fair.js, Web Crypto) and show the verdict — "已验证 ✓", what differs, or "not verifiable (rng_version 1)" —
// on the settlement sheet and the replay page, with a link to the method (fair.html).
// Kept out of the reducer: sending a seed and hashing are effects; the verdicts are a cache of this module.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { randomSeed, verifyDeal } from "./fair.js";

const sent = new Map(); // commitment → the client seed this tab sent for it
const seen = new Map(); // hand id → the commitment received before (or, after a reload, during) its deal
const verdicts = new Map(); // hand id → {status, problems}
let committed = null; // the last deal_commit's commitment, until the hand it announced is dealt

/** Look at a frame before the reducer does (main.js onFrame); `state`: the state before it. */
export function watchDeal(app, frame, state) {
  if (frame.type === "deal_commit") {
    const seed = randomSeed();
    sent.set(frame.commitment, seed);
    committed = frame.commitment;
    if (app.socket) app.socket.send({ type: "seed", commitment: frame.commitment, seed });
  } else if (frame.type === "game" && frame.deal && frame.deal.commitment && !seen.has(frame.hand)) {
    // the one announced before the deal; one that differs from what the game says is caught by verifyDeal
    seen.set(frame.hand, committed || frame.deal.commitment);
    committed = null;
  } else if (frame.type === "hand_over" && !verdicts.has(frame.hand)) {
    const commitment = seen.get(frame.hand) || null;
    const seat = state.game && state.game.hand === frame.hand ? state.game.seat : null;
    const mine = seat !== null && commitment && sent.has(commitment) ? { seat, seed: sent.get(commitment) } : null;
    verdicts.set(frame.hand, { status: "checking", problems: [] });
    check(frame.deal, { seen: commitment, mine }).then((verdict) => {
      verdicts.set(frame.hand, verdict);
      app.rerender();
    });
  }
}

/** verifyDeal, or "unavailable" where the page has no Web Crypto (plain http on another host than localhost). */
export async function check(deal, options = {}) {
  if (deal && deal.rng_version === 2 && !(globalThis.crypto && crypto.subtle)) return { status: "unavailable", problems: [] };
  return verifyDeal(deal, options);
}

export function verdictOf(hand) {
  return verdicts.get(hand) || null;
}

/** The verdict as a line: its words and the link to the method. */
export function fairBadge(verdict) {
  if (!verdict) return null;
  const words = {
    ok: () => t("fairOk"),
    bad: () => `${t("fairBad")}: ${verdict.problems.map((p) => t(p.key, { n: p.n })).join("; ")}`,
    legacy: () => t("fairLegacy", { v: verdict.rngVersion || 1 }),
    checking: () => t("fairChecking"),
    unavailable: () => t("fairUnavailable"),
  }[verdict.status];
  const link = h("a", { href: "fair.html", target: "_blank", rel: "noopener", "data-testid": "fair-method" }, t("fairMethod"));
  return h("p", { class: `fair fair-${verdict.status}`, "data-testid": "fair", "data-status": verdict.status }, words ? words() : "", " ", link);
}
