"""R9 in played hands (the engine's side): 黄番's count of 荒庄 carried by the match (R9.1), 地胡 and 听胡 found
from the play (R9.1 decisions), the 醒 card (R9.4), the 十胡卡 discarder's payment (R9.2), and the records
of the families (format 3; the classic ones stay format 2).

The scripted hands use the base deal of ``helpers.py``: seat 1 (``W_HANDS``) waits on x10 with 4 坎, 一二三
and 肆伍陆 (21 胡息 with it; red x7×3 d2×3 x2 x10 = 8, so no 红 名堂).
"""

from __future__ import annotations

import json
import random

import pytest

from paohuzi.cards import Card
from paohuzi.engine import Hand, Match, MatchError, replay
from paohuzi.engine.match import replay_match
from paohuzi.rules import RuleSet, find_preset

from .helpers import BASE, W_HANDS, deal, play, swap

CHANGDE = find_preset("changde")
QMT = find_preset("changde_qmt")
SHIHUKA = find_preset("shihuka")


def _names(hand: Hand) -> dict[str, int]:
    outcome = hand.outcome
    assert outcome is not None and outcome.score is not None
    return {n.name: n.fan for n in outcome.score.names}


def _hu_event(hand: Hand) -> dict[str, object]:
    return next(e.to_dict() for e in hand.events if e.type == "hu")


# -- 地胡 and 听胡 (R9.1 decisions) ---------------------------------------------------------------------


def test_r9_1_dihu_and_tinghu_on_the_first_stock_card() -> None:
    # Seat 1 draws the first stock card, x10, and 自摸s it: 地胡 (a non-dealer, the first card, no claim before)
    # and 听胡 (its table is empty). 21 胡息: base 3 + 1 (自摸); 地胡 6 + 听胡 6 = 番 12 → 48 per loser.
    hand = deal(W_HANDS, stock="x10", rules=QMT)
    play(hand, "0: discard x2", "1: hu")
    names = _names(hand)
    assert names.get("地胡") == 6 and names.get("听胡") == 6
    outcome = hand.outcome
    assert outcome is not None and outcome.score.fan == 12 and outcome.points == 48
    assert outcome.payments == (-48, 96, -48)


def test_r9_1_no_dihu_on_the_second_stock_card() -> None:
    # d3 first (seat 1 may 吃 it and passes), then seat 2 draws x10 and seat 1 wins it: not the first card,
    # but seat 1 has made no move of its own: still 听胡.
    hand = deal(W_HANDS, stock="d3 x10", rules=QMT)
    play(hand, "0: discard x2", "1: pass", "1: hu")
    names = _names(hand)
    assert "地胡" not in names and names.get("听胡") == 6


def test_r9_1_no_tinghu_after_a_wei() -> None:
    # Seat 1 holds d4 d4 and draws the third: a forced 偎 (R4.2), then it discards d6 and later 自摸s x10.
    # A 偎 is a move of its own: no 听胡; and not the first card: no 地胡.
    hands = {1: swap(W_HANDS[1], "d5", "d4")}
    hand = deal({**W_HANDS, **hands}, stock="d4 d3 d3 x10", rules=QMT)
    events = play(hand, "0: discard x2")
    assert "wei 1 d4" in events and hand.deciding == (1,)
    play(hand, "1: discard d6")
    while not hand.over:
        seat = hand.deciding[0]
        acts = [str(a) for a in hand.legal_actions(seat)]
        hand.apply(seat, "hu" if "hu" in acts else "pass" if "pass" in acts else acts[0])
    assert hand.outcome is not None and hand.outcome.winner == 1
    names = _names(hand)
    assert "听胡" not in names and "地胡" not in names


