// 双倍积分卡 (R7.3, issue 13 §3; docs/protocol.md §2): the cards you hold and the active one, in the lobby —
// a count, a "use" button and, while a card is active, the time left. Every hand that starts while it is
// active doubles your own 积分 gain (the table shows "×2" on your seat, the settlement "积分 ×2").

import { api, ApiError } from "./api.js";
import { h, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";

/** Fetch the player's cards into `app.state.doubleCards` ({cards, card_seconds, at}: `at` = when fetched). */
export async function loadDoubleCards(app) {
  const d = await api("GET", "/api/me/double-cards");
  app.state.doubleCards = { ...d, at: Date.now() };
}

function secondsLeft(dc) {
  if (!dc || !dc.cards.seconds_left) return 0;
  return Math.max(0, dc.cards.seconds_left - Math.floor((Date.now() - dc.at) / 1000));
}

function clock(s) {
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

/** The lobby's box: cards held, "use", and the active card's time left (counted down each second). */
export function doubleCardBox(app) {
  const dc = app.state.doubleCards;
  if (!dc) return null;
  const held = dc.cards.held;
  const left = secondsLeft(dc);
  const status = h(
    "span",
    { class: "double-left", "data-testid": "double-card-left", "data-seconds": String(left) },
    left > 0 ? t("doubleCardActive", { t: clock(left) }) : t("doubleCardIdle"),
  );
  const button = h(
    "button",
    {
      class: "btn small primary",
      type: "button",
      "data-action": "activate-double-card",
      disabled: held < 1 || left > 0,
      title: t("doubleCardWhat"),
      onclick: async () => {
        button.disabled = true;
        try {
          const d = await api("POST", "/api/me/double-cards/activate");
          app.state.doubleCards = { ...d, at: Date.now() };
          toast(t("doubleCardOn"), "info");
        } catch (err) {
          toast(err instanceof ApiError ? errorText(err.code, err.message) : String(err), "error");
        }
        app.rerender();
      },
    },
    t("doubleCardUse"),
  );
  const box = h(
    "div",
    { class: "double-card", "data-testid": "double-card", "data-held": String(held), "data-active": left > 0 ? "yes" : "no" },
    h("span", { class: "badge double" }, "×2"),
    h("span", {}, t("doubleCard"), " ", h("b", { "data-testid": "double-card-held" }, String(held))),
    status,
    button,
  );
  if (left > 0) {
    // count down while the box is on the page; at zero, ask the server again (the card has ended)
    const timer = setInterval(() => {
      if (!box.isConnected) return clearInterval(timer);
      const s = secondsLeft(app.state.doubleCards);
      status.dataset.seconds = String(s);
      status.textContent = s > 0 ? t("doubleCardActive", { t: clock(s) }) : t("doubleCardIdle");
      if (s <= 0) {
        clearInterval(timer);
        loadDoubleCards(app).then(() => app.rerender(), () => {});
      }
    }, 1000);
  }
  return box;
}

/** A seat's "×2" badge at the table when its card doubles the hand being played (RoomState.match.double_cards). */
export function seatDoubleBadge(room, seat) {
  const seats = (room && room.match && room.match.double_cards) || [];
  return seats.includes(seat) ? h("b", { class: "badge double", "data-testid": "seat-double", title: t("doubleCardSeat") }, "×2") : null;
}

/** The settlement's "积分 ×2" by a seat whose card was active in the hand (hand_over.double_cards). */
export function settleDoubleMark(frame, seat) {
  const seats = (frame && frame.double_cards) || [];
  return seats.includes(seat) ? h("span", { class: "double-mark", "data-testid": "settle-double" }, t("pointsX2")) : null;
}
