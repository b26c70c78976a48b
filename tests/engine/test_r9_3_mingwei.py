"""R5 with 明偎 (R9.3 option ``mingwei``): what each seat sees of the others' 偎, and nothing hidden leaking.

The permutation test: at a seat's discard decision in a random 衡阳六胡抢 hand, the cards that seat cannot see
(the other hands, the stock, and — without 明偎 — the kinds of the others' 偎) are shuffled among themselves;
the position rebuilt from that (``Hand.from_position``) must look exactly the same to the seat. With 明偎 a
偎 is not hidden (its cards are in every observation, and its event shows the card); without it, it is.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.cards import Card
from paohuzi.engine import Hand, Hidden
from paohuzi.groups import GroupKind
from paohuzi.rules import RuleSet

from .helpers import play
from .lhq import LHQ, deal4


def _permuted(hidden: Hidden, seat: int, rng: random.Random) -> Hidden:
    """``hidden`` with the cards ``seat`` cannot see shuffled: the other hands and the stock keep their sizes;
    a hidden 偎 may change kind with three copies of another kind from that pool."""
    pool = [c for s, h in enumerate(hidden.hands) if s != seat for c in h] + list(hidden.stock)
    wei = [list(w) for w in hidden.wei]
    for w in wei:
        for i, kind in enumerate(w):
            others = [k for k in set(pool) if pool.count(k) >= 3 and k != kind]
            if others and rng.random() < 0.7:
                new = rng.choice(sorted(others))
                for _ in range(3):
                    pool.remove(new)
                pool += [kind] * 3
                w[i] = new
    rng.shuffle(pool)
    hands = []
    for s, h in enumerate(hidden.hands):
        if s == seat:
            hands.append(h)
        else:
            hands.append(tuple(sorted(pool[: len(h)])))
            del pool[: len(h)]
    return Hidden(tuple(hands), tuple(tuple(w) for w in wei), tuple(pool))


def _discard_positions(rules: RuleSet, seed: int, limit: int) -> list[tuple[Hand, int]]:
    """Copies of a random hand at its first ``limit`` discard decisions, with the seat deciding."""
    rng = random.Random(seed)
    hand = Hand(rules, seed=seed)
    out = []
    while not hand.over and len(out) < limit:
        if hand.phase == "discard":
            out.append((hand.copy(), hand.deciding[0]))
        seat = rng.choice(hand.deciding)
        acts = hand.legal_actions(seat)
        names = [str(a) for a in acts]
        # pass up 胡 and 吃 more often than not, so that hands last and 偎 come up
        hand.apply(seat, "pass" if "pass" in names and rng.random() < 0.6 else rng.choice(acts))
    return out


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6), mingwei=st.booleans(), shuffle=st.integers(0, 10**6), players=st.sampled_from([4, 3])
)
def test_r5_r9_3_observation_unchanged_when_hidden_cards_are_permuted(
    seed: int, mingwei: bool, shuffle: int, players: int
) -> None:
    rules = LHQ.with_options(mingwei=mingwei, players=players)
    rng = random.Random(shuffle)
    for hand, seat in _discard_positions(rules, seed, 6):
        obs = hand.observation(seat)
        hidden = hand.hidden(seat)
        for s, groups in enumerate(obs.tables):
            weis = [g for g in hand.table_of(s) if g.kind is GroupKind.WEI]
            if s == seat or mingwei:  # 明偎: the others' 偎 are seen, cards and all
                assert None not in groups and not hidden.wei[s]
            else:
                assert groups.count(None) == len(weis) == len(hidden.wei[s])
        twin = Hand.from_position(rules, obs, _permuted(hidden, seat, rng))
        assert twin.observation(seat) == obs
        assert twin.observation(seat).to_dict() == obs.to_dict()


# Seat 1 holds d4 d4 and draws the third: a forced 偎 (R4.2.2), then it discards.
WEI_D4 = {1: "x2 x2 x2 x6 x6 x6 d1 d1 d1 d7 d7 d7 d4 d4"}


def _wei_hand(mingwei: bool) -> Hand:
    hand = deal4(WEI_D4, stock="d4", rules=LHQ.with_options(mingwei=mingwei))
    events = play(hand, "0: discard d3")
    assert events[-2:] == ["draw 1 d4", "wei 1 d4"]
    return hand


def test_r5_a_wei_is_hidden_from_the_others_without_mingwei() -> None:
    hand = _wei_hand(False)
    wei = next(e for e in hand.events if e.type == "wei")
    assert wei.for_seat(1)["card"] == "d4"  # type: ignore[index]
    for s in (0, 2, 3):
        assert wei.for_seat(s)["card"] is None  # type: ignore[index]
        obs = hand.observation(s)
        assert obs.tables[1] == (None,) and obs.hidden_wei() == (0, 1, 0, 0)
        assert obs.to_dict()["tables"][1] == [{"kind": "wei", "cards": None}]
        assert [str(c) for c in hand.hidden(s).wei[1]] == ["d4"]
    assert "shown" not in wei.to_dict()  # the event is written as before 明偎 existed


def test_r9_3_mingwei_shows_the_wei_face_up_to_everyone() -> None:
    hand = _wei_hand(True)
    wei = next(e for e in hand.events if e.type == "wei")
    assert wei.to_dict()["shown"] is True
    for s in range(4):
        assert wei.for_seat(s)["card"] == "d4"  # type: ignore[index]
        obs = hand.observation(s)
        assert obs.hidden_wei() == (0, 0, 0, 0)
        assert obs.to_dict()["tables"][1] == [{"kind": "wei", "cards": ["d4", "d4", "d4"], "huxi": 6}]
        assert hand.hidden(s).wei == ((), (), (), ())
        assert obs.unseen()[Card.D4] == 1  # the three of the 偎 are seen by every seat; the fourth by none
    assert hand.referee_view()["options"]["mingwei"] is True
