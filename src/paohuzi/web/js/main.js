// The paohuzi web client's wiring: the one state (state.js), the game socket (net.js) whose frames go through
// the reducer (reducer.js) and whose effects are carried out here, the app object the screens call (HTTP
// actions: actions.js, navigation: router.js), and start-up.
//
// Screens: lobby → (private room: waiting room) → table (with the settlement on top) ; replay (#/replay/ID);
// the profile pages (#/me, #/player/ID, #/account, #/boards: profile.js). The table is redrawn from each
// `game`/`update` frame's `view`; nothing is computed from events but the short animations.

import { httpActions } from "./actions.js";
import { ensureGuest } from "./api.js";
import { dissolutionEnded } from "./dissolve.js";
import { watchDeal } from "./fair_ui.js";
import { h, keepClicksAcrossRedraws, mount, toast } from "./dom.js";
import { errorText, lang, loadStrings, setLang, t } from "./i18n.js";
import { GameSocket } from "./net.js";
import { bubbleExpired, connection, reduce, summaryLoaded } from "./reducer.js";
import { render, tickCountdowns } from "./render.js";
import { HandRecorder } from "./replay.js";
import { routes } from "./router.js";
import { createState, currentScreen } from "./state.js";
import { loadSummary } from "./summary.js";
import { play, played, soundFor } from "./sound.js";
import { animate, seatNameOf, seatNames } from "./table_screen.js";
import { langButton } from "./topbar.js";

const state = createState();
const recorder = new HandRecorder();

const app = {
  state,
  root: null, // #app, once started
  socket: null,
  sounds: played, // how many sounds were asked for (the browser tests read it)
  rerender: () => render(app),
  /** Adopt a state the reducer made: the one state object stays (the screens hold it), its fields change. */
  commit(next) {
    if (next !== state) Object.assign(state, next);
  },
  send(frame) {
    const id = app.socket ? app.socket.send(frame) : null;
    if (id === null) toast(t("offline"), "warn");
    return id;
  },
  /** Ask the server for the full snapshot (silently: a closed socket sends one on reconnecting). */
  sync() {
    if (app.socket) app.socket.send({ type: "sync" });
  },
  langButton: () => langButton(app),
  openDialog(which) {
    state.dialog = which;
    render(app);
  },
};
Object.assign(app, httpActions(app), routes(app));
window.paohuzi = app; // for debugging in the console, and the browser tests

// ---- frames ------------------------------------------------------------------------------------------

function onFrame(frame) {
  watchDeal(app, frame, state); // 可验证发牌 (issue 32): seeds sent, deals checked
  if (frame.type === "welcome" && state.clubWatch) app.socket.send({ type: "club_watch", club: state.clubWatch }); // again after a reconnect
  const { state: next, effects } = reduce(state, frame, performance.now());
  const changed = next !== state;
  app.commit(next);
  for (const effect of effects) run(effect);
  if (changed || effects.length) render(app);
}

/** Carry out one of the reducer's effects (reducer.js lists them). */
function run(effect) {
  switch (effect.kind) {
    case "record":
      recorder.frame(effect.frame, seatNames(state));
      break;
    case "animate":
      animate(app, effect.events);
      break;
    case "sound":
      soundFor(effect.events);
      break;
    case "play":
      play(effect.sound);
      break;
    case "sync":
      app.sync();
      break;
    case "summary":
      loadSummary(effect.frame.match).then((summary) => {
        const next = summaryLoaded(state, effect.frame, summary);
        if (next !== state) {
          app.commit(next);
          render(app);
        }
      });
      break;
    case "dissolution":
      dissolutionEnded(effect.frame, (seat) => seatNameOf(state, seat));
      break;
    case "error":
      toast(errorText(effect.code, effect.message), "error");
      break;
    case "expire":
      setTimeout(() => {
        const next = bubbleExpired(state, effect.seat, effect.bubble);
        if (next !== state) {
          app.commit(next);
          render(app);
        }
      }, effect.after);
      break;
    default:
      break;
  }
}

function onStatus(status) {
  app.commit(connection(state, status));
  render(app);
}

setInterval(tickCountdowns, 250);

// ---- start-up ------------------------------------------------------------------------------------------

async function start() {
  app.root = document.getElementById("app");
  keepClicksAcrossRedraws(); // a click split by a redraw still counts (dom.js)
  try {
    await loadStrings();
  } catch (err) {
    // The page still works, each word shown by its key; the console says why.
    console.error("paohuzi: the client's strings did not load", err);
  }
  setLang(lang());
  app.startRouting();
  try {
    const me = await ensureGuest();
    state.player = me.player;
    state.room = me.room && me.room.status !== "closed" ? me.room : null;
  } catch (err) {
    mount(app.root, h("div", { class: "fatal" }, h("h2", {}, t("app")), h("p", {}, t("errorPrefix") + errorText(err.code, err.message)), h("button", { class: "btn primary", onclick: () => location.reload() }, "↻")));
    return;
  }
  app.socket = new GameSocket({ onFrame, onStatus });
  app.socket.start();
  // A share link: /?room=CODE joins that room.
  const params = new URLSearchParams(location.search);
  const code = params.get("room");
  const invite = params.get("club"); // 亲友圈: an invite link /?club=CODE (clubs.js)
  if (invite && /^[2-9A-Za-z]{8}$/.test(invite)) history.replaceState(null, "", `${location.pathname}#/clubs/join/${invite.toUpperCase()}`);
  if (code) {
    history.replaceState(null, "", location.pathname + location.hash);
    if (!state.room || state.room.code !== code) await app.joinRoom(code);
  }
  await app.onRoute();
  if (currentScreen(state) === "lobby") await app.refreshLobby();
  state.booted = true;
  render(app);
}

start();
