"""The greedy bot's hand evaluation (paohuzi.bots.evaluation): the 向听-like distance over R3 groups."""

from __future__ import annotations

import random

import pytest

from paohuzi.analysis import waits
from paohuzi.bots.evaluation import distance, partner_kinds, reach, useful_cards
from paohuzi.cards import Card, counts_of, full_deck, parse_cards
from paohuzi.groups import Group


def _reach(hand: str, table: tuple[str, ...] = (), min_huxi: int = 15) -> tuple[int, int]:
    return reach(counts_of(parse_cards(hand)), [Group.parse(g) for g in table], min_huxi)


TING = "x1 x2 x3 x2 x7 x10 d4 d5 d6 d8 d8 d8 x4 x5 x6 d2 d7 d10 x9 x9"


class TestDistance:
    def test_complete_hand_is_minus_one(self) -> None:
        # 一二三 3 + 二七十 3 + 坎 d8 6 + 贰柒拾 6 + 绞/碰 of x9: 21 胡息 counted with the kan of x9 as 3.
        assert _reach(TING + " x9") == (-1, 21)

    def test_ting_hand_is_zero(self) -> None:
        assert _reach(TING)[0] == 0

    def test_one_card_off_is_one(self) -> None:
        assert _reach("x1 x2 x3 x2 x7 x10 d4 d5 d6 d8 d8 d8 x4 x5 x6 d2 d7 d10 x9 d1")[0] == 1

    def test_huxi_shortfall_costs_distance(self) -> None:
        # Every group is a plain 句 (0 胡息): complete in shape, but far from 15 胡息 (R6.1).
        plain = "x4 x5 x6 d4 d5 d6 x7 x8 x9 d7 d8 d9 x3 x4 x5 d3 d4 d5 x9 x9"
        assert _reach(plain, min_huxi=0)[0] == 0
        assert _reach(plain)[0] == 4

    def test_a_table_pao_calls_for_a_pair(self) -> None:
        # With a 跑 the hand needs a 将 (R6.1): the lone x9 waits for its twin.
        assert _reach("x1 x2 x3 x2 x7 x10 d4 d5 d6 x4 x5 x6 d2 d7 d10 x9", ("pao:d8 d8 d8 d8",)) == (0, 21)

    def test_ting_agrees_with_the_exact_waits(self) -> None:
        # On hands built from complete ones, distance 0 is usually exact 听牌 (analysis.waits); the
        # estimate errs on the optimistic side only rarely.
        rng = random.Random(7)
        agree = total = 0
        for _ in range(400):
            deck = full_deck()
            rng.shuffle(deck)
            hand = list(_complete_hand(rng))
            hand.remove(rng.choice(hand))
            counts = counts_of(hand)
            if max(counts) >= 4:
                continue
            total += 1
            agree += (distance(counts, (), 15) == 0) == bool(waits(hand, (), min_huxi=15))
        assert agree / total > 0.9


def _complete_hand(rng: random.Random) -> list[Card]:
    while True:
        cards: list[Card] = []
        counts = [0] * 20
        while len(cards) < 21:
            p, big = rng.randint(1, 8), rng.random() < 0.5
            r = rng.random()
            if r < 0.5:
                g = [Card.of(p, big), Card.of(p + 1, big), Card.of(p + 2, big)]
            elif r < 0.7:
                g = [Card.of(2, big), Card.of(7, big), Card.of(10, big)]
            else:
                g = [Card(rng.randrange(20))] * 3
            if all(counts[c] + g.count(c) <= 4 for c in g):
                for c in g:
                    counts[c] += 1
                cards += g
        if max(counts) < 4:
            return cards


class TestUsefulCards:
    def test_ting_hand_waits(self) -> None:
        # x9 (碰/偎 or 坎), d9 (绞 x9 x9 d9) and d8 (提 with the 坎, then x9 x9 is the 将).
        n, kinds = useful_cards(counts_of(parse_cards(TING)), (), [4] * 20, 15)
        assert [str(Card(k)) for k in kinds] == ["x9", "d8", "d9"]
        assert n == 12

    def test_dead_cards_do_not_count(self) -> None:
        live = [4] * 20
        live[Card.X9] = live[Card.D9] = live[Card.D8] = 0
        assert useful_cards(counts_of(parse_cards(TING)), (), live, 15) == (0, [])


@pytest.mark.parametrize(
    ("card", "partners"),
    [("x2", "x1 x3 x4 x7 x10 d2"), ("d10", "d2 d7 d8 d9 x10"), ("x5", "x3 x4 x6 x7 d5")],
)
def test_partner_kinds(card: str, partners: str) -> None:
    assert sorted(partner_kinds(Card.parse(card))) == sorted(parse_cards(partners))
