"""The PettingZoo AEC environment ``paohuzi_v0`` (issue #7): API conformance, seeding, masks, claim
windows (R4.4), rewards (R7.3) and illegal actions."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from paohuzi.engine import Action, Hand, IllegalActionError, replay, stack_deck
from paohuzi.engine.deck import shuffled
from paohuzi.env import DEFAULT_ILLEGAL_REWARD, EnvError, env, raw_env
from paohuzi.env.actions import NUM_ACTIONS, PASS_ID, PENG_ID, encode
from paohuzi.env.aec import PaohuziEnv
from paohuzi.rules import find_preset

QQ = find_preset("qq")
FOUR = find_preset("hunan").with_options(four_players=True)
DEALT_TIANHU_SEED = 2857  # Hand(QQ, seed=2857) ends as dealt (R6.4)


def masked_random(e: object, rng: random.Random) -> int | None:
    obs, _, termination, truncation, _ = e.last()  # type: ignore[attr-defined]
    if termination or truncation:
        return None
    return rng.choice(np.flatnonzero(obs["action_mask"]).tolist())


def play_hand(e: object, rng: random.Random) -> None:
    for _ in e.agent_iter():  # type: ignore[attr-defined]
        e.step(masked_random(e, rng))  # type: ignore[attr-defined]


class TestConformance:
    @pytest.mark.usefixtures("strict_warnings")
    @pytest.mark.parametrize("rules", [QQ, FOUR], ids=["qq", "hunan-four-players"])
    def test_api_test(self, rules: object) -> None:
        api_test(env(rules=rules), num_cycles=200)

    @pytest.mark.usefixtures("strict_warnings")
    def test_api_test_raw(self) -> None:
        api_test(raw_env(), num_cycles=200)

    @pytest.mark.usefixtures("strict_warnings")
    def test_seed_test(self) -> None:
        seed_test(env, num_cycles=300)
        seed_test(lambda: env(rules="hengyang"), num_cycles=300)

    def test_metadata(self) -> None:
        e = raw_env()
        assert e.metadata["name"] == "paohuzi_v0" and str(e) == "paohuzi_v0"
        assert e.possible_agents == ["player_0", "player_1", "player_2"]
        assert e.action_space("player_0").n == NUM_ACTIONS
        assert e.observation_space("player_1")["observation"].shape == (606,)

    def test_four_players_agents(self) -> None:
        e = raw_env(rules=FOUR)
        e.reset(seed=1)
        hand = e.hand
        assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
        assert e.agents == [f"player_{s}" for s in sorted(hand.seats)]
        assert f"player_{hand.sitting_out}" not in e.agents


class TestSeeding:
    def test_reset_seed_deals_the_engine_hand(self) -> None:
        """R2 decision: the env's hand for seed s is the engine's hand for seed s."""
        e = raw_env()
        for seed in (0, 42, 10**12):
            e.reset(seed=seed)
            assert e.hand.seed == seed
            assert e.hand.events == Hand(QQ, seed=seed).events

    def test_a_played_hand_replays(self) -> None:
        e = raw_env()
        e.reset(seed=9)
        play_hand(e, random.Random(1))
        assert e.hand.over
        again = replay(e.hand.record())
        assert again.events == e.hand.events and again.outcome == e.hand.outcome

    def test_same_seed_same_play(self) -> None:
        runs = []
        for _ in range(2):
            e = env()
            e.reset(seed=5)
            rng = random.Random(3)
            trace = []
            for agent in e.agent_iter():
                obs, reward, termination, truncation, _ = e.last()
                trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
                e.step(masked_random(e, rng))
            runs.append(trace)
        assert runs[0] == runs[1]

    def test_later_resets_follow_the_seed(self) -> None:
        seeds = []
        for _ in range(2):
            e = raw_env()
            e.reset(seed=77)
            seeds.append([e.hand.seed] + [(e.reset(), e.hand.seed)[1] for _ in range(3)])
        assert seeds[0] == seeds[1] and seeds[0][0] == 77 and len(set(seeds[0])) == 4

    def test_unseeded_resets_differ(self) -> None:
        a, b = raw_env(), raw_env()
        a.reset()
        b.reset()
        assert a.hand.seed != b.hand.seed

    def test_a_hand_over_as_dealt_is_skipped(self) -> None:
        """R6.4: a dealt 天胡 leaves nobody a decision; reset deals the next hand of the seed's stream."""
        assert Hand(QQ, seed=DEALT_TIANHU_SEED).over
        e = raw_env()
        e.reset(seed=DEALT_TIANHU_SEED)
        assert e.hand.seed != DEALT_TIANHU_SEED and not e.hand.over
        assert e.agent_selection in e.agents

    def test_a_stacked_deck_over_as_dealt_is_refused(self) -> None:
        dealer, deck = shuffled(DEALT_TIANHU_SEED, 3, None)
        with pytest.raises(EnvError, match="天胡"):
            raw_env().reset(seed=0, options={"deck": list(deck), "dealer": dealer})

    def test_bad_seed(self) -> None:
        with pytest.raises(EnvError, match="seed must be an int"):
            raw_env().reset(seed="7")  # type: ignore[arg-type]


