// A club's page (亲友圈, issue 31; #/club/NUMBER/TAB): its head (name, number, my role, the notice) and tabs —
// 牌桌 (the tables live from `club_tables` frames: waiting with who sits, playing with hand n/N, 同IP seats;
// sit down, open a table from a template; today's finished matches with their replay codes) and 成员
// (members and roles; admins answer requests, remove or ban with a confirmation). 战绩, 玩法 and 设置 are
// club_admin.js'. Every change goes through the club's HTTP routes, then the page loads again.

import { api } from "./api.js";
import { change, matchLine, powers, renderSettings, renderStats, renderTemplates } from "./club_admin.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { roomEntered } from "./reducer.js";
import { rulesLine } from "./rules.js";

const TAB_KEYS = { tables: "clubTabTables", members: "clubTabMembers", stats: "clubTabStats", templates: "clubTabTemplates", settings: "clubTabSettings" };

export function renderClubPage(app, page) {
  const { club } = page.data;
  const gone = app.state.clubGone && app.state.clubGone.club === club.number ? app.state.clubGone : null;
  if (gone) return h("section", { class: "card-box empty", "data-testid": "club-gone", "data-reason": gone.reason }, t(`clubGone_${gone.reason}`));
  const tabs = h("nav", { class: "tabs club-tabs" });
  for (const [tab, key] of Object.entries(TAB_KEYS)) {
    const on = page.tab === tab;
    tabs.append(h("a", { class: `tab${on ? " on" : ""}`, href: `#/club/${club.number}/${tab}`, "aria-current": on ? "page" : null, "data-action": `club-tab-${tab}` }, t(key)));
  }
  const head = h(
    "section",
    { class: "card-box club-head", "data-testid": "club-head", "data-club": club.number, "data-role": club.role },
    h("div", { class: "club-title" }, h("b", {}, club.name), h("span", { class: `role role-${club.role}` }, t(`role_${club.role}`))),
    h("small", { class: "muted" }, t("clubLine", { number: club.number, n: club.members })),
    club.notice ? h("p", { class: "club-notice", "data-testid": "club-notice" }, club.notice) : null,
  );
  const body = { tables: renderTables, members: renderMembers, stats: renderStats, templates: renderTemplates, settings: renderSettings }[page.tab];
  return [head, tabs, body(app, page)];
}

// ---- 牌桌 -----------------------------------------------------------------------------------------------

function enter(app, number, room) {
  app.state.clubTable = number; // the waiting room's way back to this club (lobby.js)
  app.commit(roomEntered(app.state, room, performance.now()));
  if (app.socket) app.socket.send({ type: "sync" });
  app.closePage();
}

function renderTables(app, page) {
  const { club } = page.data;
  const live = app.state.clubLive && app.state.clubLive.club === club.number ? app.state.clubLive : page.data.tables;
  const me = app.state.player ? app.state.player.id : null;
  const base = `/api/clubs/${club.number}`;
  const list = h("ul", { class: "club-tables", "data-testid": "club-tables" });
  if (!live.tables.length) list.append(h("li", { class: "empty muted" }, t("clubNoTables")));
  for (const table of live.tables) {
    const mine = table.seats.some((s) => s.player === me);
    const free = table.status === "waiting" && table.seats.some((s) => s.player === null);
    const seats = table.seats.map((s) =>
      h(
        "span",
        { class: `t-seat${s.player === null ? " free" : ""}${table.same_ip.includes(s.seat) ? " same-ip" : ""}`, "data-seat": String(s.seat), "data-player": s.player === null ? "" : String(s.player) },
        s.player === null ? t("emptySeat") : h("span", { "data-pname": "" }, s.nickname),
        table.same_ip.includes(s.seat) ? h("b", { class: "badge warn", title: t("sameIpWhat") }, t("sameIp")) : null,
      ),
    );
    list.append(
      h(
        "li",
        { class: `club-table ${table.status}`, "data-code": table.code, "data-status": table.status, "data-template": String(table.template) },
        h("div", { class: "t-line" }, h("b", {}, table.name || t("clubTemplateGone")), h("span", { class: "t-status" }, table.status === "playing" ? t("clubTableHand", { n: table.hand_no, total: table.hands }) : t("clubTableWaiting"))),
        h("div", { class: "t-seats" }, seats),
        mine
          ? h("button", { class: "btn small", "data-action": "club-back-table", onclick: () => app.closePage() }, t("backToTable"))
          : free
            ? h("button", { class: "btn small primary", "data-action": "club-sit", onclick: () => app.guard(async () => enter(app, club.number, (await api("POST", `${base}/tables/${table.code}/sit`, {})).room)) }, t("clubSit"))
            : null,
      ),
    );
  }
  const open = h("div", { class: "club-open" });
  for (const tpl of page.data.templates) {
    open.append(
      h(
        "button",
        { class: "btn small", "data-action": "club-open-table", "data-template": String(tpl.id), onclick: () => app.guard(async () => enter(app, club.number, (await api("POST", `${base}/tables`, { template: tpl.id })).room)) },
        t("clubOpenTable", { name: tpl.name }),
        h("small", {}, rulesLine(tpl.options)),
      ),
    );
  }
  const finished = h("ul", { class: "club-finished", "data-testid": "club-finished" });
  if (!live.finished.length) finished.append(h("li", { class: "empty muted" }, t("clubNoneToday")));
  for (const m of live.finished) finished.append(matchLine(m));
  return [
    h("section", { class: "card-box" }, h("h3", {}, t("clubTables")), list),
    h("section", { class: "card-box" }, h("h3", {}, t("clubOpenTitle")), page.data.templates.length ? open : h("p", { class: "muted" }, t("clubNoTemplates"))),
    h("section", { class: "card-box" }, h("h3", {}, t("clubToday")), finished),
  ];
}

