// The table's top bar (leave, room and hand, rules, connection, 托管 聊天 解散 提示, sound, language) and its
// quick-chat panel (docs/protocol.md §3.1).

import { dissolveButton } from "./dissolve.js";
import { h } from "./dom.js";
import { hintButton } from "./hint.js";
import { CHAT_EMOJI, chatPhrases, chatText, lang, setLang, t } from "./i18n.js";
import { roomLabel } from "./match.js";
import { rulesEl } from "./rules.js";
import { setSound, soundOn } from "./sound.js";
import { myAuto } from "./state.js";

/** The button that switches the language (every screen has one). */
export function langButton(app) {
  return h(
    "button",
    {
      class: "btn small lang",
      title: t("langTitle"),
      lang: lang() === "zh" ? "en" : "zh-CN", // the other language's name, in that language
      "data-action": "lang",
      onclick: () => {
        setLang(lang() === "zh" ? "en" : "zh");
        app.rerender();
      },
    },
    t("lang"),
  );
}

/** 托管, 聊天, 解散 and 提示: the table's buttons, while a hand is on the table. */
function topActions(app, room, g, auto) {
  const state = app.state;
  return [
    h(
      "button",
      // a toggle: lit while 托管 is on (its title says how to stop it; the bar above the hand says it in full),
      // so the label keeps its width and a phone's second row keeps the room code and the hand number
      { class: `btn small auto-btn${auto ? " on" : ""}`, "data-action": "auto", "aria-pressed": auto ? "true" : "false", title: auto ? t("autoOff") : t("auto"), onclick: () => app.send({ type: "auto", on: !auto }) },
      t("auto"),
    ),
    h(
      "button",
      { class: `btn small ghost chat-btn${state.chatOpen ? " on" : ""}`, "data-action": "chat", "aria-expanded": state.chatOpen ? "true" : "false", onclick: () => { state.chatOpen = !state.chatOpen; app.rerender(); } },
      t("chat"),
    ),
    dissolveButton(room, app.send),
    hintButton(room, g, state.hint, () => {
      state.hintAsked = { hand: g.hand, seq: g.seq };
      app.send({ type: "hint" });
    }),
  ];
}

export function topBar(app) {
  const state = app.state;
  const g = state.game;
  const room = state.room;
  const auto = myAuto(state);
  const sound = soundOn();
  const connWord = t(state.conn === "idle" ? "connecting" : state.conn);
  const conn = h("span", { class: `conn conn-${state.conn}`, "data-conn": state.conn, title: connWord }, h("i", {}), h("span", { class: "conn-text" }, connWord));
  return h(
    "header",
    { class: `topbar${room && room.kind === "public" ? " public" : ""}` }, // public: the tier before the rules (match.js)
    h("button", { class: "btn small ghost icon", "data-action": "leave-table", title: t("leaveMatch"), onclick: () => app.leaveRoom() }, "✕"),
    h(
      "span",
      { class: "top-info" },
      room ? h("span", { class: "top-code" }, roomLabel(room)) : null,
      g && g.number ? h("span", { class: "top-hand" }, t("handOf", { n: g.number, m: g.hands || "?" })) : null,
    ),
    room && room.options ? rulesEl(room.options, "top-rules") : null,
    conn,
    // 托管 聊天 解散 提示 in a group: on a phone it is the top bar's second row (app.css), each label on one line.
    g ? h("span", { class: "top-actions" }, topActions(app, room, g, auto)) : null,
    h(
      "button",
      {
        class: `btn small ghost icon sound${sound ? " on" : ""}`,
        "data-action": "sound",
        "aria-pressed": sound ? "true" : "false",
        title: sound ? t("soundOff") : t("soundOn"),
        "aria-label": sound ? t("soundOff") : t("soundOn"),
        onclick: () => {
          setSound(!soundOn());
          app.rerender();
        },
      },
      speakerIcon(sound),
    ),
    langButton(app),
  );
}

/** A speaker drawn as SVG (no emoji font needed): with sound waves, or crossed out. */
function speakerIcon(on) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  const path = (d, fill) => {
    const el = document.createElementNS(NS, "path");
    el.setAttribute("d", d);
    el.setAttribute("fill", fill ? "currentColor" : "none");
    el.setAttribute("stroke", "currentColor");
    el.setAttribute("stroke-width", "2");
    el.setAttribute("stroke-linecap", "round");
    svg.append(el);
  };
  path("M4 9h4l5-4v14l-5-4H4z", true);
  if (on) {
    path("M16 9a4 4 0 0 1 0 6", false);
    path("M18.5 6.5a7.5 7.5 0 0 1 0 11", false);
  } else {
    path("M16 9l6 6M22 9l-6 6", false);
  }
  return svg;
}

/** The quick-chat panel: the fixed phrases and emoji (docs/protocol.md §3.1), and the table's mute. */
export function chatPanel(app) {
  const state = app.state;
  const say = (n) => {
    app.send({ type: "chat", phrase: n });
    state.chatOpen = false;
    app.rerender();
  };
  const words = chatPhrases();
  const phrases = Array.from({ length: words }, (_, n) => h("button", { class: "chat-phrase", "data-phrase": String(n), onclick: () => say(n) }, chatText(n)));
  const emoji = CHAT_EMOJI.map((_, i) => h("button", { class: "chat-emoji", "data-phrase": String(words + i), onclick: () => say(words + i) }, chatText(words + i)));
  const mute = h(
    "button",
    {
      class: "btn small ghost",
      "data-action": "chat-mute",
      "aria-pressed": state.chatMuted ? "true" : "false",
      onclick: () => {
        state.chatMuted = !state.chatMuted;
        state.chatRoom = state.room ? state.room.code : null;
        if (state.chatMuted) state.bubbles = {};
        app.rerender();
      },
    },
    state.chatMuted ? t("chatUnmute") : t("chatMute"),
  );
  return h("div", { class: "chat-panel", role: "dialog", "aria-label": t("chat") }, h("div", { class: "chat-phrases" }, phrases), h("div", { class: "chat-emojis" }, emoji), mute);
}
