"""The environment under 衡阳六胡抢 (R9.3, issue 30 part 2): four active agents (or three) with 15-card hands,
the shapes of each rule set, PettingZoo's api_test, the tensor against the referee with four seats and 明偎,
and the 一五十 吃 IDs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Hand
from paohuzi.env import env, gym_env, raw_env
from paohuzi.env.actions import NUM_ACTIONS, NUM_ACTIONS_YIWUSHI, SHAPES, action_ids, decode, encode
from paohuzi.env.aec import global_state, pending
from paohuzi.env.features import (
    LAYOUTS,
    OBSERVATION_HIGH,
    PHASES,
    featurize,
    observation_high,
    relative_names,
    views,
)
from paohuzi.groups import GroupKind, is_yiwushi
from paohuzi.rules import RuleSet, find_preset

LHQ = find_preset("liuhuqiang")
LHQ3 = LHQ.with_options(players=3)
LHQ_ALL = LHQ.with_options(yiwushi=True, mingwei=True)
LHQ3_ALL = LHQ.with_options(players=3, yiwushi=True, mingwei=True)


# (rules, agents, observation size, action count, stock high, hand_count high): the table of docs/env.md.
SHAPES_TABLE = [
    ("qq", 3, 606, 115, 19, 21),
    ({"name": "hunan", "four_players": True}, 4, 606, 115, 19, 21),
    ("liuhuqiang", 4, 752, 115, 23, 15),
    ({"name": "liuhuqiang", "players": 3}, 3, 606, 115, 37, 15),
    ({"name": "liuhuqiang", "yiwushi": True}, 4, 752, 171, 23, 15),
    ({"name": "liuhuqiang", "players": 3, "yiwushi": True}, 3, 606, 171, 37, 15),
]


@pytest.mark.parametrize(("rules", "agents", "size", "actions", "stock", "cards"), SHAPES_TABLE)
def test_shapes_per_rule_set(rules: object, agents: int, size: int, actions: int, stock: int, cards: int) -> None:
    e = env(rules=rules)
    assert len(e.possible_agents) == agents
    space = e.observation_space("player_0")
    assert space["observation"].shape == (size,) and space["action_mask"].shape == (actions,)
    assert e.action_space("player_0").n == actions
    v = views(space["observation"].high)
    assert v["stock"][0] == stock and v["hand_count_me"][0] == cards and v["hidden_wei_me"][0] == cards // 3
    assert e.unwrapped.state_space.shape == (agents * size + 20,)
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    assert obs["observation"].shape == (size,) and obs["action_mask"].shape == (actions,)
    assert space.contains(obs) and e.unwrapped.state() in e.unwrapped.state_space
    g = gym_env(rules=rules, opponents="random")
    assert g.observation_space == space and g.action_space.n == actions


def test_four_layout() -> None:
    four = LAYOUTS[4]
    assert four.size == 752 == 36 * NUM_KINDS + 32
    assert relative_names(4) == ("me", "next", "across", "prev")
    assert len({name for name, _, _ in four.pieces}) == len(four.pieces)
    assert (observation_high(find_preset("qq")) == OBSERVATION_HIGH).all()
    with pytest.raises(ValueError, match="3 or 4"):
        relative_names(2)
    with pytest.raises(ValueError, match="606 or 752"):
        views(np.zeros(700, np.float32))


@pytest.mark.usefixtures("strict_warnings")
@pytest.mark.parametrize("rules", [LHQ, LHQ3, LHQ_ALL], ids=["4", "3", "4-yiwushi-mingwei"])
def test_api_test(rules: RuleSet) -> None:
    api_test(env(rules=rules), num_cycles=300)


@pytest.mark.usefixtures("strict_warnings")
def test_api_test_raw_four() -> None:
    api_test(raw_env(rules=LHQ), num_cycles=300)


def test_gymnasium_check_env_and_three_opponents() -> None:
    e = gym_env(rules=LHQ_ALL, opponents="greedy")
    check_env(e, skip_render_check=True)
    obs, info = e.reset(seed=30)
    assert len(e._bots) == 3 and info["seat"] not in e._bots  # noqa: SLF001 (the three other seats in play)
    assert obs["observation"].shape == (752,) and obs["action_mask"].shape == (171,)
    from paohuzi.env import EnvError

    with pytest.raises(EnvError, match="one opponent spec, or three"):
        gym_env(rules=LHQ, opponents="random,random")
    gym_env(rules=LHQ3, opponents="random,greedy")  # two others with players 3


def positions(rules: RuleSet, n: int, seed: int) -> list[Hand]:
    """Hands stopped at random points of random play (some over)."""
    rng = random.Random(seed)
    out = []
    for s in range(n):
        hand = Hand(rules, seed=seed * 1000 + s)
        for _ in range(rng.randrange(50)):
            if hand.over:
                break
            seat = hand.deciding[0]
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        out.append(hand)
    return out


def counts(cards: object) -> np.ndarray:
    out = np.zeros(NUM_KINDS)
    for c in cards:  # type: ignore[attr-defined]
        out[int(c)] += 1
    return out


@pytest.mark.parametrize(
    "rules", [LHQ, LHQ_ALL, LHQ3_ALL], ids=["4", "4-yiwushi-mingwei", "3-yiwushi-mingwei"]
)
def test_every_piece_against_the_referee(rules: RuleSet) -> None:
    """As tests/env/test_features.py, with four seats in play (下家, 对家, 上家) and 明偎: another seat's 偎 is
    in its ``wei`` plane when 明偎 shows it, else counted in ``hidden_wei`` (R5)."""
    high = observation_high(rules)
    shown_wei = hidden_wei = yiwushi_groups = 0
    for hand in positions(rules, 120, seed=2):
        over = hand.over
        ref = hand.referee_view()
        stock = counts(Card.parse(t) for t in ref["stock_cards"])
        names = relative_names(len(hand.seats))
        card = pending(hand)
        for seat in hand.seats:
            t = featurize(hand.observation(seat))
            assert t.shape == high.shape and (t >= 0).all() and (t <= high).all()
            v = views(t)
            i = hand.seats.index(seat)
            rel = {name: hand.seats[(i + k) % len(hand.seats)] for k, name in enumerate(names)}
            hidden = stock.copy()
            for name, s in rel.items():
                planes = {k: np.zeros(NUM_KINDS) for k in ("ti", "pao", "wei", "peng", "chi")}
                n_hidden = 0
                for g in hand.table_of(s):
                    k = int(g.cards[0])
                    if g.kind is GroupKind.WEI and s != seat and not over and not rules.mingwei:
                        n_hidden += 1
                        hidden[k] += 3
                        hidden_wei += 1
                    elif g.kind in (GroupKind.WEI, GroupKind.CHOUWEI):
                        planes["wei"][k] = 1
                        shown_wei += s != seat and g.kind is GroupKind.WEI
                    elif g.kind in (GroupKind.JU, GroupKind.JIAO):  # a 一五十 too: its three cards
                        planes["chi"] += counts(g.cards)
                        yiwushi_groups += is_yiwushi(g.cards)
                    else:
                        planes[g.kind.value][k] = 1
                for kind, plane in planes.items():
                    assert (v[f"{kind}_{name}"] == plane).all(), (kind, name)
                assert v[f"hidden_wei_{name}"][0] == n_hidden
                assert v[f"hand_count_{name}"][0] == len(hand.hand_of(s))
                if s != seat:
                    hidden += counts(hand.hand_of(s))
                row = ref["rows"][s]
                for piece, discarded in (("discarded", True), ("unclaimed", False)):
                    plane = counts(Card.parse(e["card"]) for e in row if e["discarded"] == discarded)
                    assert (v[f"{piece}_{name}"] == plane).all()
                assert v[f"dealer_{name}"][0] == (s == hand.dealer)
            if not over:
                assert (v["unseen"] == hidden).all()
            assert v["stock"][0] == hand.stock_left
            for p in PHASES:
                assert v[f"phase_{p}"][0] == (hand.phase == p)
            if card[0] is not None:
                src = next(name for name, s in rel.items() if s == card[1])
                assert v[f"pending_from_{src}"][0] == 1 and v["pending"][card[0]] == 1
        state = global_state(hand)
        assert state.shape == (len(hand.seats) * len(high) + 20,)
    if rules.mingwei:
        assert shown_wei > 0 and hidden_wei == 0
    else:
        assert hidden_wei > 0
    assert (yiwushi_groups > 0) == rules.yiwushi


def test_yiwushi_chi_ids_round_trip() -> None:
    """Under ``yiwushi`` every legal action of random play has an ID below 171 that decodes back to it; 一五十's
    吃 and 比 (shape ``yws``) occur; without the option no ID ≥ 115 is ever legal."""
    yws = SHAPES.index("yws")
    seen_yws = 0
    for rules, limit in ((LHQ_ALL, NUM_ACTIONS_YIWUSHI), (LHQ, NUM_ACTIONS)):
        rng = random.Random(7)
        for seed in range(300):
            hand = Hand(rules, seed=30_000 + seed)
            while not hand.over:
                seat = hand.deciding[0]
                legal = hand.legal_actions(seat)
                card = pending(hand)[0]
                ids = action_ids(legal, card)
                assert all(0 <= i < limit for i in ids)
                for a, i in zip(legal, ids, strict=True):
                    assert decode(i, card, rules.yiwushi) == a and encode(a, card) == i
                    seen_yws += i >= NUM_ACTIONS
                hand.apply(seat, rng.choice(legal))
    assert seen_yws > 0
    assert decode(146, Card.X1, yiwushi=True) == decode(146, Card.X1, True)
    assert str(decode(146, Card.D5, yiwushi=True)) == "chi d1 d10"
    from paohuzi.env.actions import CHI_COMBOS_YIWUSHI, ActionEncodingError

    assert CHI_COMBOS_YIWUSHI[146 - 23] == (yws, ())
    with pytest.raises(ActionEncodingError, match="out of range 0–114"):
        decode(146, Card.D5)


@pytest.mark.parametrize("rules", [LHQ, LHQ3, LHQ_ALL], ids=["4", "3", "4-yiwushi-mingwei"])
def test_random_play_four_agents(rules: RuleSet) -> None:
    """Masked random play to the end: every step legal, the rewards sum to 0 and are the engine's payments."""
    e = env(rules=rules)
    rng = np.random.default_rng(0)
    ends = {"hu": 0, "draw": 0}
    for hand_no in range(60):
        e.reset(seed=40_000 + hand_no)
        totals = dict.fromkeys(e.agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            totals[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.sum() == len(e.unwrapped.legal_actions(agent))
            e.step(int(rng.choice(np.flatnonzero(mask))))
        outcome = e.unwrapped.hand.outcome
        assert outcome is not None and sum(totals.values()) == 0
        assert [totals[f"player_{s}"] for s in range(rules.players)] == list(outcome.payments)
        ends[outcome.kind.value] = ends.get(outcome.kind.value, 0) + 1
    assert ends["hu"] > 0


def test_learned_bot_refuses_other_shapes_clearly() -> None:
    """The learned policy's weights read three players' 606 values and 115 IDs: with four players in the hand or
    一五十 it says so (a BotError naming both shapes), never a numpy shape error."""
    from paohuzi.bots import BotError
    from paohuzi.env.learned import LearnedBot

    bot = LearnedBot(seed=0)
    for rules, shapes in ((LHQ, "752 and 115"), (LHQ3.with_options(yiwushi=True), "606 and 171")):
        hand = Hand(rules, seed=1)
        seat = hand.deciding[0]
        with pytest.raises(BotError, match=shapes):
            bot.act(hand.observation(seat), hand.legal_actions(seat))
    hand = Hand(LHQ3, seed=1)  # three players without 一五十: the same shapes, so it plays (by 21-card habits)
    seat = hand.deciding[0]
    assert bot.act(hand.observation(seat), hand.legal_actions(seat)) in hand.legal_actions(seat)


def test_vector_env_four_players() -> None:
    """``gymnasium.make_vec`` with 六胡抢: batched 752-value tensors, 171-ID masks (一五十), hands played out."""
    import gymnasium

    import paohuzi  # noqa: F401 (registers the id)

    envs = gymnasium.make_vec("paohuzi/Paohuzi-v0", num_envs=2, rules=LHQ_ALL.to_dict(), opponents="random")
    obs, _ = envs.reset(seed=1)
    assert obs["observation"].shape == (2, 752) and obs["action_mask"].shape == (2, 171)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
        obs, _, terminated, _, _ = envs.step(actions)
        ended += int(terminated.sum())
    envs.close()
    assert ended > 5
