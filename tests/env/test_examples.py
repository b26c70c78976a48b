"""The examples of docs/env.md run (issue #7): the random-agent loop and the training script (smoke)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paohuzi.bots import make_bot
from paohuzi.cli import main
from paohuzi.env import PolicyBot

from ..support.examples import example

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_doc_python_blocks_run(index: int) -> None:
    code = python_blocks()[index]
    exec(compile(code, f"docs/env.md block {index}", "exec"), {"__name__": "doc_example"})


def test_training_script_smoke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env_train = example("env_train")

    weights = tmp_path / "policy.npz"
    assert env_train.main(["--hands", "40", "--eval", "10", "--out", str(weights)]) == 0
    out = capsys.readouterr().out
    assert "mean points per hand over 10 hands: trained" in out and weights.exists()
    bot = make_bot(f"env_train:LinearPolicyBot[weights={weights}]", seed=1)
    assert bot.name.startswith("env_train:LinearPolicyBot")
    status = main(
        ["simulate", "--bots", f"env_train:LinearPolicyBot[weights={weights}],random,random", "--hands", "2", "--quiet"]
    )
    assert status == 0


def test_training_script_self_play_smoke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #16: --self-play trains against snapshots of the learner (refreshed every N hands)."""
    env_train = example("env_train")

    assert env_train.main(["--hands", "30", "--eval", "5", "--self-play", "10"]) == 0
    out = capsys.readouterr().out
    assert "against snapshots of itself (every 10 hands)" in out and "mean points per hand over 5 hands" in out


def test_baseline_table_script_smoke(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #16: examples/env_baselines.py prints the baseline table (tiny run)."""
    env_baselines = example("env_baselines")

    assert env_baselines.main(["--hands", "10", "--eval", "4", "--eval-greedy", "2", "--ppo-steps", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| algorithm | training hands | learner steps | train wall s | train CPU s | vs random")
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| masked random", "| linear REINFORCE vs random", "| linear REINFORCE, self-play (snapshot/500)"]
    assert [int(line.split(" | ")[1]) for line in lines[2:]] == [0, 10, 10]
    assert all(int(line.split(" | ")[2]) > 10 for line in lines[3:])  # several decisions a hand


def test_baseline_table_rows_option(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--rows makes only the rows named (separate processes can share a run); unknown rows are refused."""
    env_baselines = example("env_baselines")

    assert env_baselines.main(["--hands", "5", "--eval", "2", "--eval-greedy", "1", "--rows", "linear-self-play"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| masked random", "| linear REINFORCE, self-play (snapshot/500)"]
    with pytest.raises(SystemExit):
        env_baselines.main(["--rows", "linear,dqn"])
    assert "unknown rows ['dqn']" in capsys.readouterr().err


def test_baseline_table_maskable_ppo_rows(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With the train extra: the MaskablePPO rows (against random, and self-play with snapshot opponents)."""
    pytest.importorskip("sb3_contrib")
    env_baselines = example("env_baselines")

    args = ["--hands", "4", "--eval", "3", "--eval-greedy", "1", "--ppo-steps", "64", "--ppo-rollout", "16",
            "--ppo-self-play", "64"]
    assert env_baselines.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" | ")[0] for line in lines[5:]] == [
        "| MaskablePPO vs random (docs/env.md recipe)", "| MaskablePPO, self-play (snapshot/64 steps)"]
    assert [int(line.split(" | ")[2]) for line in lines[5:]] == [128, 128]  # one rollout of 8 copies × 16


def test_sb3_self_play_refreshes_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/sb3_train.py: the opponents are snapshots of the learner, replaced every N steps; a saved
    model plays in ``paohuzi simulate`` as a bot."""
    pytest.importorskip("sb3_contrib")
    sb3_train = example("sb3_train")

    seen: list[object] = []

    class Recording(sb3_train.SnapshotOpponents):
        def _on_step(self) -> bool:
            seen.append(self.training_env.get_attr("opponents")[0])
            return super()._on_step()

    model = sb3_train.train(32, seed=1, self_play=0, n_envs=2, n_steps=8)
    model.learn(total_timesteps=32, callback=Recording(8))
    bots = {id(opp) for opps in seen for opp in opps}
    assert 2 <= len(bots) and all(isinstance(opp, PolicyBot) for opps in seen for opp in opps)
    model.save(tmp_path / "ppo.zip")
    spec = f"sb3_train:MaskablePPOBot[model={tmp_path / 'ppo.zip'}]"
    assert main(["simulate", "--bots", f"{spec},random,random", "--hands", "1", "--quiet"]) == 0
