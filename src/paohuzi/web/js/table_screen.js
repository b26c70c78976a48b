// The table screen: the top bar, the table (table.js) with its bars (解散, 托管), the hint, the chat, the 吃
// chooser, and over it the settlement (settle.js) or a dissolved match's summary; our `act` on its way; the
// short animations of an update's events.

import { clubSameIp } from "./clubs.js";
import { dissolvePanel, dissolvedSummary } from "./dissolve.js";
import { h, toast } from "./dom.js";
import { highlightHint, hintPanel } from "./hint.js";
import { chatText, t } from "./i18n.js";
import { changeTable, publicWaiting } from "./match.js";
import { actSent, actUnanswered } from "./reducer.js";
import { renderSettlement } from "./settle.js";
import { autoStates, dissolveInBar, myAuto, mySeat } from "./state.js";
import { renderSummary, sharePng, summaryPng } from "./summary.js";
import { renderChiChooser, renderTable, resolveSelection, seatName, seatPlaces } from "./table.js";
import { chatPanel, topBar } from "./topbar.js";

// An answer to an `act` always comes (or the connection drops and a snapshot follows); should it not within
// this long, the client asks for a snapshot.
const ACT_ANSWER_MS = 8000;

/** The name shown for `seat` (a seat a player left keeps the player's name). */
export function seatNameOf(state, seat) {
  return seatName(state.room, seat, state.names);
}

/** Each seat's shown name, or null in no room (the replay recorder's names). */
export function seatNames(state) {
  const room = state.room;
  if (!room) return null;
  return room.seats.map((s) => seatName(room, s.seat, state.names));
}

// An action goes out once: from then on the table is drawn without playable cards or live buttons until
// the server answers it (the `update` with its id, or an `error`), so no tap is taken and then lost.
function act(app, action) {
  const state = app.state;
  const g = state.game;
  if (!g) return;
  if (state.pendingAct) {
    toast(t("waitServer"), "warn");
    return;
  }
  // `seq`: the view this was chosen on; if the table moved on meanwhile the server refuses it (stale_view)
  const id = app.send({ type: "act", action, hand: g.hand, seq: g.seq });
  if (id === null) return;
  const pending = { id, hand: g.hand };
  app.commit(actSent(state, pending));
  app.rerender();
  setTimeout(() => {
    if (state.pendingAct !== pending) return;
    app.commit(actUnanswered(state, pending));
    app.sync();
    app.rerender();
  }, ACT_ANSWER_MS);
}

function autoOff(app) {
  app.send({ type: "auto", on: false });
}

/** Short animations: a label over the seat that made a 提/偎/跑/碰/吃/胡. They never block play. */
export function animate(app, events) {
  const g = app.state.game;
  const labels = [];
  for (const ev of events) {
    let key = null;
    if (ev.type === "wei") key = ev.chou ? "ev_chouwei" : "ev_wei";
    else if (["ti", "pao", "peng", "chi", "hu", "dead"].includes(ev.type)) key = `ev_${ev.type}`;
    if (key && typeof ev.seat === "number") labels.push({ seat: ev.seat, text: t(key), kind: ev.type });
  }
  if (!labels.length || !g) return;
  requestAnimationFrame(() => {
    const places = seatPlaces(g.seat, g.view.tables.length);
    for (const { seat, text, kind } of labels) {
      const target = document.querySelector(places[seat] === "me" ? ".table .mine" : `.table .panel[data-seat="${seat}"]`);
      if (!target || !app.root) continue;
      const r = target.getBoundingClientRect();
      // Inside #app, under the dialogs (the settlement is never covered), over the seat's own panel.
      const fx = h("div", { class: `fx fx-${kind}`, style: { left: `${r.left + r.width / 2}px`, top: `${r.top + Math.min(r.height / 2, 40)}px` } }, text);
      app.root.append(fx);
      setTimeout(() => fx.remove(), 1100);
    }
  });
}

/** Share the 总结算 as a PNG (summary.js). */
function shareSummary(app) {
  const state = app.state;
  if (!state.summary) return;
  const png = summaryPng(state.summary, state.room ? state.room.code : null);
  app.lastShare = png;
  sharePng(png);
}

function tableCtx(app) {
  const state = app.state;
  const nameOf = (seat) => seatNameOf(state, seat);
  const play = (action) => act(app, action);
  return {
    room: state.room,
    names: state.names,
    sameIp: clubSameIp(state, state.room), // 同IP at a club table (issue 31 §4)
    auto: autoStates(state),
    selected: state.selected,
    prev: state.prevGame,
    busy: !!state.pendingAct,
    waits: state.game ? state.game.waits : null,
    bubbles: Object.fromEntries(Object.entries(state.bubbles).map(([s, b]) => [s, chatText(b.phrase)])),
    dealt: state.dealStart && state.game && state.dealStart.hand === state.game.hand ? performance.now() - state.dealStart.at : null,
    // 托管: a bar right above the hand says so and switches it off (the room's state, also between hands).
    // 解散: an open proposal's bar goes there too (R8.2: the hand goes on, so it never covers the hand or the claims).
    bar: [
      dissolveInBar(state) ? dissolvePanel(state.room, mySeat(state), nameOf, app.send) : null,
      myAuto(state)
        ? h("div", { class: "auto-bar", "data-testid": "auto-bar" }, h("span", {}, t("autoBar")), h("button", { class: "btn small primary", "data-action": "auto-off", onclick: () => autoOff(app) }, t("autoOff")))
        : null,
    ].filter(Boolean),
    onCard(cell, action) {
      const g = state.game;
      const sel = resolveSelection(g, state.selected);
      if (sel && sel.card === cell.card && sel.col === cell.col && sel.idx === cell.idx) play(action);
      else {
        state.selected = { hand: g.hand, card: cell.card, col: cell.col, idx: cell.idx };
        app.rerender();
      }
    },
    onDragDiscard: play,
    onClaim: play,
    onChooseChi(options) {
      state.chiOptions = options;
      app.rerender();
    },
  };
}

