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
the seat's decision, for rollouts. Facts the view does not carry (which kinds the other seats declined to
claim) are left out: the sampled world knows only the 臭 that discards imply (R4.7).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from paohuzi.bots.view import View
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Action, Hand
from paohuzi.engine import hand as _engine
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet

__all__ = ["World", "sample_world", "build_hand", "view_of"]


@dataclass(frozen=True, slots=True)
class World:
    """The hidden part of a hand, as sampled: per seat its hand counts and the kinds of its hidden 偎 (in
    table order); the stock in draw order. The viewing seat's own entries are its real ones."""

    hands: tuple[tuple[int, ...], ...]
    wei: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


def _left_dealer_hand(view: View) -> bool:
    """True if a copy of the 亮张's kind may have left the dealer's hand (so it need not be there)."""
    d, k = view.dealer, view.liangzhang
    if view.hidden_wei[d]:
        return True
    if any(k in g.cards for g in view.tables[d]):
        return True
    return k in view.rows[d]


def sample_world(view: View, rng: random.Random) -> World:  # noqa: C901, PLR0912 (debt: one pass per R5 constraint; file under rework (issue 10 item 1))
    """Deal the cards ``view.seat`` has not seen into the other hands, hidden 偎 and the stock."""
    pool = list(view.unseen)
    n = len(view.hand_counts)
    hands = [[0] * NUM_KINDS for _ in range(n)]
    hands[view.seat] = list(view.counts)
    wei: list[list[int]] = [[] for _ in range(n)]
    others = [s for s in view.seats if s != view.seat]
    shown = {k for row in view.rows for k in row}
    if view.pending is not None:
        shown.add(view.pending)
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
    # Repairs: no four in a hand; no 坎 of a kind shown since the deal (it would have been 跑'd). A card
    # over the limit is swapped with a stock card, or else with another hidden hand's card, that fits.
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
                    continue
                swapped = False
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
                        swapped = True
                        break
                if not swapped:
                    break
    return World(tuple(tuple(h) for h in hands), tuple(tuple(w) for w in wei), tuple(stock))


_SAME = {kind: [Group(kind, (Card(k),) * kind.size) for k in range(NUM_KINDS)] for kind in GroupKind if kind.same_kind}


_CACHES = ("_hcache", "_tcache", "_info")
_TEMPLATES: dict[tuple[RuleSet, int], Hand] = {}


def _template(rules: RuleSet, dealer: int) -> Hand:
    """A real hand of these rules and dealer, to copy: its state is then replaced."""
    key = (rules, dealer)
    hand = _TEMPLATES.get(key)
    if hand is None:
        hand = _TEMPLATES[key] = Hand(rules, seed=0, dealer=dealer)
    return hand


