"""R2 and R7.3 over a match (一场): the winner deals, 荒庄 keeps the deal and the third in a row passes it,
points add up with the stake, 逃跑 ends the match, the final ranking; records replay."""

from __future__ import annotations

import random

import pytest

from paohuzi.engine import Match, MatchError
from paohuzi.engine.match import replay_match
from paohuzi.rules import find_preset

QQ = find_preset("qq")


def _play(match: Match, seed: int = 0) -> None:
    """Take every 胡 offered, otherwise random legal actions."""
    rng = random.Random(seed)
    while not match.over:
        if match.hand.over:
            match.next_hand()
            continue
        seat = rng.choice(match.deciding)
        actions = [str(a) for a in match.legal_actions(seat)]
        match.apply(seat, "hu" if "hu" in actions else rng.choice(actions))


def _check_dealer_rule(match: Match) -> tuple[int, int]:
    wins = passes = 0
    streak = 0
    for before, after in zip(match.results, match.results[1:], strict=False):
        winner = before.outcome.winner
        if winner is not None:
            assert after.dealer == winner  # the winner deals (R2)
            streak = 0
            wins += 1
        else:
            streak += 1
            if streak == 3:  # the third 荒庄 in a row passes the deal to the dealer's 下家
                assert after.dealer == (before.dealer + 1) % match.players
                streak = 0
                passes += 1
            else:
                assert after.dealer == before.dealer
    return wins, passes


def test_r2_match_dealer_rule_and_cumulative_points() -> None:
    match = Match(QQ, seed=8, hands=40)
    assert match.hand_number == 1 and match.hand.dealer == match.dealer
    _play(match)
    assert len(match.results) == 40 and match.over
    wins, passes = _check_dealer_rule(match)
    assert wins >= 3 and passes >= 1
    totals = [sum(r.outcome.payments[s] for r in match.results) for s in range(3)]
    assert match.totals == totals and sum(totals) == 0
    assert [r.number for r in match.results] == list(range(1, 41))
    with pytest.raises(MatchError, match="the match is over"):
        match.next_hand()


def test_r2_match_first_dealer_is_drawn_and_hands_are_seeded_by_the_match() -> None:
    assert {Match(QQ, seed=s, hands=1).dealer for s in range(30)} == {0, 1, 2}
    a, b = Match(QQ, seed=77, hands=3), Match(QQ, seed=77, hands=3)
    assert a.hand.events == b.hand.events


def test_r2_four_players_the_dealers_opposite_sits_out_each_hand() -> None:
    match = Match(find_preset("hunan"), seed=4, players=4, hands=12)
    assert match.rules.four_players and match.players == 4
    _play(match, seed=1)
    _check_dealer_rule(match)
    for r in match.results:
        out = (r.dealer + 2) % 4
        assert r.outcome.payments[out] == 0
    assert sum(match.totals) == 0


def test_r7_3_leaving_mid_hand_pays_the_escape_penalty_and_ends_the_match() -> None:
    match = Match(QQ, seed=3, hands=5)
    _play_until = match.hand
    seat = match.hand.seats[1]
    events = match.leave(seat)
    assert [e.type for e in events] == ["escape", "settlement"]
    assert match.over and match.leaver == seat and _play_until.over
    assert match.totals[seat] < 0 and sum(match.totals) == 0
    assert match.ranking()[-1] == seat
    standings = match.standings()
    assert [s["seat"] for s in standings] == match.ranking() and standings[0]["rank"] == 1
    with pytest.raises(MatchError, match="the match is over"):
        match.leave(0)


def test_r2_a_sitting_out_player_leaving_ends_the_match_after_the_hand() -> None:
    match = Match(find_preset("hunan"), seed=5, players=4, hands=5)
    out = match.hand.sitting_out
    assert out is not None
    assert match.leave(out) == []
    assert not match.over
    _play(match)
    assert match.over and len(match.results) == 1 and match.totals[out] == 0


def test_match_record_replays() -> None:
    match = Match(QQ, seed=12, hands=4)
    _play(match, seed=3)
    again = replay_match(match.record())
    assert again.totals == match.totals
    assert [r.record for r in again.results] == [r.record for r in match.results]


def test_match_refuses_bad_arguments_and_early_next_hand() -> None:
    with pytest.raises(MatchError, match="3 or 4 players"):
        Match(QQ, seed=1, players=5)
    with pytest.raises(MatchError, match="hands must be"):
        Match(QQ, seed=1, hands=0)
    match = Match(QQ, seed=1, hands=2)
    if not match.hand.over:
        with pytest.raises(MatchError, match="the current hand is not over"):
            match.next_hand()
    obs = match.observation(0)
    assert obs["match"] == {"hand": 1, "hands": 2, "totals": [0, 0, 0]}


def test_r7_3_double_cards_per_hand_replay_from_the_match_record() -> None:
    """R7.3 双倍积分卡: each hand may have its own holders (a card is active for a while); the match record
    replays every hand with its own."""
    m = Match(find_preset("qq"), seed=5, hands=3, double_cards=(1,))
    wanted = [frozenset({1}), frozenset(), frozenset({0, 2})]
    for i in range(3):
        assert m.hand.double_cards == wanted[i]
        while not m.hand.over:
            s = m.deciding[0]
            m.apply(s, m.legal_actions(s)[-1])
        if i < 2:
            m.next_hand(sorted(wanted[i + 1]))
    again = replay_match(m.record())
    assert [r.record.get("double_cards", []) for r in again.results] == [[1], [], [0, 2]]
    assert again.totals == m.totals and again.record() == m.record()