def test_r9_1_dihu_on_the_dealers_opening_discard_shihuka() -> None:
    # 十胡卡 wins on a discard (R9.2); with tiandi_haidi 地胡 is 2 番 (R9.1 decision, as in 常德).
    rules = SHIHUKA.with_options(tiandi_haidi=True)
    hand = deal(W_HANDS, stock="d3", rules=rules)
    play(hand, "0: discard x10", "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.source.value == "discard" and outcome.winner == 1
    assert _names(hand).get("地胡") == 2


# -- 十胡卡: a discard is paid by the discarder (R9.2) --------------------------------------------------


def test_r9_2_the_discarder_pays_every_share() -> None:
    # 21 胡息 → 囤 3 + (21 − 15) // 3 = 5; red 8 → 平胡 1; not 自摸: 5 points; stake 1, two shares → 10.
    hand = deal(W_HANDS, stock="d3", rules=SHIHUKA)
    play(hand, "0: discard x10", "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.points == 5
    assert outcome.payments == (-10, 10, 0)


# -- the 醒 card (R9.4) -----------------------------------------------------------------------------------


def test_r9_4_sui_xing_is_the_card_won() -> None:
    hand = deal(W_HANDS, stock="x10 x2", rules=SHIHUKA.with_options(xing="sui"))
    play(hand, "0: discard x2", "1: hu")
    hu = _hu_event(hand)
    assert hu["xing_card"] == "x10" and hu["xing"] == 1  # x10 in the 句 x8 x9 x10
    result = hand.outcome.to_dict()  # type: ignore[union-attr]
    assert result["xing_card"] == "x10" and result["xing"] == 1


def test_r9_4_fan_xing_turns_up_the_next_stock_card() -> None:
    # x10 won, x2 the next stock card: x2 is in the winner's 一二三 once → 醒 1.
    hand = deal(W_HANDS, stock="x10 x2", rules=SHIHUKA.with_options(xing="fan"))
    play(hand, "0: discard x2", "1: hu")
    hu = _hu_event(hand)
    assert hu["xing_card"] == "x2" and hu["xing"] == 1
    assert hand.stock_left == 18  # turned up, not drawn


def test_r9_4_fan_xing_counts_a_kan() -> None:
    # The next stock card d1: the winner's 坎 of d1 → 醒 3 (the dealer's d1 goes to seat 2's hand).
    hands = {0: swap(BASE[0], "d1", "d3"), 1: W_HANDS[1], 2: W_HANDS[2]}
    hand = deal(hands, stock="x10 d1", rules=SHIHUKA.with_options(xing="fan"))
    play(hand, "0: discard x2", "1: hu")
    hu = _hu_event(hand)
    assert hu["xing_card"] == "d1" and hu["xing"] == 3


def test_r9_4_fan_xing_on_the_last_card_is_the_card_won() -> None:
    stock = "d3 d4 d5 d6 d3 d4 d5 d6 d3 d4 d5 d6 d3 x2 x4 x10 x10 d7 x10"
    rules = SHIHUKA.with_options(xing="fan", tianhu_on_liangzhang=False)
    hand = deal({0: swap(BASE[0], "x10 x10", "x4 x6"), 1: W_HANDS[1], 2: W_HANDS[2]}, stock=stock, rules=rules)
    avoid = {"discard x5", "discard x7", "discard d1", "discard d2"}  # seat 1's 坎: keep it waiting
    while not hand.over:
        seat = hand.deciding[0]
        acts = [str(a) for a in hand.legal_actions(seat)]
        if "hu" in acts and seat == 1 and hand.stock_left == 0:
            action = "hu"
        elif "pass" in acts:
            action = "pass"
        else:
            action = next(a for a in acts if a not in avoid and a != "hu")
        hand.apply(seat, action)
    outcome = hand.outcome
    assert outcome is not None and outcome.haidi and outcome.winner == 1
    hu = _hu_event(hand)
    assert hu["card"] == "x10" and hu["xing_card"] == "x10" and hu["xing"] == 1


THREE_TI = "x1 x1 x1 x1 x4 x4 x4 x4 d5 d5 d5 d5 x2 x3 x7 x9 d8 d8 d9 d10"


@pytest.mark.parametrize(("xing", "card"), [("sui", "x8"), ("fan", "d3")])
def test_r9_4_dealt_tianhu_xing_card(xing: str, card: str) -> None:
    # A dealt 3 提 天胡 has no card won: 随醒 the 亮张 (x8), 翻醒 the top stock card (d3).
    rules = SHIHUKA.with_options(xing=xing)
    hand = deal({0: THREE_TI}, stock="d3", rules=rules)
    assert hand.over
    outcome = hand.outcome
    assert outcome is not None and outcome.source.value == "dealt" and outcome.winner == 0
    assert _hu_event(hand)["xing_card"] == card == outcome.to_dict()["xing_card"]


def test_r9_4_no_xing_without_the_option_and_none_on_a_draw() -> None:
    hand = deal(W_HANDS, stock="x10", rules=SHIHUKA)
    play(hand, "0: discard x2", "1: hu")
    hu = _hu_event(hand)
    assert hu["xing_card"] is None and hu["xing"] == 0 and "tun" in hu
    drawn = Hand(SHIHUKA.with_options(xing="fan"), seed=1)
    while not drawn.over:
        seat = drawn.deciding[0]
        acts = [str(a) for a in drawn.legal_actions(seat)]
        drawn.apply(seat, next(a for a in acts if a != "hu"))
    if drawn.outcome.kind.value == "draw":  # type: ignore[union-attr]
        assert "xing_card" not in drawn.outcome.to_dict()  # type: ignore[union-attr]


def test_r9_classic_events_and_results_carry_no_family_keys() -> None:
    hand = deal(W_HANDS, stock="x10")  # qq
    play(hand, "0: discard x2", "1: hu")
    hu = _hu_event(hand)
    assert not {"tun", "xing", "xing_card"} & set(hu)
    assert not {"tun", "xing", "xing_card", "combine"} & set(hand.outcome.to_dict())  # type: ignore[union-attr]
    record = hand.record()
    assert record["format_version"] == 2 and "drawn_before" not in record


# -- 黄番: the match counts the 荒庄 in a row (R9.1) ---------------------------------------------------


def _decline_hu(match: Match) -> None:
    """Play the current hand to its end, declining every 胡 (so it ends 荒庄 unless a dealt 天胡)."""
    while not match.hand.over:
        seat = match.deciding[0]
        acts = [str(a) for a in match.legal_actions(seat)]
        match.apply(seat, next((a for a in acts if a != "hu"), acts[0]))


def _take_hu(match: Match, rng: random.Random) -> None:
    while not match.hand.over:
        seat = match.deciding[0]
        acts = [str(a) for a in match.legal_actions(seat)]
        match.apply(seat, "hu" if "hu" in acts else rng.choice(acts))


@pytest.mark.parametrize("draws", [0, 1, 2])
def test_r9_1_huangfan_across_a_match(draws: int) -> None:
    # ``draws`` hands end 荒庄, then a hand is won: 黄番 1 + n (none after 0), adding up with the others.
    rules = QMT.with_options(huangfan=True)
    for seed in range(200):
        match = Match(rules, seed=seed, hands=draws + 1)
        for _ in range(draws):
            _decline_hu(match)
            if match.hand.outcome.kind.value != "draw":  # type: ignore[union-attr]
                break
            match.next_hand()
        else:
            assert match.hand.drawn_before == draws
            obs = match.hand.observation(0)  # public: every seat sees the count (R5), the JSON only when not 0
            assert obs.drawn_before == draws and obs.to_dict().get("drawn_before", 0) == draws
            assert match.observation(1).get("drawn_before", 0) == draws
            _take_hu(match, random.Random(seed))
            if match.hand.outcome.winner is not None:  # type: ignore[union-attr]
                break
    else:
        pytest.fail("no seed gave the match wanted")
    names = _names(match.hand)
    assert names.get("黄番") == (1 + draws if draws else None)
    score = match.hand.outcome.score  # type: ignore[union-attr]
    assert score.fan == sum(n.fan for n in score.names)
    record = match.record()
    assert record["format_version"] == 3
    assert [r.get("drawn_before", 0) for r in record["records"]] == list(range(draws + 1))
    again = replay_match(json.loads(json.dumps(record)))
    assert again.hand.outcome == match.hand.outcome and again.totals == match.totals
    alone = replay(record["records"][-1])  # a hand replayed alone takes its drawn_before from its record
    assert alone.drawn_before == draws and alone.outcome == match.hand.outcome


def test_r9_1_huangfan_count_goes_on_after_the_deal_passes() -> None:
    # The third 荒庄 in a row passes the deal (R2); the 黄番 count goes on (decision, docs/decisions.md).
    for seed in range(100):
        match = Match(QMT.with_options(huangfan=True), seed=seed, hands=5)
        counts = []
        for _ in range(4):
            counts.append(match.hand.drawn_before)
            _decline_hu(match)
            if match.hand.outcome.kind.value != "draw":  # type: ignore[union-attr]
                break
            match.next_hand()
        else:
            assert counts == [0, 1, 2, 3] and match.hand.drawn_before == 4
            assert match.results[3].dealer == (match.results[0].dealer + 1) % 3
            return
    pytest.fail("no seed with four 荒庄 in a row")


def test_r9_1_a_record_with_a_wrong_drawn_before_is_refused() -> None:
    match = Match(QMT.with_options(huangfan=True), seed=3, hands=2)
    _decline_hu(match)
    record = match.record()
    assert record["records"][0].get("drawn_before") is None
    record["records"][0]["drawn_before"] = 1
    with pytest.raises(MatchError, match="drawn_before"):
        replay_match(record)


def test_r9_classic_match_records_stay_format_2() -> None:
    match = Match(find_preset("qq"), seed=3, hands=2)
    _decline_hu(match)
    match.next_hand()
    assert match.hand.drawn_before == 0  # 黄番 is a R9 family's: a classic hand is given 0
    record = match.record()
    assert record["format_version"] == 2
    assert all("drawn_before" not in r and r["format_version"] == 2 for r in record["records"])
    assert "drawn_before" not in match.observation(0)


def test_r9_1_bad_drawn_before_is_refused() -> None:
    from paohuzi.engine import EngineError

    with pytest.raises(EngineError, match="drawn_before"):
        Hand(QMT, seed=1, drawn_before=-1)
    with pytest.raises(EngineError, match="drawn_before"):
        Hand(QMT, seed=1, drawn_before="2")  # type: ignore[arg-type]


def _family(rules: RuleSet) -> str:
    return rules.family


def test_r9_presets_are_families() -> None:
    assert [_family(r) for r in (CHANGDE, QMT, SHIHUKA)] == ["changde", "changde", "shihuka"]
    assert Card.X10  # the module imports what it names


# -- positions set up again (search worlds) keep the facts ------------------------------------------------


def test_r9_1_from_position_finds_dihu_and_tinghu_again() -> None:
    # The position where seat 1 may 自摸 the first stock card, set up from its observation and the hidden
    # rest: the first-card and claim facts are worked out from the position, and the win scores the same.
    hand = deal(W_HANDS, stock="x10", rules=QMT)
    play(hand, "0: discard x2")
    assert 1 in hand.deciding and hand.phase.value == "claim"
    again = Hand.from_position(QMT, hand.observation(1), hand.hidden(1))
    play(hand, "1: hu")
    play(again, "1: hu")
    assert again.outcome is not None and hand.outcome is not None
    assert again.outcome.score == hand.outcome.score and _names(again).get("地胡") == 6


def test_r9_1_from_position_takes_drawn_before() -> None:
    # The observation carries the count (its JSON too), and a position set up from it keeps it; or it is given.
    from paohuzi.engine import Observation

    hand = deal(W_HANDS, stock="x10", rules=QMT.with_options(huangfan=True), drawn_before=2)
    play(hand, "0: discard x2")
    obs = Observation.from_dict(hand.observation(1).to_dict())
    assert obs.drawn_before == 2 and obs == hand.observation(1)
    again = Hand.from_position(hand.rules, obs, hand.hidden(1))
    assert again.drawn_before == 2
    play(again, "1: hu")
    assert _names(again).get("黄番") == 3
    other = Hand.from_position(hand.rules, obs, hand.hidden(1), drawn_before=0)
    play(other, "1: hu")
    assert "黄番" not in _names(other)


@pytest.mark.parametrize("seed", range(3))
def test_r9_1_changde_four_players_plays_and_replays(seed: int) -> None:
    # 常德 allows four_players (守醒, R9.1 as hunan): the dealer's opposite sits out and pays nothing.
    match = Match(CHANGDE, seed=seed, players=4, hands=3)
    rng = random.Random(seed)
    while not match.over:
        if match.hand.over:
            assert match.hand.outcome.payments[match.hand.sitting_out] == 0  # type: ignore[union-attr,index]
            match.next_hand()
            continue
        seat = match.deciding[0]
        acts = [str(a) for a in match.legal_actions(seat)]
        match.apply(seat, "hu" if "hu" in acts else rng.choice(acts))
    assert sum(match.totals) == 0
    assert replay_match(match.record()).totals == match.totals


def test_r9_1_a_match_stored_without_hand_rules_counts_drawn_hands_again() -> None:
    # The server stores each hand's dealer, seed and actions only (server/game.py); replay_match counts the
    # 荒庄 again, so 黄番 comes out the same.
    from paohuzi.engine import HandRecord, MatchRecord

    rules = QMT.with_options(huangfan=True)
    for seed in range(200):
        match = Match(rules, seed=seed, hands=3)
        _decline_hu(match)
        if match.hand.outcome.kind.value != "draw":  # type: ignore[union-attr]
            continue
        match.next_hand()
        _take_hu(match, random.Random(seed))
        if match.hand.outcome.winner is not None:  # type: ignore[union-attr]
            break
    else:
        pytest.fail("no seed gave a 荒庄 then a win")
    assert _names(match.hand).get("黄番") == 2
    stored = MatchRecord(
        rules=rules.to_dict(),
        seed=match.seed,
        players=3,
        hands=3,
        records=tuple(
            HandRecord(dealer=r["dealer"], actions=tuple(map(tuple, r["actions"])), seed=r["seed"], format_version=None)
            for r in match.record()["records"]
        ),
    )
    again = replay_match(stored)
    assert again.hand.drawn_before == 1 and again.hand.outcome == match.hand.outcome


@pytest.mark.parametrize(("xing", "card"), [("sui", "x10"), ("fan", "d3")])
def test_r9_4_liangzhang_tianhu_xing_card(xing: str, card: str) -> None:
    # The 亮张 x10 completes seat 1's 20 cards (R6.4, 十胡卡 as hengyang: tianhu_on_liangzhang on): the card won
    # is the 亮张, so 随醒 takes it; 翻醒 turns up the top stock card.
    hands = {0: swap(BASE[0], "x10 x10", "x4 x6"), 1: W_HANDS[1], 2: W_HANDS[2]}  # the dealer holds no x10
    hand = deal(hands, liang="x10", stock="d3", rules=SHIHUKA.with_options(xing=xing))
    assert hand.phase.value == "liangzhang" and 1 in hand.deciding
    play(hand, "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.source.value == "liangzhang" and outcome.tianhu
    assert _hu_event(hand)["xing_card"] == card == outcome.to_dict()["xing_card"]
    assert _hu_event(hand)["xing"] == (1 if xing == "sui" else 0)  # x10 in 句 x8 x9 x10; no d3 in the groups


def test_r9_family_records_validate_against_the_schema() -> None:
    from .test_records import SCHEMA, schema_errors

    hand = deal(W_HANDS, stock="x10 x2", rules=SHIHUKA.with_options(xing="fan"), drawn_before=1)
    play(hand, "0: discard x2", "1: hu")
    records = [hand.record(), Hand(QMT, seed=5, drawn_before=2).record()]
    for record in records:
        record = json.loads(json.dumps(record))
        assert record["format_version"] == 3 and record["drawn_before"] in (1, 2)
        assert schema_errors(record, SCHEMA) == []
    assert records[0]["result"]["xing_card"] == "x2"
    bad = json.loads(json.dumps(records[0]))
    bad["drawn_before"] = 0
    bad["result"]["xing_card"] = "x11"
    assert sorted(schema_errors(bad, SCHEMA)) == [
        "$.drawn_before: 0 < 1",
        "$.result.xing_card: 'x11' matches 0 of oneOf, not 1",
    ]


def test_a_classic_win_record_validates_against_the_schema() -> None:
    # The result's groups carry their 胡息 (Group.to_dict), which the schema now allows (it refused every win).
    from .test_records import SCHEMA, schema_errors

    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "1: hu")
    record = json.loads(json.dumps(hand.record()))
    assert record["format_version"] == 2 and schema_errors(record, SCHEMA) == []
