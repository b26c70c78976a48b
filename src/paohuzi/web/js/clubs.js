// 亲友圈 (issue 31): the club pages' routes and data — #/clubs (my clubs, create one, join by invite code),
// #/clubs/join/CODE (what an invite shows, 申请加入; the invite link /?club=CODE lands here) and
// #/club/NUMBER/TAB (club_page.js: tables, members, 战绩, templates, settings). profile.js asks clubRoute()
// for every hash and hands club pages to loadClub()/renderClubs(). The club page follows its tables live
// (`club_watch`; the reducer keeps the `club_tables` frames in state.clubLive).

import { api } from "./api.js";
import { renderClubPage } from "./club_page.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const CLUB_TABS = ["tables", "members", "stats", "templates", "settings"];

/** The club page a hash names, or null. */
export function clubRoute(hash) {
  if (hash === "#/clubs") return { name: "clubs" };
  const join = hash.match(/^#\/clubs\/join\/([2-9A-Za-z]{8})$/);
  if (join) return { name: "clubJoin", code: join[1].toUpperCase() };
  const club = hash.match(/^#\/club\/(\d{6})(?:\/(\w+))?(?:\?period=(today|week|month|all))?$/);
  if (club && (!club[2] || CLUB_TABS.includes(club[2]))) {
    return { name: "club", number: club[1], tab: club[2] || "tables", period: club[3] || "all" };
  }
  return null;
}

/** The data of a club page (`page.data`); a club page also starts following the club's tables. */
export async function loadClub(app, page) {
  if (page.name === "clubs") {
    page.data = await api("GET", "/api/clubs");
    return;
  }
  if (page.name === "clubJoin") {
    page.data = await api("GET", `/api/clubs/invite/${page.code}`);
    return;
  }
  const base = `/api/clubs/${page.number}`;
  const { club } = await api("GET", base); // first: a non-member stops at one 404
  const [tables, templates] = await Promise.all([api("GET", `${base}/tables`), api("GET", `${base}/templates`)]);
  const data = { club, tables, templates: templates.templates };
  if (page.tab === "members" || page.tab === "settings") data.members = await api("GET", `${base}/members`);
  if (page.tab === "stats") {
    const [stats, matches] = await Promise.all([api("GET", `${base}/stats?period=${page.period}`), api("GET", `${base}/matches?period=${page.period}&limit=30`)]);
    Object.assign(data, { stats, matches: matches.matches });
    if (data.club.role === "owner") data.pairs = await api("GET", `${base}/pairs`);
  }
  page.data = data;
  watch(app, page.number);
}

/** Follow a club's tables over the websocket (null: stop); sent again after a reconnect (main.js). */
export function watch(app, number) {
  if (app.state.clubWatch === number) return;
  app.state.clubWatch = number;
  app.state.clubLive = null;
  if (app.socket) app.socket.send({ type: "club_watch", club: number });
}

/** The seats the watched club's list flags 同IP at this club table (club_tables.same_ip; issue 31 §4: shown to
 * everyone seated, in the waiting room and at the table, never an address), or []. */
export function clubSameIp(S, room) {
  const table = room && room.kind === "club" && S.clubLive ? S.clubLive.tables.find((x) => x.code === room.code) : null;
  return table ? table.same_ip : [];
}

/** The page is left for one that is no club page: the live list stops — unless we sit at one of the club's
 * tables, whose waiting room shows the list's 同IP flags (lobby.js). */
export function leaveClubPages(app, next) {
  const atTable = app.state.room && app.state.room.kind === "club";
  if (app.state.clubWatch && !(next && next.name === "club") && !atTable) watch(app, null);
}

/** A club page's body (profile.js renderPage draws the head). */
export function renderClubs(app, page) {
  if (page.name === "clubs") return myClubs(app, page.data.clubs);
  if (page.name === "clubJoin") return joinPage(app, page);
  return renderClubPage(app, page);
}

function myClubs(app, clubs) {
  const list = h("ul", { class: "club-list", "data-testid": "my-clubs" });
  if (!clubs.length) list.append(h("li", { class: "empty muted" }, t("clubNone")));
  for (const c of clubs) {
    list.append(
      h(
        "li",
        { "data-club": c.number },
        h("a", { class: "club-link", href: `#/club/${c.number}`, "data-action": "open-club" }, h("b", {}, c.name), h("small", {}, t("clubLine", { number: c.number, n: c.members }))),
        h("span", { class: `role role-${c.role}` }, t(`role_${c.role}`)),
      ),
    );
  }
  const name = h("input", { name: "club_name", maxlength: "16", placeholder: t("clubName"), "aria-label": t("clubName") });
  const create = h("form", { class: "inline-form", "data-testid": "club-create" }, name, h("button", { class: "btn small primary", type: "submit", "data-action": "club-create" }, t("clubCreate")));
  create.addEventListener("submit", (ev) => {
    ev.preventDefault();
    app.guard(async () => {
      const { club } = await api("POST", "/api/clubs", { name: name.value });
      location.hash = `#/club/${club.number}/templates`;
    });
  });
  const code = h("input", { name: "club_invite", maxlength: "8", placeholder: t("clubInviteCode"), "aria-label": t("clubInviteCode"), autocapitalize: "characters" });
  const join = h("form", { class: "inline-form" }, code, h("button", { class: "btn small", type: "submit", "data-action": "club-invite-open" }, t("clubJoinOpen")));
  join.addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = `#/clubs/join/${code.value.trim().toUpperCase()}`;
  });
  const claimed = app.state.player && app.state.player.claimed !== false;
  return [
    h("section", { class: "card-box" }, h("h3", {}, t("clubMine")), list),
    h("section", { class: "card-box" }, h("h3", {}, t("clubJoinTitle")), h("p", { class: "muted" }, t("clubJoinWhat")), join),
    h("section", { class: "card-box" }, h("h3", {}, t("clubCreateTitle")), h("p", { class: "muted" }, t("clubCreateWhat")), create, claimed ? null : h("a", { href: "#/account" }, t("accountTitle"))),
  ];
}

function joinPage(app, page) {
  const c = page.data.club;
  const ask = h(
    "button",
    {
      class: "btn primary",
      "data-action": "club-request",
      onclick: () =>
        app.guard(async () => {
          const { status } = await api("POST", `/api/clubs/invite/${page.code}/join`);
          if (status === "member") location.hash = `#/club/${c.number}`;
          else {
            page.requested = true;
            app.rerender();
          }
        }),
    },
    t("clubRequest"),
  );
  return h(
    "section",
    { class: "card-box club-invite", "data-testid": "club-invite", "data-club": c.number },
    h("h3", {}, c.name),
    h("p", {}, t("clubLine", { number: c.number, n: c.members })),
    h("p", { class: "muted" }, t(c.join_mode === "open" ? "clubOpenWhat" : "clubApprovalWhat")),
    page.requested ? h("p", { class: "notice", "data-testid": "club-pending" }, t("clubPending")) : ask,
  );
}
