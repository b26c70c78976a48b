// The paohuzi web client: state, the websocket frames, and which screen to draw.
//
// Screens: lobby → (private room: waiting room) → table (with the settlement on top) ; replay (#/replay/ID);
// the profile pages (#/me, #/player/ID, #/account, #/boards: profile.js).
// The table is redrawn from each `game`/`update` frame's `view`; nothing is computed from events but the
// short animations.

import { loggedOutNotice } from "./account.js";
import { api, ApiError, ensureGuest } from "./api.js";
import { dissolutionEnded, dissolveButton, dissolvePanel, dissolvedSummary } from "./dissolve.js";
import { h, keepClicksAcrossRedraws, mount, toast } from "./dom.js";
import { highlightHint, hintButton, hintPanel, onHint } from "./hint.js";
import { CHAT_EMOJI, chatPhrases, chatText, errorText, lang, loadStrings, setLang, t } from "./i18n.js";
import { loadLobbyData, renderDialog, renderLobby, renderRoom, stampReadyClocks } from "./lobby.js";
import { changeTable, loadMatchData, onQueue, publicWaiting, renderQueue, roomLabel } from "./match.js";
import { GameSocket } from "./net.js";
import { loadPage, pageRoute, renderPage } from "./profile.js";
import { HandRecorder, loadReplay, renderReplay, replayKeys } from "./replay.js";
import { rulesEl } from "./rules.js";
import { renderSettlement } from "./settle.js";
import { loadSummary, renderSummary, sharePng, summaryPng } from "./summary.js";
import { play, played, setSound, soundFor, soundOn } from "./sound.js";
import { renderChiChooser, renderTable, resolveSelection, restyleDrag, seatName, seatPlaces } from "./table.js";

const state = {
  player: null,
  room: null,
  queue: null, // our place in a public tables' queue (匹配, match.js), or null
  game: null, // {hand, seq, seat, view, timers, scores, auto, number, hands, match}
  prevGame: null,
  handOver: null,
  settleOpen: false,
  matchOver: null,
  conn: "idle",
  selected: null, // the lifted card: {hand, card, col, idx} (table.js resolveSelection)
  chiOptions: null,
  busy: false, // an HTTP request of the lobby is on its way
  pendingAct: null, // {id, hand}: our `act` on its way; the table is not playable until the server answers
  names: [], // each seat's {nickname, bot} in this match, kept when a player leaves (逃跑 shows the name)
  namesMatch: null,
  dealStart: null, // {hand, at}: when this hand's deal was shown (the dealing animation)
  notice: null, // {penalty}: shown in the lobby after you left a hand (逃跑)
  chatOpen: false, // the quick-chat panel
  chatMuted: false, // this table's bubbles hidden (per table: reset in another room)
  chatRoom: null,
  bubbles: {}, // seat → {phrase, until}
  summary: null, // 总结算 of the match just over (GET /api/matches/{id})
  screen: "lobby",
  booted: false, // start-up done: identity, route, the lobby's data (body[data-ready] once also online)
  wantLobby: false,
  dialog: null,
  presets: null,
  leaderboard: null,
  history: null,
  replay: null,
  page: null, // a profile page (profile.js): {name, data, loading, error}
  loggedOut: false, // the socket was refused (4001): this session was revoked elsewhere
  error: null,
};

const recorder = new HandRecorder();
let socket = null;
let rootEl = null;

