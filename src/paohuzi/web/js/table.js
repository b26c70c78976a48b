// The table (牌桌): drawn from one observation (`view`, docs/engine.md) for one seat. Also used read-only by
// the replay viewer. Nothing here decides a rule: the buttons and playable cards come from `view.legal`.

import { cardEl, groupFaces, handColumns, point, shownHuxi } from "./cards.js";
import { h, on } from "./dom.js";
import { seatDoubleBadge } from "./double_card.js";
import { lang, t, tx } from "./i18n.js";
import { botName } from "./levels.js";

const ACT_ZH = { hu: "胡", peng: "碰", chi: "吃", pass: "过" };

/** Where each seat sits on screen, seen from `me`: "me", "right" (下家), "left" (上家), "across". */
export function seatPlaces(me, size) {
  const places = {};
  for (let s = 0; s < size; s++) {
    const d = (s - me + size) % size;
    if (d === 0) places[s] = "me";
    else if (size === 4 && d === 2) places[s] = "across";
    else if (d === 1) places[s] = "right";
    else places[s] = "left";
  }
  return places;
}

/** A seat's name for display: the player's nickname, "电脑2" for a computer (never its internal name). */
export function seatName(room, seat, names) {
  const named = names ? names[seat] : null;
  if (typeof named === "string" && named) return named;
  if (named && typeof named === "object") return named.bot ? botName(seat, named.bot) : named.nickname;
  const info = room && room.seats ? room.seats[seat] : null;
  if (info && info.player) return info.player.nickname;
  if (info && info.bot) return botName(seat, info.bot);
  return t("seatN", { n: seat + 1 });
}

/** A player's name as an element (`data-pname`: names are the players' own words, in any language). */
export function nameEl(text, cls = "name") {
  return h("span", { class: cls, "data-pname": "" }, text);
}

/** The avatar letter of a seat: the name's first character, or the computer mark. */
export function avatarEl(room, seat, names) {
  const named = names && names[seat];
  const info = room && room.seats ? room.seats[seat] : null;
  const bot = named && typeof named === "object" ? named.bot : !named && info && !info.player && info.bot;
  if (bot) return h("span", { class: "avatar bot" }, t("botAvatar"));
  return h("span", { class: "avatar", "data-pname": "" }, seatName(room, seat, names).slice(0, 1));
}

/** 胡息 a seat shows on the table: its groups' 胡息, a face-down 偎 counting nothing (R5). */
export function visibleHuxi(groups) {
  return (groups || []).reduce((sum, gr) => sum + shownHuxi(gr), 0);
}

/** The actions of `legal` sorted into discards (by card) and claims (hu/peng/chi…/pass). */
export function splitLegal(legal) {
  const discards = new Map();
  const claims = { hu: null, peng: null, pass: null, chi: [] };
  for (const action of legal || []) {
    if (action.startsWith("discard ")) discards.set(action.slice(8).trim(), action);
    else if (action === "hu" || action === "peng" || action === "pass") claims[action] = action;
    else if (action.startsWith("chi ")) claims.chi.push(action);
  }
  return { discards, claims };
}

/** Parse "chi x8 x9 | bi x7 x8 x9" into {cards: ["x8","x9"], bi: [["x7","x8","x9"]]}. */
export function parseChi(action) {
  const parts = action.split("|").map((p) => p.trim());
  const cards = parts[0].split(/\s+/).slice(1);
  const bi = parts.slice(1).map((p) => p.split(/\s+/).slice(1));
  return { cards, bi };
}

/** The seat's hand as it is drawn: columns (`handColumns`), each card with its place and whether it may go. */
function handCells(g, discards) {
  const view = g.view;
  const hand = view.hands && view.hands[g.seat] ? view.hands[g.seat] : view.hand;
  const cells = [];
  handColumns(hand || []).forEach((col, ci) => {
    col.cards.forEach((card, i) => cells.push({ card, col: ci, idx: i, playable: !col.kan && discards.has(card) }));
  });
  return cells;
}

/**
 * The lifted card (`{hand, card, col, idx}`) made to fit the table `g` now, or null. A selection is a card
 * kind at a place in the hand; it lives across redraws (a frame may come between the two taps) while it is
 * still this hand, still the seat's discard decision and that kind may still be discarded. If the hand was
 * laid out anew, the same kind nearest the old place stands in for it.
 */
