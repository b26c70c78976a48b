// The lobby (大厅): profile, quick play, private rooms, leaderboard, recent hands; and the waiting room.

import { api } from "./api.js";
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { doubleCardBox, loadDoubleCards } from "./double_card.js";
import { presetText, t, titleText, tx } from "./i18n.js";
import { botName, levelSelect } from "./levels.js";
import { matchSection, tierName } from "./match.js";
import { knowPresets, rulesEl, seatsOf } from "./rules.js";
import { presetSelect, renderCreateDialog } from "./create_room.js";
import { clubSameIp } from "./clubs.js";

/** The server's level list (names, blurbs) once /api/presets has answered, for the level pickers' tooltips. */
function levelInfo(S) {
  return (S.presets && S.presets.room_options && S.presets.room_options.levels) || null;
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

/** The lobby. `app` gives state (player, presets, leaderboard, history) and actions. */
/** A box for a replay code (issue 12 item 4): the code opens that hand's replay. */
function replayCodeBox(app) {
  const input = h("input", { name: "replay-code", maxlength: "16", autocomplete: "off", autocapitalize: "characters", placeholder: t("replayCodeHint"), "aria-label": t("replayCode") });
  return h(
    "form",
    {
      class: "replay-code-box",
      onsubmit: (ev) => {
        ev.preventDefault();
        app.openReplayCode(input.value);
      },
    },
    input,
    h("button", { class: "btn small", type: "submit", "data-action": "replay-code-open" }, t("replayCodeOpen")),
  );
}

export function renderLobby(app) {
  const S = app.state;
  const p = S.player || {};
  const root = h("div", { class: "lobby" });

  root.append(
    h(
      "header",
      { class: "lobby-head" },
      h("div", { class: "brand" }, h("span", { class: "brand-cards" }, cardEl("x2", { size: "sm" }), cardEl("d7", { size: "sm" }), cardEl("x10", { size: "sm" })), h("span", { class: "brand-text" }, h("b", {}, t("app")), h("small", {}, t("appSub")))),
      app.langButton(),
    ),
  );

  // Profile
  const nick = h("span", { class: "nick", "data-testid": "nickname", "data-pname": "" }, p.nickname || "…");
  const renameBox = h("form", { class: S.renaming ? "rename" : "rename hidden" }); // open across redraws
  const nickInput = h("input", { name: "nickname", maxlength: "16", value: p.nickname || "", "aria-label": t("nickname") });
  renameBox.append(nickInput, h("button", { class: "btn small primary", type: "submit" }, t("save")));
  renameBox.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    S.renaming = false;
    await app.rename(nickInput.value);
  });
  root.append(
    h(
      "section",
      { class: "profile card-box" },
      h("div", { class: "avatar big", "data-pname": "" }, (p.nickname || "?").slice(0, 1)),
      h(
        "div",
        { class: "profile-text" },
        h("div", { class: "nick-line" }, nick, h("button", { class: "link", "data-action": "rename", onclick: () => { S.renaming = !S.renaming; renameBox.classList.toggle("hidden", !S.renaming); } }, t("rename"))),
        renameBox,
        h(
          "div",
          { class: "stats" },
          h("span", { class: "title-badge", "data-testid": "title" }, titleText(p.title || "")),
          h("span", {}, t("points"), " ", h("b", { "data-testid": "points" }, String(p.points ?? 0))),
          h("span", {}, t("handsPlayed"), " ", h("b", {}, String(p.hands_played ?? 0))),
          h("span", {}, t("handsWon"), " ", h("b", {}, String(p.hands_won ?? 0))),
          h("span", {}, t("beans"), " ", h("b", { "data-testid": "lobby-beans" }, String(p.beans ?? 0))),
        ),
        // the profile pages (profile.js): my profile, my account
        h(
          "div",
          { class: "profile-links" },
          h("a", { class: "btn small", href: "#/me", "data-action": "profile" }, t("profileTitle")),
          h("a", { class: "btn small ghost", href: "#/account", "data-action": "account" }, t("accountTitle")),
        ),
        doubleCardBox(app), // 双倍积分卡 (double_card.js)
      ),
    ),
  );

  if (S.notice && S.notice.kicked) {
    root.append(
      h(
        "section",
        { class: "card-box notice", "data-testid": "kicked-notice" },
        h("span", {}, S.notice.reason === "ready_timeout" ? t("readyTimeout", { code: S.notice.kicked, n: S.notice.seconds }) : t("kicked", { code: S.notice.kicked })),
        h("button", { class: "btn small", "data-action": "notice-ok", onclick: () => { S.notice = null; app.rerender(); } }, t("ok")),
      ),
    );
  }
  if (S.notice && S.notice.penalty) {
    // You left a hand being played (逃跑, R7.3): what it cost.
    root.append(
      h(
        "section",
        { class: "card-box notice", "data-testid": "escape-notice", "data-penalty": String(S.notice.penalty) },
        h("span", {}, t("youEscaped", { n: S.notice.penalty })),
        h("button", { class: "btn small", "data-action": "notice-ok", onclick: () => { S.notice = null; app.rerender(); } }, t("ok")),
      ),
    );
  }

  if (S.room && S.room.status !== "closed") {
    root.append(
      h(
        "section",
        { class: "card-box in-room" },
        h("span", {}, S.room.kind === "public" ? t("inPublic", { tier: tierName(S.room.options.tier) }) : t("inRoom", { code: S.room.code })),
        h("button", { class: "btn small primary", onclick: () => app.go("room") }, t("backToTable")),
      ),
    );
  }

  // Play
  const presets = (S.presets && S.presets.presets) || [{ name: "qq", title: "" }];
  const quickPreset = presetSelect(presets); // grouped by family (R9)
  if (S.quickPreset) quickPreset.value = S.quickPreset;
  // "You and two computers" — three for 六胡抢 (R9.3: four play)
  const quickSub = () => {
    const pr = presets.find((x) => x.name === quickPreset.value);
    return t(seatsOf(pr && pr.rules) === 4 ? "quickPlaySub3" : "quickPlaySub");
  };
  const quickSubEl = h("small", { "data-testid": "quick-sub" }, quickSub());
  quickPreset.addEventListener("change", () => {
    S.quickPreset = quickPreset.value;
    quickSubEl.textContent = quickSub();
  });
  const quickLevel = levelSelect("bot_level", S.quickLevel || (S.presets && S.presets.room_options && S.presets.room_options.defaults.bot_level), levelInfo(S));
  quickLevel.addEventListener("change", () => { S.quickLevel = quickLevel.value; });
  root.append(
    h(
      "section",
      { class: "play" },
      h(
        "button",
        { class: "big-btn quick", "data-action": "quick", onclick: () => app.quickPlay(quickPreset.value, quickLevel.value) },
        h("b", {}, t("quickPlay")),
        quickSubEl,
      ),
      h("div", { class: "quick-opts" }, field(t("preset"), quickPreset), field(t("botLevel"), quickLevel)),
      h(
        "div",
        { class: "two" },
        h("button", { class: "big-btn create", "data-action": "create", onclick: () => app.openDialog("create") }, h("b", {}, t("createRoom")), h("small", {}, t("createRoomSub"))),
        h("button", { class: "big-btn join", "data-action": "join", onclick: () => app.openDialog("join") }, h("b", {}, t("joinRoom")), h("small", {}, t("joinRoomSub"))),
      ),
      h("a", { class: "big-btn clubs", href: "#/clubs", "data-action": "clubs" }, h("b", {}, t("clubs")), h("small", {}, t("clubsSub"))), // 亲友圈 (clubs.js)
      replayCodeBox(app),
    ),
  );
  root.append(matchSection(app)); // 匹配: public tables by tier (match.js)

  // Leaderboard and recent hands
  const board = h("ol", { class: "board" });
  const players = S.leaderboard || [];
  if (!players.length) board.append(h("li", { class: "empty" }, t("noPlayers")));
  for (const row of players.slice(0, 20)) {
    board.append(
      h(
        "li",
        { class: row.id === p.id ? "me" : "" },
        h("span", { class: "rank" }, String(row.rank)),
        h("a", { class: "b-name", href: `#/player/${row.id}`, "data-pname": "" }, row.nickname),
        h("span", { class: "b-title" }, titleText(row.title)),
        h("b", { class: "b-points" }, String(row.points)),
      ),
    );
  }
  const recent = h("ul", { class: "recent" });
  const hands = [];
  for (const m of S.history || []) {
    for (const hd of m.hands || []) hands.push({ match: m, hand: hd });
  }
  hands.sort((a, b) => b.hand.id - a.hand.id);
  if (!hands.length) recent.append(h("li", { class: "empty" }, t("noHistory")));
  for (const { match, hand } of hands.slice(0, 12)) {
    const mySeat = (match.seats || []).find((s) => s.player_id === p.id);
    const seatOf = (i) => (match.seats || []).find((s) => s.seat === i);
    // A seat by name: "你", the nickname, or "电脑2·高手" for a computer, as at the table (never its internal name).
    const who = (seat) => {
      if (!seat) return "?";
      if (mySeat && seat.seat === mySeat.seat) return t("you");
      return seat.bot || seat.player_id === null ? botName(seat.seat, seat.bot) : h("span", { "data-pname": "" }, seat.nickname);
    };
    let result = t(hand.status === "playing" ? "playing" : "drawn");
    let kind = hand.status === "playing" ? "playing" : "draw";
    if (hand.kind === "escape" && hand.leaver !== null && hand.leaver !== undefined) {
      kind = "escape";
      const paid = hand.payments ? -hand.payments[hand.leaver] : null;
      result = [tx("escapeHand", { name: who(seatOf(hand.leaver)) }), paid ? ` −${paid}` : ""];
    } else if (hand.winner !== null && hand.winner !== undefined) {
      kind = "hu";
      result = [who(seatOf(hand.winner)), ` ${t("won")} ${hand.points ?? ""}`];
    }
    recent.append(
      h(
        "li",
        { "data-kind": kind },
        h("span", { class: "r-preset" }, match.preset ? presetText(match.preset) : ""),
        h("span", { class: "r-no" }, t("handNo", { n: hand.number })),
        h("span", { class: "r-result" }, result),
        hand.status === "playing"
          ? null
          : h("button", { class: "btn small ghost", "data-action": "replay", "data-hand": String(hand.id), onclick: () => app.openReplay(hand.id) }, t("replay")),
      ),
    );
  }
  root.append(
    h("section", { class: "lists" }, h("div", { class: "card-box" }, h("h3", { class: "h-link" }, t("leaderboard"), h("a", { class: "link", href: "#/boards", "data-action": "boards" }, t("allBoards"))), board), h("div", { class: "card-box" }, h("h3", {}, t("recent")), recent)),
  );
  return root;
}