const app = {
  state,
  rerender: () => render(),
  go(screen) {
    if (screen === "lobby") {
      state.wantLobby = true;
      if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    } else {
      state.wantLobby = false;
    }
    render();
  },
  langButton() {
    return h(
      "button",
      {
        class: "btn small lang",
        title: t("langTitle"),
        lang: lang() === "zh" ? "en" : "zh-CN", // the other language's name, in that language
        "data-action": "lang",
        onclick: () => {
          setLang(lang() === "zh" ? "en" : "zh");
          render();
        },
      },
      t("lang"),
    );
  },
  send(frame) {
    const id = socket ? socket.send(frame) : null;
    if (id === null) toast(t("offline"), "warn");
    return id;
  },
  guarded: (fn) => guarded(fn),
  openDialog(which) {
    state.dialog = which;
    render();
  },
  async quickPlay(preset, level) {
    await guarded(async () => {
      const body = preset ? { preset } : {};
      if (level) body.bot_level = level; // the opponents' level (levels.js)
      const { room } = await api("POST", "/api/rooms/quick", body);
      enterRoom(room);
    });
  },
  async createRoom(body) {
    await guarded(async () => {
      const { room } = await api("POST", "/api/rooms", body);
      state.dialog = null;
      enterRoom(room);
    });
  },
  async joinRoom(code) {
    if (!/^\d{6}$/.test(code)) {
      toast(t("err_invalid"), "warn");
      return;
    }
    await guarded(async () => {
      const { room } = await api("POST", `/api/rooms/${code}/join`, {});
      state.dialog = null;
      enterRoom(room);
    });
  },
  async leaveRoom() {
    const midHand = state.game && state.game.view && state.game.view.phase !== "over";
    if (midHand && !confirm(t("leaveConfirm"))) return;
    await guarded(async () => {
      const res = await api("POST", "/api/rooms/leave");
      // 逃跑 (R7.3): the leaver is told what it cost, in the lobby it goes back to.
      state.notice = res && res.penalty ? { penalty: res.penalty } : null;
      state.room = null;
      state.game = null;
      state.handOver = null;
      state.settleOpen = false;
      state.matchOver = null;
      app.go("lobby");
    });
  },
  async rename(nickname) {
    await guarded(async () => {
      const { player } = await api("PATCH", "/api/me", { nickname });
      state.player = player;
      render();
    });
  },
  openReplay(handId) {
    location.hash = `#/replay/${handId}`;
  },
  /** A replay code typed in the lobby (or a link `#/r/CODE`) opens that hand's replay. */
  openReplayCode(text) {
    const code = String(text || "").toUpperCase().replace(/[\s-]/g, "");
    if (!/^[2-9A-HJ-NP-Z]{7,13}$/.test(code)) {
      toast(t("replayCodeBad"), "error");
      return;
    }
    location.hash = `#/r/${code}`;
  },
  closeReplay() {
    state.replay = null;
    history.pushState(null, "", location.pathname + location.search);
    onRoute();
  },
  closePage() {
    state.page = null;
    history.pushState(null, "", location.pathname + location.search);
    onRoute();
  },
  /** Load the page on screen again (after a change made on it), and the player's profile. */
  async reloadPage() {
    const page = state.page;
    if (!page) return;
    await loadPage(page);
    try {
      state.player = (await api("GET", "/api/me")).player;
    } catch {
      /* keep the old profile */
    }
    render();
  },
  guard: (fn) => guarded(fn),
};
app.sounds = played; // how many sounds were asked for (the browser tests read it)
window.paohuzi = app; // for debugging in the console

async function guarded(fn) {
  try {
    state.busy = true;
    await fn();
  } catch (err) {
    const code = err instanceof ApiError ? err.code : "internal";
    if (code === "unauthorized") state.loggedOut = true; // this session was revoked elsewhere (account.js)
    else toast(t("errorPrefix") + errorText(code, err.message), "error");
  } finally {
    state.busy = false;
    render();
  }
}

function enterRoom(room) {
  state.room = stampReadyClocks(room);
  state.wantLobby = false;
  state.matchOver = null;
  state.handOver = null;
  state.settleOpen = false;
  if (socket && socket.status === "online") socket.send({ type: "sync" });
  render();
}

async function refreshLobby() {
  await Promise.all([loadLobbyData(app), loadMatchData(app)]);
  try {
    const me = await api("GET", "/api/me");
    state.player = me.player;
  } catch {
    /* keep the old profile */
  }
  render();
}

// ---- frames ------------------------------------------------------------------------------------------

function withLocalDeadlines(timers) {
  const now = performance.now();
  return (timers || []).map((tm) => ({ ...tm, localDeadline: now + (tm.remaining_ms || 0) }));
}

/** Remember each seat's name for this match: a seat a player left keeps the name (逃跑 by name). */
function rememberNames(room) {
  if (!room || !room.seats) return;
  const matchId = room.match ? room.match.id : null;
  if (matchId !== state.namesMatch && room.status === "playing") {
    state.names = [];
    state.namesMatch = matchId;
  }
  for (const s of room.seats) {
    if (s.player) state.names[s.seat] = { nickname: s.player.nickname, bot: false };
    else if (s.bot) state.names[s.seat] = { nickname: "", bot: s.bot }; // the level key (levels.js)
  }
}

