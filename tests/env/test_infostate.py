"""The information-state tensor (issue 36): shapes per rule set, exact rows of a known hand, every event a seat
sees in order, R5 (hidden cards permuted → the same tensor), PettingZoo and Gymnasium conformance."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Hand
from paohuzi.env import env, gym_env, raw_env
from paohuzi.env.features import featurize, observation_size
from paohuzi.env.infostate import (
    EVENT_TYPES,
    ROW,
    ROW_SIZE,
    History,
    InfoStateError,
    history_capacity,
    info_state,
    info_state_size,
    info_views,
    row_views,
)
from paohuzi.rules import RuleSet, find_preset, parse_rules

QQ = find_preset("qq")
LHQ = find_preset("liuhuqiang")
# Every preset, and the families' shapes (docs/env.md "Shapes per rule set").
RULES = [
    *(find_preset(n) for n in ("qq", "hengyang", "hunan", "huayang", "changde", "changde_qmt", "shihuka")),
    LHQ,
    parse_rules({"name": "hunan", "four_players": True}),
    LHQ.with_options(players=3, yiwushi=True),
    LHQ.with_options(yiwushi=True, mingwei=True),
]
IDS = ["qq", "hengyang", "hunan", "huayang", "changde", "changde_qmt", "shihuka", "liuhuqiang",
       "hunan-four", "lhq3-yiwushi", "lhq4-yiwushi-mingwei"]


def random_hand(rules: RuleSet, seed: int) -> tuple[Hand, list[tuple[int, str]]]:
    """A hand played to the end by random legal actions (not a dealt 天胡)."""
    rng = random.Random(seed)
    while True:
        hand = Hand(rules, seed=rng.getrandbits(32))
        if not hand.over:
            break
    while not hand.over:
        s = hand.deciding[0]
        hand.apply(s, rng.choice(hand.legal_actions(s)))
    return hand, [(s, a) for s, a in hand.actions]


def test_sizes() -> None:
    assert ROW_SIZE == 74
    assert history_capacity(QQ) == 220 and info_state_size(QQ) == 606 + 20 + 220 * 74 == 16906
    assert history_capacity(LHQ) == 270 and info_state_size(LHQ) == 752 + 20 + 270 * 74
    assert history_capacity(LHQ.with_options(players=3)) == 400


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_spaces_contain_every_observation(rules: RuleSet) -> None:
    """The observation space of each rule set holds the information states of a whole hand."""
    e = raw_env(rules, obs_type="info_state")
    space = e.observation_space("player_0")
    assert space["observation"].shape == (info_state_size(rules),)
    e.reset(seed=11)
    rng = random.Random(0)
    while e.agents:
        obs, _, term, trunc, _ = e.last()
        for a in e.agents:
            assert space.contains(e.observe(a)), a
        if term or trunc:
            e.step(None)
        else:
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    g = gym_env(rules, opponents="random", obs_type="info_state")
    assert g.observation_space == space
    o, _ = g.reset(seed=4)
    assert g.observation_space.contains(o)


def test_the_rows_of_a_known_hand() -> None:
    """Hand(qq, seed=3), every seat taking its first legal action: the first rows as seat 1 saw them."""
    hand = Hand(QQ, seed=3)
    for _ in range(6):
        s = hand.deciding[0]
        hand.apply(s, hand.legal_actions(s)[0])
    assert [str(e) for e in hand.events[1:]] == [
        "discard 0 x1", "peng 2 x1 from 0", "discard 2 x2", "peng 0 x2 from 2", "discard 0 x3",
        "chi 1 x3 from 0 as x2 x3 x4",
    ]
    t = info_state(hand.observation(1), hand.events)
    v = info_views(t)
    assert (v["observation"] == featurize(hand.observation(1))).all()
    dealt = np.zeros(NUM_KINDS, np.float32)
    for c in hand.events[0].hands[1]:  # type: ignore[attr-defined]
        dealt[int(c)] += 1
    assert (v["dealt"] == dealt).all() and v["dealt"].sum() == 20
    rows = row_views(v["history"])
    me, nxt, prev = [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]  # seat 1: seat 2 is next (下家), seat 0 prev
    want = [("discard", prev, None, "x1"), ("peng", nxt, prev, "x1"), ("discard", nxt, None, "x2"),
            ("peng", prev, nxt, "x2"), ("discard", prev, None, "x3"), ("chi", me, prev, "x3")]
    for i, (kind, actor, source, card) in enumerate(want):
        assert rows["present"][i].tolist() == [1]
        assert EVENT_TYPES[int(rows["type"][i].argmax())] == kind and rows["type"][i].sum() == 1
        assert rows["actor"][i].tolist() == actor
        assert rows["source"][i].tolist() == (source or [0, 0, 0, 0])
        assert rows["card"][i].tolist() == [float(k == int(Card.parse(card))) for k in range(NUM_KINDS)]
        assert rows["flags"][i].sum() == 0
    laid = [0.0] * NUM_KINDS
    for c in ("x2", "x3", "x4"):
        laid[int(Card.parse(c))] = 1
    assert rows["laid"][5].tolist() == laid and rows["laid"][:5].sum() == 0
    n = int(rows["present"].sum())
    assert (v["history"][n:] == 0).all()


@pytest.mark.parametrize("rules", [QQ, LHQ], ids=["qq", "liuhuqiang"])
def test_every_event_a_seat_sees_in_order(rules: RuleSet) -> None:
    """The history decodes back to the seat's own version of each event (type, actor, card), in order."""
    for k in range(20):
        hand, _ = random_hand(rules, k)
        for seat in hand.seats:
            seen = [d for e in hand.events if (d := e.for_seat(seat)) is not None
                    and d["type"] not in ("deal", "settlement")]
            rows = row_views(info_views(info_state(hand.observation(seat), hand.events), rules)["history"])
            assert int(rows["present"].sum()) == len(seen)
            order = list(hand.seats)
            for i, d in enumerate(seen):
                assert EVENT_TYPES[int(rows["type"][i].argmax())] == d["type"]
                if isinstance(d.get("seat"), int):
                    rel = (order.index(d["seat"]) - order.index(seat)) % len(order)
                    assert rows["actor"][i].tolist() == [float(j == rel) for j in range(4)]
                if d.get("card") is None:
                    assert rows["card"][i].sum() == 0
                else:
                    assert int(rows["card"][i].argmax()) == int(Card.parse(d["card"]))
                if d["type"] == "chi":
                    assert rows["laid"][i].sum() == 3 * (1 + len(d["bi"]))


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_the_capacity_holds_long_hands(rules: RuleSet) -> None:
    """Random play stays well inside the history (random play is the longest: nobody wins early)."""
    longest = 0
    for k in range(40):
        hand, _ = random_hand(rules, 1000 + k)
        for seat in hand.seats:
            longest = max(longest, sum(1 for e in hand.events if e.for_seat(seat) is not None))
    assert longest < 0.7 * history_capacity(rules)