def build_hand(view: View, world: World) -> Hand:  # noqa: PLR0915 (being replaced by Hand.from_position (issue 10 item 1))
    """An engine hand in the state ``view`` describes, with the hidden cards of ``world``, waiting for
    ``view.seat``'s decision (a discard, or a claim on the card on offer).

    The engine has no public constructor from a position, so this copies a real hand (every field the
    engine keeps then exists) and sets its state fields; ``tests/bots/test_view_world.py`` checks that the
    result offers the same choices and plays out as the real hand. The hand is only used for rollouts.
    """
    rules = view.rules
    n = len(view.hand_counts)
    # Start from a copy of a real hand (so every field the engine keeps exists), then set the state.
    h = _template(rules, view.dealer).copy()
    h.events = []
    h.outcome = None
    h._hands = [list(x) for x in world.hands]
    h._hsize = [sum(x) for x in world.hands]
    tables: list[list[Group]] = [[] for _ in range(n)]
    weis: list[dict[int, int]] = [{} for _ in range(n)]
    pengs: list[dict[int, int]] = [{} for _ in range(n)]
    tsize = [0] * n
    fours = [0] * n
    for s in range(n):
        hidden = iter(world.wei[s])
        visible = iter(view.tables[s])
        order = view.table_order[s]
        for is_hidden in order:
            g = _SAME[GroupKind.WEI][next(hidden)] if is_hidden else next(visible)
            kind = g.kind
            if kind is GroupKind.WEI or kind is GroupKind.CHOUWEI:
                weis[s][g.cards[0]] = len(tables[s])
            elif kind is GroupKind.PENG:
                pengs[s][g.cards[0]] = len(tables[s])
            elif kind.four:
                fours[s] += 1
            tables[s].append(g)
            tsize[s] += kind.size
    h._tables = tables
    h._tsize = tsize
    h._fours = fours
    h._wei = weis
    h._peng = pengs
    h._rows = [[(c, d) for c, d in zip(view.rows[s], view.row_discarded[s], strict=False)] for s in range(n)]
    h._stock = list(world.stock)
    h._spos = 0
    h._liang = view.liangzhang
    h._no_chi = [set(view.discarded[s]) for s in range(n)]
    h._no_peng = [set(view.discarded[s]) for s in range(n)]
    h._no_chi[view.seat] |= view.no_chi
    h._no_peng[view.seat] |= view.no_peng
    h._renpeng = [set() for _ in range(n)]
    h._discarded = [set(view.discarded[s]) for s in range(n)]
    h._dead = [s in view.dead for s in range(n)]
    for cache in _CACHES:  # per-seat caches of the engine, all stale now
        if hasattr(h, cache):
            setattr(h, cache, [None] * n)
    h._phase = _engine._OVER
    h._actor = view.seat
    h._card = -1
    h._drawn = False
    h._last = False
    h._claims = []
    h._legal = {}
    h._decided = {}
    h._deciding = ()
    h._actions = []
    h._min_huxi = rules.min_huxi
    if view.phase == "claim" and view.pending is not None and view.pending_from is not None:
        h._run(h._open_window(view.pending, view.pending_from, view.pending_drawn, view.pending_last))
    else:
        kinds = [k for k in range(NUM_KINDS) if 0 < h._hands[view.seat][k] < 3]
        h._actor = view.seat
        h._ask(_engine._DISCARD, {view.seat: [Action.discard(Card(k)) for k in kinds]})
    return h


_PHASES = _engine._PHASE_NAMES


def view_of(hand: Hand, seat: int) -> View:
    """``read(hand.observation(seat))``, built straight from a (sampled) hand's state — faster, for
    rollouts inside a world the searching bot built itself. Equal to the observation's view (tested)."""
    n = hand.table_size
    counts = hand._hands[seat]
    seen = list(counts)
    tables: list[tuple[Group, ...]] = []
    order: list[tuple[bool, ...]] = []
    hidden = [0] * n
    for s in range(n):
        visible = []
        flags = []
        for g in hand._tables[s]:
            if g.kind is GroupKind.WEI and s != seat:
                hidden[s] += 1
                flags.append(True)
                continue
            flags.append(False)
            visible.append(g)
            for c in g.cards:
                seen[c] += 1
        tables.append(tuple(visible))
        order.append(tuple(flags))
    rows = []
    row_flags = []
    discarded = []
    for s in range(n):
        row = hand._rows[s]
        cards = tuple(c for c, _ in row)
        rows.append(cards)
        row_flags.append(tuple(d for _, d in row))
        discarded.append(frozenset(c for c, d in row if d))
        for kind in cards:
            seen[kind] += 1
    phase = hand._phase
    pending = None
    pending_from = None
    drawn = last = False
    if phase == _engine._CLAIM:
        pending = hand._card
        pending_from = hand._actor
        drawn = hand._drawn
        last = hand._last
        seen[pending] += 1
    return View(
        seat=seat,
        rules=hand.rules,
        phase=_PHASES[phase],
        counts=tuple(counts),
        table=tables[seat],
        tables=tuple(tables),
        hidden_wei=tuple(hidden),
        hand_counts=tuple(hand._hsize),
        discarded=tuple(discarded),
        rows=tuple(rows),
        row_discarded=tuple(row_flags),
        table_order=tuple(order),
        pending=pending,
        pending_from=pending_from,
        pending_drawn=drawn,
        pending_last=last,
        stock=len(hand._stock) - hand._spos,
        unseen=tuple(max(0, 4 - x) for x in seen),
        dealer=hand.dealer,
        liangzhang=hand._liang,
        seats=hand.seats,
        no_chi=frozenset(hand._no_chi[seat]),
        no_peng=frozenset(hand._no_peng[seat]),
        dead=frozenset(s for s in hand.seats if hand._dead[s]),
    )