function seatNameOf(seat) {
  return seatName(state.room, seat, state.names);
}

function names() {
  const room = state.room;
  if (!room) return null;
  return room.seats.map((s) => seatName(room, s.seat, state.names));
}

/** 托管 of each seat, from the room (the server's word, also between hands), else from the last frame. */
function autoStates() {
  const g = state.game;
  if (state.room && state.room.seats) return state.room.seats.map((s) => !!s.auto);
  return g && g.auto ? g.auto : [];
}

function mySeat() {
  if (state.game) return state.game.seat;
  if (state.handOver && state.handOver.view) return state.handOver.view.seat;
  const me = state.player ? state.player.id : null;
  const seat = state.room ? state.room.seats.find((s) => s.player && s.player.id === me) : null;
  return seat ? seat.seat : null;
}

function myAuto() {
  const seat = mySeat();
  return seat !== null && !!autoStates()[seat];
}

function autoOff() {
  app.send({ type: "auto", on: false });
}

function answered() {
  state.pendingAct = null;
}

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      state.player = frame.player;
      state.queue = null; // a `queue` frame follows while we still wait (match.js)
      break;
    case "room": {
      const old = state.room;
      state.room = stampReadyClocks(frame.room);
      rememberNames(frame.room);
      if (frame.room && frame.room.status === "closed") state.room = null;
      if (old && state.room && old.code !== state.room.code) state.matchOver = null;
      if (state.room && state.room.status === "playing") state.matchOver = null;
      break;
    }
    case "game": {
      state.prevGame = state.game && state.game.hand === frame.hand ? state.game : null;
      const isNewHand = !state.game || state.game.hand !== frame.hand;
      answered(); // a full snapshot: whatever we sent is in it (or was refused)
      rememberNames(state.room);
      if (isNewHand && frame.seq === 0 && !frame.over) state.dealStart = { hand: frame.hand, at: performance.now() };
      state.game = {
        hand: frame.hand,
        seq: frame.seq,
        seat: frame.seat,
        view: frame.view,
        timers: withLocalDeadlines(frame.timers),
        scores: frame.scores,
        auto: frame.auto,
        number: frame.number,
        hands: frame.hands,
        match: frame.match,
        waits: frame.waits,
      };
      if (isNewHand) {
        state.selected = null;
        state.chiOptions = null;
        state.matchOver = null;
      }
      state.busy = false;
      state.wantLobby = false;
      recorder.frame(frame, names());
      break;
    }
    case "update": {
      const g = state.game;
      if (!g || g.hand !== frame.hand) {
        if (socket) socket.send({ type: "sync" });
        return;
      }
      if (frame.seq < g.seq) return;
      state.prevGame = { ...g };
      g.seq = frame.seq;
      g.view = frame.view;
      g.timers = withLocalDeadlines(frame.timers);
      if (frame.auto) g.auto = frame.auto;
      if (frame.waits !== undefined) g.waits = frame.waits;
      if (state.pendingAct && frame.id === state.pendingAct.id) answered();
      if (!frame.view.legal || !frame.view.legal.length) state.chiOptions = null;
      recorder.frame(frame, names());
      animate(frame.events || [], g);
      soundFor(frame.events);
      break;
    }
    case "hand_over":
      state.handOver = frame;
      state.settleOpen = true;
      answered();
      state.chiOptions = null;
      if (frame.outcome && frame.outcome.kind === "hu") play("win");
      if (state.game && state.game.hand === frame.hand) {
        state.prevGame = { ...state.game };
        state.game.view = frame.view;
        state.game.timers = [];
        state.game.scores = frame.scores;
      }
      recorder.frame(frame, names());
      break;
    case "match_over":
      state.matchOver = frame;
      if (!state.handOver || frame.status === "dissolved") state.settleOpen = false;
      state.summary = null;
      loadSummary(frame.match).then((summary) => {
        if (state.matchOver === frame) {
          state.summary = summary;
          render();
        }
      });
      break;
    case "dissolution":
      dissolutionEnded(frame, seatNameOf);
      break;
    case "error":
      if (state.pendingAct && (frame.id === state.pendingAct.id || frame.id === undefined)) answered();
      toast(errorText(frame.code, frame.message), "error");
      break;
    case "kicked":
      // by the owner, or for not getting ready in time (reason "ready_timeout", docs/protocol.md §3.2)
      state.notice = { kicked: frame.room, reason: frame.reason, seconds: frame.seconds };
      state.room = null;
      state.game = null;
      break;
    case "chat": {
      // A bubble by the seat for a few seconds, unless this table is muted.
      const code = state.room ? state.room.code : null;
      if (state.chatRoom !== code) {
        state.chatRoom = code;
        state.chatMuted = false;
      }
      if (!state.chatMuted && typeof frame.seat === "number") {
        const bubble = { phrase: frame.phrase, until: performance.now() + 4000 };
        state.bubbles[frame.seat] = bubble;
        setTimeout(() => {
          if (state.bubbles[frame.seat] === bubble) {
            delete state.bubbles[frame.seat];
            render();
          }
        }, 4000);
      }
      break;
    }
    case "hint":
      onHint(frame, state.game);
      break;
    case "queue":
      onQueue(state, frame.queue);
      break;
    case "pong":
      break;
    default:
      break;
  }
  render();
}

