// The replay viewer: step forward and back through a finished hand.
//
// Where the steps come from (see docs/client.md):
//  1. the server, when `GET /api/replays/{id}` answers `steps` — [{seat, action, views: [view per seat],
//     full: referee view}] — any seat's view or the full view;
//  2. this browser's own record of a hand it played (your seat's view, kept in localStorage);
//  3. otherwise only the action list and the outcome of the record.

import { api } from "./api.js";
import { h, on } from "./dom.js";
import { t } from "./i18n.js";
import { nameEl, renderTable, seatName } from "./table.js";
import { cardEl } from "./cards.js";
import { dealOfRecord } from "./fair.js";
import { check, fairBadge } from "./fair_ui.js";
import { decisionNote, reviewPanel, reviewSeat } from "./review.js";

const REC_PREFIX = "paohuzi.rec.";
const REC_INDEX = "paohuzi.recs";
const KEEP = 12;

/** Keeps the views this browser saw during a hand, for its replay. */
export class HandRecorder {
  constructor() {
    this.current = null;
  }

  frame(frame, names) {
    if (frame.type === "game") {
      if (!this.current || this.current.hand !== frame.hand) {
        this.current = { hand: frame.hand, seat: frame.seat, names, steps: [] };
      }
      this.push(frame.seq, null, frame.view);
    } else if (frame.type === "update" && this.current && this.current.hand === frame.hand) {
      this.push(frame.seq, frame.events, frame.view);
    } else if (frame.type === "hand_over" && this.current && this.current.hand === frame.hand) {
      this.push(Infinity, null, frame.view);
      this.current.outcome = frame.outcome;
      this.current.deltas = frame.deltas;
      this.current.names = names;
      this.save(this.current);
      this.current = null;
    }
  }

  push(seq, events, view) {
    const steps = this.current.steps;
    const last = steps[steps.length - 1];
    if (last && last.seq === seq) {
      last.view = view;
      return;
    }
    const actor = events ? lastActor(events) : null;
    steps.push({ seq: seq === Infinity ? (last ? last.seq + 1 : 0) : seq, view, actor });
  }

  save(rec) {
    try {
      const index = JSON.parse(localStorage.getItem(REC_INDEX) || "[]").filter((id) => id !== rec.hand);
      index.push(rec.hand);
      while (index.length > KEEP) localStorage.removeItem(REC_PREFIX + index.shift());
      for (;;) {
        try {
          localStorage.setItem(REC_PREFIX + rec.hand, JSON.stringify(rec));
          break;
        } catch {
          if (index.length <= 1) return;
          localStorage.removeItem(REC_PREFIX + index.shift());
        }
      }
      localStorage.setItem(REC_INDEX, JSON.stringify(index));
    } catch {
      /* storage unavailable */
    }
  }
}

function lastActor(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (typeof e.seat === "number" && ["discard", "peng", "chi", "pao", "ti", "wei", "hu", "show"].includes(e.type)) return e;
  }
  return null;
}