/** The dialogs: create a room (preset and options), join by code. */
export function renderDialog(app, which) {
  const S = app.state;
  const close = () => {
    S.createDraft = null;
    app.openDialog(null);
  };
  if (which === "join") {
    const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "off", pattern: "[0-9]*", maxlength: "6", placeholder: "000000", class: "code-input", "aria-label": t("roomCode") });
    const form = h(
      "form",
      { class: "sheet" },
      h("h3", {}, t("joinRoom")),
      field(t("roomCode"), code),
      h("div", { class: "sheet-buttons" }, h("button", { class: "btn ghost", type: "button", onclick: close }, t("cancel")), h("button", { class: "btn primary", type: "submit", "data-action": "join-submit" }, t("join"))),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      app.joinRoom(code.value.trim());
    });
    setTimeout(() => code.focus(), 0);
    return h("div", { class: "modal", role: "dialog" }, form);
  }
  return renderCreateDialog(app, close, levelInfo(S)); // create_room.js
}

/** The owner's tools for one seat (before a match): remove, make owner; a computer for a free seat. */
function ownerTools(app, s, me) {
  const tools = h("span", { class: "owner-tools" });
  if (s.player && s.player.id !== me) {
    tools.append(h("button", { class: "btn small ghost", "data-action": "give-owner", "data-seat": String(s.seat), onclick: () => app.send({ type: "give_owner", seat: s.seat }) }, t("giveOwner")));
  }
  if ((s.player && s.player.id !== me) || s.bot) {
    tools.append(h("button", { class: "btn small ghost", "data-action": "kick", "data-seat": String(s.seat), onclick: () => app.send({ type: "kick", seat: s.seat }) }, t("kick")));
  }
  if (!s.player && !s.bot) {
    const level = levelSelect(`level-${s.seat}`, "normal", levelInfo(app.state));
    tools.append(level, h("button", { class: "btn small", "data-action": "add-bot", "data-seat": String(s.seat), onclick: () => app.send({ type: "add_bot", seat: s.seat, level: level.value }) }, t("addBot")));
  }
  return tools;
}