// Short animations: a label over the seat that made a 提/偎/跑/碰/吃/胡. They never block play.
function animate(events, g) {
  const labels = [];
  for (const ev of events) {
    let key = null;
    if (ev.type === "wei") key = ev.chou ? "ev_chouwei" : "ev_wei";
    else if (["ti", "pao", "peng", "chi", "hu", "dead"].includes(ev.type)) key = `ev_${ev.type}`;
    if (key && typeof ev.seat === "number") labels.push({ seat: ev.seat, text: t(key), kind: ev.type });
  }
  if (!labels.length) return;
  requestAnimationFrame(() => {
    const places = seatPlaces(g.seat, g.view.tables.length);
    for (const { seat, text, kind } of labels) {
      const target = document.querySelector(places[seat] === "me" ? ".table .mine" : `.table .panel[data-seat="${seat}"]`);
      if (!target || !rootEl) continue;
      const r = target.getBoundingClientRect();
      // Inside #app, under the dialogs (the settlement is never covered), over the seat's own panel.
      const fx = h("div", { class: `fx fx-${kind}`, style: { left: `${r.left + r.width / 2}px`, top: `${r.top + Math.min(r.height / 2, 40)}px` } }, text);
      rootEl.append(fx);
      setTimeout(() => fx.remove(), 1100);
    }
  });
}

function onStatus(status) {
  state.conn = status;
  if (status === "unauthorized") state.loggedOut = true;
  if (status !== "online") answered(); // a new connection gets the full snapshot
  render();
}

// ---- table actions --------------------------------------------------------------------------------------

// An action goes out once: from then on the table is drawn without playable cards or live buttons until
// the server answers it (the `update` with its id, or an `error`), so no tap is taken and then lost.
function act(action) {
  const g = state.game;
  if (!g) return;
  if (state.pendingAct) {
    toast(t("waitServer"), "warn");
    return;
  }
  const id = app.send({ type: "act", action, hand: g.hand });
  if (id !== null) {
    const pending = { id, hand: g.hand };
    state.pendingAct = pending;
    state.selected = null;
    state.chiOptions = null;
    render();
    // An answer always comes (or the connection drops and a snapshot follows); should it not, ask for one.
    setTimeout(() => {
      if (state.pendingAct === pending) {
        answered();
        if (socket) socket.send({ type: "sync" });
        render();
      }
    }, 8000);
  }
}

