// The leaderboards (issue 13 §5): by 积分 and by 欢乐豆, this week (what hands gave in the last 7 days, from the
// ledger) or all time (the balance); bots have no account and never appear. Route: #/boards/{points|beans}/{week|all}.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t, titleText } from "./i18n.js";

export async function loadBoards(board, period) {
  return api("GET", `/api/leaderboards/${board}?period=${period}&limit=50`);
}

function tab(label, href, on, action) {
  return h("a", { class: `tab${on ? " on" : ""}`, href, "aria-current": on ? "page" : null, "data-action": action }, label);
}

/** `page`: {board, period, data}. A player's name opens its public profile. */
export function renderBoards(app, page) {
  const me = app.state.player ? app.state.player.id : null;
  const { board, period } = page;
  const rows = (page.data && page.data.players) || [];
  const list = h("ol", { class: "board big-board", "data-testid": "board", "data-board": board, "data-period": period });
  if (!rows.length) list.append(h("li", { class: "empty" }, t("noPlayers")));
  for (const row of rows) {
    list.append(
      h(
        "li",
        { class: row.id === me ? "me" : "", "data-player": String(row.id) },
        h("span", { class: "rank" }, String(row.rank)),
        h("a", { class: "b-name", href: `#/player/${row.id}`, "data-pname": "" }, row.nickname),
        h("span", { class: "b-title" }, titleText(row.title)),
        h("b", { class: "b-points", "data-value": String(row.value) }, period === "week" && row.value > 0 ? `+${row.value}` : String(row.value)),
      ),
    );
  }
  return [
    h(
      "nav",
      { class: "tabs" },
      tab(t("boardPoints"), `#/boards/points/${period}`, board === "points", "board-points"),
      tab(t("boardBeans"), `#/boards/beans/${period}`, board === "beans", "board-beans"),
    ),
    h(
      "nav",
      { class: "tabs small-tabs" },
      tab(t("periodWeek"), `#/boards/${board}/week`, period === "week", "period-week"),
      tab(t("periodAll"), `#/boards/${board}/all`, period === "all", "period-all"),
    ),
    h("section", { class: "card-box" }, h("p", { class: "muted" }, t(period === "week" ? "boardWeekWhat" : "boardAllWhat")), list),
  ];
}
