"""The observation tensor (issue #7): every piece checked against the referee's full state, and nothing
hidden (R5) reaches it."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import paohuzi.env
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Hand
from paohuzi.engine.deck import shuffled
from paohuzi.env.aec import pending
from paohuzi.env.features import (
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    PHASES,
    PIECES,
    RELATIVE,
    featurize,
    views,
)
from paohuzi.groups import GroupKind
from paohuzi.rules import find_preset

QQ = find_preset("qq")
FOUR = find_preset("hunan").with_options(four_players=True)


def counts(cards: object) -> np.ndarray:
    out = np.zeros(NUM_KINDS)
    for c in cards:  # type: ignore[attr-defined]
        out[int(c)] += 1
    return out


def positions(rules: object, n: int, seed: int) -> list[Hand]:
    """Hands stopped at random points of random play (some over)."""
    rng = random.Random(seed)
    out = []
    for s in range(n):
        hand = Hand(rules, seed=seed * 1000 + s)  # type: ignore[arg-type]
        for _ in range(rng.randrange(60)):
            if hand.over:
                break
            seat = hand.deciding[0]
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        out.append(hand)
    return out


def relative_seats(hand: Hand, seat: int) -> dict[str, int]:
    seats = hand.seats
    i = seats.index(seat)
    return {name: seats[(i + k) % len(seats)] for k, name in enumerate(RELATIVE)}


def test_layout() -> None:
    assert OBSERVATION_SIZE == 606 == sum(size for _, size, _ in PIECES)
    assert len({name for name, _, _ in PIECES}) == len(PIECES)
    assert sum(1 for _, size, _ in PIECES if size == NUM_KINDS) == 29
    assert OBSERVATION_HIGH.shape == (606,) and OBSERVATION_HIGH.min() == 1


@pytest.mark.parametrize("rules", [QQ, FOUR], ids=["qq", "hunan-four-players"])
def test_every_piece_against_the_referee(rules: object) -> None:
    for hand in positions(rules, 150, seed=1):
        over = hand.over
        ref = hand.referee_view()
        stock = counts(Card.parse(t) for t in ref["stock_cards"])
        phase, card = hand.phase, pending(hand)
        for seat in hand.seats:
            t = featurize(hand.observation(seat))
            assert t.dtype == np.float32 and t.shape == (OBSERVATION_SIZE,)
            assert (t >= 0).all() and (t <= OBSERVATION_HIGH).all()
            v = views(t)
            rel = relative_seats(hand, seat)
            mine = counts(hand.hand_of(seat))
            assert (v["hand"] == mine).all()
            assert (v["kan"] == (mine == 3)).all()
            hidden = stock.copy()
            for name, s in rel.items():
                table = hand.table_of(s)
                planes = {k: np.zeros(NUM_KINDS) for k in ("ti", "pao", "wei", "peng", "chi")}
                n_hidden = 0
                for g in table:
                    k = int(g.cards[0])
                    if g.kind is GroupKind.WEI and s != seat and not over:
                        n_hidden += 1
                        hidden[k] += 3
                    elif g.kind in (GroupKind.WEI, GroupKind.CHOUWEI):
                        planes["wei"][k] = 1
                    elif g.kind in (GroupKind.JU, GroupKind.JIAO):
                        planes["chi"] += counts(g.cards)
                    else:
                        planes[g.kind.value][k] = 1
                for kind, plane in planes.items():
                    assert (v[f"{kind}_{name}"] == plane).all(), (kind, name)
                assert v[f"hidden_wei_{name}"][0] == n_hidden
                assert v[f"hand_count_{name}"][0] == len(hand.hand_of(s))
                if s != seat:
                    hidden += counts(hand.hand_of(s))
                row = ref["rows"][s]
                discarded = counts(Card.parse(e["card"]) for e in row if e["discarded"])
                unclaimed = counts(Card.parse(e["card"]) for e in row if not e["discarded"])
                assert (v[f"discarded_{name}"] == discarded).all()
                assert (v[f"unclaimed_{name}"] == unclaimed).all()
                assert v[f"dealer_{name}"][0] == (s == hand.dealer)
                assert v[f"dead_{name}"][0] == (s in ref["dead"])
            if not over:  # at the end every hand is shown, so "unseen" no longer means hidden
                assert (v["unseen"] == hidden).all()
            assert v["stock"][0] == hand.stock_left
            assert v["liangzhang"][int(hand.liangzhang)] == 1 and v["liangzhang"].sum() == 1
            for p in PHASES:
                assert v[f"phase_{p}"][0] == (phase == p)
            assert v["deciding"][0] == (seat in hand.deciding)
            if card[0] is None:
                assert not v["pending"].any() and not v["pending_drawn"].any()
            else:
                assert v["pending"][card[0]] == 1 and v["pending"].sum() == 1
                src = next(name for name, s in rel.items() if s == card[1])
                assert v[f"pending_from_{src}"][0] == 1


def test_hidden_cards_do_not_change_the_tensor() -> None:
    """R5: swapping cards between two other seats' hands, or a hand and the stock, changes nothing seat 0
    may see, so its tensor is the same."""
    dealer, deck = shuffled(5, 3, 0)
    deck = list(deck)
    base = Hand(QQ, seed=5, dealer=0, deck=deck)
    assert not base.over
    seen = featurize(base.observation(0))
    rng = random.Random(0)
    checked = 0
    while checked < 20:
        other = list(deck)
        i, j = rng.randrange(21, 41), rng.choice([rng.randrange(41, 61), rng.randrange(61, 80)])
        other[i], other[j] = other[j], other[i]
        swapped = Hand(QQ, seed=5, dealer=0, deck=other)
        if swapped.over or Counter(swapped.hand_of(0)) != Counter(base.hand_of(0)):
            continue
        public = (swapped.phase, swapped.table_of(1), swapped.table_of(2))
        if public != (base.phase, base.table_of(1), base.table_of(2)):
            continue  # the swap changed something public (a dealt 提, a 天胡 offer)
        assert (featurize(swapped.observation(0)) == seen).all()
        checked += 1


def test_every_piece_is_documented() -> None:
    """The env's documentation page (the module docstring) and docs/env.md name every piece."""
    doc_md = (Path(__file__).resolve().parents[2] / "docs" / "env.md").read_text(encoding="utf-8")
    for name, _, _ in PIECES:
        generic = name
        for r in RELATIVE:
            if name.endswith("_" + r):
                generic = name[: -len(r)] + ("<s>" if name.startswith("pending_from") else "<seat>")
        for p in PHASES:
            if name == f"phase_{p}":
                generic = "phase_<name>"
        assert f"``{generic}``" in (paohuzi.env.__doc__ or ""), name
        assert f"`{generic}`" in doc_md, name
