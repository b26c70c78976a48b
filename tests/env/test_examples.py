"""The examples of docs/env.md run (issue #7): the random-agent loop and the training script (smoke)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paohuzi.bots import make_bot
from paohuzi.cli import main

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
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import env_train

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
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import env_train

    assert env_train.main(["--hands", "30", "--eval", "5", "--self-play", "10"]) == 0
    out = capsys.readouterr().out
    assert "against snapshots of itself (every 10 hands)" in out and "mean points per hand over 5 hands" in out


def test_baseline_table_script_smoke(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #16: examples/env_baselines.py prints the baseline table (tiny run)."""
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import env_baselines

    assert env_baselines.main(["--hands", "10", "--eval", "4", "--eval-greedy", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| algorithm | training hands | train CPU s | vs random (4 deals)")
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| masked random", "| linear REINFORCE vs random", "| linear REINFORCE, self-play (snapshot/500)"]