const tableCtx = () => ({
  room: state.room,
  names: state.names,
  auto: autoStates(),
  selected: state.selected,
  prev: state.prevGame,
  busy: !!state.pendingAct,
  waits: state.game ? state.game.waits : null,
  bubbles: Object.fromEntries(Object.entries(state.bubbles).map(([s, b]) => [s, chatText(b.phrase)])),
  dealt: state.dealStart && state.game && state.dealStart.hand === state.game.hand ? performance.now() - state.dealStart.at : null,
  // 托管: a bar right above the hand says so and switches it off (the room's state, also between hands).
  // 解散: an open proposal's bar goes there too (R8.2: the hand goes on, so it never covers the hand or the claims).
  bar: [
    dissolveInBar() ? dissolvePanel(state.room, mySeat(), seatNameOf, app.send) : null,
    myAuto()
      ? h("div", { class: "auto-bar", "data-testid": "auto-bar" }, h("span", {}, t("autoBar")), h("button", { class: "btn small primary", "data-action": "auto-off", onclick: autoOff }, t("autoOff")))
      : null,
  ].filter(Boolean),
  onCard(cell, action) {
    const g = state.game;
    const sel = resolveSelection(g, state.selected);
    if (sel && sel.card === cell.card && sel.col === cell.col && sel.idx === cell.idx) act(action);
    else {
      state.selected = { hand: g.hand, card: cell.card, col: cell.col, idx: cell.idx };
      render();
    }
  },
  onDragDiscard(action) {
    act(action);
  },
  onClaim(action) {
    act(action);
  },
  onChooseChi(options) {
    state.chiOptions = options;
    render();
  },
});

// ---- screens ------------------------------------------------------------------------------------------

function currentScreen() {
  if (state.replay) return "replay";
  if (state.queue && !state.room) return "queue";
  if (state.page) return "page";
  if (state.wantLobby || !state.room) return "lobby";
  if (state.game || state.settleOpen || state.room.status === "playing") return "table";
  if (state.room.kind === "private") return "room";
  if (state.room.kind === "public") return "table"; // between hands, waiting for the others' 继续
  return "lobby";
}

/** 托管, 聊天, 解散 and 提示: the table's buttons, while a hand is on the table. */
function topActions(room, g, auto) {
  return [
    h(
      "button",
      // a toggle: lit while 托管 is on (its title says how to stop it; the bar above the hand says it in full),
      // so the label keeps its width and a phone's second row keeps the room code and the hand number
      { class: `btn small auto-btn${auto ? " on" : ""}`, "data-action": "auto", "aria-pressed": auto ? "true" : "false", title: auto ? t("autoOff") : t("auto"), onclick: () => app.send({ type: "auto", on: !auto }) },
      t("auto"),
    ),
    h(
      "button",
      { class: `btn small ghost chat-btn${state.chatOpen ? " on" : ""}`, "data-action": "chat", "aria-expanded": state.chatOpen ? "true" : "false", onclick: () => { state.chatOpen = !state.chatOpen; render(); } },
      t("chat"),
    ),
    dissolveButton(room, app.send),
    hintButton(room, g, app.send),
  ];
}

function topBar() {
  const g = state.game;
  const room = state.room;
  const auto = myAuto();
  const sound = soundOn();
  const conn = h("span", { class: `conn conn-${state.conn}`, "data-conn": state.conn, title: t(state.conn === "idle" ? "connecting" : state.conn) }, h("i", {}), h("span", { class: "conn-text" }, t(state.conn === "idle" ? "connecting" : state.conn)));
  return h(
    "header",
    { class: `topbar${room && room.kind === "public" ? " public" : ""}` }, // public: the tier before the rules (match.js)
    h("button", { class: "btn small ghost icon", "data-action": "leave-table", title: t("leaveMatch"), onclick: () => app.leaveRoom() }, "✕"),
    h(
      "span",
      { class: "top-info" },
      room ? h("span", { class: "top-code" }, roomLabel(room)) : null,
      g && g.number ? h("span", { class: "top-hand" }, t("handOf", { n: g.number, m: g.hands || "?" })) : null,
    ),
    room && room.options ? rulesEl(room.options, "top-rules") : null,
    conn,
    // 托管 聊天 解散 提示 in a group: on a phone it is the top bar's second row (app.css), each label on one line.
    g ? h("span", { class: "top-actions" }, topActions(room, g, auto)) : null,
    h(
      "button",
      {
        class: `btn small ghost icon sound${sound ? " on" : ""}`,
        "data-action": "sound",
        "aria-pressed": sound ? "true" : "false",
        title: sound ? t("soundOff") : t("soundOn"),
        "aria-label": sound ? t("soundOff") : t("soundOn"),
        onclick: () => {
          setSound(!soundOn());
          render();
        },
      },
      speakerIcon(sound),
    ),
    app.langButton(),
  );
}

