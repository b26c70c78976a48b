"""The endings of a hand: 胡 (R6, R7), 荒庄 (R4.2, R7.3), 逃跑 (R7.3) and the settlement event.

Functions on a :class:`~paohuzi.engine.state.HandState`; the turn logic (``turns.py``) and the claim window
(``claims.py``) call them when a hand ends.
"""

from __future__ import annotations

from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine import scoring_bridge
from paohuzi.engine.events import DrawGame, Escape, Hu, Settlement
from paohuzi.engine.observation import OutcomeKind, WinHow
from paohuzi.engine.state import CARDS, CLAIM, HandState, Outcome
from paohuzi.groups import Group


def reveal(st: HandState) -> tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Group, ...], ...]]:
    """Every hand and table, for the closing event (R5: everything is shown once the hand is over)."""
    players = st.players
    return tuple(p.hand_cards() for p in players), tuple(p.table_groups() for p in players)


def finish(st: HandState, outcome: Outcome) -> None:
    """The hand is over: nobody is asked anything any more; the settlement event."""
    st.clear_decision()
    st.outcome = outcome
    st.events.append(Settlement(None, outcome.payments))


def draw_game(st: HandState) -> None:
    """荒庄 (R4.2, R7.3): nobody pays."""
    st.events.append(DrawGame(None, *reveal(st)))
    n = st.table_size
    finish(st, Outcome(OutcomeKind.DRAW, None, None, None, False, False, False, None, None, 0, 0, (0,) * n))


def escape(st: HandState, seat: int) -> None:
    """逃跑 (R7.3): ``seat`` leaves; it pays the others by their partial 胡息. The card on offer stays where
    it would lie had nobody taken it."""
    if st.phase is CLAIM and st.card is not None:
        st.players[st.actor].row.append((st.card, not st.drawn))
        st.card = None
    st.clear_decision()
    huxis = {s: st.players[s].partial_huxi() for s in st.seats if s != seat}
    total = sum(huxis.values())
    payments = scoring_bridge.escape_payments(seat, huxis, st.rules.stake, st.table_size)
    st.events.append(Escape(None, seat, total, *reveal(st)))
    finish(st, Outcome(OutcomeKind.ESCAPE, None, None, None, False, False, False, None, None, total, 0, payments, seat))


def win(
    st: HandState,
    s: int,
    card: int | None,
    how: WinHow,
    source: Source,
    *,
    won: int | None = None,
    forced: bool = False,
) -> None:
    """胡 by ``s`` (R6): the best arrangement and score (R6.2, R7), the payments (R7.3).

    ``card`` is the card won as the analysis sees it (None: the cards as they stand); ``won`` the card
    reported as won when that differs (the drawn card of a forced 提/偎, the dealer's 亮张); ``forced``:
    the engine made the 胡 without asking (a dealt 天胡, or R8.1 有胡必胡).
    """
    seat = st.players[s]
    rules = st.rules
    hand, table = seat.hand_cards(), seat.table_groups()
    card_obj = None if card is None else CARDS[card]
    last = st.last and how in (WinHow.SELF, WinHow.OTHER, WinHow.FORCED)  # 海底 (R6.3): the stock's last card
    tianhu = how in (WinHow.DEALT, WinHow.LIANGZHANG)
    facts = None if rules.family == "classic" else play_facts(st, s, how, won if won is not None else card)
    if how is WinHow.DEALT:
        result = scoring_bridge.dealt_tianhu(hand, table, rules, facts)
    elif how is WinHow.LIANGZHANG:
        result = scoring_bridge.liangzhang_tianhu(hand, table, card_obj, source, rules, facts)
    else:
        zimo = how in (WinHow.SELF, WinHow.FORCED)  # R6.3: a forced 提/偎 completion counts as 自摸
        result = scoring_bridge.evaluate(hand, table, card_obj, source, rules, last_card=last, zimo=zimo, facts=facts)
    # R8.1 放炮包赔: with win_on_discard, the discarder of the card won pays the whole hand.
    payer = st.actor if how is WinHow.DISCARD and rules.discarder_pays else None
    payments = scoring_bridge.settle(s, result.points, st.seats, rules.stake, st.double_cards, st.table_size, payer)
    shown = CARDS[won] if won is not None else card_obj
    score = result.score
    arrangement = result.arrangement
    st.events.append(
        Hu(
            None, s, shown, how.value, score.zimo, tianhu, last, arrangement.groups, arrangement.loose, result.huxi,
            scoring_bridge.names(score), score.fan, score.base, result.points, *reveal(st),
            forced,
            # R9: 囤, 醒 and the 醒 card, shown now that the hand is over (R5); classic families carry none
            None if facts is None else score.tun,
            None if facts is None else score.xing,
            None if facts is None else score.xing_card,
        )
    )
    finish(
        st,
        Outcome(
            OutcomeKind.HU, s, shown, how, score.zimo, tianhu, last, arrangement, score, result.huxi, result.points,
            payments,
        ),
    )


def play_facts(st: HandState, s: int, how: WinHow, won: int | None) -> scoring_bridge.PlayFacts:
    """What the play decided that a R9 family's score needs (``won``: the card won; None for a dealt 天胡):

    - 黄番 (R9.1): the 荒庄 in a row before this hand, which the match gave the hand;
    - 醒 card (R9.4): :func:`xing_card`;
    - 地胡 (R9.1 decision): a non-dealer wins the hand's first card — the first stock card drawn, or the
      dealer's opening discard — before anyone made a 吃, 碰, 跑 (or 胡);
    - 听胡 (R9.1 decision): before the card won, the winner's table holds only 提 of its own dealt cards
      (:meth:`~paohuzi.engine.seat.Seat.only_own_ti`).
    """
    dihu = s != st.dealer and st.first and not st.claimed and how in _DIHU_HOW
    forced = won if how is WinHow.FORCED else None
    return scoring_bridge.PlayFacts(
        drawn_before=st.drawn_before,
        xing_card=xing_card(st, won),
        dihu=dihu,
        tinghu=st.players[s].only_own_ti(forced),
    )


_DIHU_HOW = (WinHow.SELF, WinHow.OTHER, WinHow.FORCED, WinHow.DISCARD)


def xing_card(st: HandState, won: int | None) -> Card | None:
    """The 醒 card (R9.4) of a win of ``won`` (None: a dealt 3 提 / 5 坎 天胡, which has no card won):
    翻醒 (``fan``) the next stock card, or the card won when the stock is empty; 随醒 (``sui``) the card
    won. A dealt 天胡 takes the 亮张 under 随醒 and the top stock card under 翻醒. None without 醒."""
    mode = st.rules.xing
    if mode == "none":
        return None
    own = st.liang if won is None else won
    if mode == "fan" and st.spos < len(st.stock):
        return CARDS[st.stock[st.spos]]
    return CARDS[own]