export function resolveSelection(g, sel) {
  if (!sel || !g || !g.view || sel.hand !== g.hand || g.view.phase === "over") return null;
  const { discards } = splitLegal(g.view.legal);
  if (!discards.has(sel.card)) return null;
  const same = handCells(g, discards).filter((c) => c.playable && c.card === sel.card);
  if (!same.length) return null;
  const at = same.find((c) => c.col === sel.col && c.idx === sel.idx) || same.find((c) => c.col === sel.col) || same[same.length - 1];
  return { hand: g.hand, card: at.card, col: at.col, idx: at.idx };
}

function groupColumn(group, { own, size, fresh, showHuxi, open, label = true }) {
  const faces = groupFaces(group, own, open);
  const col = h("div", { class: `grp grp-${group.kind}${fresh ? " fresh" : ""}`, "data-kind": group.kind });
  const stack = h("div", { class: "stack" });
  for (const f of faces) stack.append(cardEl(f.card, { size, back: f.back, ghost: f.ghost }));
  col.append(stack);
  if (label) {
    const hx = showHuxi ? shownHuxi(group) : 0;
    col.append(h("div", { class: "grp-label" }, t(`grp_${group.kind}`), showHuxi && hx ? h("em", {}, String(hx)) : null));
  }
  return col;
}

function rowEl(row, { size, freshFrom }) {
  const el = h("div", { class: "row" });
  row.forEach((item, i) => {
    el.append(cardEl(item.card, { size, cls: `${item.discarded ? "out" : "turned"}${i >= freshFrom ? " fresh" : ""}` }));
  });
  return el;
}

function timerEl(timer) {
  if (!timer) return null;
  // drawn as the ticker (render.js tickCountdowns) keeps it, "low" included: a redraw changes nothing of it
  const left = Math.max(0, Math.ceil((timer.localDeadline - performance.now()) / 1000));
  return h("span", { class: `timer timer-${timer.kind}${left <= 5 ? " low" : ""}`, "data-deadline": String(timer.localDeadline) }, String(left));
}

let dealDrawn = null; // {hand, t}: the deal's --t when its hand was first drawn dealing

/**
 * The whole table. `g` = {view, seat, timers, scores, auto, hand, number, hands}; `ctx` = {room, names,
 * readOnly, selected (a selection as `resolveSelection` answers it), prev (the previous view, for fresh-card
 * marks), onCard, onDragDiscard, onClaim, waits}. Returns the table element.
 */
