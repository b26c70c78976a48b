"""Worlds consistent with what the table shows (paohuzi.bots.infer, issue #16): the hard facts hold in every
real position, sampled worlds keep them, and ``search[infer=true]`` plays from them."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from paohuzi.bots import make_bot
from paohuzi.bots.infer import DECLINE_PENG, KEPT_PARTNER, Sampler, caps, likelihood, partners, sample_world
from paohuzi.bots.view import read
from paohuzi.bots.world import World, build_hand
from paohuzi.cards import Card
from paohuzi.engine import ActionKind, Hand
from paohuzi.groups import GroupKind
from paohuzi.rules import find_preset

QQ = find_preset("qq")
HUNAN = find_preset("hunan")


def _states(rules: object, hands: int, seed: int = 0) -> Iterator[tuple[Hand, int]]:
    """(hand, deciding seat) at every decision of some greedy-vs-random hands."""
    for i in range(hands):
        hand = Hand(rules, seed=seed + i)  # type: ignore[arg-type]
        bots = {s: make_bot("greedy" if s % 2 == i % 2 else "random", seed=s) for s in hand.seats}
        while not hand.over:
            seat = hand.deciding[0]
            yield hand, seat
            hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))


def _claimable(hand: Hand, seat: int) -> bool:
    return any(a.kind in (ActionKind.PENG, ActionKind.CHI) for a in hand.legal_actions(seat))


def _counts(cards: tuple[Card, ...]) -> list[int]:
    out = [0] * 20
    for c in cards:
        out[int(c)] += 1
    return out


@pytest.mark.parametrize("rules", [QQ, HUNAN], ids=["qq", "hunan"])
def test_the_caps_hold_in_every_real_position(rules: object) -> None:
    """R4.1–R4.3, R4.6: no real hand ever holds more than the caps allow, and no real hidden 偎 is of a kind
    its seat discarded or showed itself."""
    checked = 0
    for hand, seat in _states(rules, 25):
        view = read(hand.observation(seat))
        for s in view.others:
            cap = caps(view, s, _claimable(hand, seat))
            true = _counts(hand.hand_of(s))
            assert all(t <= c for t, c in zip(true, cap, strict=True)), (hand.seed, seat, s, true, cap)
            own = set(view.rows[s])
            for g in hand.table_of(s):
                if g.kind is GroupKind.WEI:
                    assert int(g.cards[0]) not in own
            checked += 1
    assert checked > 1000


def test_the_caps_from_the_table() -> None:
    """Exact caps in one position: seed 33 (qq), after the first dozen decisions of greedy play."""
    for hand, seat in _states(QQ, 1, seed=33):
        view = read(hand.observation(seat))
        if view.phase != "discard" or not any(view.rows[s] for s in view.others):
            continue
        for s in view.others:
            cap = caps(view, s)
            shown_elsewhere = {k for o, row in enumerate(view.rows) if o != s for k in row}
            for k in range(20):
                expected = 3
                if k in shown_elsewhere:
                    expected = 2  # a 坎 would have been 跑'd (R4.3)
                if k in view.rows[s]:
                    expected = 1  # it discarded or showed k itself: at most a single since (R4.2, R4.6)
                if any(g.cards[0] == k and g.kind in (GroupKind.PENG, GroupKind.CHOUWEI) for g in view.tables[s]):
                    expected = 0
                if any(g.cards[0] == k and g.kind.four for g in view.tables[s]):
                    expected = 0
                assert cap[k] == expected
        break
    else:  # pragma: no cover
        raise AssertionError("no position with rows")


def test_sampled_worlds_fit_the_view_and_the_caps() -> None:
    rng = random.Random(5)
    for n, (hand, seat) in enumerate(_states(QQ, 12, seed=200)):
        if n % 4:
            continue
        view = read(hand.observation(seat))
        claim = _claimable(hand, seat)
        for _ in range(3):
            world = sample_world(view, rng, {s: caps(view, s, claim) for s in view.others})
            dealt = [0] * 20
            for s in view.others:
                assert sum(world.hands[s]) == view.hand_counts[s]
                assert len(world.wei[s]) == view.hidden_wei[s]
                cap = caps(view, s, claim)
                for k in range(20):
                    assert world.hands[s][k] <= (0 if k in world.wei[s] else cap[k])
                    dealt[k] += world.hands[s][k] + 3 * world.wei[s].count(k)
            for k in world.stock:
                dealt[k] += 1
            assert dealt == list(view.unseen) and len(world.stock) == view.stock
            assert world.hands[seat] == view.counts
            if view.phase in ("discard", "claim"):
                built = build_hand(view, world)
                assert set(built.legal_actions(seat)) == set(hand.legal_actions(seat))


def test_partners_of_a_card() -> None:
    """R3: the kinds that make a 句 or 绞 with one copy."""
    x2, d7, x10 = int(Card.parse("x2")), int(Card.parse("d7")), int(Card.parse("x10"))
    assert [str(Card(k)) for k in partners(x2)] == ["x1", "x3", "x4", "x7", "x10", "d2"]
    assert [str(Card(k)) for k in partners(d7)] == ["x7", "d2", "d5", "d6", "d8", "d9", "d10"]
    assert [str(Card(k)) for k in partners(x10)] == ["x2", "x7", "x8", "x9", "d10"]


def test_likelihood_of_a_declined_peng_and_kept_partners() -> None:
    """The opponent model, exactly: a pair of a kind another seat showed and nobody took costs
    DECLINE_PENG; each partner kind of a discarded kind held costs KEPT_PARTNER."""
    for hand, seat in _states(QQ, 3, seed=40):
        view = read(hand.observation(seat))
        s = view.others[0]
        shown = {k for o, row in enumerate(view.rows) if o != s for k in row} - set(view.discarded[s])
        if view.phase != "discard" or not shown or not view.discarded[s] or s in view.dead:
            continue
        k = min(shown)
        base = [[0] * 20 for _ in range(3)]
        world = World(tuple(tuple(h) for h in base), ((), (), ()), ())
        assert likelihood(view, world) == 1.0
        with_pair = [list(h) for h in base]
        with_pair[s][k] = 2
        world = World(tuple(tuple(h) for h in with_pair), ((), (), ()), ())
        expected = DECLINE_PENG * KEPT_PARTNER ** len([q for q in view.discarded[s] if k in partners(q)])
        assert likelihood(view, world) == pytest.approx(expected)
        return
    raise AssertionError("no position found")  # pragma: no cover


def test_sampler_is_reproducible() -> None:
    for hand, seat in _states(QQ, 1, seed=7):
        view = read(hand.observation(seat))
        if view.phase != "discard" or view.stock > 40:
            continue
        a = Sampler(view, random.Random(3), pool=4)
        b = Sampler(view, random.Random(3), pool=4)
        assert [a() for _ in range(5)] == [b() for _ in range(5)]
        return


def test_search_with_inference_plays_legal_reproducible_moves() -> None:
    for hand, seat in _states(QQ, 2, seed=11):
        obs, legal = hand.observation(seat), hand.legal_actions(seat)
        if len(legal) < 3:
            continue
        a = make_bot("search[infer=true,worlds=4]", seed=1).act(obs, legal)
        b = make_bot("search[infer=true,worlds=4]", seed=1).act(obs, legal)
        assert a == b and a in legal
    with pytest.raises(ValueError, match="pool"):
        make_bot("search[infer=true,pool=0]")
