// The lobby's HTTP actions (docs/protocol.md §2) on the app: quick play, create/join/leave a room, rename,
// reload the lobby or a profile page. Each runs `guarded`: the lobby is busy meanwhile, a refusal is a toast
// in the player's words, and the screen is drawn again afterwards. api.js is the transport (token, errors).

import { api, ApiError } from "./api.js";
import { toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { loadLobbyData } from "./lobby.js";
import { loadMatchData } from "./match.js";
import { loadPage } from "./profile.js";
import { roomEntered, roomLeft } from "./reducer.js";

/** The actions, as methods for `app` (main.js). */
export function httpActions(app) {
  const state = app.state;

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
      app.rerender();
    }
  }

  function enterRoom(room) {
    app.commit(roomEntered(state, room, performance.now()));
    if (app.socket && app.socket.status === "online") app.socket.send({ type: "sync" });
    app.rerender();
  }

  /** Our profile again (points, beans, title after a hand); the old one stays if the request fails. */
  async function reloadPlayer() {
    try {
      state.player = (await api("GET", "/api/me")).player;
    } catch {
      /* keep the old profile */
    }
  }

  return {
    guarded,
    guard: guarded,
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
        app.commit(roomLeft(state, res && res.penalty));
        app.go("lobby");
      });
    },
    async rename(nickname) {
      await guarded(async () => {
        const { player } = await api("PATCH", "/api/me", { nickname });
        state.player = player;
        app.rerender();
      });
    },
    /** The lobby's lists (presets, leaderboard, history, public tiers) and our profile. */
    async refreshLobby() {
      await Promise.all([loadLobbyData(app), loadMatchData(app)]);
      await reloadPlayer();
      app.rerender();
    },
    /** Load the page on screen again (after a change made on it), and the player's profile. */
    async reloadPage() {
      const page = state.page;
      if (!page) return;
      await loadPage(page, app);
      await reloadPlayer();
      app.rerender();
    },
  };
}
