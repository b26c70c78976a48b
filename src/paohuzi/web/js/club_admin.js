// A club's 战绩, 玩法 and 设置 tabs (亲友圈, issue 31; club_page.js draws the page): the members' ranking over
// today / this week / this month / all time (UTC), the club's matches with replay codes, the CSV and the pair
// table for the owner; the templates (admins add and remove them: preset, 局数, 底分, 提示); the invite code to
// share, the owner's settings (name, notice, join mode, 自动开桌), hand-over and dissolution, leaving — each
// admin action behind a confirmation.

import { api, getToken } from "./api.js";
import { presetSelect } from "./create_room.js";
import { h, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { rulesLine } from "./rules.js";

/** Run a change on the club, then load the page again (a refusal is a toast: app.guard). */
export function change(app, fn) {
  return app.guard(async () => {
    await fn();
    await app.reloadPage();
  });
}

export function powers(club) {
  return club.role === "owner" || club.role === "admin";
}

/** One finished match: each seat's score, and each hand's replay code (a link to its replay). */
export function matchLine(m) {
  const scores = m.seats.map((s) => h("span", { class: `m-seat${s.score > 0 ? " plus" : s.score < 0 ? " minus" : ""}` }, h("span", { "data-pname": "" }, s.nickname), " ", s.score > 0 ? `+${s.score}` : String(s.score)));
  const codes = m.hands.filter((x) => x.code).map((x) => h("a", { class: "replay-code", href: `#/r/${x.code}`, "data-code": x.code }, x.code));
  return h("li", { "data-match": String(m.id), "data-status": m.status }, h("small", { class: "muted" }, (m.finished_at || "").replace("T", " ").slice(0, 16), " · ", t(`matchStatus_${m.status}`)), h("div", { class: "m-seats" }, scores), codes.length ? h("div", { class: "m-codes" }, t("replay"), " ", codes) : null);
}

const PERIODS = ["today", "week", "month", "all"];
const COLUMNS = ["matches", "hands", "wins", "zimo", "big_winner", "points", "escapes", "dissolved"];

// ---- 战绩 -----------------------------------------------------------------------------------------------

export function renderStats(app, page) {
  const { club, stats, matches, pairs } = page.data;
  const me = app.state.player ? app.state.player.id : null;
  const periods = h("nav", { class: "tabs small-tabs" }, PERIODS.map((p) => h("a", { class: `tab${page.period === p ? " on" : ""}`, href: `#/club/${club.number}/stats?period=${p}`, "data-action": `club-period-${p}` }, t(`clubPeriod_${p}`))));
  const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("nickname")), COLUMNS.map((c) => h("th", {}, t(`clubStat_${c}`))));
  const body = h(
    "tbody",
    {},
    stats.members.map((r) => h("tr", { class: r.player === me ? "me" : "", "data-player": String(r.player) }, h("td", {}, String(r.rank)), h("td", { "data-pname": "" }, r.nickname), COLUMNS.map((c) => h("td", { "data-stat": c }, String(r[c]))))),
  );
  const table = h("div", { class: "table-scroll" }, h("table", { class: "ledger club-stats", "data-testid": "club-stats", "data-period": stats.period }, h("thead", {}, head), body));
  const list = h("ul", { class: "club-finished", "data-testid": "club-matches" });
  if (!matches.length) list.append(h("li", { class: "empty muted" }, t("clubNoMatches")));
  for (const m of matches) list.append(matchLine(m));
  const out = [periods, h("section", { class: "card-box" }, h("h3", {}, t("clubRanking")), table), h("section", { class: "card-box" }, h("h3", {}, t("clubMatches")), list)];
  if (club.role === "owner") {
    out.push(h("section", { class: "card-box" }, h("button", { class: "btn small", "data-action": "club-csv", onclick: () => downloadCsv(club.number, page.period) }, t("clubCsv"))));
    if (pairs) out.push(pairTable(pairs));
  }
  return out;
}