/** A speaker drawn as SVG (no emoji font needed): with sound waves, or crossed out. */
function speakerIcon(on) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  const path = (d, fill) => {
    const el = document.createElementNS(NS, "path");
    el.setAttribute("d", d);
    el.setAttribute("fill", fill ? "currentColor" : "none");
    el.setAttribute("stroke", "currentColor");
    el.setAttribute("stroke-width", "2");
    el.setAttribute("stroke-linecap", "round");
    svg.append(el);
  };
  path("M4 9h4l5-4v14l-5-4H4z", true);
  if (on) {
    path("M16 9a4 4 0 0 1 0 6", false);
    path("M18.5 6.5a7.5 7.5 0 0 1 0 11", false);
  } else {
    path("M16 9l6 6M22 9l-6 6", false);
  }
  return svg;
}

/** The quick-chat panel: the fixed phrases and emoji (docs/protocol.md §3.1), and the table's mute. */
function chatPanel() {
  const say = (n) => {
    app.send({ type: "chat", phrase: n });
    state.chatOpen = false;
    render();
  };
  const words = chatPhrases();
  const phrases = Array.from({ length: words }, (_, n) => h("button", { class: "chat-phrase", "data-phrase": String(n), onclick: () => say(n) }, chatText(n)));
  const emoji = CHAT_EMOJI.map((_, i) => h("button", { class: "chat-emoji", "data-phrase": String(words + i), onclick: () => say(words + i) }, chatText(words + i)));
  const mute = h(
    "button",
    {
      class: "btn small ghost",
      "data-action": "chat-mute",
      "aria-pressed": state.chatMuted ? "true" : "false",
      onclick: () => {
        state.chatMuted = !state.chatMuted;
        state.chatRoom = state.room ? state.room.code : null;
        if (state.chatMuted) state.bubbles = {};
        render();
      },
    },
    state.chatMuted ? t("chatUnmute") : t("chatMute"),
  );
  return h("div", { class: "chat-panel", role: "dialog", "aria-label": t("chat") }, h("div", { class: "chat-phrases" }, phrases), h("div", { class: "chat-emojis" }, emoji), mute);
}

/** Share the 总结算 as a PNG (summary.js). */
function shareSummary() {
  if (!state.summary) return;
  const png = summaryPng(state.summary, state.room ? state.room.code : null);
  app.lastShare = png;
  sharePng(png);
}

/** Whether the table is on screen to carry an open 解散 proposal in its bar (no settlement over it). */
function dissolveInBar() {
  return !!state.game && !(state.settleOpen && state.handOver) && !(state.matchOver && state.matchOver.status === "dissolved");
}

function renderTableScreen() {
  const g = state.game;
  const screen = h("div", { class: "table-screen" });
  screen.append(topBar());
  if (state.conn === "replaced") {
    screen.append(h("div", { class: "banner warn" }, t("replaced"), " ", h("button", { class: "btn small", onclick: () => socket.reclaim() }, t("reclaim"))));
  } else if (state.conn === "offline" || state.conn === "connecting") {
    screen.append(h("div", { class: "banner", "data-testid": "conn-banner" }, t(state.conn)));
  }
  if (g) {
    // The lifted card stays lifted across redraws while it may still be discarded (a frame can come between
    // the two taps), and is dropped once it may not.
    state.selected = resolveSelection(g, state.selected);
    screen.append(renderTable(g, tableCtx()));
    const hint = hintPanel(g);
    if (hint) screen.append(hint);
    highlightHint(screen, g);
  } else if (state.room && state.room.kind === "public" && state.room.status !== "playing" && !state.settleOpen) {
    screen.append(publicWaiting(app));
  } else {
    screen.append(h("div", { class: "table empty" }, h("div", { class: "spinner" }), t("loading")));
  }
  if (state.chatOpen && g) screen.append(chatPanel());
  // With no table to play on (between hands, under the settlement), the proposal floats above everything.
  const proposal = dissolveInBar() ? null : dissolvePanel(state.room, mySeat(), seatNameOf, app.send, true);
  if (proposal) {
    screen.classList.add("has-dissolve-float");
    screen.append(proposal);
  }
  if (state.matchOver && state.matchOver.status === "dissolved") {
    screen.append(
      dissolvedSummary(state.matchOver, seatNameOf, state.summary ? renderSummary(state.summary, { me: mySeat(), onReplay: (hand) => app.openReplay(hand), onShare: shareSummary }) : null, () => {
        state.matchOver = null;
        state.handOver = null;
        state.settleOpen = false;
        state.game = null;
        if (state.room && state.room.kind === "private") render();
        else app.leaveRoom();
      }),
    );
  }
  if (state.chiOptions && g && g.view.pending) {
    screen.append(renderChiChooser(state.chiOptions, g.view.pending.card, (a) => act(a), () => { state.chiOptions = null; render(); }));
  }
  if (state.settleOpen && state.handOver) {
    const ho = state.handOver;
    const matchOver = state.matchOver || (state.room && state.room.match && state.room.match.finished && state.room.match.hand_id === ho.hand ? { ranking: state.room.match.ranking, scores: state.room.match.scores } : null);
    screen.append(
      renderSettlement(ho, {
        room: state.room,
        names: state.names,
        auto: myAuto(),
        onAutoOff: autoOff,
        seat: g ? g.seat : ho.view ? ho.view.seat : 0,
        matchOver,
        nextStarted: !!(g && g.hand !== ho.hand),
        summary: matchOver ? state.summary : null,
        onShare: shareSummary,
        onNext: () => {
          state.settleOpen = false;
          render();
        },
        onRematch: () => {
          state.settleOpen = false;
          state.handOver = null;
          state.matchOver = null;
          state.game = null;
          if (state.room && state.room.kind === "private") {
            app.send({ type: "ready", ready: true });
          } else {
            app.send({ type: "rematch" });
          }
          render();
        },
        onLeave: () => {
          state.settleOpen = false;
          state.handOver = null;
          state.game = null;
          if (state.room && state.room.kind === "private") {
            state.matchOver = null;
            render();
          } else {
            app.leaveRoom();
          }
        },
        onQuit: () => app.leaveRoom(),
        onChangeTable: () => changeTable(app),
        onReplay: (hand) => app.openReplay(hand),
      }),
    );
  }
  return screen;
}

