// The create-room dialog (开房): the preset, grouped by family (R9: 经典 · 常德 · 衡阳十胡卡 · 衡阳六胡抢), the room's own
// settings (局数, 底分, clocks, computers, 提示), and the chosen preset's rule options — only those its family
// offers, each with the values it allows (/api/presets `family_options`, issue 29). Changing the preset
// redraws the dialog with that family's options at the preset's values.

import { h } from "./dom.js";
import { presetText, t } from "./i18n.js";
import { levelSelect } from "./levels.js";
import { fangpao, optionLabel, valueLabel } from "./rules.js";

// The rule options in the dialog's order. `fangpao` is one choice over two options (R8.1 放炮, 包赔).
// 六胡抢 (R9.3) adds who plays (`players`: four, or three, every seat playing), 囤, 底, 一五十 and 明偎.
const ORDER = ["players", "min_huxi", "tun", "di", "zimo", "cap", "fangpao", "first_dealer", "xing", "base_bonus"];
const CHECKS = ["must_hu", "four_players", "hongheidian", "duiduihu", "tiandi_haidi", "shuahou", "hanghangxi", "tuanyuan", "huangfan", "yiwushi", "mingwei"];
// A server that sends no `family_options` (before issue 29): the R8.1 options as they were offered.
const CLASSIC = {
  min_huxi: [15, 18, 21],
  zimo: ["plus_one", "double", "none"],
  cap: [0, 50, 100, 200, 300, 600],
  win_on_discard: [false, true],
  discarder_pays: [false, true],
  first_dealer: ["draw", "owner"],
  must_hu: [false, true],
};
export const FAMILIES = ["classic", "changde", "shihuka", "liuhuqiang"];

