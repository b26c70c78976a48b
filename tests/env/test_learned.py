"""The learned agent (issue #16): a numpy two-layer policy distilled from greedy, shipped in the package."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paohuzi.bots import make_bot
from paohuzi.engine import Hand
from paohuzi.env import action_mask, encode, featurize
from paohuzi.env.aec import pending
from paohuzi.env.learned import DEFAULT_WEIGHTS, MLP, LearnedBot
from paohuzi.rules import find_preset

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_weights() -> None:
    """The weights in the package are examples/distill.py's output (its seed and size recorded)."""
    assert DEFAULT_WEIGHTS.stat().st_size < 10 * 2**20
    model = MLP.load()
    assert model.W1.shape == (128, 606) and model.W2.shape == (115, 128)
    assert model.meta["seed"] == 0 and model.meta["hands"] == 2000 and model.meta["epochs"] == 15
    assert model.meta["agreement_held_out"] == pytest.approx(0.566, abs=0.001)


def test_batched_and_single_inference_agree() -> None:
    model = MLP.load()
    hand = Hand(find_preset("qq"), seed=4)
    xs = []
    greedy = make_bot("greedy", seed=0)
    while not hand.over:
        seat = hand.deciding[0]
        obs, legal = hand.observation(seat), hand.legal_actions(seat)
        xs.append(featurize(obs))
        hand.apply(seat, greedy.act(obs, legal))
    batch = np.stack(xs)
    assert np.allclose(model.logits(batch), np.stack([model.logits(x) for x in xs]), atol=1e-5)


def test_learned_bot_plays_legal_moves_and_agrees_with_greedy_mostly() -> None:
    """On hands it never saw (seeds 70,000 …), the policy picks greedy's move most of the time."""
    bot = make_bot("paohuzi.env.learned:LearnedBot", seed=0)
    assert isinstance(bot, LearnedBot)
    greedy = make_bot("greedy", seed=0)
    same = total = 0
    for seed in range(70_000, 70_010):
        hand = Hand(find_preset("qq"), seed=seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            mine, theirs = bot.act(obs, legal), greedy.act(obs, legal)
            assert mine in legal
            if len(legal) > 1:
                same += mine == theirs
                total += 1
            hand.apply(seat, theirs)
    assert total > 150 and same / total > 0.5


def test_bad_weights() -> None:
    w = np.zeros((4, 606), np.float32)
    with pytest.raises(ValueError, match="wrong shapes"):
        MLP(w, np.zeros(4, np.float32), np.zeros((115, 5), np.float32), np.zeros(115, np.float32))


def test_distill_script_is_reproducible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import distill

    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        assert distill.main(["--hands", "6", "--epochs", "1", "--hidden", "8", "--out", str(out)]) == 0
    a, b = MLP.load(outs[0]), MLP.load(outs[1])
    assert np.array_equal(a.W1, b.W1) and np.array_equal(a.W2, b.W2)
    assert "agreement with greedy" in capsys.readouterr().out
    # the recorded decisions are greedy's, encoded as the environment does
    x, m, y, h = distill.collect(2, 0)
    assert len(x) == len(m) == len(y) == len(h) and m[np.arange(len(y)), y].all()
    hand, greedy = Hand(find_preset("qq"), seed=0), make_bot("greedy", seed=0)
    while len(hand.legal_actions(hand.deciding[0])) == 1:  # the first decision with a choice
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[0])
    seat = hand.deciding[0]
    obs = hand.observation(seat)
    assert (x[0] == featurize(obs)).all() and (m[0] == action_mask(obs).astype(bool)).all()
    assert y[0] == encode(greedy.act(obs, hand.legal_actions(seat)), pending(hand)[0])
