"""Reading the table: hidden-card worlds consistent with everything a seat has seen, weighted by how well
they explain the other seats' choices (issue #16). Used by ``search[infer=true]``.

:func:`paohuzi.bots.world.sample_world` deals the unseen cards almost uniformly. But the table says more,
because **a hand only shrinks after the deal** (cards enter a seat only onto its table: R4.2, R4.3), so a
fact about a seat's hand at any earlier moment still bounds it now. Hard facts (:func:`caps`), per other
seat ``s`` and kind ``k``, on the copies of ``k`` in ``s``'s hand now:

- at most 3: four would have been 提'd at the deal (R4.1) or on the draw (R4.2);
- at most 2 if a copy of ``k`` was shown or discarded by another seat and went to a row (or is on offer):
  a 坎 would have made a forced 跑 (R4.3);
- at most 1 if ``s`` itself discarded ``k`` (a 坎 card cannot be discarded, R4.6, so it held at most two)
  or showed its own drawn ``k`` that nobody took (a pair would have made a forced 偎, R4.2);
- none if ``s`` has a 碰, 偎 or 臭偎 of ``k`` (a third copy in hand would have been a 坎, hence 跑/提), and
  none of a kind sampled for one of its hidden 偎.

A hidden 偎 of ``s`` is never of a kind ``s`` discarded or showed (it held at most one copy since, R4.2).

Soft facts, as an opponent model (:func:`likelihood`): a seat that holds a pair of a kind that was shown or
discarded by another seat and went unclaimed declined a 碰 it could make (忍碰) — players rarely do — and a
seat that discarded a kind probably did not hold cards that make groups with it. Worlds are dealt under
the hard caps (:func:`sample_world`) and then drawn by importance resampling from a small pool, weighted by
that likelihood (:class:`Sampler`): one pool serves several determinizations.

Only the seat's own observation is used (R5).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.bots.view import View
from paohuzi.bots.world import World, _left_dealer_hand
from paohuzi.cards import NUM_KINDS
from paohuzi.groups import GroupKind

__all__ = ["caps", "sample_world", "likelihood", "Sampler", "partners", "InferenceError"]


class InferenceError(Exception):
    """No world fits the caps (should not happen for a real position; the caller falls back)."""


_HOLDS_NONE = (GroupKind.PENG, GroupKind.WEI, GroupKind.CHOUWEI)


def _shown_by_others(view: View, s: int, pending_claimable: bool = False) -> set[int]:
    out: set[int] = set()
    for o, row in enumerate(view.rows):
        if o != s:
            out.update(row)
    if pending_claimable and view.pending is not None and view.pending_from != s:
        out.add(view.pending)
    return out


def _own_singles(view: View, s: int) -> set[int]:
    """Kinds ``s`` is known to have held at most one copy of since: discarded by it, or its own draw shown."""
    out = set(view.rows[s])
    if view.pending is not None and view.pending_from == s:
        out.add(view.pending)
    return out


def caps(view: View, s: int, pending_claimable: bool = False) -> list[int]:
    """The most copies of each kind seat ``s`` (not the viewer) can hold in hand now (module docstring);
    its hidden 偎 kinds are not included (they depend on the world).

    :param pending_claimable: the viewer may 碰 or 吃 the card on offer, so nobody holds a 坎 of it (the
        forced 跑 would outrank the claim and the viewer would not be asked, R4.4). When the viewer is
        only asked whether to 胡, another seat may still 跑 the card after it.
    """
    cap = [3] * NUM_KINDS
    for k in _shown_by_others(view, s, pending_claimable):
        cap[k] = min(cap[k], 2)
    for k in _own_singles(view, s):
        cap[k] = min(cap[k], 1)
    for g in view.tables[s]:
        if g.kind in _HOLDS_NONE:
            cap[g.cards[0]] = 0
        elif g.kind.four:
            cap[g.cards[0]] = 0
    return cap


def _wei_choices(view: View, s: int, pool: Sequence[int], shown: set[int]) -> list[int]:
    own = _own_singles(view, s)
    ok = [k for k in range(NUM_KINDS) if pool[k] >= 3 and k not in own and k != view.pending]
    preferred = [k for k in ok if k not in shown]  # a 偎 of a kind shown since would have taken it (跑)
    return preferred or ok


def sample_world(view: View, rng: random.Random, known_caps: dict[int, list[int]] | None = None) -> World:
    """Deal the cards ``view.seat`` has not seen into the other hands, hidden 偎 and the stock, within
    :func:`caps` (``known_caps``: already computed), uniform choices otherwise.

    :raises InferenceError: if the deal gets stuck."""
    pool = list(view.unseen)
    n = len(view.hand_counts)
    hands = [[0] * NUM_KINDS for _ in range(n)]
    hands[view.seat] = list(view.counts)
    wei: list[list[int]] = [[] for _ in range(n)]
    others = [s for s in view.seats if s != view.seat]
    cap = {s: list(known_caps[s]) if known_caps else caps(view, s) for s in others}
    shown = {k for row in view.rows for k in row}
    for s in others:
        for _ in range(view.hidden_wei[s]):
            choices = _wei_choices(view, s, pool, shown)
            if not choices:
                raise InferenceError(f"no kind left for a hidden 偎 of seat {s}")
            k = rng.choice(choices)
            pool[k] -= 3
            wei[s].append(k)
            cap[s][k] = 0
    need = {s: view.hand_counts[s] for s in others}
    d = view.dealer
    if d != view.seat and d in need and not _left_dealer_hand(view):
        k = view.liangzhang
        if pool[k] > 0 and need[d] > 0 and cap[d][k] > 0:
            pool[k] -= 1
            hands[d][k] += 1
            need[d] -= 1
    # Fill each hand card by card from the pool, within its caps (each kind in proportion to the copies
    # left: a uniform deal, conditioned); the stock takes what is left, in random order.
    for s in rng.sample(others, len(others)):
        h, c = hands[s], cap[s]
        for _ in range(need[s]):
            kinds = [k for k in range(NUM_KINDS) if pool[k] and h[k] < c[k]]
            if not kinds:
                raise InferenceError(f"seat {s}'s hand cannot be filled within its caps")
            x = rng.random() * sum(pool[k] for k in kinds)
            for k in kinds:
                x -= pool[k]
                if x < 0:
                    break
            h[k] += 1
            pool[k] -= 1
    stock = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    if len(stock) != view.stock:  # pragma: no cover - the counts of a real view always add up
        raise InferenceError("the unseen cards do not add up")
    rng.shuffle(stock)
    return World(tuple(tuple(h) for h in hands), tuple(tuple(w) for w in wei), tuple(stock))


def partners(k: int) -> tuple[int, ...]:
    """The kinds that make a group with one copy of ``k`` (R3): the same case's points ±1 and ±2, the other
    case's same point (绞), and the other two of 二七十."""
    case, p = divmod(k, 10)
    p += 1
    out = {case * 10 + q - 1 for q in (p - 2, p - 1, p + 1, p + 2) if 1 <= q <= 10}
    out.add((1 - case) * 10 + p - 1)
    if p in (2, 7, 10):
        out.update(case * 10 + q - 1 for q in (2, 7, 10) if q != p)
    return tuple(sorted(out))


