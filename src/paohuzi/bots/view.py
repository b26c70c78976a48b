"""What one seat knows (R5), read from its observation: the only input a bot has.

:func:`read` turns the :class:`~paohuzi.engine.Observation` of :meth:`paohuzi.engine.Hand.observation`
(or its JSON form) into a :class:`View` with card counts and groups, and works out what the seat can infer
from it: how many copies of each kind it has not seen (``unseen``, :meth:`~paohuzi.engine.Observation.unseen`),
which kinds each other seat can no longer 吃 or 碰 because it discarded them
(R4.7), how many hidden 偎 each seat holds. Nothing here looks at anything but the observation.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=7)
>>> view = read(hand.observation(hand.deciding[0]))
>>> view.seat, view.phase, sum(view.counts), sum(view.unseen) + sum(view.counts)
(1, 'discard', 21, 80)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paohuzi._compiled import reduce_frozen
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Observation
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet, find_preset

__all__ = ["View", "read", "group_of", "rules_of"]

_KINDS = {k.value: k for k in GroupKind}
_CARD = {str(c): c for c in Card}


def group_of(data: Mapping[str, Any]) -> Group | None:
    """A table group from its JSON form, or None for a 偎 whose kind is hidden (R5)."""
    cards = data.get("cards")
    if cards is None:
        return None
    return Group(_KINDS[data["kind"]], tuple(_CARD[c] for c in cards))


@dataclass(frozen=True, slots=True, init=False)
class View:
    """One seat's knowledge of a hand in progress (R5).

    :ivar seat: the seat.
    :ivar rules: the rule set (from the preset named in the observation).
    :ivar phase: ``discard``, ``claim``, ``self_hu``, ``liangzhang`` or ``over`` (the
        :class:`~paohuzi.engine.Phase` value).
    :ivar counts: the seat's hand, as 20 counts.
    :ivar table: the seat's own table groups.
    :ivar tables: every seat's visible table groups (a hidden 偎 is left out and counted in ``hidden_wei``).
    :ivar hidden_wei: per seat, how many 偎 it holds whose kind this seat cannot see.
    :ivar hand_counts: per seat, cards in hand.
    :ivar discarded: per seat, the kinds it discarded from hand (it may never 吃 or 碰 them, R4.7).
    :ivar rows: per seat, the cards in its row (discarded or unclaimed draws), in order;
        ``row_discarded`` says which of them were discarded from hand.
    :ivar table_order: per seat, for each table group in order, whether it is a hidden 偎.
    :ivar pending: the card on offer, or None; ``pending_from`` its drawer/discarder; ``pending_drawn``
        whether it was drawn; ``pending_last`` whether it was the stock's last card.
    :ivar stock: cards left in the stock.
    :ivar unseen: per kind, copies this seat has not seen (in other hands, hidden 偎 or the stock).
    :ivar dealer: the dealer; ``liangzhang`` the 亮张; ``seats`` the seats in play in turn order.
    :ivar no_chi: kinds this seat may not 吃 (臭, R4.7); ``no_peng`` those it may not 碰.
    :ivar dead: seats that are 死手 (R4.6).
    :ivar observation: the observation this view was read from.
    """

    seat: int
    rules: RuleSet
    phase: str
    counts: tuple[int, ...]
    table: tuple[Group, ...]
    tables: tuple[tuple[Group, ...], ...]
    hidden_wei: tuple[int, ...]
    hand_counts: tuple[int, ...]
    discarded: tuple[frozenset[int], ...]
    rows: tuple[tuple[int, ...], ...]
    row_discarded: tuple[tuple[bool, ...], ...]
    table_order: tuple[tuple[bool, ...], ...]
    pending: int | None
    pending_from: int | None
    pending_drawn: bool
    pending_last: bool
    stock: int
    unseen: tuple[int, ...]
    dealer: int
    liangzhang: int
    seats: tuple[int, ...]
    no_chi: frozenset[int]
    no_peng: frozenset[int]
    dead: frozenset[int]
    observation: Observation

    def __init__(  # noqa: PLR0913, PLR0917 (the dataclass's fields, written out for mypyc)
        self,
        seat: int,
        rules: RuleSet,
        phase: str,
        counts: tuple[int, ...],
        table: tuple[Group, ...],
        tables: tuple[tuple[Group, ...], ...],
        hidden_wei: tuple[int, ...],
        hand_counts: tuple[int, ...],
        discarded: tuple[frozenset[int], ...],
        rows: tuple[tuple[int, ...], ...],
        row_discarded: tuple[tuple[bool, ...], ...],
        table_order: tuple[tuple[bool, ...], ...],
        pending: int | None,
        pending_from: int | None,
        pending_drawn: bool,
        pending_last: bool,
        stock: int,
        unseen: tuple[int, ...],
        dealer: int,
        liangzhang: int,
        seats: tuple[int, ...],
        no_chi: frozenset[int],
        no_peng: frozenset[int],
        dead: frozenset[int],
        observation: Observation,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "hidden_wei", hidden_wei)
        object.__setattr__(self, "hand_counts", hand_counts)
        object.__setattr__(self, "discarded", discarded)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "row_discarded", row_discarded)
        object.__setattr__(self, "table_order", table_order)
        object.__setattr__(self, "pending", pending)
        object.__setattr__(self, "pending_from", pending_from)
        object.__setattr__(self, "pending_drawn", pending_drawn)
        object.__setattr__(self, "pending_last", pending_last)
        object.__setattr__(self, "stock", stock)
        object.__setattr__(self, "unseen", unseen)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "liangzhang", liangzhang)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "no_chi", no_chi)
        object.__setattr__(self, "no_peng", no_peng)
        object.__setattr__(self, "dead", dead)
        object.__setattr__(self, "observation", observation)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    @property
    def next_seat(self) -> int:
        """下家 of this seat among the seats in play."""
        return self.after(self.seat)

    def after(self, seat: int) -> int:
        """下家 of ``seat`` among the seats in play."""
        i = self.seats.index(seat)
        return self.seats[(i + 1) % len(self.seats)]

    @property
    def others(self) -> tuple[int, ...]:
        """The other seats in play, in turn order after this one."""
        i = self.seats.index(self.seat)
        return tuple(self.seats[(i + j) % len(self.seats)] for j in range(1, len(self.seats)))

    @property
    def visible(self) -> tuple[int, ...]:
        """Per kind, copies this seat can see: its hand, every shown table card, rows and the card on offer."""
        return tuple(4 - u for u in self.unseen)

    def owes_discard_after_take(self) -> bool:
        """R4.6: would this seat owe a discard after taking one more card into a group (吃/碰)? (20: the rule
        set's ``discard_base``, 14 on 15-card hands, R9.3.)"""
        table_cards = sum(g.kind.size for g in self.table) + 3 * self.hidden_wei[self.seat]
        fours = sum(1 for g in self.table if g.kind.four)
        return sum(self.counts) + table_cards + 1 > self.rules.discard_base + max(0, fours - 1)


_RULES_CACHE: dict[str, RuleSet] = {}
_OPTIONS_CACHE: dict[tuple[str, tuple[tuple[str, Any], ...]], RuleSet] = {}


# The last rule set read from options, as (name, a copy of the options, the RuleSet): most reads come from
# the same table, and comparing two small dicts costs less than sorting one into a key.
_LAST: list[tuple[str, dict[str, Any], RuleSet]] = []


def _rules(name: str, options: object = None) -> RuleSet:
    """The preset named in an observation, with its ``options`` (R8.1 house options) when it has them."""
    if isinstance(options, dict):
        if _LAST:
            last_name, last_options, last_rules = _LAST[0]
            if last_name == name and last_options == options:
                return last_rules
        key = (name, tuple(sorted(options.items())))
        found = _OPTIONS_CACHE.get(key)
        if found is None:
            found = _OPTIONS_CACHE[key] = RuleSet.from_dict({**options, "name": name})
        _LAST[:] = [(name, dict(options), found)]
        return found
    rules = _RULES_CACHE.get(name)
    if rules is None:
        rules = _RULES_CACHE[name] = find_preset(name)
    return rules


def rules_of(observation: Observation) -> RuleSet:
    """The rule set an observation was made under: its preset with its options (cached, as :func:`read`)."""
    return _rules(observation.rules, observation.options)


def read(observation: Observation | Mapping[str, Any], rules: RuleSet | None = None) -> View:
    """Read a seat's observation (an :class:`~paohuzi.engine.Observation`, or its JSON form: see
    ``docs/engine.md``) into a :class:`View`.

    ``rules`` overrides the rule set of the observation (its preset ``rules`` with its ``options``).
    """
    obs = observation if isinstance(observation, Observation) else Observation.from_dict(observation)
    seat = obs.seat
    if rules is None:
        rules = _rules(obs.rules, obs.options)
    counts = [0] * NUM_KINDS
    for c in obs.hand:
        counts[c] += 1
    tables: list[tuple[Group, ...]] = []
    hidden: list[int] = []
    order: list[tuple[bool, ...]] = []
    for groups in obs.tables:
        visible = tuple(g for g in groups if g is not None)
        tables.append(visible)
        hidden.append(len(groups) - len(visible))
        order.append(tuple(g is None for g in groups))
    rows = tuple(tuple(int(e.card) for e in row) for row in obs.rows)
    row_flags = tuple(tuple(e.discarded for e in row) for row in obs.rows)
    discarded = tuple(frozenset(int(e.card) for e in row if e.discarded) for row in obs.rows)
    pending = obs.pending
    return View(
        seat=seat,
        rules=rules,
        phase=obs.phase.value,
        counts=tuple(counts),
        table=tables[seat],
        tables=tuple(tables),
        hidden_wei=tuple(hidden),
        hand_counts=obs.hand_counts,
        discarded=discarded,
        rows=rows,
        row_discarded=row_flags,
        table_order=tuple(order),
        pending=None if pending is None else int(pending.card),
        pending_from=None if pending is None else pending.from_seat,
        pending_drawn=pending is not None and pending.drawn,
        pending_last=pending is not None and pending.last,
        stock=obs.stock,
        unseen=obs.unseen(),
        dealer=obs.dealer,
        liangzhang=int(obs.liangzhang),
        seats=obs.seats,
        no_chi=frozenset(int(c) for c in obs.chou.chi),
        no_peng=frozenset(int(c) for c in obs.chou.peng),
        dead=frozenset(obs.dead),
        observation=obs,
    )
