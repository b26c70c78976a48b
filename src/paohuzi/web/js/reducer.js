// The frame reducer: what each server frame (docs/protocol.md §3.2) does to the client's state (state.js).
//
// `reduce(state, frame, now)` → {state, effects}: a new state (the given one is never changed; the same
// object when the frame changes nothing) and the effects to carry out — a list of plain objects that main.js
// runs (sounds, toasts, the replay recorder, a `sync`, a timer). It touches no DOM, fetches nothing, reads no
// clock: `now` is the caller's performance.now(), from which every local deadline is counted. The same holds
// for the few transitions that are not frames (the connection's status, an `act` sent or unanswered, a room
// entered or left, a summary loaded, a chat bubble expired), below the frames.

/** How long a quick-chat bubble stays by its seat (ms). */
export const BUBBLE_MS = 4000;

/** The frame's new state and effects. An unknown frame type changes nothing. */
export function reduce(state, frame, now) {
  const handler = Object.hasOwn(FRAMES, frame.type) ? FRAMES[frame.type] : null;
  return handler ? handler(state, frame, now) : { state, effects: [] };
}

const FRAMES = {
  welcome: (state, frame) => done({ ...state, player: frame.player, queue: null }), // a `queue` follows while we wait
  room,
  game,
  update,
  hand_over: handOver,
  match_over: matchOver,
  dissolution: (state, frame) => ({ state, effects: [{ kind: "dissolution", frame }] }),
  error: (state, frame) => {
    const answered = state.pendingAct && (frame.id === state.pendingAct.id || frame.id === undefined);
    const next = answered ? { ...state, pendingAct: null } : state;
    return { state: next, effects: [{ kind: "error", code: frame.code, message: frame.message }] };
  },
  // by the owner, or for not getting ready in time (reason "ready_timeout", docs/protocol.md §3.2)
  kicked: (state, frame) => done({ ...state, notice: { kicked: frame.room, reason: frame.reason, seconds: frame.seconds }, room: null, game: null }),
  chat,
  hint,
  queue: (state, frame, now) => done({ ...state, queue: queueState(frame.queue, now) }),
  pong: (state) => done(state),
  // 亲友圈 (issue 31): the watched club's tables; no member any more (clubs.js)
  club_tables: (state, frame) => done({ ...state, clubLive: { club: frame.club, tables: frame.tables, finished: frame.finished } }),
  club_gone: (state, frame) => done({ ...state, clubLive: null, clubWatch: null, clubGone: { club: frame.club, reason: frame.reason } }),
};

function done(state) {
  return { state, effects: [] };
}

/** Timers as sent, each with its deadline on our clock (the countdowns tick from it). */
export function withLocalDeadlines(timers, now) {
  return (timers || []).map((tm) => ({ ...tm, localDeadline: now + (tm.remaining_ms || 0) }));
}

/** The room as sent, each seat that must say ready with its deadline on our clock (lobby.js). */
export function withReadyDeadlines(room, now) {
  if (!room || !room.seats) return room;
  const seats = room.seats.map((s) => (typeof s.ready_remaining_ms === "number" ? { ...s, localReadyDeadline: now + s.ready_remaining_ms } : s));
  return { ...room, seats };
}

/** Our place in a public tables' queue (匹配), with when we started waiting on our clock (match.js). */
function queueState(queue, now) {
  return queue ? { ...queue, since: now - (queue.waited_ms || 0) } : null;
}

/** Each seat's name for this match: a seat a player left keeps the name (逃跑 by name). */
function rememberNames(state, room) {
  if (!room || !room.seats) return { names: state.names, namesMatch: state.namesMatch };
  const matchId = room.match ? room.match.id : null;
  const fresh = matchId !== state.namesMatch && room.status === "playing";
  const names = fresh ? [] : [...state.names];
  for (const s of room.seats) {
    if (s.player) names[s.seat] = { nickname: s.player.nickname, bot: false };
    else if (s.bot) names[s.seat] = { nickname: "", bot: s.bot }; // the level key (levels.js)
  }
  return { names, namesMatch: fresh ? matchId : state.namesMatch };
}

function room(state, frame, now) {
  const old = state.room;
  const stamped = withReadyDeadlines(frame.room, now);
  const next = { ...state, ...rememberNames(state, frame.room), room: stamped };
  if (frame.room && frame.room.status === "closed") next.room = null;
  if (old && next.room && old.code !== next.room.code) next.matchOver = null;
  if (next.room && next.room.status === "playing") next.matchOver = null;
  return done(next);
}

function game(state, frame, now) {
  const isNewHand = !state.game || state.game.hand !== frame.hand;
  const next = {
    ...state,
    ...rememberNames(state, state.room),
    prevGame: isNewHand ? null : state.game,
    pendingAct: null, // a full snapshot: whatever we sent is in it (or was refused)
    game: {
      hand: frame.hand,
      seq: frame.seq,
      seat: frame.seat,
      view: frame.view,
      timers: withLocalDeadlines(frame.timers, now),
      scores: frame.scores,
      auto: frame.auto,
      number: frame.number,
      hands: frame.hands,
      match: frame.match,
      waits: frame.waits,
    },
    busy: false,
    wantLobby: false,
  };
  if (isNewHand && frame.seq === 0 && !frame.over) next.dealStart = { hand: frame.hand, at: now };
  if (isNewHand) Object.assign(next, { selected: null, chiOptions: null, matchOver: null });
  return { state: next, effects: [{ kind: "record", frame }] };
}

