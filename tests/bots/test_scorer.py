"""The learned scorer (issue #16 item 2): greedy's candidates rescored by a network trained on rollout values
(examples/train_scorer.py, PyTorch), shipped in the package and run with numpy; it sees its seat's
observation only (R5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paohuzi.bots import BotError, greedy, make_bot
from paohuzi.bots.candidates import FEATURE_SIZE, candidates, features
from paohuzi.bots.scorer import DEFAULT_SCORER, Scorer, ScorerBot
from paohuzi.bots.view import read
from paohuzi.engine import ActionKind, Hand
from paohuzi.rules import find_preset

from ..support.examples import example
from .redeal import redealt_positions

ROOT = Path(__file__).resolve().parents[2]
QQ = find_preset("qq")
#: What the shipped weights were trained with (docs/AI.md §8).
SHIPPED = {"seed": 0, "hands": "3000", "rounds": 1, "worlds": 12, "candidates": 4, "hidden": "64,64", "ensemble": 4,
           "margin": 0.1}


def _train_scorer():  # type: ignore[no-untyped-def]
    return example("train_scorer")


def test_shipped_scorer_is_the_commands_output() -> None:
    """The weights in the package: under 10 MB, with the settings of the documented command recorded."""
    assert DEFAULT_SCORER.name == "scorer.npz" and DEFAULT_SCORER.stat().st_size < 10 * 2**20
    model = Scorer.load()
    # four networks of 64 + 64 units side by side (--ensemble 4): their mean is the score
    assert [W.shape for W, _ in model.layers] == [(256, FEATURE_SIZE), (256, 256), (1, 256)]
    for key, value in SHIPPED.items():
        assert model.meta[key] == value, key
    assert model.meta["held_out_gain"] > 0  # it measured better than greedy's choice on held-out positions


def test_numpy_inference_reproduces_torch_on_stored_inputs() -> None:
    with np.load(DEFAULT_SCORER) as data:
        x, q = data["probe_x"], data["probe_q"]
    assert x.shape == (64, FEATURE_SIZE) and q.shape == (64,)
    assert np.allclose(Scorer.load()(x), q, atol=1e-5, rtol=1e-5)
    assert np.ptp(q) > 0  # not a constant network


def test_torch_inference_matches_numpy_on_fresh_inputs() -> None:
    torch = pytest.importorskip("torch")
    train_scorer = _train_scorer()
    model = Scorer.load()
    net = train_scorer._torch_model([W.shape[0] for W, _ in model.layers[:-1]])
    state = {}
    for i, (W, b) in enumerate(model.layers):
        state[f"layers.{i}.weight"], state[f"layers.{i}.bias"] = torch.as_tensor(W), torch.as_tensor(b)
    net.load_state_dict(state)
    xs = np.random.default_rng(0).normal(0, 1, (200, FEATURE_SIZE)).astype(np.float32)
    with torch.no_grad():
        q = net(torch.as_tensor(xs)).numpy()
    assert np.allclose(model(xs), q, atol=1e-5, rtol=1e-5)


def test_train_scorer_smoke_is_reproducible(tmp_path: Path) -> None:
    """A tiny run of the documented command, twice: the same weights; settings recorded; numpy = torch."""
    pytest.importorskip("torch")
    train_scorer = _train_scorer()
    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        args = ["--hands", "3", "--worlds", "2", "--epochs", "2", "--hidden", "8", "--held-out", "0.34",
                "--ensemble", "2", "--jobs", "1", "--out", str(out), "--data", str(tmp_path / "positions.npz")]
        assert train_scorer.main(args) == 0
    a, b = Scorer.load(outs[0]), Scorer.load(outs[1])
    assert all(np.array_equal(p, q) for (p, _), (q, _) in zip(a.layers, b.layers, strict=True))
    assert a.meta["hands"] == "3" and a.meta["worlds"] == 2 and a.meta["hidden"] == "8" and a.meta["ensemble"] == 2
    assert [W.shape for W, _ in a.layers] == [(16, FEATURE_SIZE), (1, 16)]  # two networks of 8 side by side
    with np.load(outs[0]) as data:
        assert np.allclose(a(data["probe_x"]), data["probe_q"], atol=1e-5)


def test_an_ensemble_is_one_network_computing_the_mean_of_its_members() -> None:
    """--ensemble: the members' layers side by side (block-diagonal) and the output divided by their number."""
    torch = pytest.importorskip("torch")
    train_scorer = _train_scorer()
    torch.manual_seed(3)
    nets = [train_scorer._torch_model([5, 7]) for _ in range(3)]
    model = Scorer(*train_scorer.combine(nets))
    assert [W.shape for W, _ in model.layers] == [(15, FEATURE_SIZE), (21, 15), (1, 21)]
    W2 = model.layers[1][0]
    assert not W2[:7, 5:].any() and not W2[7:14, :5].any() and not W2[7:14, 10:].any()  # no unit sees another net
    xs = np.random.default_rng(1).normal(0, 1, (50, FEATURE_SIZE)).astype(np.float32)
    with torch.no_grad():
        mean = torch.stack([net(torch.as_tensor(xs)) for net in nets]).mean(dim=0).numpy()
    assert np.allclose(model(xs), mean, atol=1e-5, rtol=1e-5)
    one = Scorer(*train_scorer.combine(nets[:1]))  # one member: that network itself
    with torch.no_grad():
        assert np.allclose(one(xs), nets[0](torch.as_tensor(xs)).numpy(), atol=1e-6)


