"""The fixed action space (issue #7): every engine action has exactly one ID and comes back from it.

R4.2–R4.5: discards, 胡, 碰, 过 and every 吃 with its 比 groups. The IDs of 吃 are relative to the card on
offer (see :mod:`paohuzi.env.actions`).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import HU, PASS, PENG, Action, ActionKind, Hand
from paohuzi.env.actions import (
    CHI_BASE,
    CHI_COMBOS,
    HU_ID,
    NUM_ACTIONS,
    PASS_ID,
    PENG_ID,
    ActionEncodingError,
    action_name,
    decode,
    encode,
    is_chi,
    legal_ids,
    shape_partners,
)
from paohuzi.env.aec import pending
from paohuzi.rules import find_preset

QQ = find_preset("qq")
CARDS = tuple(Card)


class TestLayout:
    def test_sizes(self) -> None:
        assert NUM_ACTIONS == 115
        assert len(CHI_COMBOS) == 92
        assert (HU_ID, PENG_ID, PASS_ID, CHI_BASE) == (20, 21, 22, 23)

    def test_discards_are_card_indices(self) -> None:
        for card in Card:
            assert encode(Action.discard(card)) == int(card)
            assert decode(int(card)) == Action.discard(card)

    def test_simple_actions(self) -> None:
        for action, action_id in ((HU, 20), (PENG, 21), (PASS, 22)):
            for card in (None, *Card):
                assert encode(action, card) == action_id
                assert decode(action_id, card) is action

    def test_names_are_unique(self) -> None:
        names = [action_name(i) for i in range(NUM_ACTIONS)]
        assert len(set(names)) == NUM_ACTIONS
        assert names[23] == "chi low" and names[114] == "chi jiao_C | bi ejs | bi ejs"

    def test_every_id_round_trips_for_every_card(self) -> None:
        for c in range(NUM_KINDS):
            seen: set[Action] = set()
            for action_id in range(NUM_ACTIONS):
                try:
                    action = decode(action_id, c)
                except ActionEncodingError:
                    assert is_chi(action_id)  # a shape that does not exist for this card
                    continue
                assert encode(action, c) == action_id
                assert action not in seen
                seen.add(action)

    def test_chi_groups_hold_the_card_on_offer(self) -> None:
        for c in range(NUM_KINDS):
            for action_id in range(CHI_BASE, NUM_ACTIONS):
                try:
                    action = decode(action_id, c)
                except ActionEncodingError:
                    continue
                assert action.kind is ActionKind.CHI
                assert all(CARDS[c] in g for g in action.bi)

    def test_shapes_of_x2(self) -> None:
        names = [None if p is None else " ".join(str(CARDS[k]) for k in p) for p in shape_partners(Card.X2)]
        assert names == ["x3 x4", "x1 x3", None, "x7 x10", "x2 d2", "d2 d2"]

    def test_shapes_of_d10(self) -> None:
        names = [None if p is None else " ".join(str(CARDS[k]) for k in p) for p in shape_partners(Card.D10)]
        assert names == [None, None, "d8 d9", "d2 d7", "x10 d10", "x10 x10"]

    def test_legal_ids_from_text(self) -> None:
        assert legal_ids(["chi x8 x9", "chi x6 x8", "pass"], Card.X7) == [23, 41, 22]


class TestErrors:
    @pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 1.5, "3", True, None])
    def test_decode_refuses_bad_ids(self, bad: object) -> None:
        with pytest.raises(ActionEncodingError):
            decode(bad)  # type: ignore[arg-type]

    def test_chi_needs_a_card(self) -> None:
        with pytest.raises(ActionEncodingError, match="no card on offer"):
            decode(23)
        with pytest.raises(ActionEncodingError, match="no action ID"):
            encode(Action.parse("chi x8 x9"))

    def test_chi_that_does_not_fit_the_card(self) -> None:
        with pytest.raises(ActionEncodingError, match="with d5 on offer"):
            encode(Action.parse("chi x8 x9"), Card.D5)
        with pytest.raises(ActionEncodingError, match="means nothing with x1 on offer"):
            decode(57, Card.X1)  # chi high: there is no x(-1) x0

    def test_bad_card(self) -> None:
        with pytest.raises(ActionEncodingError, match="not a card"):
            decode(23, 20)

    def test_unknown_legal_text(self) -> None:
        with pytest.raises(ActionEncodingError, match="has no action ID"):
            legal_ids(["chi x8 x9"], None)


def _chi_position(rng: random.Random) -> tuple[Hand, int] | None:
    """A deal where the dealer (seat 0) holds one ``c`` and its 下家 (seat 1) holds 0–2 copies of c and of
    every card that forms a 句/绞 with c; the dealer then discards c, offering seat 1 its 吃 (R4.3)."""
    c = rng.randrange(NUM_KINDS)
    near = {k for pair in shape_partners(c) if pair for k in pair} | {c}
    pool = Counter({k: 4 for k in range(NUM_KINDS)})
    pool[c] -= 1  # the dealer's copy
    nxt: list[int] = []
    for k in sorted(near):
        n = rng.choices((0, 1, 2), (2, 3, 5))[0]
        nxt += [k] * n
        pool[k] -= n
    far = [k for k in range(NUM_KINDS) if k not in near for _ in range(pool[k])]
    rng.shuffle(far)
    for k in far[: 20 - len(nxt)]:
        nxt.append(k)
        pool[k] -= 1
    left = [k for k in range(NUM_KINDS) if k != c for _ in range(pool[k])]
    rng.shuffle(left)
    dealer = [c, *left[:20]]  # 21 cards; the last is the 亮张
    rest = left[20:] + [c] * pool[c]
    rng.shuffle(rest)
    hand = Hand(QQ, seed=0, dealer=0, deck=dealer + nxt + rest)  # then seat 2's 20 and the 19 of the stock
    if hand.over or hand.phase != "discard" or hand.deciding != (0,):
        return None
    if Action.discard(CARDS[c]) not in hand.legal_actions(0):
        return None
    hand.apply(0, Action.discard(CARDS[c]))
    if pending(hand) != (c, 0) or 1 not in hand.deciding:
        return None  # nobody could claim c: the window is for a later card
    return hand, c


def test_every_chi_the_engine_offers_has_one_id_and_every_id_is_reachable() -> None:
    """R4.3/R4.5: over constructed 吃 windows, each legal action has a unique ID that decodes back to it,
    and all 92 吃 IDs occur (the enumeration is exactly as large as it must be)."""
    rng = random.Random(7)
    covered: set[int] = set()
    windows = 0
    while windows < 1000:
        found = _chi_position(rng)
        if found is None:
            continue
        hand, c = found
        legal = hand.legal_actions(1)
        ids = [encode(a, c) for a in legal]
        assert len(set(ids)) == len(ids), legal
        assert [decode(i, c) for i in ids] == legal
        covered.update(i for i in ids if is_chi(i))
        windows += 1
    assert covered == set(range(CHI_BASE, NUM_ACTIONS)), sorted(set(range(CHI_BASE, NUM_ACTIONS)) - covered)