function render() {
  if (!rootEl) return;
  const screen = currentScreen();
  const scrollY = window.scrollY;
  let content;
  if (screen === "replay") content = renderReplay(app);
  else if (screen === "page") content = renderPage(app);
  else if (screen === "table") content = renderTableScreen();
  else if (screen === "room") content = renderRoom(app);
  else if (screen === "queue") content = renderQueue(app);
  else content = renderLobby(app);
  const wrap = h("div", { class: `screen screen-${screen}`, "data-screen": screen }, content);
  if (state.dialog && screen === "lobby") wrap.append(renderDialog(app, state.dialog));
  if (state.loggedOut) wrap.append(loggedOutNotice());
  if (screen !== "table" && state.conn !== "online" && state.conn !== "idle") {
    wrap.append(h("div", { class: `conn-float conn-${state.conn}`, "data-conn": state.conn }, h("i", {}), t(state.conn)));
  }
  // What was typed into the page's fields survives the redraw (a username typed before the password) …
  const typed = typedFields(rootEl);
  // … and the focus of an input being typed into (a lobby re-render while typing).
  const active = document.activeElement;
  const activeName = active && active.name && rootEl.contains(active) ? active.name : null;
  const activeValue = activeName ? active.value : null;
  // … and the focus of a hand card (keyboard play).
  const activeCard = active && active.matches && active.matches(".hand .card[data-key]") && rootEl.contains(active) ? active.dataset : null;
  mount(rootEl, wrap);
  restoreFields(rootEl, typed);
  if (activeCard) {
    const again = rootEl.querySelector(`.hand .card[data-key="${activeCard.key}"][data-card="${activeCard.card}"][tabindex]`);
    if (again) again.focus();
  }
  restyleDrag();
  document.body.dataset.screen = screen;
  // Ready: start-up finished and the game connection is up (what a test waits for before it clicks).
  document.body.toggleAttribute("data-ready", state.booted && state.conn === "online");
  if (activeName) {
    const again = rootEl.querySelector(`[name="${activeName}"]`);
    if (again && again.tagName === "INPUT" && again.type !== "checkbox") {
      again.value = activeValue;
      again.focus();
    }
  }
  if (state.screen === screen && screen !== "table") window.scrollTo(0, scrollY);
  if (state.screen !== screen) {
    state.screen = screen;
    if (screen === "lobby") refreshLobby();
  }
}

