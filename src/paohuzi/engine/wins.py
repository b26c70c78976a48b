"""The endings of a hand: 胡 (R6, R7), 荒庄 (R4.2, R7.3) and the settlement."""

from __future__ import annotations

from paohuzi import analysis
from paohuzi._compiled import mypyc_attr
from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine import scoring_bridge
from paohuzi.engine.events import DrawGame, Hu, Settlement
from paohuzi.engine.observation import OutcomeKind, WinHow
from paohuzi.engine.state import _CARDS, HandState, Outcome
from paohuzi.groups import Group


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class WinsMixin(HandState):
    """胡, 荒庄 and the settlement event; 逃跑 is :meth:`~paohuzi.engine.Hand.leave`."""

    __slots__ = ()

    def _reveal(self) -> tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Group, ...], ...]]:
        n = self.table_size
        return tuple(self._hand_cards(s) for s in range(n)), tuple(self._table_groups(s) for s in range(n))

    def _finish(self, outcome: Outcome) -> None:
        self._clear_decision()
        self.outcome = outcome
        self._emit(Settlement(None, outcome.payments))

    def _draw_game(self) -> None:
        """荒庄 (R4.2, R7.3): nobody pays."""
        self._emit(DrawGame(None, *self._reveal()))
        n = self.table_size
        self._finish(Outcome(OutcomeKind.DRAW, None, None, None, False, False, False, None, None, 0, 0, (0,) * n))

    def _partial_huxi(self, s: int) -> int:
        """R7.3: the 胡息 of ``s``'s table groups plus the best partial arrangement of its hand (R6.4)."""
        return sum(g.huxi for g in self._tables[s]) + analysis.partial_arrangement(self._hand_cards(s)).huxi

    def _win(
        self, s: int, card: int | None, how: WinHow, source: Source, *, won: int | None = None, forced: bool = False
    ) -> None:
        """胡 by ``s`` (R6): the best arrangement and score (R6.2, R7), the payments (R7.3).

        ``card`` is the card won as the analysis sees it (None: the cards as they stand); ``won`` the card
        reported as won when that differs (the drawn card of a forced 提/偎, the dealer's 亮张); ``forced``:
        the engine made the 胡 without asking (a dealt 天胡, or R8.1 有胡必胡).
        """
        hand, table = self._hand_cards(s), self._table_groups(s)
        card_obj = None if card is None else _CARDS[card]
        last = self._last and how in (WinHow.SELF, WinHow.OTHER, WinHow.FORCED)  # 海底 (R6.3): the stock's last card
        tianhu = how in (WinHow.DEALT, WinHow.LIANGZHANG)
        if how is WinHow.DEALT:
            win = scoring_bridge.dealt_tianhu(hand, table, self.rules)
        elif how is WinHow.LIANGZHANG:
            win = scoring_bridge.liangzhang_tianhu(hand, table, card_obj, source, self.rules)
        else:
            zimo = how in (WinHow.SELF, WinHow.FORCED)  # R6.3: a forced 提/偎 completion counts as 自摸
            win = scoring_bridge.evaluate(hand, table, card_obj, source, self.rules, last_card=last, zimo=zimo)
        # R8.1 放炮包赔: with win_on_discard, the discarder of the card won pays the whole hand.
        payer = self._actor if how is WinHow.DISCARD and self.rules.discarder_pays else None
        payments = scoring_bridge.settle(
            s, win.points, self.seats, self.rules.stake, self.double_cards, self.table_size, payer
        )
        shown = _CARDS[won] if won is not None else card_obj
        score = win.score
        arrangement = win.arrangement
        self._emit(
            Hu(
                None, s, shown, how.value, score.zimo, tianhu, last, arrangement.groups, arrangement.loose, win.huxi,
                scoring_bridge.names(score), score.fan, score.base, win.points, *self._reveal(),
                forced,
            )
        )
        self._finish(
            Outcome(
                OutcomeKind.HU, s, shown, how, score.zimo, tianhu, last, arrangement, score, win.huxi, win.points,
                payments,
            )
        )