@pytest.mark.parametrize(("args", "message"), [(["--ensemble", "0"], "--ensemble must be ≥ 1"),
                                                (["--candidates", "9"], "--candidates must be 1 … 8")])
def test_train_scorer_refuses_bad_settings_clearly(args: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Bad settings stop the command before anything is measured, with a line naming the setting (no torch)."""
    with pytest.raises(SystemExit) as stop:
        _train_scorer().main(args)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_measured_targets_are_rollout_differences_from_greedys_choice() -> None:
    """examples/train_scorer.py's positions (numpy only): greedy's choice first with target 0, padding
    masked, worlds counted, features as candidates.features gives them."""
    train_scorer = _train_scorer()
    data = train_scorer.play_and_measure(5, 3, 4)
    n = len(data["n"])
    assert n >= 5 and (data["n"] >= 2).all() and (data["n"] <= 3).all()
    assert data["m"][:, :2].all() and (data["m"].sum(axis=1) <= 4).all()
    assert (data["t"][:, 0] == 0).all() and (data["t"][~data["m"]] == 0).all()
    assert (data["x"][~data["m"]] == 0).all() and np.abs(data["t"]).max() > 0
    assert np.array_equal(train_scorer.play_and_measure(5, 3, 4)["t"], data["t"])  # seeded


def test_candidates_are_greedys_best_and_features_have_the_declared_size() -> None:
    hand = Hand(QQ, seed=11)
    seen = 0
    while not hand.over:
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        view = read(hand.observation(seat))
        choice, scored = greedy.choose(view, legal)
        if len(legal) > 1 and not any(a.kind is ActionKind.HU for a in legal):
            got, cands = candidates(view, legal)
            assert got == choice and cands[0][1] == choice and len(cands) <= 4
            assert all(a in legal for _, a in cands) and [v for v, _ in cands] == sorted((v for v, _ in cands),
                                                                                         reverse=True)
            rows = features(view, cands)
            assert all(len(r) == FEATURE_SIZE for r in rows)
            seen += len(cands) > 1
        hand.apply(seat, choice)
    assert seen >= 5


def test_r5_scorer_identical_when_hidden_cards_are_permuted() -> None:
    """At each decision of greedy hands, the same position rebuilt with the other seats' hands and the stock
    dealt out again: the scorer's features, predictions and choice do not change (it reads the observation
    only, R5)."""
    compared = 0
    for hand, seat, obs, other in redealt_positions(QQ, range(3)):
        legal = hand.legal_actions(seat)
        if other.observation(seat) == obs and len(legal) > 1:
            a, b = ScorerBot(seed=1), ScorerBot(seed=2)
            assert a.act(obs, legal) == b.act(other.observation(seat), other.legal_actions(seat))
            assert a.last == b.last
            compared += bool(a.last)
    assert compared >= 20, compared


def test_scorer_bot_plays_legal_moves_and_an_unreachable_margin_is_greedy() -> None:
    """Through a few hands: every action legal; with a margin no advantage reaches, exactly greedy's choice;
    at the shipped margin it overrules greedy somewhere."""
    bot, strict, ref = ScorerBot(), ScorerBot(margin=1e9), make_bot("greedy")
    overruled = 0
    for seed in range(6):
        hand = Hand(QQ, seed=100 + seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            action = bot.act(obs, legal)
            assert action in legal
            assert strict.act(obs, legal) == ref.act(obs, legal)
            overruled += action != ref.act(obs, legal)
            hand.apply(seat, action)
    assert overruled >= 1


def test_scorer_search_races_the_scorers_choice() -> None:
    """The improved search (issue #16 item 1): its prior is exactly ScorerBot's choice, every action is legal,
    it is reproducible from its seed, and with an unreachable z it plays the scorer's choice wherever search
    would search (with a hu or one candidate both play what greedy would)."""
    from paohuzi.bots.scorer import ScorerSearchBot

    bot, again = ScorerSearchBot(seed=3, worlds=4), ScorerSearchBot(seed=3, worlds=4)
    stubborn, scorer = ScorerSearchBot(seed=3, worlds=4, z=1e9), ScorerBot()
    raced = 0
    for seed in range(3):
        hand = Hand(QQ, seed=200 + seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            action = bot.act(obs, legal)
            assert action in legal and again.act(obs, legal) == action
            if bot.last.get("worlds", 0):
                raced += 1
                assert stubborn.act(obs, legal) == scorer.act(obs, legal)
            hand.apply(seat, action)
    assert raced >= 5, raced


def test_scorer_search_with_challengers_races_only_where_the_network_is_unsure() -> None:
    """``challengers=1, gap=g``: only the network's runner-up races its choice, and only when predicted within
    ``g`` points of it; otherwise (and with no race won) it plays exactly the scorer's choice."""
    from paohuzi.bots.scorer import ScorerSearchBot

    bot, scorer = ScorerSearchBot(seed=3, worlds=4, challengers=1, gap=1.0), ScorerBot()
    sure = ScorerSearchBot(seed=3, worlds=4, challengers=1, gap=1e-9)  # unsure only when the margin decided
    raced = skipped = 0
    for seed in range(3):
        hand = Hand(QQ, seed=300 + seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            action = bot.act(obs, legal)
            mine = scorer.act(obs, legal)
            assert action in legal
            adv = scorer.last
            if sure.act(obs, legal) != mine or sure.last.get("worlds", 0):
                # rolled out: the runner-up was predicted ahead of the choice, which the margin kept
                assert mine == scorer.last_actions[0] and max(adv) > 0
            if bot.last.get("worlds", 0):
                raced += 1
                assert bot.last["candidates"] == 2  # the choice and one challenger
                top = scorer.last_actions.index(mine)
                assert adv[top] - max(a for i, a in enumerate(adv) if i != top) < 1.0
                assert action == mine or action in scorer.last_actions
            elif len(adv) >= 2:
                skipped += 1
                assert action == mine
            hand.apply(seat, action)
    assert raced >= 5 and skipped >= 1, (raced, skipped)
    for bad, message in [({"challengers": 0}, "challengers must be"), ({"gap": 0}, "gap must be"),
                         ({"gap": "x"}, "gap must be")]:
        with pytest.raises(BotError, match=message):
            ScorerSearchBot(**bad)
    assert make_bot("scorer_search[worlds=8,challengers=1,gap=0.5]").gap == 0.5


def test_bad_scorer_input_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(BotError, match="at least two layers"):
        Scorer(np.zeros((1, FEATURE_SIZE)), np.zeros(1))
    with pytest.raises(BotError, match="do not take"):
        Scorer(np.zeros((4, 3)), np.zeros(4), np.zeros((1, 4)), np.zeros(1))
    with pytest.raises(BotError, match="one output"):
        Scorer(np.zeros((4, FEATURE_SIZE)), np.zeros(4), np.zeros((2, 4)), np.zeros(2))
    with pytest.raises(BotError, match="candidates must be"):
        ScorerBot(candidates=0)
    missing = tmp_path / "missing.npz"
    with pytest.raises(BotError, match=r"cannot read scorer weights .*missing\.npz.*No such file"):
        ScorerBot(weights=str(missing))
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not an npz at all")
    with pytest.raises(BotError, match="cannot read scorer weights"):
        make_bot(f"scorer[weights={junk}]")
    empty = tmp_path / "empty.npz"
    np.savez(empty, other=np.zeros(3))
    with pytest.raises(BotError, match="at least two layers"):
        make_bot(f"scorer[weights={empty}]")
    with pytest.raises(BotError, match=r"bot 'scorer' does not take these options \['depth'\]"):
        make_bot("scorer[depth=2]")


def _scorer_study():  # type: ignore[no-untyped-def]
    example("train_scorer")  # the study imports it from beside itself
    return example("scorer_study")


def test_scorer_study_race_plays_a_challenger_only_when_it_clearly_beats_the_prior() -> None:
    """examples/scorer_study.py's race (scorer_search's rule on stored worlds): one standard error to beat."""
    race = _scorer_study().race
    m = np.array([[True, True, True]] * 3)
    worlds = np.zeros((3, 4, 3), np.float32)
    worlds[0, :, 2] = [3, 4, 5, 4]  # candidate 2 beats candidate 0 in every world: it is played
    worlds[1, :, 1] = [9, -9, 9, -9]  # candidate 1: a mean of 0, not ahead — the prior stays
    worlds[2, :, 1] = [2, 2, 2, 2]
    worlds[2, :, 2] = [5, 5, 6, 5]  # the best of the challengers that beat the prior
    assert race(worlds, m, np.zeros(3, int)).tolist() == [2, 0, 2]
    assert race(worlds, m, np.array([2, 0, 2])).tolist() == [2, 0, 2]  # nothing beats candidate 2
    masked = m.copy()
    masked[0, 2] = False  # padding never wins
    assert race(worlds, masked, np.zeros(3, int))[0] == 0


def test_scorer_study_collects_positions_world_by_world_and_reports_them() -> None:
    study = _scorer_study()
    data = study.collect(5, 1, 4, jobs=1)
    n = len(data["m"])
    assert n >= 5 and data["pay"].shape == (n, 4, 8) and data["x"].shape[2] == FEATURE_SIZE
    assert data["m"][:, :2].all() and (data["pay"][~data["m"][:, None, :].repeat(4, axis=1)] == 0).all()
    assert np.array_equal(study.collect(5, 1, 4, jobs=1)["pay"], data["pay"])  # seeded
    lines = study.report(data, [str(DEFAULT_SCORER)], [2])
    assert lines[0].startswith(f"{n} positions, 4 worlds each") and len(lines) == 7
    choice = study.scorer_choice(Scorer.load(), data["x"], data["m"])
    gain = (data["pay"] - data["pay"][:, :, :1]).mean(axis=1)[np.arange(n), choice].mean()
    assert f"{gain:+.4f}" in lines[1]
