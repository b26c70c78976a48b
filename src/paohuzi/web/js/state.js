// The client's state: its shape (`createState`), and what the screens read from it (pure selectors: no DOM,
// no fetch, no timers). Frames change it only through reducer.js; the user's clicks change their own fields
// (selected, dialog, chatOpen …) in the module that draws the control.

/** A fresh state: no player yet, no room, the lobby. */
export function createState() {
  return {
    player: null,
    room: null,
    queue: null, // our place in a public tables' queue (匹配, match.js), or null
    game: null, // {hand, seq, seat, view, timers, scores, auto, number, hands, match, waits}
    prevGame: null, // the game as it was before the last frame (table.js draws what changed)
    handOver: null,
    settleOpen: false,
    matchOver: null,
    conn: "idle",
    selected: null, // the lifted card: {hand, card, col, idx} (table.js resolveSelection)
    chiOptions: null,
    hintAsked: null, // {hand, seq}: the position our 提示 request on its way was asked in (hint.js)
    hint: null, // {hand, seq, frame}: the server's answer, shown while that position is on the table
    busy: false, // an HTTP request of the lobby is on its way
    pendingAct: null, // {id, hand}: our `act` on its way; the table is not playable until the server answers
    names: [], // each seat's {nickname, bot} in this match, kept when a player leaves (逃跑 shows the name)
    namesMatch: null,
    dealStart: null, // {hand, at}: when this hand's deal was shown (the dealing animation)
    notice: null, // {penalty} or {kicked, reason, seconds}: shown in the lobby after you left a room
    chatOpen: false, // the quick-chat panel
    chatMuted: false, // this table's bubbles hidden (per table: reset in another room)
    chatRoom: null,
    bubbles: {}, // seat → {phrase, until}
    summary: null, // 总结算 of the match just over (GET /api/matches/{id})
    screen: "lobby", // the screen drawn last (render.js)
    booted: false, // start-up done: identity, route, the lobby's data (body[data-ready] once also online)
    wantLobby: false,
    dialog: null,
    presets: null,
    leaderboard: null,
    history: null,
    replay: null,
    page: null, // a profile page (profile.js): {name, data, loading, error}
    clubWatch: null, // the club whose tables this socket follows (`club_watch`, clubs.js), or null
    clubLive: null, // its last `club_tables` frame: {club, tables, finished}
    clubGone: null, // {club, reason}: a `club_gone` frame (removed, left, dissolved)
    clubTable: null, // the club whose table we sat at from its page (the waiting room's way back)
    loggedOut: false, // the socket was refused (4001): this session was revoked elsewhere
    error: null,
  };
}

/** The screen to draw: replay, queue, page, lobby, table or (a private room's waiting room) room. */
export function currentScreen(state) {
  if (state.replay) return "replay";
  if (state.queue && !state.room) return "queue";
  if (state.page) return "page";
  if (state.wantLobby || !state.room) return "lobby";
  if (state.game || state.settleOpen || state.room.status === "playing") return "table";
  if (state.room.kind === "private" || state.room.kind === "club") return "room"; // a club table: 亲友圈
  if (state.room.kind === "public") return "table"; // between hands, waiting for the others' 继续
  return "lobby";
}

/** Our seat: the hand's, the last settlement's, or the room's. */
export function mySeat(state) {
  if (state.game) return state.game.seat;
  if (state.handOver && state.handOver.view) return state.handOver.view.seat;
  const me = state.player ? state.player.id : null;
  const seat = state.room ? state.room.seats.find((s) => s.player && s.player.id === me) : null;
  return seat ? seat.seat : null;
}

/** 托管 of each seat, from the room (the server's word, also between hands), else from the last frame. */
export function autoStates(state) {
  const g = state.game;
  if (state.room && state.room.seats) return state.room.seats.map((s) => !!s.auto);
  return g && g.auto ? g.auto : [];
}

export function myAuto(state) {
  const seat = mySeat(state);
  return seat !== null && !!autoStates(state)[seat];
}

/** Whether the table is on screen to carry an open 解散 proposal in its bar (no settlement over it). */
export function dissolveInBar(state) {
  return !!state.game && !(state.settleOpen && state.handOver) && !(state.matchOver && state.matchOver.status === "dissolved");
}