def test_a_longer_history_is_an_error() -> None:
    hand, _ = random_hand(QQ, 1)
    with pytest.raises(InfoStateError, match="holds 5 events"):
        info_state(hand.observation(0), hand.events, History(0, hand.seats, 5))
    history = History(0, hand.seats, 220)
    info_state(hand.observation(0), hand.events, history)
    with pytest.raises(InfoStateError, match="not those of the hand"):
        history.update(hand.events[:3])
    with pytest.raises(ValueError, match="has 16906 values"):
        info_views(np.zeros(606, np.float32))


def test_incremental_equals_from_scratch() -> None:
    """A :class:`History` kept across the steps gives the tensor of one built from all events at once."""
    rng = random.Random(5)
    hand = Hand(QQ, seed=77)
    kept = {s: History(s, hand.seats, 220) for s in hand.seats}
    while not hand.over:
        for s in hand.seats:
            a = info_state(hand.observation(s), hand.events, kept[s])
            assert (a == info_state(hand.observation(s), hand.events)).all()
        s = hand.deciding[0]
        hand.apply(s, rng.choice(hand.legal_actions(s)))


# ------------------------------------------------------------------------------------------------
# R5: cards the seat has not seen, permuted, give the same information state
# ------------------------------------------------------------------------------------------------


