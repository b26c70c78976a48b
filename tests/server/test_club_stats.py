"""亲友圈 战绩 (issue 31 §3, §4) as pure functions of rows: exact counts for a scripted evening, and the
invariants any evening keeps (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from paohuzi.server.club_stats import StatHand, StatMatch, StatSeat, member_stats, pair_table, ranking

A, B, C, D = 11, 12, 13, 14
NAMES = {A: "甲", B: "乙", C: "丙", D: "丁"}


def _seats(*rows: tuple[int | None, int, int | None]) -> list[StatSeat]:
    return [StatSeat(i, pid, NAMES.get(pid or 0, "电脑"), score, rank) for i, (pid, score, rank) in enumerate(rows)]


def hu(winner: int, source: str = "discard", fed_by: int | None = None, zimo: bool = False) -> StatHand:
    return StatHand("hu", winner, zimo, source, fed_by, [0, 1, 2])


DRAW = StatHand("draw", None, False, None, None, [0, 1, 2])

EVENING = [
    # 甲 乙 丙: 乙 wins twice on 甲's discards, 丙 once by 自摸; a 荒庄
    StatMatch(1, "finished", None, _seats((A, -40, 3), (B, 50, 1), (C, -10, 2)),
              [hu(1, fed_by=0), hu(1, fed_by=0), hu(2, "self", zimo=True), DRAW]),
    # 甲 乙 丁: 丁 leaves mid-hand (逃跑): the match is aborted
    StatMatch(2, "aborted", 2, _seats((A, 10, 1), (B, 10, 1), (D, -20, 3)), [hu(0, fed_by=1)]),
    # 乙 丙 and a computer: dissolved (解散) after one hand
    StatMatch(3, "dissolved", None, _seats((B, 0, 1), (C, 0, 1), (None, 0, 1)), [DRAW]),
]


def test_an_evening_counted_exactly() -> None:
    stats = member_stats(EVENING, NAMES)
    got = {pid: (s.matches, s.hands, s.wins, s.zimo, s.big_winner, s.points, s.escapes, s.dissolved)
           for pid, s in stats.items()}
    assert got == {
        A: (2, 5, 1, 0, 0, -30, 0, 0),  # rank 1 of an aborted match is no 大赢家
        B: (3, 6, 2, 0, 1, 60, 0, 1),  # 大赢家 of match 1; rank 1 of the dissolved one with 0 points is not
        C: (2, 5, 1, 1, 0, -10, 0, 1),
        D: (1, 1, 0, 0, 0, -20, 1, 0),
    }
    assert [r.player for r in ranking(stats)] == [B, C, D, A]


def test_the_pair_table_against_chance() -> None:
    rows = {tuple(r["players"]): r for r in pair_table(EVENING, NAMES)}
    ab = rows[(A, B)]
    assert ab["hands"] == 5  # four hands of match 1, one of match 2
    by = {(d["by"], d["to"]): (d["fed"], d["expected"]) for d in ab["directions"]}
    # 乙 won twice on a discard with 甲 dealt in (chance: one of two others each time → 1.0); 甲 fed both.
    # 甲 won once on a discard with 乙 in (0.5 by chance); 乙 fed it.
    assert by == {(A, B): (2, 1.0), (B, A): (1, 0.5)}
    bc = {(d["by"], d["to"]): (d["fed"], d["expected"]) for d in rows[(B, C)]["directions"]}
    assert bc == {(B, C): (0, 0.0), (C, B): (0, 1.0)}  # 丙 could have fed 乙's two wins, fed none
    assert rows[(B, C)]["hands"] == 5 and (A, D) in rows and (C, D) not in rows


seat_rows = st.tuples(st.sampled_from([A, B, C, D, None]), st.integers(-500, 500), st.integers(1, 3))
hands = st.builds(
    StatHand,
    st.sampled_from(["hu", "draw"]),
    st.sampled_from([0, 1, 2, None]),
    st.booleans(),
    st.sampled_from(["discard", "self", None]),
    st.sampled_from([0, 1, 2, None]),
    st.just([0, 1, 2]),
)
matches = st.builds(
    StatMatch,
    st.integers(1, 100),
    st.sampled_from(["finished", "aborted", "dissolved"]),
    st.sampled_from([0, 1, 2, None]),
    st.lists(seat_rows, min_size=3, max_size=3).map(lambda rows: _seats(*rows)),
    st.lists(hands, max_size=6),
)


@given(st.lists(matches, max_size=8))
def test_counts_never_exceed_what_was_played(evening: list[StatMatch]) -> None:
    stats = member_stats(evening, NAMES)
    for pid, s in stats.items():
        seats = [x for m in evening for x in m.seats if x.player_id == pid]
        assert s.matches == len(seats) and s.points == sum(x.score for x in seats)
        assert 0 <= s.zimo <= s.wins <= s.hands and s.big_winner <= s.matches
        assert s.escapes + s.dissolved <= s.matches
    for row in pair_table(evening, NAMES):
        for d in row["directions"]:
            assert 0 <= d["fed"] <= row["hands"] and 0 <= d["expected"] <= row["hands"]
