"""Bots never act illegally (issue #4 acceptance): 10,043 hands in all, in chunks that pytest-xdist spreads.

Every action a bot returns is checked against the legal actions it was given, and the hand is played by
the engine, which refuses anything illegal. The search bot is too slow for thousands of hands; it plays a
few with a tiny budget (its actions are greedy's candidates, so the greedy hands cover its choices too).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from paohuzi.bots import Bot, make_bot
from paohuzi.bots.tournament import play_hand
from paohuzi.engine import Action, Observation
from paohuzi.rules import find_preset


class Checked(Bot):
    """Wraps a bot and asserts that its every action is one of the legal ones, given unchanged."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.name = inner.name
        self.calls = 0

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        before = list(legal)
        action = self.inner.act(observation, legal)
        assert action in before, f"{self.name} played {action} not in {[str(a) for a in before]}"
        assert list(legal) == before, f"{self.name} changed the legal list"
        assert tuple(legal) == observation.legal
        self.calls += 1
        return action

    def new_hand(self) -> None:
        self.inner.new_hand()


# (bots, rules preset, first seed, hands)
CHUNKS = (
    [(("random", "random", "random"), "qq", 1000 * i, 400) for i in range(17)]
    + [
        (("random", "random", "random"), preset, 50_000 + i, 400)
        for i, preset in enumerate(("hengyang", "hunan", "huayang"))
    ]
    + [(("random", "random", "random"), "hunan-4", 60_000, 400)]
    + [(("random", "random", "random"), "qq", 70_000 + 1000 * i, 400) for i in range(2)]
    + [(("greedy[useful=false]", "random", "greedy[useful=false]"), "qq", 80_000 + 1000 * i, 200) for i in range(3)]
    + [(("greedy[useful=false]", "greedy[useful=false]", "greedy[useful=false]"), "hunan", 90_000, 200)]
    + [(("greedy", "random", "greedy[useful=false]"), "qq", 95_000, 40)]
    + [(("search[worlds=2,candidates=2]", "greedy[useful=false]", "random"), "qq", 99_000, 3)]
)
TOTAL = sum(c[3] for c in CHUNKS)


def _rules(name: str):  # type: ignore[no-untyped-def]
    if name == "hunan-4":
        return find_preset("hunan").with_options(four_players=True)
    return find_preset(name)


def test_at_least_ten_thousand_hands() -> None:
    assert TOTAL >= 10_000


@pytest.mark.parametrize(("specs", "preset", "first", "hands"), CHUNKS, ids=lambda v: str(v))
def test_bots_never_act_illegally(specs: tuple[str, ...], preset: str, first: int, hands: int) -> None:
    rules = _rules(preset)
    calls = 0
    for i in range(hands):
        seed = first + i
        inner = [make_bot(spec, seed=seed * 4 + s) for s, spec in enumerate(specs)]
        if rules.players_at_table == 4:
            inner.append(make_bot("random", seed=seed * 4 + 3))
        bots = [Checked(b) for b in inner]
        hand, decisions, _ = play_hand(rules, seed, bots)
        assert hand.over
        assert sum(hand.outcome.payments) == 0
        assert decisions == [b.calls for b in bots]
        calls += sum(decisions)
    assert calls > hands
