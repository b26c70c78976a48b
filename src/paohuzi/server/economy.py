"""欢乐豆 (R7.3, issue 13 §2): the table tiers and how a hand moves beans. Pure functions, no I/O.

- A new player holds :data:`START_BEANS`.
- A tier is a 场次: a multiplier (场次倍数) and the fewest beans a player must hold to sit down.
- A hand moves beans by its points × the multiplier: each loser owes what it pays in 积分 divided by the
  room stake (the hand's points, or the 逃跑 penalty), times the multiplier — never doubled by a
  双倍积分卡 (R7.3). A loser pays at most what it holds (never below zero), and the winners receive
  exactly what was paid, shared as their 积分 gains are (docs/decisions.md): beans are never minted by a
  hand, only by the start grant and the daily relief.
- Relief (救济): a player holding fewer than :data:`RELIEF_BELOW` beans may claim :data:`RELIEF_AMOUNT`,
  :data:`RELIEF_PER_DAY` times per UTC day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

__all__ = [
    "START_BEANS",
    "RELIEF_AMOUNT",
    "RELIEF_BELOW",
    "RELIEF_PER_DAY",
    "Tier",
    "TierData",
    "TIERS",
    "find_tier",
    "bean_moves",
]

START_BEANS = 1000
RELIEF_AMOUNT = 500
RELIEF_BELOW = 100
RELIEF_PER_DAY = 2


class TierData(TypedDict):
    """A tier as JSON (``GET /api/tiers``)."""

    name: str
    title: str
    multiplier: int
    minimum: int


@dataclass(frozen=True, slots=True)
class Tier:
    name: str
    title: str
    multiplier: int
    minimum: int  # beans needed to sit down

    def to_dict(self) -> TierData:
        return {"name": self.name, "title": self.title, "multiplier": self.multiplier, "minimum": self.minimum}


TIERS: tuple[Tier, ...] = (
    Tier("practice", "练习场", 0, 0),
    Tier("novice", "新手场", 1, 100),
    Tier("junior", "初级场", 5, 1_000),
    Tier("middle", "中级场", 20, 5_000),
    Tier("senior", "高级场", 100, 20_000),
)


def find_tier(name: str) -> Tier:
    """:raises KeyError: naming the tiers there are.

    >>> find_tier("junior").multiplier
    5
    """
    for tier in TIERS:
        if tier.name == name:
            return tier
    raise KeyError(f"no tier {name!r}; tiers: {', '.join(t.name for t in TIERS)}")


def _share(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainders; ties to the lower index).

    >>> _share(7, [1, 1]), _share(10, [3, 1]), _share(0, [5])
    ([4, 3], [8, 2], [0])
    """
    whole = sum(weights)
    if whole == 0:
        return [0] * len(weights)
    base = [total * w // whole for w in weights]
    left = total - sum(base)
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[:left]:
        base[i] += 1
    return base


def bean_moves(
    payments: Sequence[int],
    stake: int,
    multiplier: int,
    balances: Sequence[int | None],
    doubled: Sequence[int] = (),
) -> list[int]:
    """Each seat's change of beans for a hand (R7.3): ``payments`` are the hand's 积分 changes per seat,
    ``stake`` the room stake they were multiplied by, ``balances`` each seat's beans before (None for a
    bot: it has bottomless beans, pays in full and receives its share, which goes nowhere), ``doubled``
    the seats whose 积分 gain a 双倍积分卡 doubled (undone here: beans are never doubled).

    >>> bean_moves([60, -30, -30], 3, 5, [1000, 1000, 1000])          # points 10 × 5 from each loser
    [100, -50, -50]
    >>> bean_moves([60, -30, -30], 3, 5, [1000, 20, 1000])            # a loser pays what it holds
    [70, -20, -50]
    >>> bean_moves([120, -30, -30], 3, 5, [0, 1000, 1000], doubled=[0])
    [100, -50, -50]
    >>> bean_moves([60, -30, -30], 3, 0, [1000, 1000, 1000])          # practice: multiplier 0
    [0, 0, 0]
    """
    n = len(payments)
    if multiplier == 0 or stake <= 0:
        return [0] * n
    moves = [0] * n
    paid = 0
    for s, pay in enumerate(payments):
        if pay < 0:
            owed = (-pay) * multiplier // stake
            held = balances[s]
            take = owed if held is None else min(owed, max(0, held))
            moves[s] = -take
            paid += take
    gains = [(s, pay // 2 if s in doubled else pay) for s, pay in enumerate(payments) if pay > 0]
    for (s, _w), got in zip(gains, _share(paid, [w for _s, w in gains]), strict=True):
        moves[s] = got
    return moves