// ---- 成员 -----------------------------------------------------------------------------------------------

function renderMembers(app, page) {
  const { club, members } = page.data;
  const me = app.state.player ? app.state.player.id : null;
  const base = `/api/clubs/${club.number}`;
  const admin = powers(club);
  const rows = h("ul", { class: "club-members", "data-testid": "club-members" });
  for (const m of members.members) {
    const tools = h("span", { class: "m-tools" });
    const below = club.role === "owner" ? m.role !== "owner" : admin && m.role === "member";
    if (below && m.player !== me) {
      tools.append(
        h("button", { class: "btn small ghost", "data-action": "club-remove", "data-player": String(m.player), onclick: () => confirm(t("clubRemoveConfirm", { name: m.nickname })) && change(app, () => api("DELETE", `${base}/members/${m.player}`)) }, t("clubRemove")),
        h("button", { class: "btn small ghost", "data-action": "club-ban", "data-player": String(m.player), onclick: () => confirm(t("clubBanConfirm", { name: m.nickname })) && change(app, () => api("DELETE", `${base}/members/${m.player}?ban=true`)) }, t("clubBan")),
      );
    }
    if (club.role === "owner" && m.role !== "owner") {
      const role = m.role === "admin" ? "member" : "admin";
      tools.append(h("button", { class: "btn small ghost", "data-action": `club-make-${role}`, "data-player": String(m.player), onclick: () => change(app, () => api("PUT", `${base}/members/${m.player}/role`, { role })) }, t(`clubMake_${role}`)));
    }
    rows.append(h("li", { "data-player": String(m.player), "data-role": m.role, class: m.player === me ? "me" : "" }, h("span", { class: "m-name", "data-pname": "" }, m.nickname), h("span", { class: `role role-${m.role}` }, t(`role_${m.role}`)), tools));
  }
  const out = [h("section", { class: "card-box" }, h("h3", {}, t("clubMembersN", { n: members.members.length })), rows)];
  if (admin) {
    const requests = h("ul", { class: "club-requests", "data-testid": "club-requests" });
    if (!members.requests.length) requests.append(h("li", { class: "empty muted" }, t("clubNoRequests")));
    for (const r of members.requests) {
      requests.append(
        h(
          "li",
          { "data-player": String(r.player) },
          h("span", { class: "m-name", "data-pname": "" }, r.nickname),
          h("button", { class: "btn small primary", "data-action": "club-approve", "data-player": String(r.player), onclick: () => change(app, () => api("POST", `${base}/requests/${r.player}/approve`)) }, t("clubApprove")),
          h("button", { class: "btn small ghost", "data-action": "club-refuse", "data-player": String(r.player), onclick: () => confirm(t("clubRefuseConfirm", { name: r.nickname })) && change(app, () => api("POST", `${base}/requests/${r.player}/refuse`)) }, t("clubRefuse")),
        ),
      );
    }
    out.unshift(h("section", { class: "card-box" }, h("h3", {}, t("clubRequests")), requests));
    if (members.bans.length) {
      const bans = h("ul", { class: "club-bans" }, members.bans.map((b) => h("li", { "data-player": String(b.player) }, h("span", { "data-pname": "" }, b.nickname), h("button", { class: "btn small ghost", "data-action": "club-unban", onclick: () => change(app, () => api("DELETE", `${base}/bans/${b.player}`)) }, t("clubUnban")))));
      out.push(h("section", { class: "card-box" }, h("h3", {}, t("clubBans")), bans));
    }
  }
  return out;
}
