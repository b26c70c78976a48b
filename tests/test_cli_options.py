"""R8.1 house options on the command line: ``--rules`` (a preset or a JSON object) and ``--option name=value``
in ``analyze``, ``simulate`` and ``replay``; the ``"options"`` key of an ``analyze`` request; bad options exit 2."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from paohuzi.cli import main

# Seat's hand + x10 (自摸): 25 胡息, 红胡 (QQ doctest hand of paohuzi.scoring).
HAND = "x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9"
TABLE = "peng:x7x7x7"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(argv)
    out = capsys.readouterr().out
    return status, json.loads(out)


def test_r8_1_analyze_request_options(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"hand": HAND, "table": [{"kind": "peng", "cards": "x7 x7 x7"}], "card": "x10"}
    status, plain = _json(capsys, ["analyze", "--json"], json.dumps(base), monkeypatch)
    assert status == 0 and (plain["base"], plain["points"]) == (5, 10)  # type: ignore[index]
    assert "zimo_double" not in plain and "uncapped" not in plain  # type: ignore[operator]
    status, doubled = _json(
        capsys, ["analyze", "--json"], json.dumps(base | {"options": {"zimo": "double"}}), monkeypatch
    )
    assert status == 0 and (doubled["base"], doubled["points"], doubled["zimo_double"]) == (4, 16, True)  # type: ignore[index]
    request = base | {"tianhu": True, "options": {"zimo": "double", "cap": 50}}
    status, tianhu = _json(capsys, ["analyze", "--json"], json.dumps(request), monkeypatch)
    # 天胡 (自摸): (50 − 12) // 3 = 12, × 红胡 2, × 2 自摸翻倍 = 48: under the cap
    assert status == 0 and tianhu["points"] == 48 and "uncapped" not in tianhu  # type: ignore[index,operator]


def test_r8_1_analyze_cap_bites(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # 对对 with 21 大字, no red (tests/rules/test_r8_1_options.py): hunan 17 番, base 9 → 153, capped at 100.
    request = {
        "rules": "hunan",
        "options": {"cap": 100},
        "hand": "d3 d3 d3 d4 d4 d4 d5 d5 d5 d9",
        "table": [
            {"kind": "ti", "cards": "d1 d1 d1 d1"},
            {"kind": "peng", "cards": "d6 d6 d6"},
            {"kind": "wei", "cards": "d8 d8 d8"},
        ],
        "card": "d9",
        "source": "other",
    }
    status, answer = _json(capsys, ["analyze", "--json"], json.dumps(request), monkeypatch)
    assert status == 0, answer
    assert (answer["huxi"], answer["fan"], answer["base"], answer["points"], answer["uncapped"]) == (  # type: ignore[index]
        39,
        17,
        9,
        100,
        153,
    )


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"hand": "x1", "options": {"cap": 99}}, "cap must be one of 0, 50, 100, 200, 300, 600, got 99"),
        ({"hand": "x1", "options": {"bogus": 1}}, "unknown rule options: bogus"),
        ({"hand": "x1", "options": ["cap"]}, "options must be an object"),
        ({"hand": "x1", "rules": {"name": "qq", "zimo": "twice"}}, "zimo must be one of plus_one, double, none"),
    ],
)
def test_r8_1_analyze_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, request_: object, message: str
) -> None:
    status, answer = _json(capsys, ["analyze", "--json"], json.dumps(request_), monkeypatch)
    assert status == 2 and message in answer["error"]  # type: ignore[index]


def test_r8_1_analyze_human_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", *HAND.split(), "--table", TABLE, "--card", "x10"]
    assert main([*argv, "--rules", "qq", "--option", "zimo=double"]) == 0
    out = capsys.readouterr().out
    assert "options zimo=double" in out and "番 2 × 底 4 × 2 (自摸翻倍) = 16 points" in out
    assert main([*argv, "--rules", '{"name": "qq", "zimo": "none"}']) == 0
    assert "番 2 × 底 4 = 8 points" in capsys.readouterr().out
    assert main([*argv, "--option", "cap=7"]) == 2
    assert "cap must be one of 0, 50, 100, 200, 300, 600, got 7" in capsys.readouterr().err
    assert main([*argv, "--option", "nonsense"]) == 2
    assert "an option is name=value" in capsys.readouterr().err
    assert main(["analyze", "--json", "--option", "cap=50"]) == 2
    assert "do not also give --option" in capsys.readouterr().out


def test_r8_1_simulate_takes_and_shows_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        "--bots",
        "random,random,random,random",
        "--hands",
        "2",
        "--seed",
        "3",
        "--quiet",
        "--rules",
        '{"name": "hunan", "four_players": true, "cap": 100}',
        "--option",
        "zimo=double",
        "--json",
        "--record",
        str(tmp_path),
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "hunan" and data["options"] == {"four_players": True, "zimo": "double", "cap": 100}
    records = sorted(tmp_path.iterdir())
    assert records
    rules = json.loads(records[0].read_text())["rules"]
    assert (rules["four_players"], rules["cap"], rules["zimo"], rules["must_hu"]) == (True, 100, "double", False)
    assert (
        main(
            [
                "simulate",
                "--bots",
                "random,random,random",
                "--hands",
                "1",
                "--quiet",
                "--rules",
                "hunan",
                "--option",
                "must_hu=on",
            ]
        )
        == 0
    )
    assert "rules hunan (must_hu=on)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rules", '{"name": "hunan", "four_players": tru}'], "is not a preset name or a JSON object"),
        (["--rules", "nope"], "unknown rules preset 'nope'"),
        (["--option", "cap=1"], "cap must be one of"),
        (["--option", "min_huxi=16"], "min_huxi must be one of 15, 18, 21, got 16"),
        (["--option", "colour=red"], "unknown rule options: colour"),
    ],
)
def test_r8_1_simulate_bad_options_exit_2(capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    assert main(["simulate", "--bots", "random,random,random", "--hands", "1", "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


def test_r8_1_replay_shows_and_takes_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paohuzi.engine import Hand
    from paohuzi.rules import parse_rules

    hand = Hand(parse_rules("hunan", ["cap=50", "must_hu=on"]), seed=4)
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[-1])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand.record()), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "规则 hunan（湖南），选项 cap=50, must_hu=on，种子 4"
    assert main(["replay", str(path), "--option", "stake=7"]) == 0
    assert "选项 stake=7, cap=50, must_hu=on" in capsys.readouterr().out
    assert main(["replay", str(path), "--rules", "qq"]) in (0, 2)  # other rules may refuse the actions
    capsys.readouterr()
    assert main(["replay", str(path), "--option", "zimo=twice"]) == 2
    assert "zimo must be one of plus_one, double, none, got 'twice'" in capsys.readouterr().err


def test_r8_2_replay_of_a_dissolved_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paohuzi.engine import Match
    from paohuzi.rules import find_preset

    match = Match(find_preset("qq"), seed=3, hands=4)
    while not match.hand.over:
        seat = match.deciding[0]
        match.apply(seat, match.legal_actions(seat)[-1])
    match.next_hand()
    seat = match.deciding[0]
    match.apply(seat, match.legal_actions(seat)[0])
    match.dissolve()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match.record()), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("规则 qq") == 2 and out.rstrip().endswith("（解散，不结算）")