function update(state, frame, now) {
  const g = state.game;
  if (!g || g.hand !== frame.hand) return { state, effects: [{ kind: "sync" }] }; // a hand we do not know
  if (frame.seq < g.seq) return done(state); // older than what we show
  const next = {
    ...state,
    prevGame: g,
    game: {
      ...g,
      seq: frame.seq,
      view: frame.view,
      timers: withLocalDeadlines(frame.timers, now),
      auto: frame.auto || g.auto,
      waits: frame.waits !== undefined ? frame.waits : g.waits,
    },
  };
  if (state.pendingAct && frame.id === state.pendingAct.id) next.pendingAct = null;
  if (!frame.view.legal || !frame.view.legal.length) next.chiOptions = null;
  const events = frame.events || [];
  return { state: next, effects: [{ kind: "record", frame }, { kind: "animate", events }, { kind: "sound", events }] };
}

function handOver(state, frame) {
  const next = { ...state, handOver: frame, settleOpen: true, pendingAct: null, chiOptions: null };
  if (state.game && state.game.hand === frame.hand) {
    next.prevGame = state.game;
    next.game = { ...state.game, view: frame.view, timers: [], scores: frame.scores };
  }
  const effects = frame.outcome && frame.outcome.kind === "hu" ? [{ kind: "play", sound: "win" }] : [];
  effects.push({ kind: "record", frame });
  return { state: next, effects };
}

function matchOver(state, frame) {
  const next = { ...state, matchOver: frame, summary: null };
  if (!state.handOver || frame.status === "dissolved") next.settleOpen = false;
  return { state: next, effects: [{ kind: "summary", frame }] }; // the 总结算: summaryLoaded below
}

function hint(state, frame) {
  // 提示: kept for the position it was asked in (a late answer to an older position is dropped).
  const g = state.game;
  const asked = state.hintAsked;
  if (!asked || !g || frame.hand !== g.hand || asked.hand !== g.hand || asked.seq !== g.seq) return done(state);
  return done({ ...state, hint: { hand: g.hand, seq: g.seq, frame }, hintAsked: null });
}

function chat(state, frame, now) {
  // A bubble by the seat for a few seconds, unless this table is muted (a new table is not).
  const code = state.room ? state.room.code : null;
  const next = state.chatRoom !== code ? { ...state, chatRoom: code, chatMuted: false } : { ...state };
  if (next.chatMuted || typeof frame.seat !== "number") return done(next);
  const bubble = { phrase: frame.phrase, until: now + BUBBLE_MS };
  next.bubbles = { ...state.bubbles, [frame.seat]: bubble };
  return { state: next, effects: [{ kind: "expire", seat: frame.seat, bubble, after: BUBBLE_MS }] };
}

// ---- transitions that are not frames --------------------------------------------------------------------

/** The game connection's status (net.js): a new connection gets the full snapshot, so no act is pending. */
export function connection(state, status) {
  const next = { ...state, conn: status };
  if (status === "unauthorized") next.loggedOut = true; // this session was revoked elsewhere (account.js)
  if (status !== "online") next.pendingAct = null;
  return next;
}

/** Our `act` went out: nothing is playable until the server answers it (table_screen.js). */
export function actSent(state, pending) {
  return { ...state, pendingAct: pending, selected: null, chiOptions: null };
}

/** No answer came to `pending` (the caller asks for a snapshot): the table is playable again. */
export function actUnanswered(state, pending) {
  return state.pendingAct === pending ? { ...state, pendingAct: null } : state;
}

/** The chat bubble `bubble` of `seat` is over, unless a newer one took its place. */
export function bubbleExpired(state, seat, bubble) {
  if (state.bubbles[seat] !== bubble) return state;
  const bubbles = { ...state.bubbles };
  delete bubbles[seat];
  return { ...state, bubbles };
}

/** The 总结算 of a `match_over` came (GET /api/matches/{id}): shown while that match is still the one over. */
export function summaryLoaded(state, frame, summary) {
  return state.matchOver === frame ? { ...state, summary } : state;
}

/** A room we created or joined over HTTP (actions.js): its waiting room or table, no old settlement. */
export function roomEntered(state, room, now) {
  return { ...state, room: withReadyDeadlines(room, now), wantLobby: false, matchOver: null, handOver: null, settleOpen: false };
}

/** We left the room (actions.js): back to the lobby, told what leaving cost (逃跑, R7.3) if anything. */
export function roomLeft(state, penalty) {
  return { ...state, notice: penalty ? { penalty } : null, room: null, game: null, handOver: null, settleOpen: false, matchOver: null };
}
