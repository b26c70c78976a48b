// Difficulty levels of the computer players (issue #16; paohuzi.bots.levels): 入门 普通 高手 大师. A bot seat's
// `bot` is its level's key; its name shows the level ("电脑2·高手"). Quick play and a friend room choose the
// level of their computers (`bot_level`, docs/protocol.md §2).

import { h } from "./dom.js";
import { t } from "./i18n.js";

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

/** A <select name=…> of the levels, weakest first, `value` chosen (the server's default: normal). */
export function levelSelect(name, value) {
  const sel = h("select", { name }, LEVEL_KEYS.map((k) => h("option", { value: k }, t(`level_${k}`))));
  sel.value = LEVEL_KEYS.includes(value) ? value : "normal";
  return sel;
}
