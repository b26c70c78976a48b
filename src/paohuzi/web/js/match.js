// 匹配 (public tables, issue 13 §4; docs/protocol.md §3.8): the lobby's list of tiers (name, 倍数, the
// minimum of 欢乐豆, yours; a tier you cannot afford is disabled), the waiting screen (tier, place, time
// waited, cancel), the tier and 倍数 on a public table, and the wait for the others' 继续 between hands.
//
// Issue 29: the server lists the presets that have public tables (`presets`, its PAOHUZI_MATCH_PRESETS);
// with more than one, the lobby offers a choice of preset above the tiers, each queue being a tier's for one
// preset (a tier's count is then that preset's).
//
// The server decides who is seated with whom; the client only joins or leaves the queue (HTTP) and shows
// the `queue` frames (state.queue). Being seated is a `room` frame like any other.

import { api } from "./api.js";
import { h } from "./dom.js";
import { presetText, t } from "./i18n.js";
import { seatsOf } from "./rules.js";

// The tiers (GET /api/queue), the lobby's list; until they are loaded, the ones the server has today.
let tiers = [
  { name: "practice", multiplier: 0, minimum: 0, waiting: 0 },
  { name: "novice", multiplier: 1, minimum: 100, waiting: 0 },
  { name: "junior", multiplier: 5, minimum: 1000, waiting: 0 },
  { name: "middle", multiplier: 20, minimum: 5000, waiting: 0 },
  { name: "senior", multiplier: 100, minimum: 20000, waiting: 0 },
];

// The presets with public tables (GET /api/queue), the server's default first.
let matchPresets = ["qq"];

/** A tier's name in the current language (新手场 / Novice). */
export function tierName(name) {
  return t(`tier_${name}`);
}

/** The lobby's data for 匹配: the tiers with how many wait in each, and our own place if we wait. */
export async function loadMatchData(app) {
  try {
    const d = await api("GET", "/api/queue");
    if (Array.isArray(d.presets) && d.presets.length) matchPresets = d.presets;
    tiers = d.tiers; // our own place comes in `queue` frames only (after `welcome` too): never a stale one
  } catch {
    /* keep what we had */
  }
}

async function join(app, tier, preset) {
  await app.guarded(async () => {
    await api("POST", "/api/queue", preset ? { tier, preset } : { tier }); // the `queue` frame (or, seated at once, `room`) follows
    app.state.notice = null;
  });
}

async function cancel(app) {
  await app.guarded(async () => {
    await api("DELETE", "/api/queue");
    app.state.queue = null;
  });
}

/** 换桌 after a hand at a public table: leave it, and wait in the same tier's queue again. */
export async function changeTable(app) {
  const options = (app.state.room && app.state.room.options) || {};
  const tier = options.tier || null;
  await app.leaveRoom();
  if (tier && !app.state.room) await join(app, tier, options.preset);
}

/** The lobby's 匹配 section: one button per tier, disabled when your beans are under its minimum. */
export function matchSection(app) {
  const S = app.state;
  const beans = (S.player && S.player.beans) || 0;
  if (!matchPresets.includes(S.matchPreset)) S.matchPreset = matchPresets[0];
  const preset = S.matchPreset;
  const list = h("div", { class: "tiers" });
  for (const tier of tiers) {
    const short = beans < tier.minimum;
    const waiting = tier.by_preset ? tier.by_preset[preset] || 0 : tier.waiting;
    list.append(
      h(
        "button",
        {
          class: `tier-btn tier-${tier.name}`,
          "data-action": "queue",
          "data-tier": tier.name,
          disabled: short,
          "aria-disabled": short ? "true" : "false",
          title: short ? t("tierShort", { n: tier.minimum }) : null,
          onclick: () => join(app, tier.name, preset),
        },
        h("b", {}, tierName(tier.name)),
        h("span", { class: "tier-x" }, t("timesN", { n: tier.multiplier })),
        h("small", {}, tier.minimum ? t("minBeans", { n: tier.minimum }) : t("noMinimum")),
        waiting ? h("small", { class: "tier-waiting" }, t("nWaiting", { n: waiting })) : null,
      ),
    );
  }
  return h(
    "section",
    { class: "card-box match", "data-testid": "match" },
    h("div", { class: "match-head" }, h("h3", {}, t("matchTitle")), h("span", { class: "my-beans" }, t("yourBeans"), " ", h("b", { "data-testid": "beans" }, String(beans)))),
    matchPresets.length > 1 ? presetPicker(app, preset) : null,
    list,
  );
}

