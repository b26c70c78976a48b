"""The claim window (R4.2–R4.5, R4.7): the claims on a shown or discarded card and their resolution (R4.4).

:class:`ClaimWindow` holds the claims of the window open now, in priority order; its methods work on the
:class:`~paohuzi.engine.state.HandState` it belongs to. It never moves the turn on: :meth:`ClaimWindow.open`
and :meth:`ClaimWindow.resolve` say whether the window can close, :meth:`ClaimWindow.close` says who took
the card, and the turn logic (``turns.py``) goes on from there.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine import wins
from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionKind
from paohuzi.engine.events import Chi, Chou, Pao, Peng, Unclaimed
from paohuzi.engine.observation import WinHow
from paohuzi.engine.seat import _PAO, _PENG_G, SAME
from paohuzi.engine.state import CARDS, CLAIM, OVER, HandState
from paohuzi.groups import Group

__all__ = ["WAITING", "ClaimWindow"]

_CHI_GROUPS: Final[dict[tuple[int, ...], Group]] = {}
_CHI_ACTIONS: Final[dict[tuple[int, int, tuple[tuple[int, ...], ...]], Action]] = {}
_NO_BI: Final[list[tuple[tuple[int, ...], ...]]] = [()]  # _bi_options when no copy of the card is left in hand


class _Waiting(Enum):
    """:meth:`ClaimWindow.open` and :meth:`ClaimWindow.resolve` while a seat with priority has not answered
    (R4.4)."""

    WAITING = "waiting"


WAITING: Final = _Waiting.WAITING
# Claim types, in priority order (R4.4).
C_HU: Final = 0
C_PAO: Final = 1
C_PENG: Final = 2
C_CHI: Final = 3


def _chi_group(cards: tuple[int, ...]) -> Group:
    key = tuple(sorted(cards))
    g = _CHI_GROUPS.get(key)
    if g is None:
        g = _CHI_GROUPS[key] = Group.chi(tuple(Card(c) for c in key))
    return g


class ClaimWindow:
    """The claim window (R4.4) on the card on offer (``HandState.card``, from ``HandState.actor``).

    :ivar claims: (claim type, seat) in priority order: 胡 in turn order, then the forced 跑, or the 碰 and
        the 吃 of the drawer and of its 下家.
    """

    __slots__ = ("claims",)

    def __init__(self) -> None:
        self.claims: list[tuple[int, int]] = []

    def copy(self) -> ClaimWindow:
        new = ClaimWindow()
        new.claims = self.claims[:]
        return new

    def clear(self) -> None:
        self.claims = []

    def open(self, st: HandState, c: int, src: int, drawn: bool, last: bool) -> int | None | _Waiting:
        """A shown or discarded card is offered (R4.2–R4.4): list every claim in priority order and ask
        the seats with a real choice (:data:`WAITING`); when nobody has one, the index of the claim that
        takes the card at once (a forced 跑, or R8.1 有胡必胡), or None (nobody takes it)."""
        st.card, st.actor, st.drawn, st.last = c, src, drawn, last
        claims: list[tuple[int, int]] = []
        legal: dict[int, list[Action]] = {}
        rules = st.rules
        if drawn or rules.win_on_discard:
            self._hu_claims(st, c, src, drawn, claims, legal)
            if claims and rules.must_hu:
                # R8.1 有胡必胡: the first seat in R4.4 order wins at once; nobody is asked, nothing else happens.
                self.claims = claims
                return 0
        pao = self._pao_claim(st, c, src, drawn)
        if pao is not None:
            claims.append((C_PAO, pao))  # 跑 is forced and beats 碰/吃: those seats are not asked
        else:
            self._take_claims(st, c, src, drawn, claims, legal)
        self.claims = claims
        if not legal:
            return len(claims) - 1 if pao is not None else None
        for acts in legal.values():
            acts.append(PASS)
        st.phase = CLAIM
        st.legal = legal
        st.decided = {}
        st.deciding = tuple(legal) if len(legal) == 1 else tuple([s for s in st.seats if s in legal])
        return WAITING

    @staticmethod
    def _hu_claims(
        st: HandState, c: int, src: int, drawn: bool, claims: list[tuple[int, int]], legal: dict[int, list[Action]]
    ) -> None:
        """胡: in turn order from the drawer (R4.4); a discard is never won by its discarder. With four seats
        in play (R9.3) several 胡 rank the same way: the first in turn order from the drawer or discarder."""
        order = st.ring[src]
        if not drawn:
            order = order[1:]
        players = st.players
        for s in order:
            seat = players[s]
            if seat.dead:
                continue
            info = seat.info
            if info is None:
                info = seat.seat_info()
            if not info[2] >> c & 1:  # the first test of Seat.maybe_complete, for every card at once
                continue
            source = Source.SELF if s == src else (Source.OTHER if drawn else Source.DISCARD)
            if seat.can_hu(c, source, st.min_huxi):
                claims.append((C_HU, s))
                legal[s] = [HU]

    @staticmethod
    def _pao_claim(st: HandState, c: int, src: int, drawn: bool) -> int | None:
        """The seat that must 跑 the card (R4.2, R4.3): a 坎 or 偎 of it, or a 碰 of a drawn one."""
        players = st.players
        for s in st.seats:
            seat = players[s]
            if s != src and (seat.hand[c] == 3 or c in seat.wei):
                return s
            if drawn and c in seat.peng:
                return s
        return None

    def _take_claims(
        self,
        st: HandState,
        c: int,
        src: int,
        drawn: bool,
        claims: list[tuple[int, int]],
        legal: dict[int, list[Action]],
    ) -> None:
        """碰 by any other seat with a pair, then 吃 by the drawer and its 下家 (or the discarder's 下家)."""
        players = st.players
        for s in st.seats:
            if s != src and players[s].hand[c] == 2 and self._peng_ok(st, s, c):
                claims.append((C_PENG, s))
                acts = legal.get(s)
                if acts is None:
                    legal[s] = [PENG]
                else:
                    acts.append(PENG)
                break
        nxt = st.next
        for s in (src, nxt[src]) if drawn else (nxt[src],):
            seat = players[s]
            if not seat.dead and c not in seat.no_chi:
                ways = self.chi_actions(st, s, c)
                if ways:
                    claims.append((C_CHI, s))
                    acts = legal.get(s)
                    if acts is None:
                        legal[s] = ways
                    else:
                        acts += ways

    @staticmethod
    def _peng_ok(st: HandState, s: int, c: int) -> bool:
        """碰 (R4.3) for a seat holding a pair: not 臭 (R4.7), not dead, and a discard left if one is owed (R4.6)."""
        seat = st.players[s]
        if seat.dead or c in seat.no_peng:
            return False
        return not seat.owes(st.hand_cards, 1) or seat.loose() > 2

    @staticmethod
    def chi_actions(st: HandState, s: int, c: int) -> list[Action]:
        """Every distinct 吃 of ``c`` by ``s`` with its required 比 (R4.3, R4.5, R4.6)."""
        seat = st.players[s]
        h = seat.hand
        partners = seat.partners  # 一五十 too under ``yiwushi`` (R9.3)
        # The pairs of hand cards outside 坎 that make a 句/绞 with c (most offers have none).
        pairs = [(a, b) for a, b in partners[c] if (h[a] == 2 if a == b else 0 < h[a] < 3 and 0 < h[b] < 3)]
        if not pairs:
            return []
        avail = [n if n < 3 else 0 for n in h]  # 坎 cards may not be used
        total = sum(avail)
        owes = seat.owes(st.hand_cards, 1)
        out: list[Action] = []
        seen: set[tuple[int, int, tuple[tuple[int, ...], ...]]] = set()
        for a, b in pairs:
            avail[a] -= 1
            avail[b] -= 1
            for bi in _bi_options(avail, c, partners) if avail[c] else _NO_BI:
                if owes and total - 2 - 3 * len(bi) <= 0:
                    continue  # R4.6: 吃 that leaves no legal discard is not legal
                key = (a, b, bi)
                if key not in seen:
                    seen.add(key)
                    act = _CHI_ACTIONS.get(key)
                    if act is None:
                        act = _CHI_ACTIONS[key] = Action(
                            ActionKind.CHI, None, (CARDS[a], CARDS[b]), tuple(tuple(CARDS[x] for x in g) for g in bi)
                        )
                    out.append(act)
            avail[a] += 1
            avail[b] += 1
        return out

    def resolve(self, st: HandState) -> int | None | _Waiting:
        """The index of the winning claim (R4.4), None if nobody takes the card, :data:`WAITING` while a seat
        with priority has not answered."""
        decided = st.decided
        for i, (t, s) in enumerate(self.claims):
            if t == C_PAO:
                return i
            d = decided.get(s)
            if d is None:
                return WAITING
            k = d.kind
            if (
                (t == C_HU and k is ActionKind.HU)
                or (t == C_PENG and k is ActionKind.PENG)
                or (t == C_CHI and k is ActionKind.CHI)
            ):
                return i
        return None

    def close(self, st: HandState, idx: int | None) -> int | None:
        """Close the window on the claim ``idx`` (None: nobody takes the card, which goes to its row): the
        臭 marks (R4.7), then the take. Returns the seat that took the card (it discards next if it owes,
        R4.6), or None — the card lies in the row, or the hand is over (胡)."""
        claims, decided = self.claims, st.decided
        c, src = st.card, st.actor
        assert c is not None  # a window is open on a card
        if claims:
            # R4.7: a declined 吃/碰 makes the kind 臭 — unless a claim with priority took the card.
            winner = claims[idx][1] if idx is not None else None
            self._mark_chou(st, claims[: idx if idx is not None else len(claims)], winner, c)
        # clear_decision, keeping ``decided`` for the 吃 below
        st.phase = OVER
        st.legal = {}
        st.deciding = ()
        self.claims = []
        st.card = None
        if idx is None:
            st.players[src].row.append((c, not st.drawn))
            st.events.append(Unclaimed(None, src, CARDS[c]))
            st.decided = {}
            return None
        t, s = claims[idx]
        if t == C_HU:
            st.card = c  # kept for the win's events and the observation of the hand over
            if st.drawn:
                source, how = (Source.SELF, WinHow.SELF) if s == src else (Source.OTHER, WinHow.OTHER)
            else:
                source, how = Source.DISCARD, WinHow.DISCARD
            wins.win(st, s, c, how, source, forced=st.rules.must_hu)
            return None
        st.claimed = True  # R9.1 地胡: a 吃, 碰 or 跑 was made
        if t == C_PAO:
            _pao(st, s, c, src)
        elif t == C_PENG:
            seat = st.players[s]
            seat.take(c, 2)
            seat.lay(SAME[_PENG_G][c])
            st.events.append(Peng(None, s, CARDS[c], src))
        else:
            _chi(st, s, c, src, decided[s])
        st.decided = {}
        return s

    @staticmethod
    def _mark_chou(st: HandState, passed: list[tuple[int, int]], winner: int | None, c: int) -> None:
        """R4.7 for the claims ranked above the one that took the card (all of them when none did). A 碰
        answered with 吃 (or 过) is declined (忍碰) whatever becomes of that 吃 — also when the seat's 吃 wins or
        loses to the drawer's 吃: both rank below the 碰 (R4.7 decision, docs/decisions.md)."""
        marks: dict[int, list[bool]] = {}
        blocks_peng = st.rules.chou_blocks_peng
        players = st.players
        for t, s in passed:
            if t == C_HU or (s == winner and t != C_PENG):
                continue
            m = marks.setdefault(s, [False, False, False])
            seat = players[s]
            if t == C_CHI:
                seat.no_chi.add(c)
                m[0] = True
            else:
                seat.renpeng.add(c)
                m[2] = True
            if blocks_peng:
                seat.no_peng.add(c)
                m[1] = True
        for s, (chi, peng, ren) in marks.items():
            st.events.append(Chou(s, s, CARDS[c], chi, peng, ren))

    def close_liang(self, st: HandState, idx: int | None) -> bool:
        """Close the 亮张 天胡 window (R6.4): the seat of claim ``idx`` wins; None: nobody did, and the
        dealer's turn goes on (returns True)."""
        s = self.claims[idx][1] if idx is not None else None
        st.clear_decision()
        if s is None:
            st.card = None
            return True
        forced = st.rules.must_hu
        if s == st.dealer:
            wins.win(st, s, None, WinHow.LIANGZHANG, Source.NONE, won=st.liang, forced=forced)
        else:
            wins.win(st, s, st.liang, WinHow.LIANGZHANG, Source.OTHER, forced=forced)
        return False


def _pao(st: HandState, s: int, c: int, src: int) -> None:
    """跑 (R4.2, R4.3): the card joins the seat's 坎, 偎 or 碰 (a forced take)."""
    seat = st.players[s]
    if seat.hand[c] == 3:
        seat.take(c, 3)
        seat.lay(SAME[_PAO][c])
        origin = "kan"
    elif c in seat.wei:
        seat.upgrade(seat.wei[c], _PAO)
        origin = "wei"
    else:
        seat.upgrade(seat.peng[c], _PAO)
        origin = "peng"
    st.events.append(Pao(None, s, CARDS[c], origin, src))


def _chi(st: HandState, s: int, c: int, src: int, action: Action) -> None:
    """吃 (R4.3) with its 比 groups (R4.5): the eaten card came from outside the hand; each 比 group holds a
    copy of it taken from the hand."""
    seat = st.players[s]
    a, b = int(action.cards[0]), int(action.cards[1])
    seat.take(a)
    seat.take(b)
    group = _chi_group((c, a, b))
    seat.lay(group)
    bis = []
    for g in action.bi:
        for x in g:
            seat.take(int(x))
        bg = _chi_group(tuple(int(x) for x in g))
        seat.lay(bg)
        bis.append(bg)
    st.events.append(Chi(None, s, CARDS[c], group, tuple(bis), src))


def _bi_options(
    avail: list[int], c: int, partners: tuple[tuple[tuple[int, int], ...], ...]
) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to lay down the copies of ``c`` left in hand (``avail``) in 句/绞 with hand cards (比,
    R4.5), each as a sorted tuple of groups (sorted card tuples); [()] when none is left. ``partners``: the
    rule set's (一五十 too under ``yiwushi``, R9.3)."""
    r = avail[c]
    if r == 0:
        return [()]
    out: set[tuple[tuple[int, ...], ...]] = set()
    avail[c] -= 1
    for a, b in partners[c]:
        if a == b:
            if avail[a] < 2:
                continue
        elif not (avail[a] and avail[b]):
            continue
        avail[a] -= 1
        avail[b] -= 1
        g = tuple(sorted((c, a, b)))
        if avail[c] == 0:
            out.add((g,))
        else:  # one more copy of c: a second 比 group
            avail[c] -= 1
            for a2, b2 in partners[c]:
                if a2 == b2:
                    if avail[a2] < 2:
                        continue
                elif not (avail[a2] and avail[b2]):
                    continue
                out.add(tuple(sorted((g, tuple(sorted((c, a2, b2)))))))
            avail[c] += 1
        avail[a] += 1
        avail[b] += 1
    avail[c] += 1
    return sorted(out)