export function renderTable(g, ctx) {
  const view = g.view;
  const me = g.seat;
  const size = view.tables.length;
  const places = seatPlaces(me, size);
  const prev = ctx.prev && ctx.prev.hand === g.hand ? ctx.prev.view : null;
  const inPlay = new Set(view.seats || []);
  const timers = new Map((g.timers || []).map((tm) => [tm.seat, tm]));
  const deciding = new Set((g.timers || []).map((tm) => tm.seat));
  // While an action of ours is on its way (ctx.busy), nothing is playable: the decision is made.
  const { discards, claims } = splitLegal(ctx.readOnly || ctx.busy ? [] : view.legal);
  const over = view.phase === "over";
  // 明偎 (R9.3): the observation's own rule options say whether a 偎 lies face up (live and in a replay).
  const openWei = !!(view.options && view.options.mingwei);

  const seatInfo = (s) => {
    const place = places[s];
    const info = ctx.room && ctx.room.seats ? ctx.room.seats[s] : null;
    const auto = ctx.auto ? !!ctx.auto[s] : g.auto ? g.auto[s] : info ? info.auto : false;
    const offline = info && info.player && !info.connected;
    const score = g.scores ? g.scores[s] : null;
    const sitting = !inPlay.has(s);
    const isTurn = !over && view.turn === s && (view.phase === "discard" || deciding.has(s));
    const tm = timers.get(s);
    // Another seat's claim timer would tell that it may 碰/吃 (R5): only discard timers are shown for them.
    // Your own countdown stands in the centre (or by the claim buttons).
    const shownTimer = tm && s !== me && tm.kind === "discard" ? tm : null;
    const hx = visibleHuxi(view.tables[s]);
    return h(
      "div",
      { class: `who${isTurn ? " turn" : ""}`, "data-seat": String(s) },
      avatarEl(ctx.room, s, ctx.names),
      h(
        "span",
        { class: "who-text" },
        nameEl(seatName(ctx.room, s, ctx.names)),
        h(
          "span",
          { class: "meta" },
          view.dealer === s ? h("b", { class: "badge dealer", title: t("dealer") }, t("dealer")) : null,
          seatDoubleBadge(ctx.room, s),
          auto ? h("b", { class: "badge auto" }, t("auto")) : null,
          offline ? h("b", { class: "badge off" }, t("offline_seat")) : null,
          (ctx.sameIp || []).includes(s) ? h("b", { class: "badge warn same-ip", title: t("sameIpWhat") }, t("sameIp")) : null,
          (view.dead || []).includes(s) ? h("b", { class: "badge dead" }, t("dead")) : null,
          sitting ? h("b", { class: "badge out" }, t("sittingOut")) : null,
          place !== "me" && !sitting ? h("span", { class: "count", "data-count": String(view.hand_counts[s]) }, t("cardsN", { n: view.hand_counts[s] })) : null,
          place !== "me" ? h("span", { class: "seat-huxi", "data-huxi": String(hx) }, t("seatHuxi", { n: hx })) : null,
          score !== null && score !== undefined ? h("span", { class: "score", title: t("total") }, `${t("total")} ${score > 0 ? "+" : ""}${score}`) : null,
        ),
      ),
      timerEl(shownTimer),
      ctx.bubbles && ctx.bubbles[s] ? h("span", { class: "bubble", "data-bubble": String(s) }, ctx.bubbles[s]) : null,
    );
  };

  const groupsOf = (s, sizeName) => {
    const own = s === me;
    const groups = view.tables[s] || [];
    const before = prev ? (prev.tables[s] || []).length : groups.length;
    const el = h("div", { class: "groups", "data-seat": String(s) });
    groups.forEach((gr, i) => {
      const changed = prev && prev.tables[s] && prev.tables[s][i] && prev.tables[s][i].kind !== gr.kind;
      el.append(groupColumn(gr, { own, size: sizeName, fresh: i >= before || changed, showHuxi: own || !!gr.cards, open: openWei }));
    });
    return el;
  };

  const rowOf = (s, sizeName) => {
    const row = view.rows[s] || [];
    const before = prev ? (prev.rows[s] || []).length : row.length;
    return rowEl(row, { size: sizeName, freshFrom: before });
  };

  // ---- opponents -----------------------------------------------------------------------------------
  const others = Object.keys(places)
    .map(Number)
    .filter((s) => places[s] !== "me")
    .sort((a, b) => ["left", "across", "right"].indexOf(places[a]) - ["left", "across", "right"].indexOf(places[b]));
  const opponents = h("section", { class: `opponents n${others.length}` });
  for (const s of others) {
    const panel = h("div", { class: `panel seat-${places[s]}`, "data-seat": String(s), "data-place": places[s] });
    panel.append(seatInfo(s));
    panel.append(groupsOf(s, "xs"));
    if (view.hands && view.hands[s]) {
      const shown = h("div", { class: "revealed" });
      for (const col of handColumns(view.hands[s])) {
        const c = h("div", { class: "mini-col" });
        for (const card of col.cards) c.append(cardEl(card, { size: "xs" }));
        shown.append(c);
      }
      panel.append(shown);
    }
    panel.append(rowOf(s, "xs"));
    opponents.append(panel);
  }

  // ---- centre: the card on offer, the 亮张, the stock --------------------------------------------------
  const center = h("section", { class: "center" });
  const pending = view.pending;
  // The 亮张 (R2) is shown until the first card lands in a discard row.
  const liangShown = view.phase === "liangzhang" || (view.rows.every((r) => r.length === 0) && !pending);
  const stockEl = h(
    "div",
    { class: "stock", title: t("stock") },
    h("span", { class: "stock-pile" }, cardEl(null, { size: "sm" }), cardEl(null, { size: "sm" })),
    h("span", { class: "stock-n", "data-stock": String(view.stock) }, String(view.stock)),
    h("span", { class: "stock-label" }, t("stock")),
  );
  center.append(stockEl);
  if (pending) {
    const fromName = pending.from === me ? t("you") : nameEl(seatName(ctx.room, pending.from, ctx.names), "pname");
    const label = pending.drawn ? tx("drew", { name: fromName }) : tx("discarded", { name: fromName });
    const freshPending = !prev || !prev.pending || prev.pending.card !== pending.card || prev.pending.from !== pending.from;
    center.append(
      h(
        "div",
        { class: `shown from-${places[pending.from]}${freshPending ? " fresh" : ""}`, "data-card": pending.card, "data-from": String(pending.from) },
        cardEl(pending.card, { size: "lg" }),
        h("div", { class: "shown-label" }, label),
      ),
    );
  } else if (liangShown && view.liangzhang) {
    const dn = view.dealer === me ? t("you") : nameEl(seatName(ctx.room, view.dealer, ctx.names), "pname");
    center.append(
      h(
        "div",
        { class: "shown liang", "data-card": view.liangzhang },
        cardEl(view.liangzhang, { size: "md" }),
        h("div", { class: "shown-label" }, `${t("liang")} · `, dn),
      ),
    );
  }
  // A line saying whose turn it is, or what to do.
  let status = "";
  if (!over && !ctx.readOnly && !ctx.busy) {
    if (discards.size) status = t("yourTurn");
    else if (view.phase === "discard" && view.turn !== me) status = tx("waitingFor", { name: nameEl(seatName(ctx.room, view.turn, ctx.names), "pname") });
  }
  center.append(h("div", { class: `status-line${discards.size ? " mine" : ""}` }, status));
  const myTimer = ctx.busy ? null : timers.get(me);
  const claiming = !!(claims.hu || claims.peng || claims.chi.length || claims.pass);

  // ---- my area ---------------------------------------------------------------------------------------
  const mine = h("section", { class: "mine", "data-seat": String(me) });
  const tableHuxi = visibleHuxi(view.tables[me]);
  const mineHead = h("div", { class: "mine-head" }, seatInfo(me), h("span", { class: "huxi", "data-huxi": String(tableHuxi) }, `${t("huxi")} ${tableHuxi}`));
  mine.append(mineHead);
  const waits = ctx.waits || view.waits;
  if (waits && waits.length && !over) {
    const ting = h("div", { class: "ting", "data-waits": String(waits.length) }, h("span", { class: "ting-label" }, t("ting")));
    for (const w of waits) {
      ting.append(
        h(
          "span",
          { class: "ting-item" },
          cardEl(w.card, { size: "xs" }),
          h("small", {}, w.huxi !== undefined ? t("tingItem", { huxi: w.huxi, points: w.points }) : ""),
        ),
      );
    }
    mine.append(ting);
  }
  const mineBody = h("div", { class: "mine-body" }, groupsOf(me, "sm"), rowOf(me, "xs"));
  mine.append(mineBody);

  // ---- my hand ---------------------------------------------------------------------------------------
  const hand = view.hands && view.hands[me] ? view.hands[me] : view.hand;
  const columns = handColumns(hand || []);
  // The deal (a new hand): the cards fly in one after another. --t is the time since the deal began at the
  // hand's first drawing (a table shown late in the deal starts there) and stays so while the deal lasts: the
  // morph keeps the cards, whose animations go on. prefers-reduced-motion turns it off (css/app.css).
  const dealing = typeof ctx.dealt === "number" && ctx.dealt < 1600;
  if (dealing && (!dealDrawn || dealDrawn.hand !== g.hand)) dealDrawn = { hand: g.hand, t: Math.round(ctx.dealt) };
  const handEl = h("section", {
    class: `hand${discards.size ? " my-turn" : ""}${dealing ? " dealing" : ""}`,
    "data-count": String((hand || []).length),
    style: { "--cols": String(Math.max(columns.length, 7)), "--t": dealing ? `${dealDrawn.t}ms` : null },
  });
  let dealIndex = 0;
  // The gestures act on the latest table: a press that began before a redraw ends on this one.
  if (!ctx.readOnly && ctx.onCard) live = { ctx, discards };
  const prevHand = prev ? prev.hand || [] : null;
  const prevCounts = new Map();
  if (prevHand) for (const c of prevHand) prevCounts.set(c, (prevCounts.get(c) || 0) + 1);
  columns.forEach((col, ci) => {
    const colEl = h("div", { class: `col${col.kan ? " kan" : ""}`, "data-col": String(ci) });
    col.cards.forEach((card, i) => {
      const key = `${ci}:${i}`;
      const playable = !col.kan && discards.has(card);
      let fresh = false;
      if (prevHand) {
        const left = prevCounts.get(card) || 0;
        if (left > 0) prevCounts.set(card, left - 1);
        else fresh = true;
      }
      const sel = ctx.selected;
      const selected = playable && !!sel && sel.card === card && sel.col === ci && sel.idx === i;
      const el = cardEl(card, {
        size: "hand",
        cls: [playable ? "playable" : "", selected ? "selected" : "", fresh ? "fresh" : ""].filter(Boolean).join(" "),
        attrs: { "data-key": key, role: playable ? "button" : null, tabindex: playable ? "0" : null, "aria-pressed": playable ? String(selected) : null },
      });
      if (dealing) el.style.setProperty("--i", String(dealIndex++));
      if (playable && ctx.onCard) attachDiscardGestures(el, { card, col: ci, idx: i });
      colEl.append(el);
    });
    if (col.kan) colEl.append(h("span", { class: "lock" }, t("grp_kan")));
    handEl.append(colEl);
  });
  // The hint and your countdown, right over the hand.
  const showTimer = myTimer && !ctx.readOnly && !claiming;
  if (discards.size || showTimer) {
    handEl.append(h("div", { class: "hand-hint" }, discards.size ? h("span", {}, t("tapTwice")) : null, showTimer ? h("span", { class: "my-timer" }, timerEl(myTimer)) : null));
  }

  // ---- claim buttons -----------------------------------------------------------------------------
  let actions = null;
  if (!ctx.readOnly && (claims.hu || claims.peng || claims.chi.length || claims.pass)) {
    actions = h("div", { class: "actions", role: "group" });
    // The big character stays Chinese (胡 碰 吃 过, as players know them); English adds a small word.
    const btn = (kind, label, onclick) => {
      const big = lang() === "zh" ? ACT_ZH[kind] : t(kind);
      return h("button", { class: `act act-${kind}${lang() === "zh" ? "" : " en"}`, "data-action": kind, onclick, disabled: ctx.busy || false, "aria-label": t(kind) }, h("b", {}, big), label ? h("small", {}, label) : null);
    };
    if (claims.hu) actions.append(btn("hu", "", () => ctx.onClaim(claims.hu)));
    if (claims.peng) actions.append(btn("peng", "", () => ctx.onClaim(claims.peng)));
    if (claims.chi.length) {
      actions.append(
        btn("chi", claims.chi.length > 1 ? `×${claims.chi.length}` : "", () => {
          if (claims.chi.length === 1) ctx.onClaim(claims.chi[0]);
          else ctx.onChooseChi(claims.chi);
        }),
      );
    }
    if (claims.pass) actions.append(btn("pass", "", () => ctx.onClaim(claims.pass)));
    if (myTimer) actions.append(h("div", { class: "act-timer" }, timerEl(myTimer)));
  }

  const barItems = [].concat(ctx.bar || []); // the 解散 proposal, the 托管 bar (table_screen.js)
  const root = h(
    "div",
    { class: `table seats-${size}${ctx.readOnly ? " readonly" : ""}`, "data-phase": view.phase, "data-hand": String(g.hand ?? "") },
    opponents,
    center,
    mine,
    actions || barItems.length ? h("div", { class: "bar" }, barItems, actions) : null,
    handEl,
  );
  return root;
}

