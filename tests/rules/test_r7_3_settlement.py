"""R7.3 settlement: each loser pays points × stake, the winner receives the sum; 荒庄; 双倍卡; 逃跑."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.analysis import Source
from paohuzi.cards import Card, PaohuziError, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import ScoringError, escape_penalty, escape_settlement, evaluate, settle


def test_r7_3_qq_worked_example() -> None:
    """QQ room stake 3: the winner gets x × f × 2 × d, each loser loses x × f × d."""
    qq = find_preset("qq")
    win = evaluate(
        parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9"),
        [Group.parse("peng:x7x7x7")],
        Card.X10,
        Source.SELF,
        qq,
    )
    assert win is not None and (win.score.base, win.score.fan, win.points) == (5, 2, 10)
    assert settle(1, win.points, (0, 1, 2), qq.stake) == {0: -30, 1: 60, 2: -30}


@pytest.mark.parametrize("winner", [0, 1, 2])
def test_r7_3_each_loser_pays(winner: int) -> None:
    deltas = settle(winner, 7, (0, 1, 2), 1)
    assert deltas[winner] == 14
    assert all(deltas[s] == -7 for s in (0, 1, 2) if s != winner)


def test_r7_3_huangzhuang_pays_nothing() -> None:
    assert settle(None, 0, (0, 1, 2), 3) == {0: 0, 1: 0, 2: 0}
    assert settle(None, 12, (0, 1, 2), 3, double_cards={0, 1}) == {0: 0, 1: 0, 2: 0}


def test_r7_3_four_players_the_sitter_out_is_not_a_seat() -> None:
    """守醒 (R2): the player sitting out pays and receives nothing; the caller passes the playing seats."""
    assert settle(3, 5, (0, 1, 3), 1) == {0: -5, 1: -5, 3: 10}


def test_r7_3_zero_points() -> None:
    assert settle(0, 0, (0, 1, 2), 3) == {0: 0, 1: 0, 2: 0}


@pytest.mark.parametrize(
    ("doubles", "expected"),
    [
        (set(), {0: 20, 1: -10, 2: -10}),
        ({0}, {0: 40, 1: -10, 2: -10}),  # the winner's card doubles the winner's gain only
        ({1}, {0: 20, 1: -10, 2: -10}),  # a loss is never doubled
        ({1, 2}, {0: 20, 1: -10, 2: -10}),
        ({0, 1}, {0: 40, 1: -10, 2: -10}),
        ({0, 1, 2}, {0: 40, 1: -10, 2: -10}),
        ({7}, {0: 20, 1: -10, 2: -10}),  # a card held by nobody at the table changes nothing
    ],
)
def test_r7_3_double_card(doubles: set[int], expected: dict[int, int]) -> None:
    """R7.3 双倍积分卡 (decision): the holder's own 积分 gain doubles; no loss doubles, nobody else changes."""
    assert settle(0, 10, (0, 1, 2), 1, double_cards=doubles) == expected


@given(
    st.sampled_from([None, 0, 1, 2]),
    st.integers(0, 500),
    st.integers(0, 10),
    st.sets(st.sampled_from([0, 1, 2])),
)
def test_r7_3_zero_sum(winner: int | None, points: int, stake: int, doubles: set[int]) -> None:
    """Zero-sum except by a winning holder's doubled gain (R7.3 双倍积分卡)."""
    deltas = settle(winner, points, (0, 1, 2), stake, double_cards=doubles)
    extra = points * stake * 2 if winner in doubles else 0
    assert sum(deltas.values()) == extra and set(deltas) == {0, 1, 2}
    for seat in {0, 1, 2} - {winner}:
        if winner is not None:
            assert deltas[seat] == -points * stake


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 10, (0, 1, 2), 1), "winner 5 is not one of the seats"),
        ((0, 10, (0, 1, 1), 1), "seats repeat"),
        ((0, -1, (0, 1, 2), 1), "points must be a whole number"),
        ((0, 10, (0, 1, 2), -3), "stake must be a whole number"),
        ((0, True, (0, 1, 2), 1), "points must be a whole number"),
        ((0, 1.5, (0, 1, 2), 1), "points must be a whole number"),
    ],
)
def test_r7_3_bad_settlement(args: tuple, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        settle(*args)
    assert issubclass(ScoringError, PaohuziError)


@pytest.mark.parametrize(
    ("huxi", "stake", "penalty"),
    [
        (0, 1, 8),
        (12, 1, 8),
        (14, 1, 8),
        (15, 1, 9),
        (17, 1, 9),
        (18, 1, 10),
        (30, 1, 14),
        (0, 3, 24),
        (15, 3, 27),
        (45, 3, 57),
    ],
)
def test_r7_3_escape_penalty(huxi: int, stake: int, penalty: int) -> None:
    """扣分 = (((其他玩家当前总息数 − 12) ÷ 3) + 8) × d, the first part never below 0."""
    assert escape_penalty(huxi, stake) == penalty


def test_r7_3_escape_settlement_even() -> None:
    # H = 9 + 9 = 18: (2 + 8) × 3 = 30, 15 each.
    assert escape_settlement(0, {1: 9, 2: 9}, 3) == {0: -30, 1: 15, 2: 15}


@pytest.mark.parametrize(
    ("leaver", "remaining", "expected"),
    [
        (0, {1: 21, 2: 7}, {0: -13, 1: 7, 2: 6}),  # H 28: 13, the odd point to the one with more 胡息
        (0, {1: 7, 2: 21}, {0: -13, 1: 6, 2: 7}),
        (0, {1: 14, 2: 14}, {0: -13, 1: 7, 2: 6}),  # equal 胡息: the leaver's 下家 (seat 1)
        (1, {0: 14, 2: 14}, {1: -13, 0: 6, 2: 7}),  # 下家 of 1 is 2
        (2, {0: 14, 1: 14}, {2: -13, 0: 7, 1: 6}),  # 下家 of 2 is 0
        (3, {0: 14, 1: 14}, {3: -13, 0: 7, 1: 6}),  # four at the table, seat 2 sitting out: 下家 of 3 is 0
    ],
)
def test_r7_3_escape_odd_point(leaver: int, remaining: dict[int, int], expected: dict[int, int]) -> None:
    assert escape_settlement(leaver, remaining, 1) == expected


def test_r7_3_escape_zero_sum() -> None:
    for leaver, (a, b) in itertools.product(range(3), itertools.product(range(0, 40, 7), repeat=2)):
        others = [s for s in range(3) if s != leaver]
        deltas = escape_settlement(leaver, dict(zip(others, (a, b), strict=True)), 3)
        assert sum(deltas.values()) == 0 and deltas[leaver] == -escape_penalty(a + b, 3)
        assert abs(deltas[others[0]] - deltas[others[1]]) <= 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, {}, 1), "needs the remaining players"),
        ((0, {0: 3, 1: 4}, 1), "cannot also be a remaining player"),
        ((0, {1: -3, 2: 4}, 1), "胡息 of seat 1 must be a whole number"),
        ((0, {1: 3, 2: 4}, -1), "stake must be a whole number"),
    ],
)
def test_r7_3_bad_escape(args: tuple, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        escape_settlement(*args)