/** The settlement's buttons: next hand, rematch, leave, quit, change table, a hand's replay. */
function settlementCtx(app, ho, matchOver) {
  const state = app.state;
  const g = state.game;
  const done = () => Object.assign(state, { settleOpen: false, handOver: null, game: null });
  return {
    room: state.room,
    names: state.names,
    auto: myAuto(state),
    onAutoOff: () => autoOff(app),
    seat: g ? g.seat : ho.view ? ho.view.seat : 0,
    matchOver,
    nextStarted: !!(g && g.hand !== ho.hand),
    summary: matchOver ? state.summary : null,
    onShare: () => shareSummary(app),
    onNext: () => {
      state.settleOpen = false;
      app.rerender();
    },
    onRematch: () => {
      done();
      state.matchOver = null;
      app.send(state.room && state.room.kind === "private" ? { type: "ready", ready: true } : { type: "rematch" });
      app.rerender();
    },
    onLeave: () => {
      done();
      if (state.room && state.room.kind === "private") {
        state.matchOver = null;
        app.rerender();
      } else {
        app.leaveRoom();
      }
    },
    onQuit: () => app.leaveRoom(),
    onChangeTable: () => changeTable(app),
    onReplay: (hand) => app.openReplay(hand),
  };
}

/** The match a settlement shows as over: the `match_over`, or the room's finished match of that hand. */
function finishedMatch(state, ho) {
  if (state.matchOver) return state.matchOver;
  const match = state.room && state.room.match;
  return match && match.finished && match.hand_id === ho.hand ? { ranking: match.ranking, scores: match.scores } : null;
}

export function renderTableScreen(app) {
  const state = app.state;
  const g = state.game;
  const nameOf = (seat) => seatNameOf(state, seat);
  const screen = h("div", { class: "table-screen" });
  screen.append(topBar(app));
  if (state.conn === "replaced") {
    screen.append(h("div", { class: "banner warn" }, t("replaced"), " ", h("button", { class: "btn small", onclick: () => app.socket.reclaim() }, t("reclaim"))));
  } else if (state.conn === "offline" || state.conn === "connecting") {
    screen.append(h("div", { class: "banner", "data-testid": "conn-banner" }, t(state.conn)));
  }
  if (g) {
    // The lifted card stays lifted across redraws while it may still be discarded (a frame can come between
    // the two taps), and is dropped once it may not.
    state.selected = resolveSelection(g, state.selected);
    screen.append(renderTable(g, tableCtx(app)));
    const hint = hintPanel(g, state.hint);
    if (hint) screen.append(hint);
    highlightHint(screen, g, state.hint);
  } else if (state.room && state.room.kind === "public" && state.room.status !== "playing" && !state.settleOpen) {
    screen.append(publicWaiting(app));
  } else {
    screen.append(h("div", { class: "table empty" }, h("div", { class: "spinner" }), t("loading")));
  }
  if (state.chatOpen && g) screen.append(chatPanel(app));
  // With no table to play on (between hands, under the settlement), the proposal floats above everything.
  const proposal = dissolveInBar(state) ? null : dissolvePanel(state.room, mySeat(state), nameOf, app.send, true);
  if (proposal) {
    screen.classList.add("has-dissolve-float");
    screen.append(proposal);
  }
  if (state.matchOver && state.matchOver.status === "dissolved") {
    const summary = state.summary ? renderSummary(state.summary, { me: mySeat(state), onReplay: (hand) => app.openReplay(hand), onShare: () => shareSummary(app) }) : null;
    screen.append(
      dissolvedSummary(state.matchOver, nameOf, summary, () => {
        Object.assign(state, { matchOver: null, handOver: null, settleOpen: false, game: null });
        if (state.room && state.room.kind === "private") app.rerender();
        else app.leaveRoom();
      }),
    );
  }
  if (state.chiOptions && g && g.view.pending) {
    const close = () => {
      state.chiOptions = null;
      app.rerender();
    };
    screen.append(renderChiChooser(state.chiOptions, g.view.pending.card, (a) => act(app, a), close));
  }
  if (state.settleOpen && state.handOver) {
    const ho = state.handOver;
    screen.append(renderSettlement(ho, settlementCtx(app, ho, finishedMatch(state, ho))));
  }
  return screen;
}
