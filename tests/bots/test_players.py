"""How greedy and search choose (issue #4): positions with a clear best action, and search's contract."""

from __future__ import annotations

import json

from paohuzi.bots import GreedyBot, SearchBot, make_bot
from paohuzi.bots.greedy import choose
from paohuzi.bots.view import read
from paohuzi.engine import HU, ActionKind, Hand, Observation, stack_deck
from paohuzi.rules import find_preset

QQ = find_preset("qq")
# The dealer's 20 cards + the 亮张 d1: 二七十, 贰柒拾, 四五六, 肆伍陆, a 坎 of 八, the 绞 玖玖九 and a pair of 三.
# Discarding the lone 壹 leaves 听牌 on 三 (偎 → 15 胡息) or 八 (提); any other discard breaks a group.
DEALER = "x2 x7 x10 d2 d7 d10 x4 x5 x6 d4 d5 d6 x8 x8 x8 x3 x3 d9 d9 x9"


def _dealer_hand(fill_seed: int = 0) -> Hand:
    return Hand(QQ, deck=stack_deck(QQ, dealer=0, hands={0: DEALER}, liangzhang="d1", fill_seed=fill_seed), dealer=0)


class TestGreedy:
    def test_discards_the_lone_card_that_keeps_ting(self) -> None:
        for fill in range(3):
            hand = _dealer_hand(fill)
            assert hand.deciding == (0,) and hand.phase == "discard"
            action = make_bot("greedy").act(hand.observation(0), hand.legal_actions(0))
            assert str(action) == "discard d1"

    def test_useful_variant_agrees_here(self) -> None:
        hand = _dealer_hand()
        assert str(GreedyBot(useful=True).act(hand.observation(0), hand.legal_actions(0))) == "discard d1"

    def test_always_takes_hu(self) -> None:
        found = 0
        for seed in range(300):
            hand = Hand(QQ, seed=seed)
            bots = [make_bot("greedy", seed=s) for s in range(3)]
            while not hand.over:
                seat = hand.deciding[0]
                legal = hand.legal_actions(seat)
                action = bots[seat].act(hand.observation(seat), legal)
                if HU in legal:
                    assert action == HU
                    found += 1
                hand.apply(seat, action)
            if found >= 20:
                break
        assert found >= 20

    def test_scores_every_discard_it_returns(self) -> None:
        hand = _dealer_hand()
        action, scored = choose(read(hand.observation(0)), hand.legal_actions(0))
        assert scored[0][1] == action
        assert all(a.kind is ActionKind.DISCARD for _, a in scored)
        assert [v for v, _ in scored] == sorted((v for v, _ in scored), reverse=True)


class TestSearch:
    def test_plays_greedys_choice_when_clear(self) -> None:
        hand = _dealer_hand()
        bot = SearchBot(seed=1, worlds=8)
        assert str(bot.act(hand.observation(0), hand.legal_actions(0))) == "discard d1"

    def test_reproducible_and_reads_only_the_observation(self) -> None:
        # The same seed and a JSON round trip of the observation (nothing but the data) give the same play.
        for seed in (11, 12):
            hand = Hand(QQ, seed=seed)
            bots = [SearchBot(seed=s, worlds=4) for s in range(3)]
            twins = [SearchBot(seed=s, worlds=4) for s in range(3)]
            steps = 0
            while not hand.over and steps < 12:
                seat = hand.deciding[0]
                obs = hand.observation(seat)
                legal = hand.legal_actions(seat)
                action = bots[seat].act(obs, legal)
                assert action in legal
                again = Observation.from_dict(json.loads(json.dumps(obs.to_dict())))
                assert twins[seat].act(again, list(legal)) == action
                hand.apply(seat, action)
                steps += 1

    def test_budget_and_report(self) -> None:
        bot = SearchBot(seed=3, worlds=6, candidates=3, window=100.0, z=0.0)
        hand = _dealer_hand()
        bot.act(hand.observation(0), hand.legal_actions(0))
        assert 0 < bot.last["worlds"] <= 6 and bot.last["candidates"] == 3

    def test_time_budget(self) -> None:
        bot = SearchBot(seed=3, time=0.05, window=100.0)
        hand = _dealer_hand()
        bot.act(hand.observation(0), hand.legal_actions(0))
        assert bot.last["worlds"] >= 1
