// The profile pages (issue 13 §5) and their routes: #/me (my profile: title with the way to the next, hands,
// wins, win rate, 名堂 counts, best hand with its replay, 欢乐豆 with their history and the relief),
// #/player/ID (another player's public profile: never the bean history), #/account (account.js) and
// #/boards (boards.js). router.js asks pageRoute() on every hash change and draws renderPage() for a page.

import { loadAccount, renderAccount } from "./account.js";
import { api } from "./api.js";
import { loadBoards, renderBoards } from "./boards.js";
import { clubRoute, loadClub, renderClubs } from "./clubs.js";
import { h } from "./dom.js";
import { errorText, mingtangText, t, titleText } from "./i18n.js";

/** The page a hash names ({name, id?}), or null for none of the profile pages. */
export function pageRoute(hash) {
  if (hash === "#/me") return { name: "me" };
  if (hash === "#/account") return { name: "account" };
  const boards = hash.match(/^#\/boards(?:\/(points|beans)\/(week|all))?$/);
  if (boards) return { name: "boards", board: boards[1] || "points", period: boards[2] || "all" };
  const player = hash.match(/^#\/player\/(\d{1,10})$/);
  if (player) return { name: "player", id: Number(player[1]) };
  return clubRoute(hash); // 亲友圈 (clubs.js)
}

/** The page's data from the server: `page.data`, or `page.error` (an error code). */
/** `app`: for a club page, which follows the club's tables over the websocket (clubs.js). */
export async function loadPage(page, app) {
  try {
    if (page.name === "me") page.data = await api("GET", "/api/me/profile");
    else if (page.name === "player") page.data = await api("GET", `/api/players/${page.id}/profile`);
    else if (page.name === "account") page.data = await loadAccount();
    else if (page.name === "boards") page.data = await loadBoards(page.board, page.period);
    else await loadClub(app, page);
    page.error = null;
  } catch (err) {
    page.error = err.code || "internal";
  }
  page.loading = false;
  return page;
}

function pct(x) {
  return `${Math.round(x * 1000) / 10}%`;
}

/** The R7.4 title and a bar showing the way to the next one. */
function levelBox(level) {
  const next = level.next;
  const bar = h("div", { class: "level-bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(level.progress * 100)) }, h("i", { style: { width: pct(level.progress) } }));
  return h(
    "div",
    { class: "level", "data-testid": "level", "data-progress": String(level.progress) },
    h(
      "div",
      { class: "level-line" },
      h("span", { class: "title-badge", "data-testid": "title" }, titleText(level.title)),
      h("span", { class: "lv" }, t("levelN", { n: level.number })),
      next ? h("span", { class: "level-next" }, t("nextTitle", { title: titleText(next.title), n: next.at - level.points })) : h("span", { class: "level-next" }, t("topTitle")),
    ),
    bar,
    h("div", { class: "level-nums" }, h("span", {}, String(level.floor)), h("b", {}, t("pointsN", { n: level.points })), h("span", {}, next ? String(next.at) : "")),
  );
}

function statsBox(stats, player) {
  const cell = (label, value, id) => h("div", { class: "stat" }, h("b", { "data-testid": id }, value), h("small", {}, label));
  return h(
    "div",
    { class: "stat-grid" },
    cell(t("statHands"), String(stats.hands), "stat-hands"),
    cell(t("statWins"), String(stats.wins), "stat-wins"),
    cell(t("statWinRate"), stats.win_rate === null ? "–" : pct(stats.win_rate), "stat-rate"),
    cell(t("points"), String(player.points), "stat-points"),
  );
}

function mingtangBox(stats) {
  const entries = Object.entries(stats.mingtang || {});
  return h(
    "section",
    { class: "card-box" },
    h("h3", {}, t("mingtangCounts")),
    entries.length
      ? h("div", { class: "mingtang", "data-testid": "mingtang" }, entries.map(([name, n]) => h("span", { class: "chip", "data-name": name }, mingtangText(name), h("em", {}, `×${n}`))))
      : h("p", { class: "muted" }, t("noWinsYet")),
  );
}

function bestBox(app, best) {
  if (!best) return h("section", { class: "card-box" }, h("h3", {}, t("bestHand")), h("p", { class: "muted" }, t("noWinsYet")));
  return h(
    "section",
    { class: "card-box best-hand", "data-testid": "best-hand", "data-hand": best.hand_id === null ? "" : String(best.hand_id) },
    h("h3", {}, t("bestHand")),
    h(
      "p",
      {},
      h("b", { class: "big-num" }, t("pointsN", { n: best.points })),
      " · ",
      t("huxiN", { n: best.huxi }),
      " · ",
      `${best.fan}${t("fan")}`,
      " ",
      (best.names || []).map((n) => h("span", { class: "chip" }, mingtangText(n))),
    ),
    best.hand_id !== null
      ? h("button", { class: "btn small", "data-action": "best-replay", onclick: () => app.openReplay(best.hand_id) }, t("replay"))
      : h("p", { class: "muted" }, t("bestPrivate")),
  );
}

const REASONS = ["start", "opening", "hand", "relief"];

/** The balance after each change, as a small SVG line (oldest left), and the last changes as a table. */
function beansChart(history) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  const w = 300;
  const ht = 80;
  svg.setAttribute("viewBox", `0 0 ${w} ${ht}`);
  svg.setAttribute("class", "beans-chart");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("aria-hidden", "true");
  // from the lowest balance (bottom) to the highest (top): a change of 10 on 1,000 still shows
  const values = history.map((e) => e.balance_after);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const y = (v) => (hi === lo ? ht / 2 : ht - 6 - ((v - lo) / (hi - lo)) * (ht - 12));
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${y(v).toFixed(1)}`);
  if (points.length === 1) points.push(`${w},${points[0].split(",")[1]}`);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  line.setAttribute("vector-effect", "non-scaling-stroke");
  svg.append(line);
  return svg;
}

function beansBox(app, beans) {
  const relief = beans.relief;
  const rows = beans.history.slice().reverse().slice(0, 10);
  return h(
    "section",
    { class: "card-box beans-box" },
    h("h3", {}, t("beans")),
    h(
      "div",
      { class: "beans-line" },
      h("b", { class: "big-num", "data-testid": "beans" }, String(beans.balance)),
      h(
        "button",
        { class: "btn small primary", "data-action": "relief", disabled: !relief.available, onclick: () => app.guard(async () => { await api("POST", "/api/me/relief"); await app.reloadPage(); }) },
        t("reliefButton", { n: relief.amount }),
      ),
    ),
    h("p", { class: "muted" }, t("reliefRule", { below: relief.below, n: relief.amount, left: relief.left_today })),
    beans.history.length > 1
      ? h(
          "div",
          { class: "chart" },
          beansChart(beans.history),
          h("span", { class: "chart-hi" }, String(Math.max(...beans.history.map((e) => e.balance_after)))),
          h("span", { class: "chart-lo" }, String(Math.min(...beans.history.map((e) => e.balance_after)))),
        )
      : null,
    h(
      "table",
      { class: "ledger", "data-testid": "bean-history" },
      h("thead", {}, h("tr", {}, h("th", {}, t("ledgerWhat")), h("th", {}, t("ledgerAmount")), h("th", {}, t("ledgerAfter")))),
      h(
        "tbody",
        {},
        rows.map((e) =>
          h(
            "tr",
            { "data-entry": String(e.id), "data-hand": e.hand_id === null ? "" : String(e.hand_id) },
            h("td", {}, t(`reason_${REASONS.includes(e.reason) ? e.reason : "hand"}`)),
            h("td", { class: e.amount > 0 ? "plus" : e.amount < 0 ? "minus" : "" }, (e.amount > 0 ? "+" : "") + e.amount),
            h("td", {}, String(e.balance_after)),
          ),
        ),
      ),
    ),
  );
}

function profileBody(app, data, mine) {
  const p = data.player;
  const out = [
    h(
      "section",
      { class: "card-box profile-card" },
      h("div", { class: "profile" }, h("div", { class: "avatar big", "data-pname": "" }, (p.nickname || "?").slice(0, 1)), h("div", { class: "profile-text" }, h("div", { class: "nick", "data-pname": "", "data-testid": "profile-nick" }, p.nickname), mine ? null : h("div", { class: "stats" }, t("beans"), " ", h("b", {}, String(p.beans))))),
      levelBox(data.level),
      statsBox(data.stats, p),
    ),
  ];
  if (mine) out.push(beansBox(app, data.beans));
  out.push(bestBox(app, data.stats.best), mingtangBox(data.stats));
  if (mine) {
    out.push(
      h(
        "nav",
        { class: "page-links" },
        h("a", { class: "btn", href: "#/account", "data-action": "account" }, t("accountTitle")),
        h("a", { class: "btn", href: "#/boards", "data-action": "boards" }, t("leaderboards")),
      ),
    );
  }
  return out;
}

const TITLES = { me: "profileTitle", player: "playerTitle", account: "accountTitle", boards: "leaderboards", clubs: "clubs", clubJoin: "clubs", club: "clubs" };

/** The page on screen: a header with the way back, then the page's body. */
export function renderPage(app) {
  const page = app.state.page;
  const back = h("button", { class: "btn small ghost", "data-action": "page-back", onclick: () => app.closePage() }, "‹ ", t("back"));
  const head = h("header", { class: "replay-head page-head" }, back, h("h2", {}, t(TITLES[page.name])), app.langButton());
  let body;
  if (page.loading) body = h("div", { class: "card-box empty" }, h("div", { class: "spinner" }), t("loading"));
  else if (page.error) {
    const text = page.name === "player" && page.error === "not_found" ? t("playerNotFound") : errorText(page.error);
    body = h("div", { class: "card-box empty", "data-testid": "page-error", "data-code": page.error }, text);
  }
  else if (page.name === "me") body = profileBody(app, page.data, true);
  else if (page.name === "player") body = profileBody(app, page.data, false);
  else if (page.name === "account") body = renderAccount(app, page.data);
  else if (page.name === "boards") body = renderBoards(app, page);
  else body = renderClubs(app, page);
  return h("div", { class: `page-screen page-${page.name}`, "data-page": page.name }, head, body);
}