/** The CSV route wants the token in a header: fetched, then saved as a file. */
async function downloadCsv(number, period) {
  const response = await fetch(`/api/clubs/${number}/matches.csv?period=${period}`, { headers: { Authorization: `Bearer ${getToken()}` } });
  if (!response.ok) {
    toast(errorText(`http_${response.status}`), "error");
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = h("a", { href: url, download: `club-${number}-${period}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function pairTable(pairs) {
  const rows = pairs.pairs.map((p) =>
    h(
      "tr",
      { "data-pair": p.players.join("-") },
      h("td", {}, h("span", { "data-pname": "" }, p.nicknames[0]), " · ", h("span", { "data-pname": "" }, p.nicknames[1])),
      h("td", {}, String(p.hands)),
      p.directions.map((d) => h("td", { class: d.fed > d.expected + 2 ? "minus" : "" }, `${d.fed} / ${d.expected}`)),
    ),
  );
  return h(
    "section",
    { class: "card-box", "data-testid": "club-pairs" },
    h("h3", {}, t("clubPairs")),
    h("p", { class: "muted" }, t("clubPairsNote")),
    h("div", { class: "table-scroll" }, h("table", { class: "ledger" }, h("thead", {}, h("tr", {}, h("th", {}, t("clubPair")), h("th", {}, t("clubPairHands")), h("th", {}, t("clubFedAB")), h("th", {}, t("clubFedBA")))), h("tbody", {}, rows))),
  );
}

// ---- 玩法 ---------------------------------------------------------------------------------------------------

export function renderTemplates(app, page) {
  const { club, templates } = page.data;
  const base = `/api/clubs/${club.number}/templates`;
  const list = h("ul", { class: "club-templates", "data-testid": "club-templates" });
  if (!templates.length) list.append(h("li", { class: "empty muted" }, t("clubNoTemplates")));
  for (const tpl of templates) {
    list.append(
      h(
        "li",
        { "data-template": String(tpl.id) },
        h("div", {}, h("b", {}, tpl.name), h("small", { class: "muted" }, " ", rulesLine(tpl.options))),
        powers(club) ? h("button", { class: "btn small ghost", "data-action": "club-template-delete", onclick: () => confirm(t("clubTemplateDeleteConfirm", { name: tpl.name })) && change(app, () => api("DELETE", `${base}/${tpl.id}`)) }, t("delete")) : null,
      ),
    );
  }
  const out = [h("section", { class: "card-box" }, h("h3", {}, t("clubTabTemplates")), list)];
  if (powers(club)) out.push(templateForm(app, base));
  return out;
}

function templateForm(app, base) {
  const presets = (app.state.presets && app.state.presets.presets) || [{ name: "qq", title: "" }];
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const name = h("input", { name: "tpl_name", maxlength: "16", required: true });
  const preset = presetSelect(presets);
  preset.name = "tpl_preset";
  const hands = h("input", { name: "tpl_hands", type: "number", min: "1", max: "32", value: "8" });
  const stake = h("input", { name: "tpl_stake", type: "number", min: "1", max: "100", placeholder: t("stakeDefault") });
  const hints = h("input", { name: "tpl_hints", type: "checkbox", checked: true });
  const form = h(
    "form",
    { class: "club-form", "data-testid": "club-template-form" },
    field(t("clubTemplateName"), name),
    field(t("preset"), preset),
    field(t("hands"), hands),
    field(t("stake"), stake),
    h("label", { class: "check" }, hints, t("optHints")),
    h("button", { class: "btn primary", type: "submit", "data-action": "club-template-save" }, t("save")),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const options = { preset: preset.value, hands: Number(hands.value), hints: hints.checked, bots_fill: false };
    if (stake.value) options.stake = Number(stake.value);
    change(app, () => api("POST", base, { name: name.value, options }));
  });
  return h("section", { class: "card-box" }, h("h3", {}, t("clubTemplateAdd")), form);
}

// ---- 设置 ---------------------------------------------------------------------------------------------------

export function renderSettings(app, page) {
  const { club, members } = page.data;
  const base = `/api/clubs/${club.number}`;
  const out = [];
  if (powers(club)) {
    const url = `${location.origin}${club.invite_path}`;
    const copy = h("button", { class: "btn small", "data-action": "club-invite-copy" }, t("copy"));
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(url);
        copy.textContent = t("copied");
      } catch {
        document.getElementById("club-invite-url").select();
      }
    });
    out.push(
      h(
        "section",
        { class: "card-box", "data-testid": "club-invite-box" },
        h("h3", {}, t("clubInvite")),
        h("div", { class: "room-code", "data-testid": "club-invite-code" }, club.invite_code),
        h("div", { class: "share" }, h("input", { id: "club-invite-url", readonly: true, value: url, "aria-label": t("shareLink") }), copy),
        h("button", { class: "btn small ghost", "data-action": "club-invite-new", onclick: () => confirm(t("clubInviteNewConfirm")) && change(app, () => api("POST", `${base}/invite`)) }, t("clubInviteNew")),
      ),
    );
  }
  if (club.role === "owner") out.push(ownerForm(app, club, base), ownerDanger(app, club, base, members));
  else out.push(h("section", { class: "card-box" }, h("button", { class: "btn ghost", "data-action": "club-leave", onclick: () => confirm(t("clubLeaveConfirm", { name: club.name })) && app.guard(async () => { await api("POST", `${base}/leave`); location.hash = "#/clubs"; }) }, t("clubLeave"))));
  return out;
}

function ownerForm(app, club, base) {
  const name = h("input", { name: "club_rename", maxlength: "16", value: club.name });
  const notice = h("textarea", { name: "club_notice", maxlength: "200", rows: "3" }, club.notice);
  const mode = h("select", { name: "club_join_mode" }, ["approval", "open"].map((m) => h("option", { value: m, selected: club.join_mode === m }, t(`clubMode_${m}`))));
  const auto = h("input", { name: "club_auto_open", type: "checkbox", checked: club.auto_open });
  const form = h(
    "form",
    { class: "club-form", "data-testid": "club-settings" },
    h("label", { class: "field" }, h("span", {}, t("clubName")), name),
    h("label", { class: "field" }, h("span", {}, t("clubNotice")), notice),
    h("label", { class: "field" }, h("span", {}, t("clubJoinMode")), mode),
    h("label", { class: "check" }, auto, t("clubAutoOpen")),
    h("button", { class: "btn primary", type: "submit", "data-action": "club-settings-save" }, t("save")),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    change(app, () => api("PATCH", base, { name: name.value, notice: notice.value, join_mode: mode.value, auto_open: auto.checked }));
  });
  return h("section", { class: "card-box" }, h("h3", {}, t("clubSettings")), form);
}

function ownerDanger(app, club, base, members) {
  const others = members.members.filter((m) => m.role !== "owner");
  const to = h("select", { name: "club_transfer" }, others.map((m) => h("option", { value: String(m.player) }, m.nickname)));
  const transfer = h(
    "button",
    {
      class: "btn small ghost",
      "data-action": "club-transfer",
      disabled: !others.length,
      onclick: () => {
        const who = others.find((m) => String(m.player) === to.value);
        if (who && confirm(t("clubTransferConfirm", { name: who.nickname }))) change(app, () => api("POST", `${base}/transfer`, { player: who.player }));
      },
    },
    t("clubTransfer"),
  );
  const dissolve = h(
    "button",
    { class: "btn small ghost danger", "data-action": "club-dissolve", onclick: () => confirm(t("clubDissolveConfirm", { name: club.name })) && app.guard(async () => { await api("DELETE", base); location.hash = "#/clubs"; }) },
    t("clubDissolve"),
  );
  return h("section", { class: "card-box danger-zone" }, h("h3", {}, t("clubDanger")), others.length ? h("div", { class: "inline-form" }, to, transfer) : null, dissolve);
}
