"""Settlement, R7.3 and R7.4: what each seat pays for a hand, the escape (逃跑) penalty, and the level titles.

Plain arithmetic on points and 胡息, re-exported by :mod:`paohuzi.scoring` (import it from there). Where the
rule book leaves a question open the choice is in ``docs/scoring.md`` and ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from paohuzi.cards import PaohuziError

__all__ = [
    "LEVELS",
    "ScoringError",
    "escape_penalty",
    "escape_settlement",
    "level_number",
    "level_title",
    "settle",
]


class ScoringError(PaohuziError):
    """Scoring or settlement asked with values that make no sense (a winner not at the table …)."""


# ---------------------------------------------------------------------------------------------------
# R7.3 settlement
# ---------------------------------------------------------------------------------------------------


def _whole(name: str, value: object, *, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ScoringError(f"{name} must be a whole number ≥ {low}, got {value!r}")
    return value


def settle(
    winner: int | None,
    points: int,
    seats: Iterable[int],
    stake: int,
    double_cards: Iterable[int] = frozenset(),
    *,
    payer: int | None = None,
) -> dict[int, int]:
    """What each seat wins (+) or pays (−) for a hand (R7.3).

    Each loser pays points × stake to the winner; the winner receives the sum. A drawn hand (荒庄, winner
    None) pays nothing. The deltas add up to 0 unless the winner holds a 双倍积分卡.

    - 双倍积分卡 (R7.3 option ``double_card``): the card doubles only its holder's own **gain**; a loss is
      never doubled and the other seats' changes are untouched, so a winning holder receives twice what
      the losers pay (the hand is then not zero-sum).
    - 放炮包赔 (R8.1 ``discarder_pays``): ``payer`` (the discarder of the card won) pays every loser's
      share; the other losers pay nothing.

    :param seats: the seats that play the hand (a 守醒 player sitting out is not one of them).
    :param double_cards: the seats holding a 双倍积分卡 for this hand.
    :param payer: the one seat that pays for everybody (放炮包赔), or None.
    :raises ScoringError: for a winner or payer not among the seats, repeated seats or negative values.

    >>> settle(0, 10, (0, 1, 2), 3)                         # QQ: the winner gets 2 × points × d
    {0: 60, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, double_cards={0})      # the winner's gain doubles, nobody pays more
    {0: 120, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, double_cards={2})      # a losing holder's loss is not doubled
    {0: 60, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, payer=2)               # 放炮包赔: the discarder pays both shares
    {0: 60, 1: 0, 2: -60}
    >>> settle(None, 0, (0, 1, 2), 3)
    {0: 0, 1: 0, 2: 0}
    """
    seat_list = list(seats)
    if len(set(seat_list)) != len(seat_list):
        raise ScoringError(f"seats repeat: {seat_list}")
    _whole("points", points)
    _whole("stake", stake)
    result = {s: 0 for s in seat_list}
    if winner is None:
        return result  # 荒庄
    if winner not in result:
        raise ScoringError(f"winner {winner!r} is not one of the seats {seat_list}")
    if payer is not None and (payer not in result or payer == winner):
        raise ScoringError(f"payer {payer!r} must be a losing seat among {seat_list}")
    gain = 0
    for seat in seat_list:
        if seat == winner:
            continue
        pay = points * stake
        result[payer if payer is not None else seat] -= pay
        gain += pay
    # R7.3 双倍积分卡: the holder's own gain only (decision in RULES.md R7.3).
    result[winner] += gain * (2 if winner in frozenset(double_cards) else 1)
    return result


def escape_penalty(remaining_huxi_sum: int, stake: int) -> int:
    """What a player who leaves a hand early (逃跑, R7.3) pays: (max(0, floor((H − 12) / 3)) + 8) × d.

    H is the sum, over the remaining players, of the 胡息 of each one's best partial arrangement
    (:func:`paohuzi.analysis.partial_arrangement` of table and hand cards).

    >>> escape_penalty(0, 3), escape_penalty(14, 3), escape_penalty(15, 3), escape_penalty(30, 1)
    (24, 24, 27, 14)
    """
    _whole("remaining_huxi_sum", remaining_huxi_sum)
    _whole("stake", stake)
    return (max(0, (remaining_huxi_sum - 12) // 3) + 8) * stake


def escape_settlement(leaver: int, remaining: Mapping[int, int], stake: int) -> dict[int, int]:
    """Deltas when ``leaver`` leaves a hand early (逃跑, R7.3): the leaver pays :func:`escape_penalty` of the
    remaining players' 胡息 sum, shared equally among them; the odd point goes to the one with more 胡息,
    and on equal 胡息 to the first after the leaver in turn order (decision).

    :param remaining: seat → that player's partial-arrangement 胡息, for each player still at the table.

    >>> escape_settlement(0, {1: 10, 2: 9}, 3)          # H = 19: (2 + 8) × 3 = 30
    {0: -30, 1: 15, 2: 15}
    >>> escape_settlement(0, {1: 3, 2: 9}, 1)           # H = 12: 8 × 1, shared 4 / 4
    {0: -8, 1: 4, 2: 4}
    >>> escape_settlement(1, {0: 9, 2: 3}, 3)           # H = 12: 24 shared 12 / 12
    {1: -24, 0: 12, 2: 12}
    >>> escape_settlement(2, {0: 7, 1: 21}, 1)          # H = 28: 5 + 8 = 13, the odd point to seat 1
    {2: -13, 0: 6, 1: 7}
    """
    if not remaining:
        raise ScoringError("escape_settlement needs the remaining players")
    if leaver in remaining:
        raise ScoringError(f"the leaver {leaver} cannot also be a remaining player")
    for seat, huxi in remaining.items():
        _whole(f"胡息 of seat {seat}", huxi)
    penalty = escape_penalty(sum(remaining.values()), stake)
    share, odd = divmod(penalty, len(remaining))
    span = max(leaver, *remaining) + 1
    # Most 胡息 first; ties in turn order from the leaver's 下家.
    order = sorted(remaining, key=lambda s: (-remaining[s], (s - leaver) % span))
    result = {leaver: -penalty}
    for seat in remaining:
        result[seat] = share
    for seat in order[:odd]:
        result[seat] += 1
    return result


# ---------------------------------------------------------------------------------------------------
# R7.4 levels
# ---------------------------------------------------------------------------------------------------

#: The 23 level titles (等级, QQ) with the total points each starts at, lowest first (R7.4). The sources
#: give 包身工 (below 30), 佃户 90, 贫农 180, 猎人 530 and 掌柜 1600; the others are the project's
#: (decision, docs/scoring.md): the step from one title to the next never shrinks. 包身工 also covers
#: every total below 0.
LEVELS: tuple[tuple[int, str], ...] = (
    (0, "包身工"),
    (30, "短工"),
    (60, "长工"),
    (90, "佃户"),
    (180, "贫农"),
    (330, "渔夫"),
    (530, "猎人"),
    (800, "中农"),
    (1150, "富农"),
    (1600, "掌柜"),
    (2200, "商人"),
    (3000, "衙役"),
    (4000, "小财主"),
    (5500, "大财主"),
    (7500, "小地主"),
    (10000, "大地主"),
    (13500, "知县"),
    (18000, "通判"),
    (24000, "知府"),
    (32000, "总督"),
    (43000, "巡抚"),
    (57000, "丞相"),
    (75000, "帝王"),
)


def level_number(points: int) -> int:
    """The level (等级) of a points total, 1 (包身工) to 23 (帝王). R7.4.

    >>> level_number(-5), level_number(29), level_number(30), level_number(1600), level_number(10**9)
    (1, 1, 2, 10, 23)
    """
    level = 1
    for i, (threshold, _title) in enumerate(LEVELS):
        if points >= threshold:
            level = i + 1
    return level


def level_title(points: int) -> str:
    """The level title (等级名) of a points total. R7.4.

    >>> level_title(29), level_title(90), level_title(179), level_title(180), level_title(1600)
    ('包身工', '佃户', '佃户', '贫农', '掌柜')
    """
    return LEVELS[level_number(points) - 1][1]
