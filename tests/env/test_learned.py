"""The learned agent (issue #16): a numpy policy-and-value network trained by examples/train_agent.py
(PyTorch), shipped in the package; its numpy inference reproduces PyTorch's on stored inputs."""

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

from ..support.examples import example

ROOT = Path(__file__).resolve().parents[2]
#: What the shipped weights were trained with (docs/AI.md §8).
SHIPPED = {"hands": 2000, "dagger": 1, "epochs": 5, "agreement_held_out": 0.5794}


def test_shipped_weights() -> None:
    """The weights in the package are examples/train_agent.py's output (its settings recorded)."""
    assert DEFAULT_WEIGHTS.name == "agent.npz" and DEFAULT_WEIGHTS.stat().st_size < 10 * 2**20
    model = MLP.load()
    assert [W.shape for W, _ in model.layers] == [(256, 606), (128, 256), (115, 128)]
    assert model.value_head is not None and model.value_head[0].shape == (1, 128)
    assert model.meta["seed"] == 0 and model.meta["hands"] == SHIPPED["hands"]
    assert model.meta["dagger"] == SHIPPED["dagger"] and model.meta["epochs"] == SHIPPED["epochs"]
    assert model.meta["agreement_held_out"] == pytest.approx(SHIPPED["agreement_held_out"], abs=0.001)


def test_numpy_inference_reproduces_torch_on_stored_inputs() -> None:
    """The shipped file holds 64 recorded inputs and PyTorch's outputs for them at export; numpy gives
    the same logits and values (and so the same choices)."""
    with np.load(DEFAULT_WEIGHTS) as data:
        x, logits, value = data["probe_x"], data["probe_logits"], data["probe_value"]
    model = MLP.load()
    assert x.shape == (64, 606) and logits.shape == (64, 115)
    assert np.allclose(model.logits(x), logits, atol=1e-4, rtol=1e-4)
    assert np.allclose(model.value(x), value, atol=1e-4, rtol=1e-4)
    assert (model.logits(x).argmax(axis=1) == logits.argmax(axis=1)).all()


def test_torch_inference_matches_numpy() -> None:
    """With PyTorch (the train extra): the training script's network loaded with the shipped weights gives
    numpy's outputs on stored and on fresh inputs."""
    torch = pytest.importorskip("torch")

    train_agent = example("train_agent")

    model = MLP.load()
    net = train_agent._torch_model([256, 128])
    state = {}
    for i, (W, b) in enumerate(model.layers[:-1]):
        state[f"body.{i}.weight"], state[f"body.{i}.bias"] = torch.as_tensor(W), torch.as_tensor(b)
    W, b = model.layers[-1]
    state["policy.weight"], state["policy.bias"] = torch.as_tensor(W), torch.as_tensor(b)
    assert model.value_head is not None
    state["value.weight"], state["value.bias"] = (torch.as_tensor(a) for a in model.value_head)
    net.load_state_dict(state, strict=False)
    xs = train_agent.collect([71_000])["x"].astype(np.float32)
    with np.load(DEFAULT_WEIGHTS) as data:
        xs = np.concatenate([data["probe_x"], xs])
    with torch.no_grad():
        logits, value = net(torch.as_tensor(xs))
    assert np.allclose(model.logits(xs), logits.numpy(), atol=1e-4, rtol=1e-4)
    assert np.allclose(model.value(xs), value.numpy(), atol=1e-4, rtol=1e-4)


def test_train_agent_smoke_is_reproducible(tmp_path: Path) -> None:
    """A tiny run of the documented command, twice: the same weights, settings recorded, numpy = torch."""
    pytest.importorskip("torch")

    train_agent = example("train_agent")

    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        args = ["--hands", "6", "--dagger", "1", "--dagger-hands", "3", "--epochs", "1", "--hidden", "16,8",
                "--held-out", "2", "--jobs", "1", "--out", str(out)]
        assert train_agent.main(args) == 0
    a, b = MLP.load(outs[0]), MLP.load(outs[1])
    assert all(np.array_equal(p, q) for (p, _), (q, _) in zip(a.layers, b.layers, strict=True))
    assert a.meta["hands"] == 6 and a.meta["dagger"] == 1 and a.meta["hidden"] == "16,8"
    with np.load(outs[0]) as data:
        assert np.allclose(a.logits(data["probe_x"]), data["probe_logits"], atol=1e-5)


def test_teacher_data_is_greedys_choice_from_the_seats_view() -> None:
    """examples/train_agent.py's records (numpy only, no torch needed): greedy's legal choice, its scores,
    the seat's final points; with a student, the hand still ends and every label is legal."""

    train_agent = example("train_agent")

    data = train_agent.collect([3, 4])
    n = len(data["y"])
    assert n > 20 and all(len(v) == n for v in data.values())
    assert data["mask"][np.arange(n), data["y"]].all()
    assert (data["scores"][np.arange(n), data["y"]] == data["scores"].max(axis=1)).all()
    assert set(data["hand"]) == {3, 4}
    hand = Hand(find_preset("qq"), seed=3)
    greedy = make_bot("greedy", seed=0)
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, greedy.act(hand.observation(seat), hand.legal_actions(seat)))
    assert hand.outcome is not None
    first = data["hand"] == 3
    assert set(data["value"][first]) <= {p / hand.rules.stake for p in hand.outcome.payments}
    mixed = train_agent.collect([3, 4], student=MLP.load())
    assert mixed["mask"][np.arange(len(mixed["y"])), mixed["y"]].all()
    assert np.array_equal(train_agent.collect([3, 4], student=MLP.load())["y"], mixed["y"])


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
    with pytest.raises(ValueError, match="wrong shapes"):
        MLP(w, np.zeros(4, np.float32), np.zeros((115, 4), np.float32))
    with pytest.raises(ValueError, match="wrong shapes"):  # one layer is not a network here
        MLP(np.zeros((115, 606), np.float32), np.zeros(115, np.float32))
    good = (w, np.zeros(4, np.float32), np.zeros((115, 4), np.float32), np.zeros(115, np.float32))
    with pytest.raises(ValueError, match="wrong shapes"):
        MLP(*good, value=(np.zeros((1, 5), np.float32), np.zeros(1, np.float32)))
    with pytest.raises(ValueError, match="no value head"):
        MLP(*good).value(np.zeros(606, np.float32))
    deep = MLP(w, np.ones(4, np.float32), np.ones((3, 4), np.float32), np.ones(3, np.float32),
               np.ones((115, 3), np.float32), np.zeros(115, np.float32),
               value=(np.ones((1, 3), np.float32), np.zeros(1, np.float32)))
    assert deep.logits(np.zeros(606, np.float32)).tolist() == [15.0] * 115  # relu(4·1 + 1) = 5, 3 × 5
    assert deep.value(np.zeros((2, 606), np.float32)).tolist() == [15.0, 15.0]


def test_distill_script_is_reproducible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    distill = example("distill")

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
