"""``paohuzi.env.evaluate`` (issue 36 part 4): a bare callable, a Stable-Baselines3-like model and the shipped
checkpoint in duplicate deals — the numbers of ``paohuzi simulate`` for the same bots and seed, exactly —, per
table seat, and clear errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from paohuzi.cli import main
from paohuzi.env import evaluate
from paohuzi.env.aec import EnvError
from paohuzi.env.linear import CHECKPOINT, LinearBot, LinearPolicy

from ..support.examples import example

ROOT = Path(__file__).resolve().parents[2]

LINEAR = "paohuzi.env.linear:LinearBot"


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def without_times(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "decision_ms"} for row in table]


def test_the_checkpoint_as_a_callable_scores_what_simulate_prints(capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(LinearPolicy.load(), opponents="random", deals=6, seed=4, name=LINEAR)
    assert main(["simulate", "--bots", f"{LINEAR},random,random", "--hands", "6", "--seed", "4", "--json",
                 "--quiet"]) == 0
    cli = json.loads(capsys.readouterr().out)
    mine = result.to_dict()["match"]
    assert without_times(mine["table"]) == without_times(cli["table"])
    assert mine["differences"] == cli["differences"]
    assert (mine["deals"], mine["hands"]) == (cli["deals"], cli["hands"]) == (6, 18)


def test_a_bare_callable_exactly() -> None:
    result = evaluate(first_legal, opponents="random", deals=5, seed=1)
    assert (result.deals, result.hands, result.opponents, result.rules) == (5, 15, ("random", "random"), "qq")
    # one win, +6 points in seat 1 of a deal: 6 / 3 seatings / 5 deals = +0.4 a hand; each random −0.2
    points, difference = result.points, result.differences["random"]
    assert (points.mean, points.n) == (pytest.approx(0.4), 5)
    assert (points.low, points.high) == (pytest.approx(-0.7105780420790778), pytest.approx(1.5105780420790778))
    assert (difference.mean, difference.n) == (pytest.approx(0.6), 5)
    assert (difference.low, difference.high) == (pytest.approx(-1.065867063118617), pytest.approx(2.2658670631186166))
    assert {s: (e.mean, e.n) for s, e in result.by_seat.items()} == {0: (0.0, 5), 1: (pytest.approx(1.2), 5),
                                                                    2: (0.0, 5)}
    assert [(r.bot, r.hands, r.win_rate) for r in result.match.rows] == [
        ("policy", 15, pytest.approx(1 / 15)), ("random", 30, 0.0)]


class MaskedModel:
    """What evaluate needs of a Stable-Baselines3 maskable model: ``observation_space`` and
    ``predict(observation, state=None, episode_start=None, deterministic=False, action_masks=None)``."""

    def __init__(self) -> None:
        self.observation_space = spaces.Dict({"observation": spaces.Box(0, 21, (606,)),
                                              "action_mask": spaces.Box(0, 1, (115,))})
        self.calls = 0

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[np.ndarray, None]:
        assert isinstance(observation, dict) and observation["observation"].shape == (1, 606)
        assert action_masks is not None and action_masks.dtype == np.bool_ and deterministic
        self.calls += 1
        return np.array([int(np.flatnonzero(action_masks[0])[0])]), None


def test_a_stable_baselines3_model_plays_like_its_callable() -> None:
    model = MaskedModel()
    by_model = evaluate(model, opponents="random", deals=3, seed=2).to_dict()
    by_callable = evaluate(first_legal, opponents="random", deals=3, seed=2).to_dict()
    assert model.calls > 0
    assert by_model["points"] == by_callable["points"] and by_model["by_seat"] == by_callable["by_seat"]


def test_two_different_opponents_give_six_seatings_and_two_differences() -> None:
    result = evaluate(LinearBot(seed=0), opponents=["random", "greedy"], deals=2, seed=0)
    assert result.hands == 12 and list(result.differences) == ["random", "greedy"]
    assert [r.bot for r in result.match.rows] == ["policy", "random", "greedy"]


def test_four_seats_take_three_opponents() -> None:
    result = evaluate(first_legal, opponents="random", deals=1, seed=0, rules="liuhuqiang")
    assert result.opponents == ("random", "random", "random") and result.hands == 4


def test_the_shipped_checkpoint_is_small_and_loads() -> None:
    assert CHECKPOINT.stat().st_size < 10_000_000
    policy = LinearPolicy.load()
    assert policy.W.shape == (115, 606) and policy.W.dtype == np.float32


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deals": 0}, "deals must be a positive int, got 0"),
        ({"seed": -1}, "seed must be an int ≥ 0, got -1"),
        ({"opponents": "random,random,random"},
         r"give one opponent spec, or 2 \(one per other seat at the table\); got 3"),
        ({"opponents": "nobody"}, "opponent 'nobody': "),
        ({"opponents": "random", "name": "random"}, "the policy's name 'random' is also an opponent's spec"),
        ({"opponents": [1, 2]}, "opponents are bot specs"),
        ({"rules": "nowhere"}, "nowhere"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(EnvError, match=message):
        evaluate(first_legal, **kwargs)


def test_a_policy_that_plays_an_illegal_id_is_named() -> None:
    def always_114(observation: np.ndarray, mask: np.ndarray) -> int:
        return 114

    with pytest.raises(EnvError, match=r"deal 0: always_114: policy chose 114: action ID 114 \(chi jiao_C \| bi ejs "
                       r"\| bi ejs\) means nothing with x4 on offer"):
        evaluate(always_114, deals=1)
    with pytest.raises(EnvError, match=r"deal 0: <lambda>: the policy returned 'x', not an action ID"):
        evaluate(lambda observation, mask: "x", deals=1)
    with pytest.raises(EnvError, match="a policy is a callable"):
        evaluate(42, deals=1)


def test_two_evaluations_of_the_same_deals_pair_up() -> None:
    a = evaluate(first_legal, opponents="random", deals=4, seed=6)
    b = evaluate(LinearPolicy.load(), opponents="random", deals=4, seed=6)
    difference = a.minus(b)
    assert difference.n == 4 and len(a.per_deal) == len(b.per_deal) == 4
    assert difference.mean == pytest.approx(np.mean(a.per_deal) - np.mean(b.per_deal))
    assert np.mean(a.per_deal) == pytest.approx(a.points.mean)
    with pytest.raises(EnvError, match="only evaluations of the same deals pair up"):
        a.minus(evaluate(first_legal, opponents="random", deals=4, seed=7))


def test_the_leaderboard_script_and_the_published_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = example("env_leaderboard")
    out = tmp_path / "baselines.json"
    assert board.main(["--deals-random", "2", "--deals-greedy", "1", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [(r["policy"], r["opponents"], r["hands"]) for r in data["rows"]][:2] == [
        ("masked random", "random", 6), ("linear checkpoint", "random", 6)]
    assert board.table(data) in capsys.readouterr().out
    # docs/env.md shows docs/baselines.json's table, row for row
    published = json.loads((ROOT / "docs" / "baselines.json").read_text())
    assert board.table(published) in (ROOT / "docs" / "env.md").read_text()
    assert published["command"].endswith("--deals-random 2000 --deals-greedy 500 --seed 36")