/** The choice of preset for 匹配 (issue 29), when the server has public tables of more than one. */
function presetPicker(app, preset) {
  const select = h(
    "select",
    { name: "match_preset", "aria-label": t("preset") },
    matchPresets.map((name) => h("option", { value: name, selected: name === preset }, presetText(name, presetTitle(app, name)))),
  );
  select.addEventListener("change", () => {
    app.state.matchPreset = select.value;
    app.rerender();
  });
  return h("label", { class: "field match-preset" }, h("span", {}, t("preset")), select);
}

/** A preset's Chinese title from /api/presets, once loaded. */
function presetTitle(app, name) {
  const found = ((app.state.presets && app.state.presets.presets) || []).find((p) => p.name === name);
  return found ? found.title : "";
}

/** The rules of a preset as /api/presets gives them, or null. */
function presetRules(app, name) {
  const found = ((app.state.presets && app.state.presets.presets) || []).find((p) => p.name === name);
  return found ? found.rules : null;
}

/** The waiting screen: the tier, our place, how long we have waited (counting), and cancel. */
export function renderQueue(app) {
  const q = app.state.queue;
  const fill = Math.round((q.fill_ms || 0) / 1000);
  return h(
    "div",
    { class: "queue-screen" },
    h("header", { class: "lobby-head" }, h("span", {}), app.langButton()),
    h(
      "section",
      { class: "card-box queue-card", "data-testid": "queue", "data-tier": q.tier },
      h("div", { class: "spinner" }),
      h("h2", {}, t("matching")),
      h("div", { class: "queue-tier" }, h("b", {}, tierName(q.tier)), " ", h("span", { class: "tier-x" }, t("timesN", { n: q.multiplier }))),
      q.preset && matchPresets.length > 1 ? h("div", { class: "queue-preset", "data-preset": q.preset }, presetText(q.preset, presetTitle(app, q.preset))) : null,
      h("div", { class: "queue-time" }, t("waited"), " ", h("b", { "data-since": String(q.since), "data-testid": "waited" }, String(elapsed(q.since))), t("secondsShort")),
      h("div", { class: "queue-place" }, t("queuePlace", { n: q.position, m: q.waiting })),
      h("p", { class: "queue-note" }, t(seatsOf(presetRules(app, q.preset)) === 4 ? "queueFill4" : "queueFill", { n: fill })),
      q.online === false ? h("p", { class: "queue-note warn" }, t("queueOffline")) : null,
      h("button", { class: "btn", "data-action": "queue-cancel", onclick: () => cancel(app) }, t("cancel")),
    ),
  );
}

function elapsed(since) {
  return Math.max(0, Math.floor((performance.now() - Number(since)) / 1000));
}

/** The label of a table in the top bar: a friend room's code, a public table's tier and 倍数, quick play. */
export function roomLabel(room) {
  if (room.kind === "private") return `#${room.code}`;
  if (room.kind === "public") {
    const o = room.options || {};
    return h("span", { class: "top-tier", "data-testid": "table-tier", "data-tier": o.tier }, tierName(o.tier), " ", t("timesN", { n: o.multiplier ?? 0 }));
  }
  if (room.kind === "club") return h("span", { "data-testid": "table-club" }, t("clubTableTitle")); // 亲友圈 (issue 31)
  return t("quickPlay");
}

/** A public table between hands, after our 继续: waiting for the others (or leave). */
export function publicWaiting(app) {
  return h(
    "div",
    { class: "table empty public-wait", "data-testid": "public-wait" },
    h("div", { class: "spinner" }),
    h("p", {}, t("waitOthers")),
    h("button", { class: "btn", "data-action": "leave", onclick: () => app.leaveRoom() }, t("leave")),
  );
}

// The time waited counts on without redrawing the screen.
setInterval(() => {
  for (const el of document.querySelectorAll("[data-since]")) {
    const text = String(elapsed(el.dataset.since));
    if (el.textContent !== text) el.textContent = text;
  }
}, 250);
