"""Sampled worlds for the search bot: the hidden cards dealt consistently with one seat's view (R5).

A *world* fixes what the seat cannot see: the other hands, the kinds of the other seats' hidden 偎 and the
order of the stock. :func:`sample_world` deals them at random from the cards the seat has not seen
(80 minus its hand, every visible table card, every row card and the card on offer), respecting what the
view implies:

- each hidden 偎 is three copies of one kind;
- the dealer still holds the 亮张 unless a copy of its kind has visibly left the dealer's hand;
- nobody holds four of a kind in hand (they would have been 提'd, R4.1/R4.2), and nobody holds a 坎 of a
  kind that has been shown since (it would have been 跑'd, R4.3) — sampled hands breaking these are
  repaired by swapping cards with the stock.

:func:`build_hand` turns the view and a world into an engine :class:`~paohuzi.engine.Hand` positioned at
the seat's decision (:meth:`~paohuzi.engine.Hand.from_position`), for rollouts. Facts the view does not
carry (which kinds the other seats declined to claim) are left out: the sampled world knows only the 臭
that discards imply (R4.7).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paohuzi._compiled import reduce_frozen
from paohuzi.bots.view import View, read
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Hand, Hidden

_CARDS = tuple(Card)

__all__ = ["World", "sample_world", "build_hand", "view_of"]


@dataclass(frozen=True, slots=True, init=False)
class World:
    """The hidden part of a hand, as sampled: per seat its hand counts and the kinds of its hidden 偎 (in
    table order); the stock in draw order. The viewing seat's own entries are its real ones."""

    hands: tuple[tuple[int, ...], ...]
    wei: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]

    def __init__(
        self,
        hands: tuple[tuple[int, ...], ...],
        wei: tuple[tuple[int, ...], ...],
        stock: tuple[int, ...],
    ) -> None:
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "wei", wei)
        object.__setattr__(self, "stock", stock)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)


def _left_dealer_hand(view: View) -> bool:
    """True if a copy of the 亮张's kind may have left the dealer's hand (so it need not be there)."""
    d, k = view.dealer, view.liangzhang
    if view.hidden_wei[d]:
        return True
    if any(k in g.cards for g in view.tables[d]):
        return True
    return k in view.rows[d]


def sample_world(view: View, rng: random.Random) -> World:
    """Deal the cards ``view.seat`` has not seen into the other hands, hidden 偎 and the stock."""
    pool = list(view.unseen)
    n = len(view.hand_counts)
    hands = [[0] * NUM_KINDS for _ in range(n)]
    hands[view.seat] = list(view.counts)
    others = [s for s in view.seats if s != view.seat]
    shown = {k for row in view.rows for k in row}
    if view.pending is not None:
        shown.add(view.pending)
    wei = _deal_hidden_wei(view, pool, shown, others, rng)
    need = {s: view.hand_counts[s] for s in others}
    if view.dealer != view.seat and view.dealer in need and not _left_dealer_hand(view):
        k = view.liangzhang
        if pool[k] > 0 and need[view.dealer] > 0:
            pool[k] -= 1
            hands[view.dealer][k] += 1
            need[view.dealer] -= 1
    cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    rng.shuffle(cards)
    pos = 0
    for s in others:
        for k in cards[pos : pos + need[s]]:
            hands[s][k] += 1
        pos += need[s]
    stock = cards[pos:]
    _repair(hands, stock, others, shown)
    return World(tuple(tuple(h) for h in hands), tuple(tuple(w) for w in wei), tuple(stock))


def _deal_hidden_wei(
    view: View, pool: list[int], shown: set[int], others: list[int], rng: random.Random
) -> list[list[int]]:
    """A kind for each hidden 偎 of the other seats, its cards taken from ``pool``."""
    wei: list[list[int]] = [[] for _ in range(len(view.hand_counts))]
    for s in others:
        for _ in range(view.hidden_wei[s]):
            # A 偎 of a kind shown since would have taken it as 跑 (R4.3): prefer kinds not shown.
            choices = [k for k in range(NUM_KINDS) if pool[k] >= 3 and k not in shown]
            if not choices:
                choices = [k for k in range(NUM_KINDS) if pool[k] >= 3 and k != view.pending]
            if not choices:
                choices = [max(range(NUM_KINDS), key=pool.__getitem__)]
            k = rng.choice(choices)
            take = min(3, pool[k])
            pool[k] -= take
            wei[s].append(k)
    return wei


def _repair(hands: list[list[int]], stock: list[int], others: list[int], shown: set[int]) -> None:
    """Repairs, in place: no four in a hand; no 坎 of a kind shown since the deal (it would have been 跑'd). A
    card over the limit is swapped with a stock card, or else with another hidden hand's card, that fits."""

    def limit(k: int) -> int:
        return 2 if k in shown else 3

    for s in others:
        h = hands[s]
        for k in range(NUM_KINDS):
            while h[k] > limit(k):
                j = next((i for i, x in enumerate(stock) if x != k and h[x] < limit(x)), -1)
                if j >= 0:
                    h[k] -= 1
                    h[stock[j]] += 1
                    stock[j] = k
                elif not _swap_with_another_hand(hands, s, k, others, limit):
                    break


def _swap_with_another_hand(
    hands: list[list[int]], s: int, k: int, others: list[int], limit: Callable[[int], int]
) -> bool:
    """Swap one ``k`` of seat ``s`` for a card of another hidden hand that fits both; False if none does."""
    h = hands[s]
    for o in others:
        g = hands[o]
        if o == s or g[k] >= limit(k):
            continue
        x = next((x for x in range(NUM_KINDS) if x != k and g[x] and h[x] < limit(x)), -1)
        if x >= 0:
            h[k] -= 1
            g[k] += 1
            g[x] -= 1
            h[x] += 1
            return True
    return False


def build_hand(view: View, world: World) -> Hand:
    """An engine hand in the state ``view`` describes, with the hidden cards of ``world``, waiting for
    ``view.seat``'s decision (a discard, or a claim on the card on offer): :meth:`Hand.from_position` of
    the view's observation and the world. The other seats' 臭 kinds are those their discards imply (R4.7).

    :raises EngineError: if the world does not fit the view (cards not conserved, R1).
    """
    hidden = Hidden(
        hands=tuple(tuple(_CARDS[k] for k in range(NUM_KINDS) for _ in range(h[k])) for h in world.hands),
        wei=tuple(tuple(_CARDS[k] for k in w) for w in world.wei),
        stock=tuple(_CARDS[k] for k in world.stock),
    )
    return Hand.from_position(view.rules, view.observation, hidden)


def view_of(hand: Hand, seat: int) -> View:
    """``read(hand.observation(seat))`` under the hand's own rule set (rollouts inside a world the
    searching bot built itself)."""
    return read(hand.observation(seat), hand.rules)
