"""``paohuzi simulate`` (issue #4): the table, --json, --record, --jobs and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paohuzi.cli import main
from paohuzi.engine import replay


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "simulate",
                "--bots",
                "greedy[useful=false],random,random",
                "--hands",
                "3",
                "--seed",
                "2",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 3 and data["hands"] == 9 and data["rules"] == "qq" and data["seed"] == 2
    rows = {r["bot"]: r for r in data["table"]}
    assert rows["greedy[useful=false]"]["hands"] == 9 and rows["random"]["hands"] == 18
    assert set(rows["random"]) == {
        "bot",
        "hands",
        "points",
        "win_rate",
        "draw_rate",
        "win_huxi",
        "decision_ms",
        "decisions",
    }
    (diff,) = data["differences"]
    assert (diff["a"], diff["b"]) == ("greedy[useful=false]", "random")
    expected = rows["greedy[useful=false]"]["points"]["mean"] - rows["random"]["points"]["mean"]
    assert diff["mean"] == pytest.approx(expected)


def test_table_records_and_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "records"
    out = tmp_path / "hands.jsonl"
    assert (
        main(
            [
                "simulate",
                "--bots",
                "random,random,greedy[useful=false]",
                "--hands",
                "2",
                "--jobs",
                "2",
                "--record",
                str(rec),
                "--hands-out",
                str(out),
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "points/hand (95% CI)" in captured.out and "paired difference" in captured.out
    assert "6/6 hands" in captured.err  # the progress line
    files = sorted(rec.iterdir())
    assert len(files) == 6
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for path, line in zip(files, lines, strict=False):
        record = json.loads(path.read_text(encoding="utf-8"))
        hand = replay(record)
        assert list(p / 3 for p in hand.outcome.payments) == line["points"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "nosuch,random,random"], "unknown bot"),
        (["--bots", "random,random"], "3 bots are needed"),
        (["--rules", "mars"], "unknown rules preset"),
        (["--hands", "0"], "at least 1"),
    ],
)
def test_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--quiet", *argv]) == 2
    assert message in capsys.readouterr().err
