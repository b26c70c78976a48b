"""Outside policies as bots (issue #7): ``PolicyBot`` and ``paohuzi simulate --bots module:Class``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paohuzi.bots import BotError, make_bot
from paohuzi.cli import main
from paohuzi.engine import Hand
from paohuzi.env import PolicyBot
from paohuzi.rules import find_preset

QQ = find_preset("qq")


class AlwaysPass(PolicyBot):
    """Chooses ID 22 (pass) whatever the mask says."""

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return 22


def test_masked_random_bot_plays_whole_hands() -> None:
    bots = {s: make_bot("paohuzi.env.policy:MaskedRandomBot", seed=s) for s in range(3)}
    for seed in range(10):
        hand = Hand(QQ, seed=seed)
        while not hand.over:
            seat = hand.deciding[0]
            hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))


def test_an_illegal_choice_is_a_bot_error() -> None:
    hand = Hand(QQ, seed=3)
    seat = hand.deciding[0]
    assert hand.phase == "discard"
    with pytest.raises(BotError, match="not legal now"):
        AlwaysPass(seed=0).act(hand.observation(seat), hand.legal_actions(seat))


def test_policy_must_be_implemented() -> None:
    hand = Hand(QQ, seed=3)
    seat = hand.deciding[0]
    with pytest.raises(NotImplementedError):
        PolicyBot(seed=0).act(hand.observation(seat), hand.legal_actions(seat))


def test_simulate_with_an_outside_policy(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["simulate", "--bots", "paohuzi.env.policy:MaskedRandomBot,random,random", "--hands", "2", "--quiet", "--json"]
    )
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert "paohuzi.env.policy:MaskedRandomBot" in json.dumps(out)
