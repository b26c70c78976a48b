"""``paohuzi review RECORD --seat N`` (复盘, issue 34): the text and JSON of a review on a record with a known
mistake, records from ``paohuzi simulate --record`` and the server's replay answer, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paohuzi.bots import make_bot
from paohuzi.cli import main
from paohuzi.engine import Hand, Match, stack_deck
from paohuzi.rules import find_preset

QQ = find_preset("qq")
# tests/bots/test_review.py's READY: discarding 壹 breaks 18 胡息 of 听牌; 玖 was the discard to make.
READY = "d1 d2 d3 d2 d7 d10 x1 x2 x3 x2 x7 x10 x4 x5 x6 x7 x8 x9 d4 d5 d9"


def _mistake() -> dict[str, Any]:
    """The dealer discards 壹 from READY; greedy plays every other move to the end."""
    hand = Hand(QQ, deck=stack_deck(QQ, dealer=0, hands={0: READY}, fill_seed=1), dealer=0)
    hand.apply(0, "discard d1")
    bots = [make_bot("greedy", seed=s) for s in range(3)]
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))
    return hand.record()


def _review(tmp_path: Path, data: Any, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    status = main(["review", str(path), *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_mistake_is_marked_in_the_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _review(tmp_path, _mistake(), capsys, "--seat", "0", "--seed", "0")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "复盘 seat 0 · qq · seed 0 · 32 worlds a decision · threshold 1 points"
    assert lines[1].startswith("#0   出牌  played 'discard d1' ")
    assert " best 'discard d9' " in lines[1] and lines[1].endswith(" ✗")
    assert lines[-1].startswith("准确率 ") and " · marked " in lines[-1]


def test_the_json_has_every_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _mistake()
    status, out, _ = _review(tmp_path, record, capsys, "--seat", "0", "--seed", "1", "--json", "--worlds", "8")
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"seat", "seed", "preset", "points", "settings", "judged", "marked", "accuracy",
                         "points_lost", "decisions"}
    assert (data["seat"], data["seed"], data["preset"]) == (0, 1, "qq")
    assert data["settings"] == {"worlds": 8, "threshold": 1.0, "z": 2.0}
    assert data["points"] == record["result"]["payments"][0]
    first = data["decisions"][0]
    assert set(first) == {"index", "phase", "played", "best", "loss", "loss_se", "worlds", "significant", "marked",
                          "choices"}
    assert (first["index"], first["phase"], first["played"], first["best"], first["marked"]) == (
        0, "discard", "discard d1", "discard d9", True)
    assert {c["action"] for c in first["choices"]} >= {"discard d1", "discard d9"}
    assert data["judged"] == len(data["decisions"]) and data["marked"] >= 1
    assert data["accuracy"] == round(1 - data["marked"] / data["judged"], 4)
    # The server's replay answer ({"hand", "record"}) is read too, and gives the same review.
    _, again, _ = _review(tmp_path, {"hand": {"id": 1}, "record": record}, capsys, "--seat", "0", "--seed", "1",
                          "--json", "--worlds", "8")
    assert json.loads(again) == data


def test_a_simulated_record_and_a_match_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "records"
    assert main(["simulate", "--bots", "greedy,random,random", "--hands", "1", "--seed", "4", "--record",
                 str(folder), "--quiet", "--json"]) == 0
    capsys.readouterr()
    path = sorted(folder.iterdir())[0]
    assert main(["review", str(path), "--seat", "1", "--json", "--worlds", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seat"] == 1 and data["judged"] >= 1
    match = Match(QQ, seed=3, hands=1)
    while not match.over:
        seat = match.hand.deciding[0]
        match.apply(seat, match.hand.legal_actions(seat)[0])
    status, out, _ = _review(tmp_path, match.record(), capsys, "--seat", "2", "--hand", "1", "--worlds", "2")
    assert status == 0 and out.startswith("复盘 seat 2 · qq · seed 0 · 2 worlds")
    status, _, err = _review(tmp_path, match.record(), capsys, "--seat", "2")
    assert (status, err) == (2, "paohuzi review: a match record with 1 finished hands: choose one with --hand 1…1\n")


@pytest.mark.parametrize(
    ("data", "args", "message"),
    [
        ("not json", ["--seat", "0"], "paohuzi review: line 1 is not JSON"),
        ("[1, 2]", ["--seat", "0"], "paohuzi review: a record is a JSON object, got list"),
        (None, ["--seat", "4"], "paohuzi review: seat must be 0 … 2, got 4"),
        (None, ["--seat", "0", "--worlds", "0"], "paohuzi review: worlds must be a whole number from 2 to 256"),
        (None, ["--seat", "0", "--hand", "1"], "paohuzi review: --hand is for a match record"),
    ],
)
def test_bad_input_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, args: list[str], message: str
) -> None:
    status, out, err = _review(tmp_path, _mistake() if data is None else data, capsys, *args)
    assert (status, out) == (2, "")
    assert err.startswith(message)
