"""亲友圈 战绩 (issue 31 §3, §4): a club's statistics from the matches played at its tables — pure functions of
plain rows (:class:`StatMatch`), no database and no clock, so they are tested with exact numbers.

- :func:`member_stats`: per member, matches, hands, wins, 自摸, 大赢家, points, 逃跑 and 解散 counts.
- :func:`ranking`: the members by points.
- :func:`pair_table`: for each pair of members, hands played together and how often one fed the other's
  win (the discard won — under 放炮包赔 the 点炮 pays it all, R7.3) against how often chance alone would have
  made that seat the feeder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

__all__ = [
    "PAIR_NOTE",
    "MemberStats",
    "PairData",
    "StatHand",
    "StatMatch",
    "StatSeat",
    "StatsData",
    "member_stats",
    "pair_table",
    "ranking",
]

#: What the pair table can and cannot show (sent with it, for the owner to read).
PAIR_NOTE = (
    "fed: hands the second player won on a card the first discarded (点炮). expected: how many such hands "
    "chance alone gives — of the hands the second won on a discard with the first at the table, each "
    "discarder equally likely. Far more fed than expected over many hands can be a signal of collusion; it is "
    "never proof: strong and weak players, few hands, and 放炮包赔 rules all move it."
)


@dataclass(frozen=True, slots=True)
class StatSeat:
    seat: int
    player_id: int | None  # None: a computer, or a deleted account
    nickname: str
    score: int
    rank: int | None


@dataclass(frozen=True, slots=True)
class StatHand:
    """A finished hand: how it ended (``kind`` hu | draw | escape), the winning seat, 自摸, how the card
    was won (``source``), the seat whose discard was won (``fed_by``, when known) and the seats dealt in."""

    kind: str
    winner: int | None
    zimo: bool
    source: str | None
    fed_by: int | None
    in_play: list[int]


@dataclass(frozen=True, slots=True)
class StatMatch:
    id: int
    status: str  # finished | dissolved | aborted (逃跑)
    leaver: int | None  # the seat that left (逃跑)
    seats: list[StatSeat]
    hands: list[StatHand]


class StatsData(TypedDict):
    """A member's 战绩 over a period (docs/protocol.md §2 "Clubs")."""

    player: int
    nickname: str
    matches: int
    hands: int
    wins: int
    zimo: int
    big_winner: int  # 大赢家: first of a finished (or dissolved) match, with points won
    points: int
    escapes: int  # 逃跑
    dissolved: int  # 解散


@dataclass(slots=True)
class MemberStats:
    player: int
    nickname: str
    matches: int = 0
    hands: int = 0
    wins: int = 0
    zimo: int = 0
    big_winner: int = 0
    points: int = 0
    escapes: int = 0
    dissolved: int = 0

    def to_dict(self) -> StatsData:
        return {
            "player": self.player,
            "nickname": self.nickname,
            "matches": self.matches,
            "hands": self.hands,
            "wins": self.wins,
            "zimo": self.zimo,
            "big_winner": self.big_winner,
            "points": self.points,
            "escapes": self.escapes,
            "dissolved": self.dissolved,
        }


def member_stats(matches: list[StatMatch], members: dict[int, str]) -> dict[int, MemberStats]:
    """Each member's (``members``: id → nickname) counts over ``matches``; a member who played none has
    zeros. A player no longer a member is left out.

    >>> m = StatMatch(1, "finished", None, [StatSeat(0, 7, "甲", 30, 1), StatSeat(1, 8, "乙", -30, 2),
    ...     StatSeat(2, None, "电脑", 0, 2)], [StatHand("hu", 0, True, "self", None, [0, 1, 2])])
    >>> s = member_stats([m], {7: "甲", 8: "乙"})
    >>> (s[7].wins, s[7].zimo, s[7].big_winner, s[7].points, s[8].hands, s[8].points)
    (1, 1, 1, 30, 1, -30)
    """
    out = {pid: MemberStats(pid, name) for pid, name in members.items()}
    for m in matches:
        for seat in m.seats:
            row = out.get(seat.player_id) if seat.player_id is not None else None
            if row is None:
                continue
            row.matches += 1
            row.points += seat.score
            if m.status == "dissolved":
                row.dissolved += 1
            if m.status == "aborted" and m.leaver == seat.seat:
                row.escapes += 1
            if m.status in ("finished", "dissolved") and seat.rank == 1 and seat.score > 0:
                row.big_winner += 1
            for hand in m.hands:
                if seat.seat not in hand.in_play:
                    continue
                row.hands += 1
                if hand.kind == "hu" and hand.winner == seat.seat:
                    row.wins += 1
                    row.zimo += int(hand.zimo)
    return out


