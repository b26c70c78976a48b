"""``paohuzi.env.actions.action_ids`` (the mask's IDs, found by identity for the engine's shared actions)
gives exactly ``legal_ids`` of the actions' texts — for the engine's own instances, for equal actions built
anew (read back from text), and after its memo is cleared."""

from __future__ import annotations

import random

import pytest

from paohuzi.engine import Action, Hand
from paohuzi.env import actions
from paohuzi.env.actions import ActionEncodingError, action_ids, legal_ids
from paohuzi.env.features import pending_card
from paohuzi.rules import find_preset


def test_action_ids_equal_the_ids_of_the_texts() -> None:
    rng = random.Random(4)
    checked = 0
    for rules in (find_preset("qq"), find_preset("hunan").with_options(four_players=True, win_on_discard=True)):
        for seed in range(60):
            hand = Hand(rules, seed=seed)
            while not hand.over:
                for seat in hand.deciding:
                    obs = hand.observation(seat)
                    card = pending_card(obs)
                    want = legal_ids([str(a) for a in obs.legal], card)
                    assert action_ids(obs.legal, card) == want
                    assert action_ids([Action.parse(str(a)) for a in obs.legal], card) == want
                    checked += 1
                seat = rng.choice(hand.deciding)
                hand.apply(seat, rng.choice(hand.legal_actions(seat)))
                if checked % 500 == 0:
                    for memo in actions._BY_IDENTITY:
                        memo.clear()
    assert checked > 2_000


def test_an_action_without_an_id_is_refused() -> None:
    chi = Action.parse("chi x8 x9")
    with pytest.raises(ActionEncodingError, match="'chi x8 x9' has no action ID"):
        action_ids([chi], None)
    assert action_ids([chi], 6) == legal_ids(["chi x8 x9"], 6)
