// A room's rules in words (R8, R8.1): a one-line summary shown to everyone in the waiting room and on the
// table, which opens (a tap) to the full list. The rules are the room's `options.rules` (the server's).

import { h, on } from "./dom.js";
import { presetText, t } from "./i18n.js";

/** The 放炮 choice of a rule set: no win on a discard, a win on a discard, or the discarder pays all. */
export function fangpao(rules) {
  if (!rules.win_on_discard) return "no";
  return rules.discarder_pays ? "pays" : "yes";
}

/** An option's label (the dialog, the rules list). */
export function optionLabel(name) {
  const keys = {
    min_huxi: "optMinHuxi",
    zimo: "optZimo",
    cap: "optCap",
    fangpao: "optFangpao",
    first_dealer: "optDealer",
    must_hu: "optMustHu",
    four_players: "fourPlayers",
    xing: "optXing",
    base_bonus: "optBaseBonus",
    hongheidian: "optHongheidian",
    duiduihu: "optDuiduihu",
    tiandi_haidi: "optTiandiHaidi",
    shuahou: "optShuahou",
    hanghangxi: "optHanghangxi",
    tuanyuan: "optTuanyuan",
    huangfan: "optHuangfan",
    players: "optPlayers",
    tun: "optTun",
    di: "optDi",
    yiwushi: "optYiwushi",
    mingwei: "optMingwei",
  };
  return t(keys[name] || name);
}

/** A value of a choice as shown. */
export function valueLabel(name, value) {
  if (name === "cap") return Number(value) ? String(value) : t("capNone");
  if (name === "min_huxi") return t("minHuxiN", { n: value });
  if (name === "zimo") return t(`zimo_${value}`);
  if (name === "first_dealer") return t(`dealer_${value}`);
  if (name === "fangpao") return t(`fangpao_${value}`);
  if (name === "xing") return t(`xing_${value}`);
  if (name === "base_bonus") return t(`baseBonus_${value}`);
  if (name === "players") return t("playersN", { n: value });
  if (name === "tun") return t(`tun_${value}`);
  if (name === "di") return t("diN", { n: value });
  return String(value);
}

// The R9 family options (issue 29): a choice shown unless "none", a switch shown when on — when the room's
// preset offers it (its `family_options`: 对对胡 is a switch of 常德红黑点 only, always on in 全名堂).
// 六胡抢 (R9.3): who plays, 囤 and 底 are choices, always shown; 一五十 and 明偎 switches.
const FAMILY_CHOICES = ["players", "tun", "di", "xing", "base_bonus"];
const FAMILY_SWITCHES = ["hongheidian", "duiduihu", "tiandi_haidi", "shuahou", "hanghangxi", "tuanyuan", "huangfan", "yiwushi", "mingwei"];
let offeredBy = {}; // preset name → its family_options (/api/presets), once the lobby has loaded them

/** The seats at a table of these rules: 4 for 守醒 (R8.1, one sits out) and 四人六胡抢 (R9.3), else `players`. */
export function seatsOf(rules) {
  if (!rules) return 3;
  return rules.four_players ? 4 : rules.players || 3;
}

/** Remember each preset's `family_options` (the lobby's /api/presets answer). */
export function knowPresets(presets) {
  offeredBy = Object.fromEntries((presets || []).map((pr) => [pr.name, pr.family_options || {}]));
}

/** The family options the room's rules set, each as it shows: [name, value]. */
function familyOptions(r) {
  if (!r.family || r.family === "classic") return [];
  const offered = offeredBy[r.name];
  // 底 plays no part under 一息一囤 (R9.3)
  const shown = (name) => r[name] !== undefined && (!offered || name in offered) && !(name === "di" && r.tun === "1xi1tun");
  return [...FAMILY_CHOICES, ...FAMILY_SWITCHES].filter(shown).map((name) => [name, r[name]]);
}

/** [label, value] for every option a room sets, in the order of the create dialog. */
export function rulesList(options) {
  const r = options.rules || {};
  const rows = [
    [t("preset"), presetText(options.preset || r.name, r.title)],
    [t("hands"), String(options.hands ?? r.rounds ?? "")],
    [t("stake"), String(options.stake ?? r.stake ?? "")],
    [t("optCap"), r.cap ? String(r.cap) : t("capNone")],
    [t("optZimo"), t(`zimo_${r.zimo || "plus_one"}`)],
    [t("optMustHu"), r.must_hu ? "✓" : "—"],
    [t("optFangpao"), t(`fangpao_${fangpao(r)}`)],
    [t("optMinHuxi"), String(r.min_huxi ?? 15)],
    [t("optDealer"), t(`dealer_${r.first_dealer || "draw"}`)],
  ];
  if (r.four_players || options.four_players) rows.push([t("fourPlayers"), "✓"]);
  for (const [name, value] of familyOptions(r)) {
    rows.push([optionLabel(name), FAMILY_CHOICES.includes(name) ? valueLabel(name, value) : value ? "✓" : "—"]);
  }
  return rows;
}

/** The one-line summary: preset · hands · stake, and each house option that differs from the plain game. */
export function rulesLine(options) {
  const r = options.rules || {};
  const parts = [presetText(options.preset || r.name, r.title), t("handsN", { n: options.hands ?? r.rounds }), t("stakeTimes", { n: options.stake ?? r.stake })];
  parts.push(r.cap ? t("capN", { n: r.cap }) : t("capNone"));
  parts.push(t(`zimo_${r.zimo || "plus_one"}`));
  parts.push(t("minHuxiN", { n: r.min_huxi ?? 15 }));
  if (r.must_hu) parts.push(t("optMustHu"));
  if (r.win_on_discard) parts.push(t(`fangpao_${fangpao(r)}`));
  if (r.first_dealer === "owner") parts.push(t("dealer_owner"));
  if (r.four_players) parts.push(t("fourPlayers"));
  for (const [name, value] of familyOptions(r)) {
    if (FAMILY_CHOICES.includes(name) && value !== "none") parts.push(valueLabel(name, value));
    else if (value === true) parts.push(optionLabel(name));
  }
  return parts.join(" · ");
}

// Where the list is open ("room", or "table": the top bar's), kept across redraws (a frame redraws the
// table). Per place: a list opened in the waiting room is closed on the table once the match starts. On the
// table it is a popover over the play, as in the QQ and 衡阳 apps: a tap anywhere else closes it. (The waiting
// room's list is inline: closing it there would move the buttons under the finger.)
let openAt = null;

function placeOf(cls) {
  return cls.split(" ").includes("top-rules") ? "table" : "room";
}

document.addEventListener(
  "pointerdown",
  (event) => {
    if (openAt !== "table" || (event.target instanceof Element && event.target.closest("[data-testid='rules']"))) return;
    openAt = null;
    for (const el of document.querySelectorAll("[data-testid='rules'][data-place='table'][open]")) el.open = false;
  },
  true,
);

/** The summary as a tappable element: the line, opening to the full list. */
export function rulesEl(options, cls = "") {
  if (!options) return null;
  const place = placeOf(cls);
  if (place === "table" && openAt === "room") openAt = null; // the match started: the waiting room's list is done
  const el = h(
    "details",
    { class: `rules-sum ${cls}`, "data-testid": "rules", "data-place": place, open: openAt === place },
    h("summary", { "data-rules": rulesLine(options) }, rulesLine(options)),
    h(
      "dl",
      { class: "rules-list" },
      rulesList(options).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    ),
  );
  on(el, "toggle", (ev) => {
    if (ev.currentTarget.open) openAt = place;
    else if (openAt === place) openAt = null;
  });
  return el;
}
