"""复盘 (issue 34 part 1): a decision judged from the seat's own view (R5), positions with a known best move,
and a whole hand's review."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paohuzi.bots.review import Choice, ReviewError, ReviewSettings, judge, review_families, review_record
from paohuzi.engine import HU, PASS, Action, Hand, stack_deck
from paohuzi.rules import find_preset

from .redeal import redealt, redealt_positions

QQ = find_preset("qq")
FEW = ReviewSettings(worlds=4)

# The dealer's 21 cards: 壹贰叁 (6 胡息), 贰柒拾 (6), 一二三 (3), 二七十 (3) — 18 胡息 — with 四五六, 七八九 and
# 肆伍 + a lone 玖. Discarding 玖 leaves 听牌 on 叁/陆 (7 copies unseen) with 18 胡息; discarding 壹 breaks the
# 壹贰叁 and the 胡息 with it: 12 left, under qq's 15 (R6.1), so the hand is far from any win.
READY = "d1 d2 d3 d2 d7 d10 x1 x2 x3 x2 x7 x10 x4 x5 x6 x7 x8 x9 d4 d5 d9"
# A complete dealer hand of 21 cards (three 大 坎 and four 句): 天胡 on the 亮张 (R6.4).
TIANHU = "d1 d1 d1 d2 d2 d2 d3 d3 d3 x4 x5 x6 x7 x8 x9 d4 d5 d6 d7 d8 d9"


def _dealt(cards: str, fill_seed: int = 0) -> Hand:
    return Hand(QQ, deck=stack_deck(QQ, dealer=0, hands={0: cards}, fill_seed=fill_seed), dealer=0)


def _judge(hand: Hand, seat: int, played: Action, seed: int = 1, worlds: int = 16):  # type: ignore[no-untyped-def]
    return judge(hand.observation(seat), hand.legal_actions(seat), played, random.Random(seed),
                 ReviewSettings(worlds=worlds), QQ)


class TestHiddenCardsDoNotMatter:
    """R5: the judgement reads the observation only — dealing the hidden cards again changes nothing."""

    @settings(max_examples=12, deadline=None)
    @given(seed=st.integers(0, 10_000), skip=st.integers(0, 30), shuffle=st.integers(0, 2**32))
    def test_a_decision_is_judged_the_same_whatever_the_hidden_cards(self, seed: int, skip: int, shuffle: int) -> None:
        positions = redealt_positions(QQ, [seed])
        found = None
        for n, (hand, seat, obs, _) in enumerate(positions):
            if n >= skip and len(hand.legal_actions(seat)) > 1:
                found = hand, seat, obs
                break
        if found is None:
            return
        hand, seat, obs = found
        # a deal of the hidden cards may give another seat a forced 提/跑 that changes what this seat sees (the
        # cards it holds are not free to go anywhere): such deals are not this position, another is tried
        deals = (redealt(QQ, hand, seat, random.Random(shuffle + k)) for k in range(20))
        other = next((o for o in deals if o.observation(seat) == obs), None)
        assume(other is not None)
        assert other is not None
        assert other.hidden(seat) != hand.hidden(seat) or sum(len(h) for h in hand.hidden(seat).hands) == 0
        for played in hand.legal_actions(seat)[:2]:
            a = _judge(hand, seat, played, seed=shuffle, worlds=4)
            b = _judge(other, seat, played, seed=shuffle, worlds=4)
            assert a is not None and a == b

    def test_the_constructed_position_is_judged_the_same_for_every_fill(self) -> None:
        reviews = [_judge(_dealt(READY, fill), 0, Action.parse("discard d1")) for fill in range(4)]
        assert all(r == reviews[0] for r in reviews)


class TestKnownBestMoves:
    def test_a_discard_that_breaks_the_win_is_marked(self) -> None:
        hand = _dealt(READY)
        assert hand.deciding == (0,) and hand.phase == "discard"
        d = _judge(hand, 0, Action.parse("discard d1"))
        assert d is not None
        assert (d.played, d.best, d.marked, d.worlds) == ("discard d1", "discard d9", True, 16)
        assert d.loss > 2 * d.loss_se and d.loss > 1.0
        assert d.choices[0].action == "discard d9" and d.choices[0].mean > 0 > d.choices[-1].mean

    def test_the_discard_that_keeps_ting_is_not_marked(self) -> None:
        d = _judge(_dealt(READY), 0, Action.parse("discard d9"))
        assert d is not None
        assert (d.best, d.loss, d.loss_se, d.marked, d.significant) == ("discard d9", 0.0, 0.0, False, False)

    def test_a_declined_tianhu_is_marked_with_its_exact_points(self) -> None:
        hand = _dealt(TIANHU)
        assert hand.phase == "liangzhang" and set(hand.legal_actions(0)) == {HU, PASS}
        won = hand.copy()
        won.apply(0, HU)
        assert won.outcome is not None
        points = won.outcome.payments[0]
        d = _judge(hand, 0, PASS)
        assert d is not None
        assert d.choices[0] == Choice("hu", float(points), 0.0)
        assert (d.best, d.marked, d.phase) == ("hu", True, "liangzhang")
        taken = _judge(hand, 0, HU)
        assert taken is not None and (taken.best, taken.loss, taken.marked) == ("hu", 0.0, False)

    def test_a_declined_zimo_is_judged_with_the_drawn_card_and_marked(self) -> None:
        """R6.3: seat 1 draws, 提/偎s the card and is offered 自摸 (phase self_hu); it discards instead. The seat's
        own drawn card builds the worlds (Hidden.drawn), and 胡 is the better move by its exact points."""
        from paohuzi.bots import make_bot

        hand = Hand(QQ, seed=30010)
        bots = {s: make_bot("random" if s == 0 else "greedy", seed=s) for s in hand.seats}
        index = None
        while not hand.over:
            seat = hand.deciding[0]
            legal = hand.legal_actions(seat)
            if hand.phase == "self_hu" and index is None:
                index = len(hand.record()["actions"])
                won = hand.copy()
                won.apply(seat, HU)
                hand.apply(seat, next(a for a in legal if a != HU))
                continue
            hand.apply(seat, bots[seat].act(hand.observation(seat), legal))
        assert index == 31 and won.outcome is not None
        review = review_record(hand.record(), 1, settings=FEW)
        d = next(d for d in review.decisions if d.index == index)
        assert (d.phase, d.played, d.best, d.marked, d.worlds) == ("self_hu", "discard x2", "hu", True, 4)
        assert d.choices[0] == Choice("hu", float(won.outcome.payments[1]), 0.0)

    def test_a_move_that_is_not_legal_is_refused(self) -> None:
        with pytest.raises(ReviewError, match="not a legal action of seat 0"):
            _judge(_dealt(READY), 0, Action.parse("discard d6"))

    def test_no_choice_is_no_decision(self) -> None:
        hand = _dealt(READY)
        legal = hand.legal_actions(0)[:1]
        assert judge(hand.observation(0), legal, legal[0], random.Random(0), FEW, QQ) is None


def _played(seed: int, rules_name: str = "qq") -> dict[str, Any]:
    from paohuzi.bots import make_bot

    rules = find_preset(rules_name)
    hand = Hand(rules, seed=seed)
    bots = [make_bot("greedy", seed=s) for s in range(hand.table_size)]
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))
    return hand.record()


class TestReviewRecord:
    def test_every_decision_with_a_choice_is_judged_and_the_figures_add_up(self) -> None:
        record = _played(5)
        review = review_record(record, 1, seed=3, settings=FEW)
        hand = Hand(QQ, seed=5)
        choices = []
        for i, (seat, text) in enumerate(record["actions"]):
            if seat == 1 and len(hand.legal_actions(1)) > 1:
                choices.append(i)
            hand.apply(seat, text)
        assert [d.index for d in review.decisions] == choices
        assert review.points == hand.outcome.payments[1]  # type: ignore[union-attr]
        assert review.accuracy == 1 - review.marked / review.judged
        assert review.points_lost == pytest.approx(sum(d.loss for d in review.decisions if d.significant))
        data = review.to_dict()
        assert set(data) == {"seat", "seed", "preset", "points", "settings", "judged", "marked", "accuracy",
                             "points_lost", "decisions"}
        assert data["settings"] == {"worlds": 4, "threshold": 1.0, "z": 2.0}

    def test_the_same_inputs_give_the_same_review_and_another_seed_other_worlds(self) -> None:
        record = _played(6)
        a = review_record(record, 0, seed=1, settings=FEW)
        assert review_record(record, 0, seed=1, settings=FEW) == a
        b = review_record(record, 0, seed=2, settings=FEW)
        assert [d.index for d in a.decisions] == [d.index for d in b.decisions]
        assert a.to_dict() != b.to_dict()

    def test_bad_input_is_named(self) -> None:
        record = _played(7)
        with pytest.raises(ReviewError, match="seat must be 0 … 2, got 3"):
            review_record(record, 3)
        with pytest.raises(ReviewError, match="the record does not replay"):
            review_record({**record, "actions": [[0, "discard x99"]]}, 0)
        with pytest.raises(ReviewError, match="a record is a JSON object"):
            review_record([], 0)  # type: ignore[arg-type]
        with pytest.raises(ReviewError, match="worlds must be a whole number from 2 to 256"):
            ReviewSettings(worlds=1)
        with pytest.raises(ReviewError, match="threshold must be a number ≥ 0"):
            ReviewSettings(threshold=-1)
        unfinished = {**record, "actions": record["actions"][:3]}
        unfinished.pop("result", None)
        with pytest.raises(ReviewError, match="the hand is not over"):
            review_record(unfinished, 0)

    def test_a_family_without_a_master_is_refused(self) -> None:
        assert review_families() == ("classic",)
        with pytest.raises(ReviewError, match="no 大师 for the 'changde' family"):
            review_record(_played(1, "changde"), 0)