/** The chooser for several ways to 吃 (R4.3, R4.5): each option shows its group and 比 groups. */
export function renderChiChooser(options, pendingCard, onPick, onCancel) {
  const list = h("div", { class: "chi-options" });
  for (const action of options) {
    const { cards, bi } = parseChi(action);
    const groupCards = [...cards, pendingCard].sort((a, b) => point(a) - point(b) || a.localeCompare(b));
    let marked = false;
    const faces = groupCards.map((c) => {
      const eaten = !marked && c === pendingCard;
      if (eaten) marked = true;
      return cardEl(c, { size: "sm", cls: eaten ? "eaten" : "" });
    });
    const opt = h("button", { class: "chi-option", "data-action": action, onclick: () => onPick(action) }, h("span", { class: "chi-group" }, faces));
    for (const g of bi) {
      opt.append(h("span", { class: "bi-tag" }, t("bi")));
      opt.append(h("span", { class: "chi-group bi" }, g.map((c) => cardEl(c, { size: "sm" }))));
    }
    list.append(opt);
  }
  return h(
    "div",
    { class: "modal chi-modal", role: "dialog", "aria-label": t("chooseChi") },
    h(
      "div",
      { class: "sheet" },
      h("h3", {}, t("chooseChi"), " ", cardEl(pendingCard, { size: "sm" })),
      list,
      h("button", { class: "btn ghost", onclick: onCancel }, t("cancel")),
    ),
  );
}

