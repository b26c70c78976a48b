"""The turn logic (R2, R4.1, R4.2, R4.6, R6.4): the deal, draws, forced 提/偎, discards, and a seat's
decision played (:func:`play`).

Functions on a :class:`~paohuzi.engine.state.HandState`. Each step returns the seat that draws next, or
None when a seat must decide or the hand is over; :func:`run` keeps drawing until then. A shown or
discarded card goes to the claim window (:func:`offer`, ``claims.py``); when it closes, :func:`after_window`
goes on from whoever took the card.
"""

from __future__ import annotations

from typing import Final

from paohuzi import analysis
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import wins
from paohuzi.engine.actions import HU, PASS, Action, ActionKind
from paohuzi.engine.claims import C_HU, WAITING
from paohuzi.engine.deck import DEALER_CARDS
from paohuzi.engine.events import Dead, Deal, Discard, Draw, Pass, Show, Ti, Wei
from paohuzi.engine.observation import WinHow
from paohuzi.engine.seat import _CHOUWEI, _TI, _WEI, SAME
from paohuzi.engine.state import CARDS, CLAIM, DISCARD, LIANG, SELF, HandState

_DISCARD_ACTIONS: Final = tuple(Action.discard(k) for k in range(NUM_KINDS))


def start(st: HandState) -> None:
    """R2 deal, R4.1 opening 提, R6.4 天胡, then the dealer's first discard or the 下家's draw."""
    deck = st.deck  # Cards (shuffled or checked)
    players = st.players
    pos = 0
    hands: list[tuple[Card, ...]] = [() for _ in range(st.table_size)]
    for i, s in enumerate(st.seats):
        n = st.hand_cards + 1 if i == 0 else st.hand_cards  # the dealer's last card is the 亮张
        dealt = sorted(deck[pos : pos + n])
        seat = players[s]
        h = seat.hand
        for c in dealt:
            h[c] += 1
        seat.size = n
        hands[s] = tuple(dealt)
        pos += n
    st.liang = int(deck[st.hand_cards])
    st.stock = [int(c) for c in deck[pos:]]
    st.spos = 0
    st.events.append(Deal(None, st.dealer, st.sitting_out, st.seats, tuple(hands), CARDS[st.liang], len(st.stock)))
    # R4.1.1: every four of a kind in a dealt hand goes to the table as 提.
    for s in st.seats:
        seat = players[s]
        h = seat.hand
        for k in range(NUM_KINDS):
            if h[k] == 4:
                seat.take(k, 4)
                seat.lay(SAME[_TI][k])
                st.events.append(Ti(None, s, CARDS[k], "dealt"))
    # R6.4: dealt 天胡 — the dealer first, then the 下家, then the 上家. R9.3 decision: none on 15-card hands.
    if st.rules.dealer_cards == DEALER_CARDS:
        for s in st.seats:
            if analysis.dealt_tianhu(players[s].hand_cards(), players[s].table_groups()):
                wins.win(st, s, None, WinHow.DEALT, Source.NONE)
                return
    if offer_liangzhang(st):
        return
    run(st, after_take(st, st.dealer))


def offer_liangzhang(st: HandState) -> bool:
    """R6.4 option: 天胡 on the 亮张, offered like any 胡, the dealer first. True if a seat is asked (or,
    with 有胡必胡, has won)."""
    if not st.rules.tianhu_on_liangzhang:
        return False
    claims = []
    for s in st.seats:
        if s == st.dealer:
            ok = st.players[s].can_hu(None, Source.NONE, st.min_huxi)
        else:
            ok = st.players[s].can_hu(st.liang, Source.OTHER, st.min_huxi)
        if ok:
            claims.append((C_HU, s))
    if not claims:
        return False
    st.window.claims = claims
    st.card = st.liang
    if st.rules.must_hu:  # R8.1 有胡必胡: the dealer, else the 下家, else the 上家 wins at once
        st.window.close_liang(st, 0)
        return True
    st.ask(LIANG, {s: [HU, PASS] for _, s in claims})
    return True


def play(st: HandState, seat: int, action: Action) -> None:
    """``seat`` plays ``action``, one of its legal actions now; then every forced step until a seat must
    decide again or the hand ends."""
    phase = st.phase
    if phase is CLAIM or phase is LIANG:
        deciding = st.deciding
        st.decided[seat] = action
        st.deciding = tuple([s for s in deciding if s != seat]) if len(deciding) > 1 else ()
        if action is PASS or action.kind is ActionKind.PASS:
            st.events.append(Pass(seat, seat))
        window = st.window
        idx = window.resolve(st)
        if idx is WAITING:
            return
        if phase is LIANG:
            if window.close_liang(st, idx):
                run(st, after_take(st, st.dealer))
        else:
            run(st, after_window(st, window.close(st, idx)))
    elif phase is DISCARD:
        st.clear_decision()
        assert action.card is not None
        run(st, discard(st, seat, int(action.card), False))
    else:  # SELF: 胡 after a forced 提/偎 (R4.2.3)
        st.clear_decision()
        if action.kind is ActionKind.HU:
            wins.win(st, seat, None, WinHow.FORCED, Source.NONE, won=st.card)
        elif action.kind is ActionKind.DISCARD:
            assert action.card is not None
            run(st, discard(st, seat, int(action.card), False))
        else:
            run(st, after_take(st, seat))


