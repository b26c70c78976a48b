"""The turn flow (R2, R4.1, R4.2, R4.6, R6.4): the deal, draws, forced 提/偎, discards.

Each step returns the seat that draws next, or None when a seat must decide or the hand is over; ``_run``
keeps drawing until then.
"""

from __future__ import annotations

from paohuzi import analysis
from paohuzi._compiled import mypyc_attr
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine.actions import HU, PASS, Action
from paohuzi.engine.claims import _C_HU, ClaimsMixin
from paohuzi.engine.deck import DEALER_CARDS, HAND_CARDS
from paohuzi.engine.events import Dead, Deal, Discard, Draw, Show, Ti, Wei
from paohuzi.engine.observation import WinHow
from paohuzi.engine.state import _CARDS, _CHOUWEI, _DISCARD, _LIANG, _SAME, _SELF, _TI, _WEI

_DISCARD_ACTIONS = tuple(Action.discard(k) for k in range(NUM_KINDS))


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class TurnsMixin(ClaimsMixin):
    """The deal, the draws and the discards; forced moves are made here and reported as events."""

    __slots__ = ()

    def _start(self) -> None:
        """R2 deal, R4.1 opening 提, R6.4 天胡, then the dealer's first discard or the 下家's draw."""
        deck = self._deck  # Cards (shuffled or checked)
        pos = 0
        hands: list[tuple[Card, ...]] = [() for _ in range(self.table_size)]
        for i, s in enumerate(self.seats):
            n = DEALER_CARDS if i == 0 else HAND_CARDS
            dealt = sorted(deck[pos : pos + n])
            h = self._hands[s]
            for c in dealt:
                h[c] += 1
            self._hsize[s] = n
            hands[s] = tuple(dealt)
            pos += n
        self._liang = int(deck[DEALER_CARDS - 1])
        self._stock = [int(c) for c in deck[pos:]]
        self._spos = 0
        self.events.append(
            Deal(None, self.dealer, self.sitting_out, self.seats, tuple(hands), _CARDS[self._liang], len(self._stock))
        )
        # R4.1.1: every four of a kind in a dealt hand goes to the table as 提.
        for s in self.seats:
            h = self._hands[s]
            for k in range(NUM_KINDS):
                if h[k] == 4:
                    self._take(s, k, 4)
                    self._lay(s, _SAME[_TI][k])
                    self.events.append(Ti(None, s, _CARDS[k], "dealt"))
        # R6.4: dealt 天胡 — the dealer first, then the 下家, then the 上家.
        for s in self.seats:
            if analysis.dealt_tianhu(self._hand_cards(s), self._table_groups(s)):
                self._win(s, None, WinHow.DEALT, Source.NONE)
                return
        if self._offer_liangzhang():
            return
        self._run(self._after_take(self.dealer))

    def _offer_liangzhang(self) -> bool:
        """R6.4 option: 天胡 on the 亮张, offered like any 胡, the dealer first. True if a seat is asked
        (or, with 有胡必胡, has won)."""
        if not self.rules.tianhu_on_liangzhang:
            return False
        claims = []
        for s in self.seats:
            if s == self.dealer:
                ok = self._can_hu(s, None, Source.NONE)
            else:
                ok = self._can_hu(s, self._liang, Source.OTHER)
            if ok:
                claims.append((_C_HU, s))
        if not claims:
            return False
        self._claims = claims
        self._card = self._liang
        if self.rules.must_hu:  # R8.1 有胡必胡: the dealer, else the 下家, else the 上家 wins at once
            self._close_liang(0)
            return True
        self._ask(_LIANG, {s: [HU, PASS] for _, s in claims})
        return True

    def _run(self, nxt: int | None) -> None:
        while nxt is not None:
            nxt = self._draw(nxt)

    def _draw(self, s: int) -> int | None:
        """R4.2: ``s`` draws; forced 提/偎, else the card is shown and offered."""
        stock = self._stock
        spos = self._spos
        if spos >= len(stock):
            self._draw_game()
            return None
        c = stock[spos]
        self._spos = spos = spos + 1
        left = len(stock) - spos
        last = left == 0
        self._actor = s
        events = self.events
        card = _CARDS[c]
        events.append(Draw(None, s, card, left))
        n = self._hands[s][c]
        if n == 3:  # R4.2.1: a 坎 and the drawn card → 提
            self._take(s, c, 3)
            self._lay(s, _SAME[_TI][c])
            events.append(Ti(None, s, card, "kan"))
        elif c in self._wei[s]:  # R4.2.1: a 偎/臭偎 on the table → 提
            self._upgrade(s, self._wei[s][c], _TI)
            events.append(Ti(None, s, card, "wei"))
        elif n == 2:  # R4.2.2: a pair → 偎, or 臭偎 after 忍碰
            chou = c in self._renpeng[s]
            self._take(s, c, 2)
            self._lay(s, _SAME[_CHOUWEI if chou else _WEI][c])
            events.append(Wei(None, s, card, chou))
        else:  # R4.2.4: shown and offered
            events.append(Show(None, s, card, last))
            return self._open_window(c, s, True, last)
        return self._offer_self_hu(s, c, last)

    def _offer_self_hu(self, s: int, c: int, last: bool) -> int | None:
        """R4.2.3: after a forced 提/偎 of the drawn card ``c`` the drawer may 胡 with the cards as they
        now stand; else it goes on as after any take."""
        self._card = c
        self._last = last
        if not self._dead[s] and self._can_hu(s, None, Source.NONE):
            if self.rules.must_hu:  # R8.1 有胡必胡: made at once (before any discard, so never 死手)
                self._win(s, None, WinHow.FORCED, Source.NONE, won=c, forced=True)
                return None
            legal = [HU]
            discards = self._discardable(s) if self._owes(s) else []
            if discards:
                legal += [_DISCARD_ACTIONS[k] for k in discards]
            else:
                legal.append(PASS)
            self._ask(_SELF, {s: legal})
            return None
        return self._after_take(s)

    def _after_take(self, s: int) -> int | None:
        """R4.6 after ``s`` took a card (or at the opening): discard if owed, else the 下家 draws."""
        self._actor = s
        if self._dead[s] or not self._owes(s):
            return self._next[s]
        h = self._hands[s]
        kinds = [k for k in range(NUM_KINDS) if 0 < h[k] < 3]  # _discardable
        if not kinds:  # R4.6 decision: owes a discard, holds only 坎 cards → 死手
            self._dead[s] = True
            self.events.append(Dead(None, s))
            return self._next[s]
        if len(kinds) == 1:  # no real choice: the engine plays it
            return self._discard(s, kinds[0], True)
        self._phase = _DISCARD  # _ask, for one seat
        self._legal = {s: [_DISCARD_ACTIONS[k] for k in kinds]}
        self._decided = {}
        self._deciding = (s,)
        return None

    def _discard(self, s: int, c: int, auto: bool) -> int | None:
        self._take(s, c)
        self._discarded[s].add(c)  # R4.7: never 吃 or 碰 a kind one has discarded
        self._no_chi[s].add(c)
        self._no_peng[s].add(c)
        self._actor = s
        self.events.append(Discard(None, s, _CARDS[c], auto))
        return self._open_window(c, s, False, False)
