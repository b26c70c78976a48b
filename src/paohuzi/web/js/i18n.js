// The client's words: Chinese (zh-CN) by default, English on request. The words are data, one file per
// language (web/i18n/zh.json, en.json: `strings`, the quick-chat `chat` phrases, the `presets`' titles, and
// in English the server's Chinese words: `mingtang` R7.2, `titles` R7.4), fetched once at start-up
// (`loadStrings`, main.js) before anything is drawn. Here: the lookup — t("cardsN", {n: 3}) fills {n}.

const LANG_KEY = "paohuzi.lang";
export const LANGUAGES = ["zh", "en"];

// Quick chat (docs/protocol.md §3.1): the phrases (words, per language) come first, then these emoji.
export const CHAT_EMOJI = ["👍", "😂", "😭", "😡", "🎉", "🙏"];

const EMPTY = { strings: {}, chat: [], presets: {}, mingtang: {}, titles: {} };
const TABLES = { zh: EMPTY, en: EMPTY };
let current = "zh";
try {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved && LANGUAGES.includes(saved)) current = saved;
} catch {
  /* ignore */
}

/** Fetch both languages' files (a switch of language is then instant, and English falls back to Chinese). */
export async function loadStrings() {
  await Promise.all(
    LANGUAGES.map(async (name) => {
      const response = await fetch(new URL(`../i18n/${name}.json`, import.meta.url));
      if (!response.ok) throw new Error(`i18n/${name}.json: HTTP ${response.status}`);
      TABLES[name] = { ...EMPTY, ...(await response.json()) };
    }),
  );
}

export function lang() {
  return current;
}

export function setLang(name) {
  if (!LANGUAGES.includes(name)) return;
  current = name;
  document.documentElement.lang = name === "zh" ? "zh-CN" : "en";
  try {
    localStorage.setItem(LANG_KEY, name);
  } catch {
    /* ignore */
  }
}

/** The text of `key` in the current language (else the Chinese, else the key itself). */
function lookup(key) {
  return TABLES[current].strings[key] ?? TABLES.zh.strings[key] ?? key;
}

export function t(key, params) {
  // English counts one hand, many hands: a key may have a singular form `<key>_one` for {n} = 1.
  const one = params && Number(params.n) === 1 ? TABLES[current].strings[`${key}_one`] : undefined;
  let text = one ?? lookup(key);
  if (params) text = text.replace(/\{(\w+)\}/g, (m, k) => (params[k] ?? m));
  return text;
}

/**
 * Like t(), but a parameter may be a DOM node (a player's name element): answers a list of strings and
 * nodes for h() — so that a name stays its own element (the English-mode test knows names by it).
 */
export function tx(key, params) {
  const text = lookup(key);
  const out = [];
  let last = 0;
  text.replace(/\{(\w+)\}/g, (m, k, at) => {
    out.push(text.slice(last, at));
    out.push(params && params[k] !== undefined ? params[k] : m);
    last = at + m.length;
    return m;
  });
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}

/** The message for an error code, or the server's own message. */
export function errorText(code, message) {
  const text = TABLES[current].strings[`err_${code}`];
  return text || t("err_unknown", { code: code || message || "?" });
}

/** How many quick-chat phrases have words (the emoji follow them). */
export function chatPhrases() {
  return TABLES.zh.chat.length;
}

/** The words (or emoji) of quick-chat phrase `n`. */
export function chatText(n) {
  const words = TABLES[current].chat;
  if (n < words.length) return words[n];
  return CHAT_EMOJI[n - words.length] || "";
}

// The server's Chinese words (名堂, level titles): Chinese mode shows them as they are, English its own.
function serverWord(table, word) {
  return current === "zh" ? word : TABLES[current][table][word] || word;
}

/** A 名堂 name as shown: the server's Chinese, or its English. */
export function mingtangText(name) {
  return serverWord("mingtang", name);
}

/** A level title (R7.4) as shown. */
export function titleText(title) {
  return serverWord("titles", title);
}

/** A preset's title as shown: `name` is its key (qq, hunan …), `title` the server's Chinese title. */
export function presetText(name, title) {
  if (current === "zh" && title) return title;
  return TABLES[current].presets[name] || name;
}