// Tap a card to lift it, tap again to discard; or drag / swipe it up.
//
// A frame may redraw the table at any time, also between pointerdown and pointerup: the press is kept here,
// not in the card element, and is finished by whichever element (the old card, the new one in its place) or
// the document hears the end of it. The discard is looked up in the latest table's `legal`.
let live = null; // {ctx, discards} of the latest table drawn for play
let press = null; // {id, x, y, cell, moved}
let documentListening = false;

function cardElFor(cell) {
  return document.querySelector(`.table:not(.readonly) .hand .card[data-key="${cell.col}:${cell.idx}"][data-card="${cell.card}"]`);
}

function pressMove(ev) {
  if (!press || ev.pointerId !== press.id) return;
  const dy = ev.clientY - press.y;
  const dx = ev.clientX - press.x;
  if (Math.abs(dy) > 8 || Math.abs(dx) > 8) press.moved = true;
  press.last = { dx, dy };
  if (press.moved) styleDrag(cardElFor(press.cell), dx, dy);
}

function styleDrag(el, dx, dy) {
  if (!el) return;
  el.classList.add("dragging");
  el.style.transform = `translate(${dx}px, ${Math.min(dy, 0)}px)`;
  el.classList.toggle("will-discard", dy < -50);
}

function pressEnd(ev, cancelled) {
  if (!press || ev.pointerId !== press.id) return;
  const { cell, moved } = press;
  const dy = ev.clientY - press.y;
  press = null;
  const el = cardElFor(cell);
  if (el) {
    el.classList.remove("dragging", "will-discard");
    el.style.transform = "";
  }
  if (cancelled || !live) return;
  const action = live.discards.get(cell.card);
  if (!action) return; // no longer this seat's discard, or not this card
  if (moved) {
    if (dy < -50) live.ctx.onDragDiscard(action);
    return;
  }
  live.ctx.onCard(cell, action);
}