def run(st: HandState, nxt: int | None) -> None:
    """Draw for ``nxt``, and for the next seat, until a seat must decide or the hand is over (None)."""
    while nxt is not None:
        nxt = draw(st, nxt)


def draw(st: HandState, s: int) -> int | None:
    """R4.2: ``s`` draws; forced 提/偎, else the card is shown and offered."""
    stock = st.stock
    spos = st.spos
    if spos >= len(stock):
        wins.draw_game(st)
        return None
    c = stock[spos]
    st.spos = spos = spos + 1
    left = len(stock) - spos
    last = left == 0
    st.actor = s
    st.first = spos == 1  # R9.1 地胡: the first card drawn from the stock
    events = st.events
    card = CARDS[c]
    events.append(Draw(None, s, card, left))
    seat = st.players[s]
    n = seat.hand[c]
    if n == 3:  # R4.2.1: a 坎 and the drawn card → 提
        seat.take(c, 3)
        seat.lay(SAME[_TI][c])
        events.append(Ti(None, s, card, "kan"))
    elif c in seat.wei:  # R4.2.1: a 偎/臭偎 on the table → 提
        seat.upgrade(seat.wei[c], _TI)
        events.append(Ti(None, s, card, "wei"))
    elif n == 2:  # R4.2.2: a pair → 偎, or 臭偎 after 忍碰
        chou = c in seat.renpeng
        seat.take(c, 2)
        seat.lay(SAME[_CHOUWEI if chou else _WEI][c])
        events.append(Wei(None, s, card, chou, st.rules.mingwei))  # 明偎: shown to everyone (R9.3, R5)
    else:  # R4.2.4: shown and offered
        events.append(Show(None, s, card, last))
        return offer(st, c, s, True, last)
    return offer_self_hu(st, s, c, last)


def offer(st: HandState, c: int, src: int, drawn: bool, last: bool) -> int | None:
    """The card ``c`` of ``src`` goes to the claim window (R4.3, R4.4); closed at once when nobody has a
    choice."""
    idx = st.window.open(st, c, src, drawn, last)
    if idx is WAITING:
        return None
    return after_window(st, st.window.close(st, idx))


def after_window(st: HandState, taker: int | None) -> int | None:
    """After a claim window closed: the seat that took the card goes on (R4.6); else, unless the hand is
    over, the 下家 of the card's seat draws."""
    if taker is not None:
        return after_take(st, taker)
    if st.outcome is not None:
        return None
    return st.next[st.actor]


def offer_self_hu(st: HandState, s: int, c: int, last: bool) -> int | None:
    """R4.2.3: after a forced 提/偎 of the drawn card ``c`` the drawer may 胡 with the cards as they now
    stand; else it goes on as after any take."""
    st.card = c
    st.last = last
    seat = st.players[s]
    if not seat.dead and seat.can_hu(None, Source.NONE, st.min_huxi):
        if st.rules.must_hu:  # R8.1 有胡必胡: made at once (before any discard, so never 死手)
            wins.win(st, s, None, WinHow.FORCED, Source.NONE, won=c, forced=True)
            return None
        legal = [HU]
        discards = seat.discardable() if seat.owes(st.hand_cards) else []
        if discards:
            legal += [_DISCARD_ACTIONS[k] for k in discards]
        else:
            legal.append(PASS)
        st.ask(SELF, {s: legal})
        return None
    return after_take(st, s)


def after_take(st: HandState, s: int) -> int | None:
    """R4.6 after ``s`` took a card (or at the opening): discard if owed, else the 下家 draws."""
    st.actor = s
    seat = st.players[s]
    if seat.dead or not seat.owes(st.hand_cards):
        return st.next[s]
    h = seat.hand
    kinds = [k for k in range(NUM_KINDS) if 0 < h[k] < 3]  # Seat.discardable
    if not kinds:  # R4.6 decision: owes a discard, holds only 坎 cards → 死手
        seat.dead = True
        st.events.append(Dead(None, s))
        return st.next[s]
    if len(kinds) == 1:  # no real choice: the engine plays it
        return discard(st, s, kinds[0], True)
    st.phase = DISCARD  # ask, for one seat
    st.legal = {s: [_DISCARD_ACTIONS[k] for k in kinds]}
    st.decided = {}
    st.deciding = (s,)
    return None


def discard(st: HandState, s: int, c: int, auto: bool) -> int | None:
    """``s`` discards ``c`` (``auto``: the engine played it, the seat had no choice); it is offered."""
    seat = st.players[s]
    seat.take(c)
    seat.discarded.add(c)  # R4.7: never 吃 or 碰 a kind one has discarded
    seat.no_chi.add(c)
    seat.no_peng.add(c)
    st.actor = s
    st.first = s == st.dealer and st.spos == 0  # R9.1 地胡: the dealer's opening discard (decision)
    st.events.append(Discard(None, s, CARDS[c], auto))
    return offer(st, c, s, False, False)
