"""R4.4: priority 胡 > 跑 > 碰 > 吃; several 胡 — the drawer first; the drawer's 吃 before the 下家's;
declining 胡 is allowed; forced moves are never asked."""

from __future__ import annotations

from .helpers import BASE, W_HANDS, deal, legal, play, swap

# Seat 1 waits on x10; seat 0 holds a 坎 of x10 (its fourth copy opens a forced 跑).
HU_OVER_PAO = {0: swap(BASE[0], "d10", "x10"), 1: W_HANDS[1], 2: swap(W_HANDS[2], "x10", "d10")}
# Seats 1 and 2 both wait on x10.
TWO_HU = {
    0: "x1 x1 x1 x4 x4 x4 d9 d9 d9 x8 x8 d6 d6 x6 x5 d10 d1 d2 d7 d8",
    1: W_HANDS[1],
    2: "x6 x6 x6 x9 x9 x9 d7 d7 d7 d8 d8 d8 d10 d10 x2 x3 x4 d3 d4 d5",
}


def test_r4_4_hu_beats_the_forced_pao() -> None:
    hand = deal(HU_OVER_PAO, stock="d3 x10")
    assert play(hand, "0: discard x2", "1: pass")[-2:] == ["draw 2 x10", "show 2 x10"]
    # Seat 0's 跑 is forced: it is not asked; seat 2's own 吃 is beaten by the 跑, so it is not asked either.
    assert hand.deciding == (1,) and legal(hand, 1) == ["hu", "pass"]
    declined = hand.copy()
    assert play(hand, "1: hu")[0] == "hu 1 x10 other 21胡息 3分"
    assert play(declined, "1: pass") == ["pass 1", "pao 0 x10 kan from 2"]
    assert declined.deciding == (0,) and declined.phase == "discard"


def test_r4_4_several_hu_the_drawer_first() -> None:
    hand = deal(TWO_HU, liang="x2", stock="x10")
    assert play(hand, "0: discard x8")[-2:] == ["draw 1 x10", "show 1 x10"]
    assert legal(hand, 1)[0] == "hu" and legal(hand, 2)[0] == "hu"
    second = hand.copy()
    # Seat 2 answers first, but the drawer's answer decides.
    assert play(hand, "2: hu") == []
    assert hand.deciding == (1,)
    assert play(hand, "1: hu") == ["hu 1 x10 self 21胡息 4分", "settlement -12 24 -12"]
    # When the drawer declines, the next in turn order wins.
    assert play(second, "2: hu", "1: pass") == ["pass 1", "hu 2 x10 other 18胡息 4分", "settlement -12 -12 24"]


def test_r4_4_the_drawers_chi_beats_the_xiajias_chi() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2")
    assert play(hand, "2: chi x10 d10", "1: chi x8 x9") == []  # seat 0 may still 碰
    events = play(hand, "0: pass")
    # Seat 0 declined 碰 (忍碰); seat 2's 吃 lost to the drawer's: not 臭 for seat 2 (R4.7).
    assert events[:3] == ["pass 0", "chou 0 x10 peng renpeng", "chi 1 x10 from 1 as x8 x9 x10"]
    assert not any(e.startswith("chou 2") for e in events)


def test_r4_4_peng_beats_chi() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    play(hand, "0: discard x2", "1: pass")
    assert play(hand, "2: chi x10 d10", "1: pass", "0: peng") == ["pass 1", "peng 0 x10 from 2"]
    assert legal(hand, 0) == ["discard x4", "discard x7", "discard x8", "discard d1", "discard d8"]


def test_r4_4_declining_hu_is_allowed() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2")
    events = play(hand, "1: pass", "0: pass", "2: pass")
    assert events[:7] == [
        "pass 1",
        "pass 0",
        "pass 2",
        "chou 0 x10 peng renpeng",
        "chou 1 x10 chi peng",  # a declined 胡 is not 臭; the declined 吃 is
        "chou 2 x10 chi peng",
        "unclaimed 1 x10",
    ]
    assert not hand.over
