// Routing: the address's fragment names the screen over the game — a replay (#/replay/ID, #/r/CODE) or a
// profile page (#/me, #/player/ID, #/account, #/boards: profile.js); no fragment is the lobby or the table
// (state.js currentScreen).

import { toast } from "./dom.js";
import { t } from "./i18n.js";
import { leaveClubPages } from "./clubs.js";
import { loadPage, pageRoute } from "./profile.js";
import { loadReplay, replayKeys } from "./replay.js";

/** The navigation methods for `app` (main.js), and `onRoute`, which draws what the address asks for. */
export function routes(app) {
  const state = app.state;
  // One navigation to a fragment fires both popstate and hashchange, so two onRoute calls overlap: only the
  // newest one's replay is shown (an older load finishing later would reset the viewer to step 0 under the user).
  let routeSeq = 0;

  async function onRoute() {
    const page = pageRoute(location.hash);
    // the page already loading for this hash is kept
    if (page && state.page && state.page.loading && state.page.hash === location.hash) return;
    const seq = ++routeSeq;
    leaveClubPages(app, page); // a club's live list stops off its page (clubs.js)
    if (page) {
      page.hash = location.hash;
      // a profile page (profile.js): drawn at once, filled when its data comes
      state.replay = null;
      state.page = Object.assign(page, { loading: true });
      app.rerender();
      await loadPage(page, app);
      if (seq === routeSeq) app.rerender();
      return;
    }
    state.page = null;
    const m = location.hash.match(/^#\/replay\/(\d+)/);
    const byCode = location.hash.match(/^#\/r\/([2-9A-Za-z]{7,13})$/);
    let replay = null;
    if (m) {
      state.replay = { handId: Number(m[1]), loading: true, steps: null, mode: "none" };
      app.rerender();
      replay = await loadReplay(Number(m[1]), state.player);
    } else if (byCode) {
      state.replay = { handId: null, loading: true, steps: null, mode: "none" };
      app.rerender();
      replay = await loadReplay(null, state.player, byCode[1].toUpperCase());
    }
    if (seq !== routeSeq) return;
    state.replay = replay;
    app.rerender();
  }

  /** Back to the game's screens: the fragment goes (a new history entry), and so does what it showed. */
  function closeFragment() {
    history.pushState(null, "", location.pathname + location.search);
    onRoute();
  }

  return {
    onRoute,
    /** Listen to the address (and the replay viewer's keys). */
    startRouting() {
      document.addEventListener("keydown", (ev) => {
        if (state.replay) replayKeys(app, ev);
      });
      window.addEventListener("hashchange", onRoute);
      window.addEventListener("popstate", onRoute);
    },
    go(screen) {
      state.wantLobby = screen === "lobby";
      if (state.wantLobby && location.hash) history.replaceState(null, "", location.pathname + location.search);
      app.rerender();
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
      closeFragment();
    },
    closePage() {
      state.page = null;
      closeFragment();
    },
  };
}