def _swapped_plays(rules: RuleSet, seed: int, rng: random.Random) -> Iterator[tuple[int, Hand, Hand, bool]]:
    """A random hand and the same actions on its deck with two cards swapped: at each step, for each seat
    whose observations were equal so far (what R5 lets it see), (seat, hand, swapped, hidden part differs)."""
    base, actions = random_hand(rules, seed)
    dealer = base.dealer
    deck = [Card.parse(c) for s in _deal_order(base) for c in base.dealt()["hands"][s]]
    deck += [Card.parse(c) for c in base.dealt()["stock"]]
    i, j = rng.sample(range(len(deck)), 2)
    other = list(deck)
    other[i], other[j] = other[j], other[i]
    a, b = Hand(rules, None, dealer, deck=deck), Hand(rules, None, dealer, deck=other)
    alive = {s for s in a.seats if not b.over and a.observation(s) == b.observation(s)}
    for seat, action in actions:
        if not alive:
            return
        try:
            a.apply(seat, action)
            b.apply(seat, action)
        except Exception:  # noqa: BLE001 — the swap made the action illegal: the worlds part
            return
        alive = {s for s in alive if a.observation(s) == b.observation(s)}
        for s in alive:
            differs = a.referee_view()["hands"] != b.referee_view()["hands"] or a.referee_view()["stock_cards"] != (
                b.referee_view()["stock_cards"])
            yield s, a, b, differs


def _deal_order(hand: Hand) -> list[int]:
    seats = list(hand.seats)
    k = seats.index(hand.dealer)
    return seats[k:] + seats[:k]


@pytest.mark.parametrize("rules", [QQ, LHQ, LHQ.with_options(mingwei=True)], ids=["qq", "lhq", "lhq-mingwei"])
def test_hidden_cards_do_not_change_the_information_state(rules: RuleSet) -> None:
    """R5: two hands whose decks differ by a swap of two cards, played with the same actions — as long as a
    seat's observations stayed equal, its information state is equal too, though the hidden cards differ."""
    rng = random.Random(36)
    compared = 0
    for seed in range(200):
        histories: dict[int, tuple[History, History]] = {}
        for s, a, b, differs in _swapped_plays(rules, seed, rng):
            ha, hb = histories.setdefault(s, (History(s, a.seats, history_capacity(rules)),
                                              History(s, b.seats, history_capacity(rules))))
            ta = info_state(a.observation(s), a.events, ha)
            tb = info_state(b.observation(s), b.events, hb)
            assert (ta == tb).all(), (seed, s, len(a.events))
            compared += differs
    assert compared > 1000


# ------------------------------------------------------------------------------------------------
# Conformance
# ------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("strict_warnings")
@pytest.mark.parametrize("rules", [QQ, LHQ, LHQ.with_options(players=3, yiwushi=True)], ids=["qq", "lhq", "lhq3"])
def test_api_test(rules: RuleSet) -> None:
    api_test(env(rules=rules, obs_type="info_state"), num_cycles=200)


@pytest.mark.usefixtures("strict_warnings")
def test_seed_test() -> None:
    seed_test(functools.partial(env, obs_type="info_state"), num_cycles=200)


@pytest.mark.parametrize("rules", ["qq", "liuhuqiang"])
def test_gymnasium_check_env(rules: str) -> None:
    check_env(gym_env(rules, opponents="random", obs_type="info_state"), skip_render_check=True)


def test_a_bad_obs_type_is_refused() -> None:
    from paohuzi.env import EnvError  # noqa: PLC0415

    with pytest.raises(EnvError, match="obs_type must be one of 'snapshot', 'info_state', got 'history'"):
        env(obs_type="history")
    with pytest.raises(EnvError, match="obs_type"):
        gym_env(obs_type="x")


def test_observation_part_is_the_snapshot() -> None:
    """Each information state starts with the same moment's observation tensor (the AEC and Gymnasium envs)."""
    e = raw_env("qq", obs_type="info_state")
    snap = raw_env("qq")
    e.reset(seed=9)
    snap.reset(seed=9)
    rng = random.Random(1)
    size = observation_size(QQ)
    while e.agents:
        for a in e.agents:
            assert (e.observe(a)["observation"][:size] == snap.observe(a)["observation"]).all()
        obs: Any = e.last()[0]
        if e.terminations[e.agent_selection]:
            e.step(None)
            snap.step(None)
            continue
        move = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        e.step(move)
        snap.step(move)


def test_every_part_and_field_is_documented() -> None:
    """docs/env.md "Information state" and the module docstring name every part, row field and event type."""
    import paohuzi.env.infostate as module  # noqa: PLC0415

    doc_md = (Path(__file__).resolve().parents[2] / "docs" / "env.md").read_text(encoding="utf-8")
    section = doc_md[doc_md.index("## Information state") : doc_md.index("## State API")]
    for name in ("observation", "dealt", "history", *(f for f, _ in ROW), *EVENT_TYPES):
        assert f"`{name}`" in section, name
        assert f"``{name}``" in (module.__doc__ or "") or name in (module.__doc__ or ""), name
    assert ROW_SIZE == sum(size for _, size in ROW) == 74