/** The page's named fields a person changed and has not sent yet (value ≠ the one it was drawn with). */
function typedFields(root) {
  const out = [];
  for (const el of root.querySelectorAll("input[name], textarea[name]")) {
    if (el.type === "checkbox" || el.type === "radio") {
      if (el.checked !== el.defaultChecked) out.push({ name: el.name, type: el.type, checked: el.checked, drawn: el.defaultChecked });
    } else if (el.type !== "hidden" && el.type !== "file" && el.value !== el.defaultValue) {
      out.push({ name: el.name, type: el.type, value: el.value, drawn: el.defaultValue });
    }
  }
  return out;
}

/** Put them back into the same fields of the new page — where the field was drawn as before (a field the
 * app drew with another value, say the nickname after a rename, shows the app's). */
function restoreFields(root, fields) {
  for (const f of fields) {
    const el = root.querySelector(`[name="${CSS.escape(f.name)}"]`);
    if (!el || el.type !== f.type) continue;
    if (f.checked !== undefined) {
      if (el.defaultChecked === f.drawn) el.checked = f.checked;
    } else if (el.defaultValue === f.drawn) {
      el.value = f.value;
    }
  }
}

// Countdowns tick without redrawing the table.
setInterval(() => {
  const now = performance.now();
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - now) / 1000));
    if (el.textContent !== String(left)) el.textContent = String(left);
    el.classList.toggle("low", left <= 5);
  }
}, 250);

// ---- routing and start-up ------------------------------------------------------------------------------

// One navigation to a fragment fires both popstate and hashchange, so two onRoute calls overlap: only the
// newest one's replay is shown (an older load finishing later would reset the viewer to step 0 under the user).
let routeSeq = 0;

async function onRoute() {
  const page = pageRoute(location.hash);
  // one navigation fires both popstate and hashchange: the page already loading for this hash is kept
  if (page && state.page && state.page.loading && state.page.hash === location.hash) return;
  const seq = ++routeSeq;
  if (page) {
    page.hash = location.hash;
    // a profile page (profile.js): drawn at once, filled when its data comes
    state.replay = null;
    state.page = Object.assign(page, { loading: true });
    render();
    await loadPage(page);
    if (seq === routeSeq) render();
    return;
  }
  state.page = null;
  const m = location.hash.match(/^#\/replay\/(\d+)/);
  const byCode = location.hash.match(/^#\/r\/([2-9A-Za-z]{7,13})$/);
  let replay = null;
  if (m) {
    state.replay = { handId: Number(m[1]), loading: true, steps: null, mode: "none" };
    render();
    replay = await loadReplay(Number(m[1]), state.player);
  } else if (byCode) {
    state.replay = { handId: null, loading: true, steps: null, mode: "none" };
    render();
    replay = await loadReplay(null, state.player, byCode[1].toUpperCase());
  }
  if (seq !== routeSeq) return;
  state.replay = replay;
  render();
}

async function start() {
  rootEl = document.getElementById("app");
  keepClicksAcrossRedraws(); // a click split by a redraw still counts (dom.js)
  try {
    await loadStrings();
  } catch (err) {
    // The page still works, each word shown by its key; the console says why.
    console.error("paohuzi: the client's strings did not load", err);
  }
  setLang(lang());
  document.addEventListener("keydown", (ev) => {
    if (state.replay) replayKeys(app, ev);
  });
  window.addEventListener("hashchange", onRoute);
  window.addEventListener("popstate", onRoute);
  try {
    const me = await ensureGuest();
    state.player = me.player;
    state.room = me.room && me.room.status !== "closed" ? me.room : null;
  } catch (err) {
    mount(rootEl, h("div", { class: "fatal" }, h("h2", {}, t("app")), h("p", {}, t("errorPrefix") + errorText(err.code, err.message)), h("button", { class: "btn primary", onclick: () => location.reload() }, "↻")));
    return;
  }
  socket = new GameSocket({ onFrame, onStatus });
  socket.start();
  // A share link: /?room=CODE joins that room.
  const params = new URLSearchParams(location.search);
  const code = params.get("room");
  if (code) {
    history.replaceState(null, "", location.pathname + location.hash);
    if (!state.room || state.room.code !== code) await app.joinRoom(code);
  }
  await onRoute();
  if (currentScreen() === "lobby") await refreshLobby();
  state.booted = true;
  render();
}

start();