def ranking(stats: dict[int, MemberStats]) -> list[MemberStats]:
    """The members by points, then wins, then fewest hands, then id."""
    return sorted(stats.values(), key=lambda r: (-r.points, -r.wins, r.hands, r.player))


class PairData(TypedDict):
    """One direction of a pair: ``fed`` hands ``to`` won on a discard of ``by``'s, ``expected`` by chance."""

    by: int
    to: int
    fed: int
    expected: float


class PairRowData(TypedDict):
    players: list[int]  # the pair, lower id first
    nicknames: list[str]
    hands: int  # hands both were dealt in
    directions: list[PairData]  # first → second, second → first


@dataclass(slots=True)
class _Pair:
    hands: int = 0
    fed: dict[tuple[int, int], int] = field(default_factory=dict)
    expected: dict[tuple[int, int], float] = field(default_factory=dict)


def pair_table(matches: list[StatMatch], members: dict[int, str]) -> list[PairRowData]:
    """For each pair of members who played a hand together: the hands together, and in each direction how
    many hands one won on the other's discard against the expectation by chance (of the hands the winner
    won on a discard with the other dealt in, each other seat in play equally likely the discarder). Pairs
    by most hands together.

    >>> seats = [StatSeat(0, 1, "a", 0, 1), StatSeat(1, 2, "b", 0, 2), StatSeat(2, 3, "c", 0, 3)]
    >>> win = StatHand("hu", 1, False, "discard", 0, [0, 1, 2])  # b won on a's discard
    >>> rows = pair_table([StatMatch(1, "finished", None, seats, [win, win])], {1: "a", 2: "b", 3: "c"})
    >>> [(r["players"], r["hands"], r["directions"][0]["fed"], r["directions"][0]["expected"]) for r in rows][0]
    ([1, 2], 2, 2, 1.0)
    """
    pairs: dict[tuple[int, int], _Pair] = {}
    for m in matches:
        who = {s.seat: s.player_id for s in m.seats if s.player_id in members}
        for hand in m.hands:
            dealt = [who[s] for s in hand.in_play if s in who]
            for i, a in enumerate(dealt):
                for b in dealt[i + 1 :]:
                    pairs.setdefault((min(a, b), max(a, b)), _Pair()).hands += 1
            won_on_discard = hand.kind == "hu" and hand.source == "discard" and hand.winner in who
            if not won_on_discard or hand.winner is None:
                continue
            winner = who[hand.winner]
            others = [s for s in hand.in_play if s != hand.winner]
            for seat in others:
                feeder = who.get(seat)
                if feeder is None:
                    continue
                pair = pairs.setdefault((min(feeder, winner), max(feeder, winner)), _Pair())
                key = (feeder, winner)
                pair.expected[key] = pair.expected.get(key, 0.0) + 1 / len(others)
                if hand.fed_by == seat:
                    pair.fed[key] = pair.fed.get(key, 0) + 1
    rows: list[PairRowData] = []
    for (a, b), pair in pairs.items():
        directions: list[PairData] = [
            {"by": x, "to": y, "fed": pair.fed.get((x, y), 0), "expected": round(pair.expected.get((x, y), 0.0), 3)}
            for x, y in ((a, b), (b, a))
        ]
        rows.append({"players": [a, b], "nicknames": [members[a], members[b]], "hands": pair.hands,
                     "directions": directions})
    return sorted(rows, key=lambda r: (-r["hands"], r["players"]))