/** The options a player may set for a preset, with their allowed values (only those with a choice). */
export function offered(pr) {
  const all = (pr && pr.family_options) || CLASSIC;
  const out = {};
  for (const [name, values] of Object.entries(all)) if (Array.isArray(values) && values.length > 1) out[name] = values;
  // 放炮 is one choice: no / yes / the discarder pays (with a win on a discard only)
  const pao = [];
  const wins = all.win_on_discard || [];
  const pays = all.discarder_pays || [];
  if (wins.includes(false)) pao.push("no");
  if (wins.includes(true) && pays.includes(false)) pao.push("yes");
  if (wins.includes(true) && pays.includes(true)) pao.push("pays");
  delete out.win_on_discard;
  delete out.discarder_pays;
  if (pao.length > 1) out.fangpao = pao;
  if (!pr || !pr.family_options) {
    if (pr && pr.name === "hunan") out.four_players = [false, true]; // R8.1: 守醒 with the hunan rules only
  }
  return out;
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

/** The preset's value of an option (the dialog's default). */
function presetValue(rules, name, values) {
  if (name === "fangpao") return fangpao(rules);
  const v = rules[name];
  return v === undefined ? values[0] : v;
}

/** The preset select, its options grouped by family when there is more than one (quick play's too). */
export function presetSelect(presets) {
  const families = FAMILIES.filter((f) => presets.some((pr) => (pr.family || "classic") === f));
  const option = (pr) => h("option", { value: pr.name }, presetText(pr.name, pr.title));
  if (families.length < 2) return h("select", { name: "preset" }, presets.map(option));
  return h(
    "select",
    { name: "preset" },
    families.map((f) => h("optgroup", { label: t(`family_${f}`) }, presets.filter((pr) => (pr.family || "classic") === f).map(option))),
  );
}

/** The create dialog. `app.state.createDraft` keeps what was chosen across redraws, until it closes. */
export function renderCreateDialog(app, close, levelInfo) {
  const S = app.state;
  const presets = (S.presets && S.presets.presets) || [{ name: "qq", title: "", family: "classic" }];
  const defaults = (S.presets && S.presets.room_options && S.presets.room_options.defaults) || {};
  const draft = S.createDraft || (S.createDraft = {});
  const preset = presetSelect(presets);
  if (draft.preset && presets.some((pr) => pr.name === draft.preset)) preset.value = draft.preset;
  const pr = presets.find((x) => x.name === preset.value) || presets[0];
  const rules = pr.rules || {};
  const hands = h("input", { name: "hands", type: "number", min: "1", max: "64", value: String(defaults.hands ?? 8) });
  const stake = h("input", { name: "stake", type: "number", min: "0", max: "1000", placeholder: `${t("stakeDefault")} ${rules.stake ?? ""}` });
  const turn = h("input", { name: "turn_seconds", type: "number", min: "3", max: "300", value: String(defaults.turn_seconds ?? 20) });
  const claim = h("input", { name: "claim_seconds", type: "number", min: "2", max: "300", value: String(defaults.claim_seconds ?? 10) });
  const bots = h("input", { name: "bots_fill", type: "checkbox", checked: defaults.bots_fill !== false });
  const hintsOn = h("input", { name: "hints", type: "checkbox", checked: defaults.hints !== false }); // 提示 (hint.js)
  const botLevel = levelSelect("bot_level", defaults.bot_level, levelInfo); // levels.js
  const own = [hands, stake, turn, claim, bots, hintsOn, botLevel];

  // The family's options, at the preset's values (or the draft's).
  const choices = offered(pr);
  const ruleControls = {};
  const selects = [];
  const checks = [];
  for (const name of ORDER) {
    if (!choices[name]) continue;
    const values = choices[name];
    const el = h("select", { name }, values.map((v) => h("option", { value: String(v) }, valueLabel(name, v))));
    el.value = String(presetValue(rules, name, values));
    ruleControls[name] = el;
    selects.push(field(optionLabel(name), el));
  }
  for (const name of CHECKS) {
    if (!choices[name]) continue;
    const el = h("input", { name, type: "checkbox", checked: !!rules[name] });
    ruleControls[name] = el;
    checks.push(h("label", { class: "check" }, el, optionLabel(name)));
  }
  for (const el of [...own, ...Object.values(ruleControls)]) {
    if (el.name in draft) {
      if (el.type === "checkbox") el.checked = draft[el.name];
      else el.value = draft[el.name];
    }
    el.addEventListener("change", () => {
      draft[el.name] = el.type === "checkbox" ? el.checked : el.value;
    });
  }
  preset.addEventListener("change", () => {
    // another preset: its family's options at its values (the room's own settings stay)
    for (const name of [...ORDER, ...CHECKS]) delete draft[name];
    draft.preset = preset.value;
    app.rerender();
  });

  const family = pr.family || "classic";
  const form = h(
    "form",
    { class: "sheet create-sheet", "data-family": family },
    h("h3", {}, t("createRoom")),
    h("div", { class: "grid2" }, field(t("preset"), preset), field(t("hands"), hands), field(t("stake"), stake)),
    h(
      "fieldset",
      { class: "family-opts", "data-testid": "family-options", "data-family": family },
      h("legend", {}, t("familyOptions", { family: t(`family_${family}`) })),
      h("div", { class: "grid2" }, selects),
      h("div", { class: "grid2 checks" }, checks),
    ),
    h("div", { class: "grid2" }, field(t("turnSeconds"), turn), field(t("claimSeconds"), claim)),
    h("label", { class: "check" }, bots, t("botsFill")),
    h("label", { class: "check" }, hintsOn, t("optHints")),
    h("div", { class: "grid2" }, field(t("botLevel"), botLevel)),
    h("div", { class: "sheet-buttons" }, h("button", { class: "btn ghost", type: "button", onclick: close }, t("cancel")), h("button", { class: "btn primary", type: "submit", "data-action": "create-submit" }, t("create"))),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = { preset: preset.value, bots_fill: bots.checked, hints: hintsOn.checked, bot_level: botLevel.value };
    if (hands.value) body.hands = Number(hands.value);
    if (stake.value) body.stake = Number(stake.value);
    if (turn.value) body.turn_seconds = Number(turn.value);
    if (claim.value) body.claim_seconds = Number(claim.value);
    body.four_players = ruleControls.four_players ? ruleControls.four_players.checked : false;
    for (const [name, el] of Object.entries(ruleControls)) {
      if (name === "four_players") continue;
      if (name === "fangpao") {
        body.win_on_discard = el.value !== "no";
        body.discarder_pays = el.value === "pays";
      } else if (el.type === "checkbox") body[name] = el.checked;
      else body[name] = typeof choices[name][0] === "number" ? Number(el.value) : el.value;
    }
    S.createDraft = null;
    app.createRoom(body);
  });
  return h("div", { class: "modal", role: "dialog" }, form);
}