class TestMasks:
    def test_mask_is_exact_and_zero_for_the_others(self) -> None:
        e = raw_env()
        rng = random.Random(2)
        for seed in range(20):
            e.reset(seed=seed)
            for agent in e.agent_iter():
                for other in e.agents:
                    mask = e.observe(other)["action_mask"]
                    if other != agent or e.terminations[agent]:
                        assert not mask.any()
                if e.terminations[agent]:
                    e.step(None)
                    continue
                ids = sorted(e.action_id(a) for a in e.legal_actions(agent))
                assert np.flatnonzero(e.observe(agent)["action_mask"]).tolist() == ids
                e.step(rng.choice(ids))

    def test_raw_observation_is_the_engine_observation(self) -> None:
        e = raw_env()
        e.reset(seed=4)
        for agent in e.agents:
            assert e.raw_observation(agent) == e.hand.observation(e.seat_of(agent)).to_dict()


def _claim_deck() -> list[object]:
    """Dealer 0 discards x5; its 下家 (seat 1) may 吃 it (x6 x7, x4 x6 or x3 x4), seat 2 may 碰 it (x5 x5)."""
    return list(
        stack_deck(
            QQ,
            0,
            {
                0: "x5 x5 x1 x1 x3 x3 x8 x8 d1 d1 d3 d3 d8 d8 x9 d5 d6 x10 d10 x2",
                1: "x6 x7 d2 d2 d4 d4 d6 d6 d9 d9 x1 x3 x8 d1 d3 d8 x4 x4 x10 d10",
                2: "x5 x5 x2 x2 x6 x6 x7 x7 d5 d5 d9 d9 x9 x9 d2 d2 x4 x4 d4 d4",
            },
            liangzhang="x9",
            stock="d7 d7 d7 d7 x1 x2 x3 x6 x7 x8 x10 x10 d1 d3 d5 d6 d8 d10 d10",
        )
    )


class TestClaimWindow:
    """R4.4: the window asks each seat with a choice, in turn order from the discarder."""

    def _start(self) -> PaohuziEnv:
        e = raw_env()
        e.reset(seed=0, options={"deck": _claim_deck(), "dealer": 0})
        assert e.agent_selection == "player_0" and e.hand.phase == "discard"
        e.step(encode(Action.parse("discard x5")))
        return e

    def test_seats_are_asked_in_turn_order(self) -> None:
        e = self._start()
        assert e.hand.phase == "claim" and set(e.hand.deciding) == {1, 2}
        assert e.agent_selection == "player_1"
        assert not e.observe("player_2")["action_mask"].any()
        assert e.observe("player_1")["action_mask"][23]  # chi low: x5 with x6 x7

    def test_peng_beats_chi(self) -> None:
        e = self._start()
        e.step(23)  # seat 1: 吃
        assert e.agent_selection == "player_2"  # 碰 outranks the 吃: seat 2 is still asked
        e.step(PENG_ID)
        assert [str(g) for g in e.hand.table_of(2)] == ["peng:x5 x5 x5"]
        assert e.hand.table_of(1) == ()
        assert e.agent_selection == "player_2" and e.hand.phase == "discard"

    def test_chi_when_the_peng_is_declined(self) -> None:
        e = self._start()
        e.step(23)
        e.step(PASS_ID)
        assert [str(g) for g in e.hand.table_of(1)] == ["ju:x5 x6 x7"]
        assert e.agent_selection == "player_1" and e.hand.phase == "discard"

    def test_peng_first_needs_no_answer_from_the_chi(self) -> None:
        e = self._start()
        e.step(PASS_ID)  # seat 1 passes its 吃
        assert e.agent_selection == "player_2"
        e.step(PENG_ID)
        assert e.hand.table_of(1) == () and e.hand.phase == "discard"