_PARTNERS = tuple(partners(k) for k in range(NUM_KINDS))

#: The chance that a seat holding a pair declines a 碰 it may make (忍碰), in the opponent model.
DECLINE_PENG = 0.25
#: The likelihood factor for each partner kind held of a card the seat discarded.
KEPT_PARTNER = 0.8


def likelihood(view: View, world: World) -> float:
    """How well ``world`` explains the other seats' public choices, up to a constant (module docstring)."""
    w = 1.0
    for s in view.seats:
        if s == view.seat:
            continue
        h = world.hands[s]
        if s not in view.dead:
            for k in _shown_by_others(view, s):
                if k == view.pending:
                    continue  # still being decided
                if h[k] == 2 and k not in view.discarded[s]:  # may never 碰 a kind it discarded (R4.7)
                    w *= DECLINE_PENG
        for k in view.discarded[s]:
            for p in _PARTNERS[k]:
                if h[p]:
                    w *= KEPT_PARTNER
    return w


class Sampler:
    """Worlds for one decision by sampling-importance-resampling: each call deals ``pool`` worlds within
    the caps and returns one of them in proportion to :func:`likelihood`. The caps and the facts behind
    them are worked out once per decision and reused by every determinization. If the caps cannot be met
    (never seen in real positions) a world of :func:`paohuzi.bots.world.sample_world` is used.
    """

    def __init__(self, view: View, rng: random.Random, pool: int = 4, pending_claimable: bool = False) -> None:
        self.view = view
        self.rng = rng
        self.size = max(1, int(pool))
        self.caps = {s: caps(view, s, pending_claimable) for s in view.seats if s != view.seat}
        self.fallbacks = 0

    def __call__(self) -> World:
        from paohuzi.bots import world as uniform

        pool: list[tuple[float, World]] = []
        misses = 0
        while len(pool) < self.size:
            try:
                world = sample_world(self.view, self.rng, self.caps)
            except InferenceError:
                misses += 1
                if misses < 3 * self.size:
                    continue
                self.fallbacks += 1
                return uniform.sample_world(self.view, self.rng)
            pool.append((likelihood(self.view, world), world))
        if len(pool) == 1:
            return pool[0][1]
        total = sum(w for w, _ in pool)
        x = self.rng.random() * total
        for w, world in pool:
            if x < w:
                return world
            x -= w
        return pool[-1][1]
