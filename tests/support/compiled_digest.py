"""A digest of everything the compiled modules (paohuzi/_compiled.py) compute, for tests/test_compiled.py.

    python tests/support/compiled_digest.py HANDS      # prints one line: which build ran, then the sha256

It plays ``HANDS`` random hands in each rule set (seeded, random legal actions) and hashes every step's events
(referee and per-seat versions), every seat's observation (dict, tensor, mask, action IDs), the legal
actions, pickled and deep-copied hands that play on, and each hand's record and outcome; then a short greedy
and search match (their choices and results), and the bad-input errors of the public entry points (type and
message). Run once with ``PAOHUZI_PURE=1`` and once without, the digests must be equal: the compiled build is
the same code.
"""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import random
import sys
from typing import Any

from paohuzi import _compiled
from paohuzi.bots import make_bot
from paohuzi.bots.tournament import run_match
from paohuzi.engine import Action, Hand, Observation
from paohuzi.env.actions import action_ids, decode
from paohuzi.env.features import action_mask, featurize
from paohuzi.rules import find_preset

PRESETS = ("qq", "hunan", "hengyang", "huayang")


def _hands(digest: Any, hands: int) -> None:
    for preset in PRESETS:
        rules = find_preset(preset)
        rng = random.Random(preset)
        for i in range(hands):
            hand = Hand(rules, seed=rng.randrange(2**40))
            while not hand.over:
                seat = rng.choice(hand.deciding)
                obs = hand.observation(seat)
                digest.update(json.dumps(obs.to_dict(), sort_keys=True, ensure_ascii=False).encode())
                digest.update(featurize(obs).tobytes())
                digest.update(action_mask(obs).tobytes())
                pending = obs.pending
                digest.update(repr(action_ids(obs.legal, None if pending is None else pending.card)).encode())
                legal = hand.legal_actions(seat)
                digest.update(repr([str(a) for a in legal]).encode())
                if i % 5 == 0 and len(hand.events) % 9 == 0:
                    _copies(digest, hand, seat, obs)
                for event in hand.apply(seat, legal[rng.randrange(len(legal))]):
                    digest.update(json.dumps(event.to_dict(), ensure_ascii=False).encode())
                    for s in hand.seats:
                        digest.update(json.dumps(event.for_seat(s), ensure_ascii=False).encode())
                    digest.update(str(event).encode())
            if i % 7 == 0 and hand.record() is not None:
                digest.update(json.dumps(hand.record(), sort_keys=True, ensure_ascii=False).encode())
            assert hand.outcome is not None
            digest.update(json.dumps(hand.outcome.to_dict(), sort_keys=True, ensure_ascii=False).encode())


def _copies(digest: Any, hand: Hand, seat: int, obs: Observation) -> None:
    """A pickled and a deep-copied hand play on as the hand does; observations and events survive both."""
    for copied in (pickle.loads(pickle.dumps(hand)), copy.deepcopy(hand)):
        assert copied.referee_view() == hand.referee_view() and copied.events == hand.events
        assert pickle.loads(pickle.dumps(obs)) == obs == copy.deepcopy(obs)
        probe = hand.copy()
        action = probe.legal_actions(seat)[0]
        assert copied.apply(seat, action) == probe.apply(seat, action)
        digest.update(json.dumps(copied.referee_view(), sort_keys=True, ensure_ascii=False, default=str).encode())


def _bots(digest: Any) -> None:
    for spec in ("greedy", "search[worlds=6]"):
        for result in run_match([spec, "greedy", "random"], find_preset("qq"), deals=2, seed=5):
            row = result.to_dict()
            row.pop("seconds")
            digest.update(json.dumps(row, sort_keys=True).encode())
    bot = make_bot("greedy", seed=1)
    hand = Hand(find_preset("qq"), seed=11)
    while not hand.over:
        seat = hand.deciding[0]
        action = bot.act(hand.observation(seat), hand.legal_actions(seat))
        digest.update(str(action).encode())
        hand.apply(seat, action)


def _errors(digest: Any) -> None:
    qq = find_preset("qq")
    hand = Hand(qq, seed=3)
    tries: list[Any] = [
        lambda: Hand("qq", seed=1),
        lambda: Hand(qq, seed="x"),
        lambda: Hand(qq, seed=1, dealer="0"),
        lambda: hand.apply(0, 42),
        lambda: hand.apply("0", "discard x1"),
        lambda: hand.apply(0, None),
        lambda: Action.parse(7),
        lambda: Observation.from_dict([]),
        lambda: Hand.from_position(qq, "obs", None),
        lambda: decode(1.5),
        lambda: decode("3"),
        lambda: decode(23, "x1"),
    ]
    for attempt in tries:
        try:
            attempt()
        except Exception as exc:  # noqa: BLE001 — the type and text of each refusal are what is compared
            digest.update(f"{type(exc).__name__}: {exc}".encode())
        else:
            digest.update(b"accepted")


def main(argv: list[str]) -> int:
    hands = int(argv[1]) if len(argv) > 1 else 40
    digest = hashlib.sha256()
    _hands(digest, hands)
    _bots(digest)
    _errors(digest)
    print("compiled" if _compiled.ACTIVE else "python", digest.hexdigest())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
