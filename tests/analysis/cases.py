"""Seeded generators of analysis cases: complete hands built from random groups, near misses, random deals.

Shared by the agreement test and ``bench/analysis.py`` (which loads this file by path), so it imports
nothing from the tests package. The generators only *aim* at complete hands; whether a case is complete
is decided by the brute-force reference (``reference.py``), never by the generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from paohuzi.cards import NUM_KINDS, Card, format_cards, full_deck
from paohuzi.groups import Group, GroupKind

__all__ = ["SOURCES", "Case", "complete_case", "generate", "midgame_case", "near_miss", "random_deal"]

SOURCES = ("none", "self", "other", "discard")

_JU = [
    tuple(Card.of(q, big) for q in pts)
    for big in (False, True)
    for pts in [(p, p + 1, p + 2) for p in range(1, 9)] + [(2, 7, 10)]
]
_SCORING_JU = [c for c in _JU if tuple(x.point for x in c) in ((1, 2, 3), (2, 7, 10))]
_JIAO = [(Card.of(p, False), Card.of(p, False), Card.of(p, True)) for p in range(1, 11)] + [
    (Card.of(p, False), Card.of(p, True), Card.of(p, True)) for p in range(1, 11)
]


@dataclass(frozen=True)
class Case:
    """One analysis request: ``arrangements(hand, table, card, Source(source), min_huxi=min_huxi)``."""

    hand: tuple[Card, ...]
    table: tuple[Group, ...]
    card: Card | None
    source: str
    min_huxi: int
    label: str = ""

    def __str__(self) -> str:  # pasteable into a test
        table = ", ".join(f"Group.parse({str(g)!r})" for g in self.table)
        card = "None" if self.card is None else f"Card.parse({str(self.card)!r})"
        return (
            f"[{self.label}] hand=parse_cards({format_cards(self.hand)!r}), "
            f"table=({table}{',' if self.table else ''}), card={card}, "
            f"source=Source({self.source!r}), min_huxi={self.min_huxi}"
        )

    def counts(self) -> list[int]:
        counts = [0] * NUM_KINDS
        for c in self.hand:
            counts[c] += 1
        for g in self.table:
            for c in g.cards:
                counts[c] += 1
        if self.card is not None:
            counts[self.card] += 1
        return counts


class _Pool:
    """Card counts used so far; at most 4 of a kind (R1)."""

    def __init__(self) -> None:
        self.used = [0] * NUM_KINDS

    def take(self, cards: tuple[Card, ...]) -> bool:
        need: dict[Card, int] = {}
        for c in cards:
            need[c] = need.get(c, 0) + 1
        if any(self.used[c] + n > 4 for c, n in need.items()):
            return False
        for c, n in need.items():
            self.used[c] += n
        return True


def _kind(rng: random.Random) -> Card:
    return Card(rng.randrange(NUM_KINDS))


def _sequence(rng: random.Random) -> tuple[Card, ...]:
    return rng.choice(_SCORING_JU) if rng.random() < 0.45 else rng.choice(_JU)


def _table_group(rng: random.Random, pool: _Pool) -> Group | None:
    kind = rng.choice(["ti", "pao", "wei", "chouwei", "peng", "peng", "chi", "chi", "chi"])
    if kind == "chi":
        cards = _sequence(rng) if rng.random() < 0.7 else rng.choice(_JIAO)
        return Group.chi(cards) if pool.take(cards) else None
    k = _kind(rng)
    gk = GroupKind(kind)
    cards = (k,) * gk.size
    return Group(gk, cards) if pool.take(cards) else None


def _hand_group(rng: random.Random, pool: _Pool, hand: list[Card], duidui: bool) -> tuple[Card, ...] | None:
    """Cards of a 坎, a hand 提, a 句 or a 绞 that leave no accidental 坎 in the hand."""
    r = rng.random()
    if duidui or r < 0.15:
        cards: tuple[Card, ...] = (_kind(rng),) * (4 if rng.random() < 0.15 else 3)  # 坎 or a 提 in hand
        if cards[0] in hand:
            return None
    elif r < 0.2:
        cards = (_kind(rng),) * 4  # a 提 still in hand
        if cards[0] in hand:
            return None
    else:
        cards = _sequence(rng) if r < 0.8 else rng.choice(_JIAO)
        if any(hand.count(c) + cards.count(c) > 2 for c in cards):
            return None
    return cards if pool.take(cards) else None


def complete_case(rng: random.Random, label: str = "complete") -> Case:
    """A hand built from random groups, aiming at a complete hand (R6.1) with every card source and use."""
    for _ in range(1000):
        pool = _Pool()
        source = rng.choice(SOURCES)
        table: list[Group] = []
        hand: list[Card] = []
        card: Card | None = None
        fours = 0
        n_groups = 7 if rng.random() < 0.8 else rng.randint(2, 6)
        duidui = rng.random() < 0.2  # aim at a 对对 shape: only same-kind groups
        made = 0
        use = "free"
        if source != "none":
            uses = ["free", "free", "kan", "pair", "wei", "peng", "alt"]
            use = rng.choice(uses)
            if duidui and use == "free":
                use = "kan"
            k = _kind(rng)
            if use == "kan":
                if not pool.take((k,) * 4):
                    continue
                hand += [k] * 3
                card = k
                fours += 1
            elif use == "pair":
                if not pool.take((k,) * 3):
                    continue
                hand += [k] * 2
                card = k
                fours += 0
            elif use in ("wei", "peng"):
                if not pool.take((k,) * 4):
                    continue
                kind = GroupKind.PENG if use == "peng" else rng.choice([GroupKind.WEI, GroupKind.CHOUWEI])
                table.append(Group(kind, (k,) * 3))
                card = k
                # the card may make a 跑/提 of it (a 将 is then needed) or not
                fours += rng.random() < 0.7
            elif use == "alt":
                # two shapes at once: the card joins a 碰/偎 (跑, with the other-case pair as 将) or makes a
                # 绞 with that pair; or the card joins a hand pair (碰) or makes a 绞 with the other-case pair.
                o = k.other_case
                duidui = rng.random() < 0.7
                if rng.random() < 0.6:
                    if not pool.take((k,) * 4 + (o, o)):
                        continue
                    kinds = [GroupKind.PENG] if source == "self" else [GroupKind.WEI, GroupKind.CHOUWEI]
                    if source == "other":
                        kinds.append(GroupKind.PENG)
                    table.append(Group(rng.choice(kinds), (k,) * 3))
                    hand += [o, o]
                else:
                    if not pool.take((k,) * 3 + (o, o)):
                        continue
                    hand += [k, k, o, o]
                    fours += 1  # needs some 提/跑 for its 将
                card = k
                made += 1
            if use not in ("free", "alt"):
                made += 1
        n_table = rng.choice([0, 1, 1, 2, 2, 3, 4])
        tries = 0
        while made < n_groups and n_table > 0 and tries < 50:
            tries += 1
            g = _table_group(rng, pool)
            if g is not None and not (duidui and not g.kind.same_kind):
                table.append(g)
                made += 1
                n_table -= 1
                fours += g.kind.four
        tries = 0
        while made < n_groups and tries < 50:
            tries += 1
            cards = _hand_group(rng, pool, hand, duidui)
            if cards is not None:
                hand += cards
                made += 1
                fours += len(cards) == 4
        want_jiang = fours > 0
        if rng.random() < 0.08:
            want_jiang = not want_jiang  # a deliberate 将 mistake now and then
        if want_jiang:
            for _ in range(50):
                k = _kind(rng)
                if k not in hand and pool.take((k, k)):
                    hand += [k, k]
                    break
        if source != "none" and use == "free":
            if not hand:
                continue
            card = hand.pop(rng.randrange(len(hand)))
        rng.shuffle(hand)
        rng.shuffle(table)
        min_huxi = rng.choice([15, 15, 15, 0, 0, 10, 20, 30])
        return Case(tuple(hand), tuple(table), card, source, min_huxi, label)
    raise RuntimeError("could not build a case")


def near_miss(rng: random.Random, case: Case, label: str = "near-miss") -> Case:
    """The case with one change: a hand card swapped, removed or added, the card or its source changed."""
    counts = case.counts()
    free = [k for k in Card if counts[k] < 4]
    hand = list(case.hand)
    what = rng.choice(["swap", "swap", "swap", "remove", "add", "source", "card", "no-card"])
    if what == "swap" and hand and free:
        hand[rng.randrange(len(hand))] = rng.choice(free)
        return replace(case, hand=tuple(hand), label=f"{label}:swap")
    if what == "remove" and hand:
        hand.pop(rng.randrange(len(hand)))
        return replace(case, hand=tuple(hand), label=f"{label}:remove")
    if what == "add" and free:
        hand.append(rng.choice(free))
        return replace(case, hand=tuple(hand), label=f"{label}:add")
    if what == "card" and case.card is not None:
        counts[case.card] -= 1
        k = rng.choice([k for k in Card if counts[k] < 4])
        return replace(case, card=k, label=f"{label}:card")
    if what == "no-card" and case.card is not None:
        return replace(case, hand=(*hand, case.card), card=None, source="none", label=f"{label}:no-card")
    if case.card is not None:
        return replace(case, source=rng.choice(SOURCES[1:]), label=f"{label}:source")
    if hand:
        card = hand.pop(rng.randrange(len(hand)))
        return replace(case, hand=tuple(hand), card=card, source=rng.choice(SOURCES[1:]), label=f"{label}:card")
    return case


def random_deal(rng: random.Random, label: str = "deal") -> Case:
    """A dealt hand of 20 cards and a card from the rest (or the dealer's 21 cards and no card)."""
    deck = full_deck()
    rng.shuffle(deck)
    source = rng.choice(SOURCES)
    if source == "none":
        return Case(tuple(deck[:21]), (), None, source, rng.choice([0, 15]), label)
    return Case(tuple(deck[:20]), (), deck[20], source, rng.choice([0, 15]), label)


def midgame_case(rng: random.Random, label: str = "midgame") -> Case:
    """Random table groups, a random hand of the remaining size, a random card."""
    pool = _Pool()
    table: list[Group] = []
    for _ in range(rng.randint(1, 4) * 3):
        if len(table) >= 4:
            break
        g = _table_group(rng, pool)
        if g is not None:
            table.append(g)
    deck = [c for c in full_deck()]
    for k in Card:
        for _ in range(pool.used[k]):
            deck.remove(k)
    rng.shuffle(deck)
    n = 20 - sum(len(g.cards) for g in table) + sum(g.kind.four for g in table)
    n = max(2, n - n % 3 + rng.choice([0, 1, 2]))
    source = rng.choice(SOURCES)
    if source == "none":
        return Case(tuple(deck[:n]), tuple(table), None, source, rng.choice([0, 15]), label)
    return Case(tuple(deck[:n]), tuple(table), deck[n], source, rng.choice([0, 15]), label)


def generate(seed: int, n: int) -> list[Case]:
    """``n`` cases from one seed: about 45% built complete, 30% near misses, 25% random deals."""
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < n:
        r = rng.random()
        if r < 0.45:
            out.append(complete_case(rng))
        elif r < 0.75:
            out.append(near_miss(rng, complete_case(rng)))
        elif r < 0.88:
            out.append(random_deal(rng))
        else:
            out.append(midgame_case(rng))
    return out