/** The ready timeout of an unready seat (issue 12 item 5): the seconds left before it is released,
 * counting down (the `[data-deadline]` ticker of render.js; `localReadyDeadline` is stamped when the room
 * arrives). */
function readyClock(s) {
  if (s.ready || typeof s.localReadyDeadline !== "number") return null;
  const left = Math.max(0, Math.ceil((s.localReadyDeadline - performance.now()) / 1000));
  const [before, after] = t("readyClock", { n: "\u0000" }).split("\u0000");
  return h(
    "span",
    { class: "ready-clock", "data-testid": "ready-clock", "data-seat": String(s.seat) },
    before,
    h("b", { "data-deadline": String(s.localReadyDeadline) }, String(left)),
    after,
  );
}

/** The waiting room of a private room: code, share link, seats, ready / start / leave. */
export function renderRoom(app) {
  const S = app.state;
  const room = S.room;
  const me = S.player ? S.player.id : null;
  const mySeat = room.seats.find((s) => s.player && s.player.id === me);
  const isOwner = room.owner === me;
  const shareUrl = room.share_url || `${location.origin}/?room=${room.code}`;
  const copyBtn = h("button", { class: "btn small", "data-action": "copy" }, t("copy"));
  copyBtn.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(shareUrl);
    } catch {
      const sel = document.getElementById("share-url");
      if (sel) sel.select();
    }
    copyBtn.textContent = t("copied");
  });
  const opts = room.options || {};
  const seats = h("ul", { class: "seats" });
  const sameIp = clubSameIp(S, room); // 同IP at a club table (seats, never an address)
  for (const s of room.seats) {
    let label = t("emptySeat");
    if (s.player) label = [h("span", { "data-pname": "" }, s.player.nickname), s.player.id === me ? t("you_paren") : ""];
    else if (s.bot) label = botName(s.seat, s.bot);
    seats.append(
      h(
        "li",
        { class: `${s.player || s.bot ? "taken" : "free"}${s.ready ? " ready" : ""}`, "data-seat": String(s.seat) },
        s.player ? h("span", { class: "avatar", "data-pname": "" }, s.player.nickname.slice(0, 1)) : h("span", { class: "avatar" }, s.bot ? t("botAvatar") : "+"),
        h("span", { class: "seat-name" }, label, s.player && room.owner === s.player.id ? h("b", { class: "badge" }, t("owner")) : null),
        s.player || s.bot ? h("span", { class: `ready-mark${s.ready ? " on" : ""}` }, s.ready ? t("isReady") : t("notReady")) : null,
        readyClock(s),
        sameIp.includes(s.seat) ? h("b", { class: "badge warn same-ip", title: t("sameIpWhat") }, t("sameIp")) : null,
        isOwner && room.kind === "private" ? ownerTools(app, s, me) : null,
      ),
    );
  }
  const free = room.seats.some((s) => !s.player && !s.bot);
  const buttons = h("div", { class: "room-buttons" });
  if (mySeat) {
    buttons.append(
      h(
        "button",
        { class: `btn ${mySeat.ready ? "" : "primary"}`, "data-action": "ready", onclick: () => app.send({ type: "ready", ready: !mySeat.ready }) },
        mySeat.ready ? t("unready") : t("ready"),
      ),
    );
    if (isOwner) {
      buttons.append(h("button", { class: "btn primary", "data-action": "start", onclick: () => app.send({ type: "start" }) }, free ? t("startWithBots") : t("start")));
    }
  }
  buttons.append(h("button", { class: "btn ghost", "data-action": "leave", onclick: () => app.leaveRoom() }, t("leave")));
  return h(
    "div",
    { class: "room-screen" },
    h("header", { class: "lobby-head" }, h("button", { class: "btn small ghost", onclick: () => app.go("lobby") }, "‹ ", t("back")), app.langButton()),
    room.kind === "club" ? clubRoomCard(app, opts) : h(
      "section",
      { class: "card-box room-card" },
      h("div", { class: "room-code-label" }, t("roomCode")),
      h("div", { class: "room-code", "data-testid": "room-code" }, room.code),
      h("div", { class: "share" }, h("input", { id: "share-url", readonly: true, value: shareUrl, "aria-label": t("shareLink") }), copyBtn),
      rulesEl(opts, "room-opts"),
    ),
    h("section", { class: "card-box" }, h("h3", {}, t("waiting")), seats, buttons),
  );
}

/** A club table's waiting room (亲友圈, issue 31): no code to share (members sit from the club's page), the
 * way back to that page; the match starts when the table is full. */
function clubRoomCard(app, opts) {
  const back = app.state.clubTable;
  return h(
    "section",
    { class: "card-box room-card", "data-testid": "club-room" },
    h("div", { class: "room-code-label" }, t("clubTableTitle")),
    h("p", { class: "muted" }, t("clubTableFull")),
    back ? h("a", { class: "btn small", href: `#/club/${back}`, "data-action": "club-back" }, t("clubBack")) : null,
    rulesEl(opts, "room-opts"),
  );
}

export async function loadLobbyData(app) {
  const S = app.state;
  const jobs = [
    api("GET", "/api/leaderboard?limit=20").then((d) => (S.leaderboard = d.players)),
    api("GET", "/api/me/history?limit=10").then((d) => (S.history = d.matches)),
    loadDoubleCards(app),
  ];
  if (!S.presets) jobs.push(api("GET", "/api/presets").then((d) => knowPresets((S.presets = d).presets)));
  await Promise.allSettled(jobs);
}
