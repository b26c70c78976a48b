// Difficulty levels of the computer players (issue #16; paohuzi.bots.levels): 入门 普通 高手 大师. A bot seat's
// `bot` is its level's key; its name shows the level ("电脑2·高手"). Quick play and a friend room choose the
// level of their computers (`bot_level`, docs/protocol.md §2).

import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

export const LEVEL_KEYS = ["beginner", "normal", "expert", "master"];

/** The level's name in the current language, or null for a bot that is not a level (an operator's own). */
export function levelName(bot) {
  return LEVEL_KEYS.includes(bot) ? t(`level_${bot}`) : null;
}

/** A computer player's name: "电脑2", with its level when it plays one ("电脑2·高手"). */
export function botName(seat, bot) {
  const level = levelName(bot);
  return level ? t("botLevelN", { n: seat + 1, level }) : t("botN", { n: seat + 1 });
}

/** A level's one-line description in the current language, from the server's list (`/api/presets`
 * `room_options.levels`, paohuzi.bots.levels), or "" when the list is not known. */
export function levelBlurb(key, info) {
  const lv = (info || []).find((x) => x.key === key);
  return lv ? (lang() === "en" ? lv.blurb_en : lv.blurb_zh) || "" : "";
}

/** A <select name=…> of the levels, weakest first, `value` chosen (the server's default: normal); with the
 * server's level list `info`, each option and the select itself carry the level's description as a tooltip. */
export function levelSelect(name, value, info) {
  const sel = h("select", { name }, LEVEL_KEYS.map((k) => h("option", { value: k, title: levelBlurb(k, info) }, t(`level_${k}`))));
  sel.value = LEVEL_KEYS.includes(value) ? value : "normal";
  const describe = () => { sel.title = levelBlurb(sel.value, info); };
  sel.addEventListener("change", describe);
  describe();
  return sel;
}