/** After a redraw in the middle of a drag: the new card element follows the pointer again. */
export function restyleDrag() {
  if (press && press.moved && press.last) styleDrag(cardElFor(press.cell), press.last.dx, press.last.dy);
}

function attachDiscardGestures(el, cell) {
  if (!documentListening) {
    documentListening = true;
    document.addEventListener("pointermove", pressMove);
    document.addEventListener("pointerup", (ev) => pressEnd(ev, false));
    document.addEventListener("pointercancel", (ev) => pressEnd(ev, true));
  }
  // Through dom.js `on`: a card the morph keeps takes the handlers of its latest drawing (this `cell`).
  on(el, "pointerdown", (ev) => {
    if (ev.button !== undefined && ev.button !== 0) return;
    press = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, cell, moved: false, last: null };
    try {
      ev.currentTarget.setPointerCapture(ev.pointerId);
    } catch {
      /* ignore */
    }
  });
  // A card taken out of the page by a redraw may still get the rest of its press (touch keeps its target).
  on(el, "pointermove", (ev) => {
    if (!ev.currentTarget.isConnected) pressMove(ev);
  });
  on(el, "pointerup", (ev) => {
    if (!ev.currentTarget.isConnected) pressEnd(ev, false);
  });
  on(el, "pointercancel", (ev) => {
    if (!ev.currentTarget.isConnected) pressEnd(ev, true);
  });
  on(el, "keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      const action = live && live.discards.get(cell.card);
      if (action) live.ctx.onCard(cell, action);
    }
  });
}