function localRecord(handId) {
  try {
    const text = localStorage.getItem(REC_PREFIX + handId);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Load a replay: {handId, hand, record, steps: [{view, seat, caption}] | null, seats: [...], local}. */
export async function loadReplay(handId, me, code = null) {
  let server = null;
  try {
    // A replay code (issue 12 item 4) opens any finished hand; an id only public hands and your own.
    server = await api("GET", code ? `/api/replays/code/${encodeURIComponent(code)}` : `/api/replays/${handId}`);
    if (code && server && server.hand) handId = server.hand.id;
  } catch (err) {
    server = { error: err };
  }
  const out = { handId, server, local: null, mode: null, view: null, index: 0, fair: null, code, reviews: {} };
  // 可验证发牌 (issue 32): the record's deal recomputed here from its revealed seeds
  if (server && server.record) out.fair = await check(dealOfRecord(server.record)).catch(() => null);
  if (server && Array.isArray(server.steps) && server.steps.length) {
    out.mode = "server";
    out.steps = server.steps;
    out.view = "full";
    out.bottom = 0;
    const matchId = server.hand && server.hand.match_id;
    if (matchId !== undefined && matchId !== null) {
      try {
        const { match } = await api("GET", `/api/matches/${matchId}`);
        const seats = match.seats || [];
        out.names = seats.map((s) => ({ nickname: s.nickname || t("seatN", { n: s.seat + 1 }), bot: s.bot || false })); // bot: its level key
        const mine = seats.find((s) => me && s.player_id === me.id);
        if (mine) out.bottom = mine.seat;
      } catch {
        /* names stay "seat N" */
      }
    }
  } else {
    const local = localRecord(handId);
    if (local && local.steps && local.steps.length) {
      out.mode = "local";
      out.local = local;
      out.steps = local.steps;
      out.view = local.seat;
    } else {
      out.mode = "none";
    }
  }
  return out;
}

function stepView(rp, i) {
  const step = rp.steps[i];
  if (rp.mode === "local") return { view: step.view, seat: rp.local.seat };
  if (rp.view === "full" && step.full) {
    const full = step.full;
    const seat = rp.bottom || 0;
    return { view: { ...full, seat, hand: full.hands[seat], legal: [] }, seat };
  }
  const seat = rp.view === "full" ? rp.bottom || 0 : rp.view;
  return { view: step.views[seat], seat };
}

/** An action of the notation in words and cards: "discard x7" → 打出 [七], "chi x8 x9 | bi …" → 吃 [八][九] · 比 …. */
export function actionText(action) {
  const word = (w) => (w === "bi" ? t("bi") : w === "leave" ? t("escapeBy", { name: "" }).trim() : t(w === "discard" ? "ev_discard" : w));
  const out = [];
  action.split("|").forEach((part, i) => {
    const [verb, ...cards] = part.trim().split(/\s+/);
    if (i) out.push(" · ");
    out.push(word(verb));
    for (const c of cards) out.push(" ", cardEl(c, { size: "xs" }));
  });
  return out;
}

function caption(rp, i, names) {
  const step = rp.steps[i];
  const nameOf = (s) => seatName(null, s, names);
  if (rp.mode === "server") return step.action ? [nameEl(nameOf(step.seat), "pname"), " ", actionText(step.action)] : "";
  if (step.actor) {
    const a = step.actor;
    const verb = t(`ev_${a.type}`);
    return [nameEl(nameOf(a.seat), "pname"), ` ${verb.startsWith("ev_") ? a.type : verb} `, a.card ? cardEl(a.card, { size: "xs" }) : null];
  }
  return "";
}

/** The viewer. `app` gives go(), state.replay (from loadReplay) and rerender(). */
export function renderReplay(app) {
  const rp = app.state.replay;
  const back = h("button", { class: "btn small ghost", onclick: () => app.closeReplay() }, "‹ ", t("back"));
  const hand = rp.server && rp.server.hand ? rp.server.hand : null;
  const title = t("replayTitle", { n: hand ? hand.number : rp.handId });
  const head = h("header", { class: "replay-head" }, back, h("h2", {}, title), app.langButton());
  const fair = fairBadge(rp.fair);
  if (!rp.steps || rp.mode === "none") {
    const body = h("section", { class: "card-box replay-none" }, h("p", {}, t("replayNone")));
    const record = rp.server && rp.server.record;
    if (record && Array.isArray(record.actions)) {
      body.append(h("h3", {}, t("replayActions")));
      body.append(h("ol", { class: "action-list" }, record.actions.map(([s, a]) => h("li", {}, `${t("seatN", { n: s + 1 })}: ${a}`))));
    }
    const outcome = hand && hand.outcome;
    if (outcome && outcome.groups) {
      body.append(h("div", { class: "arrangement" }, outcome.groups.map((gr) => h("div", { class: "grp" }, h("div", { class: "stack" }, gr.cards.map((c) => cardEl(c, { size: "sm" })))))));
    }
    return h("div", { class: "replay-screen" }, head, fair, body);
  }
  const n = rp.steps.length;
  const i = Math.max(0, Math.min(rp.index, n - 1));
  const { view, seat } = stepView(rp, i);
  const names = rp.local ? rp.local.names : rp.names;
  const table = renderTable({ view, seat, hand: rp.handId, timers: [] }, { readOnly: true, names, room: null, prev: null });
  const go = (to) => {
    rp.index = Math.max(0, Math.min(to, n - 1));
    app.rerender();
  };
  const slider = h("input", { type: "range", min: "0", max: String(n - 1), value: String(i), "aria-label": t("stepOf", { i: i + 1, n }) });
  on(slider, "input", (ev) => go(Number(ev.currentTarget.value)));
  const views = h("div", { class: "view-pick" });
  if (rp.mode === "server") {
    const seats = rp.steps[0].views.length;
    const pick = (v, label) => h("button", { class: `btn small${rp.view === v ? " primary" : ""}`, "data-view": String(v), onclick: () => { rp.view = v; app.rerender(); } }, label);
    views.append(pick("full", t("fullView")));
    for (let s = 0; s < seats; s++) views.append(pick(s, names && names[s] ? nameEl(seatName(null, s, names), "pname") : t("seatView", { n: s + 1 })));
  } else {
    views.append(h("span", { class: "note" }, t("replayLocal")));
  }
  // 复盘 (issue 34): only a finished hand the server has (its record) can be reviewed
  const review = rp.mode === "server" ? reviewPanel(app, rp, seatName(null, reviewSeat(rp), names), actionText) : null;
  const controls = h(
    "div",
    { class: "replay-controls" },
    h("button", { class: "btn small", "data-action": "first", onclick: () => go(0), disabled: i === 0, "aria-label": t("first") }, "«"),
    h("button", { class: "btn", "data-action": "prev", onclick: () => go(i - 1), disabled: i === 0, "aria-label": t("prev") }, "◀ ", t("prev")),
    h("span", { class: "step-no", "data-step": String(i) }, t("stepOf", { i: i + 1, n })),
    h("button", { class: "btn", "data-action": "next", onclick: () => go(i + 1), disabled: i === n - 1, "aria-label": t("next") }, t("next"), " ▶"),
    h("button", { class: "btn small", "data-action": "last", onclick: () => go(n - 1), disabled: i === n - 1, "aria-label": t("last") }, "»"),
  );
  return h(
    "div",
    { class: "replay-screen" },
    head,
    fair,
    views,
    review,
    h("div", { class: "replay-caption" }, caption(rp, i, names)),
    rp.mode === "server" ? decisionNote(rp, i, actionText) : null,
    table,
    h("div", { class: "replay-bar" }, slider, controls),
  );
}

/** Keyboard: ← → step. */
export function replayKeys(app, ev) {
  const rp = app.state.replay;
  if (!rp || !rp.steps) return;
  if (ev.key === "ArrowLeft") rp.index = Math.max(0, rp.index - 1);
  else if (ev.key === "ArrowRight") rp.index = Math.min(rp.steps.length - 1, rp.index + 1);
  else return;
  app.rerender();
}