class TestRewards:
    def test_points_at_the_end_zero_sum(self) -> None:
        """R7.3: each agent's reward is its payment divided by the stake; they sum to zero."""
        e = env()
        rng = random.Random(8)
        won = 0
        for seed in range(40):
            e.reset(seed=seed)
            final: dict[str, float] = {}
            for agent in e.agent_iter():
                _, reward, termination, _, info = e.last()
                if termination:
                    final[agent] = reward
                    assert info["outcome"]["kind"] in ("hu", "draw")
                else:
                    assert reward == 0
                e.step(masked_random(e, rng))
            hand = e.unwrapped.hand
            assert final == {f"player_{s}": hand.outcome.payments[s] / QQ.stake for s in hand.seats}
            assert sum(final.values()) == 0
            won += hand.outcome.kind == "hu"
        assert won > 0


class TestIllegal:
    def _illegal_id(self, e: object) -> int:
        mask = e.observe(e.agent_selection)["action_mask"]  # type: ignore[attr-defined]
        return int(np.flatnonzero(mask == 0)[0])

    def test_wrapped_env_ends_the_hand_with_a_penalty(self) -> None:
        e = env()
        e.reset(seed=11)
        e.last()
        offender = e.agent_selection
        before = e.unwrapped.hand.actions
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
            e.step(self._illegal_id(e))
        assert e.unwrapped.hand.actions == before  # nothing applied: the state is intact
        assert all(e.terminations.values())
        rewards = {}
        for agent in e.agent_iter():
            rewards[agent] = e.last()[1]
            e.step(None)
        assert rewards[offender] == DEFAULT_ILLEGAL_REWARD
        assert all(r == 0 for a, r in rewards.items() if a != offender)

    def test_raw_env_raises_and_keeps_the_state(self) -> None:
        e = raw_env()
        e.reset(seed=11)
        agent = e.agent_selection
        before = e.hand.actions
        with pytest.raises(IllegalActionError, match="not legal now"):
            e.step(self._illegal_id(e))
        with pytest.raises(IllegalActionError, match="out of range"):
            e.step(NUM_ACTIONS)
        assert e.hand.actions == before and e.agent_selection == agent
        e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
        assert len(e.hand.actions) == len(before) + 1

    def test_out_of_bounds_is_an_assertion(self) -> None:
        e = env()
        e.reset(seed=0)
        with pytest.raises(AssertionError, match="action space"):
            e.step(NUM_ACTIONS)


class TestMisc:
    def test_render_ansi_shows_the_selected_seat_only(self) -> None:
        e = raw_env(render_mode="ansi")
        e.reset(seed=3)
        text = e.render()
        seat = e.seat_of(e.agent_selection)
        assert f"seen by seat {seat}" in text and "legal:" in text
        assert " ".join(e.raw_observation(e.agent_selection)["hand"]) in text

    def test_render_human_prints(self, capsys: pytest.CaptureFixture[str]) -> None:
        e = raw_env(render_mode="human")
        e.reset(seed=3)
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        assert "phase" in capsys.readouterr().out

    def test_render_without_mode(self) -> None:
        e = raw_env()
        e.reset(seed=3)
        with pytest.warns(UserWarning, match="render_mode"):
            assert e.render() is None

    def test_bad_arguments(self) -> None:
        with pytest.raises(EnvError, match="unknown preset|preset"):
            raw_env(rules="nowhere")
        with pytest.raises(EnvError, match="render_mode"):
            raw_env(render_mode="rgb_array")
        with pytest.raises(EnvError, match="rules must be"):
            raw_env(rules=3)  # type: ignore[arg-type]
        with pytest.raises(EnvError, match="call reset"):
            _ = raw_env().hand
        with pytest.raises(EnvError, match="no such agent"):
            raw_env().seat_of("player_9")
