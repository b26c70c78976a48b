"""``paohuzi analyze``: human output, --json, --batch, errors (exit 2). In process (``paohuzi.cli.main`` with the
command line, stdin, stdout and stderr of a run: a subprocess cost ~1 s of CPU each, ~60 of them), and through the
real console script in :class:`TestConsoleScript` (the entry point, the exit status, the encoding of a pipe)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from paohuzi.cli import main

SCRIPT = Path(sys.executable).with_name("paohuzi")

RED_HAND = "x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9"  # + x10 with peng:x7x7x7: 红胡, 25 胡息
RED_GROUPS = [
    {"kind": "peng", "cards": ["x7", "x7", "x7"], "huxi": 1},
    {"kind": "kan", "cards": ["d4", "d4", "d4"], "huxi": 6},
    {"kind": "kan", "cards": ["d9", "d9", "d9"], "huxi": 6},
    {"kind": "ju", "cards": ["x1", "x2", "x3"], "huxi": 3},
    {"kind": "ju", "cards": ["x2", "x7", "x10"], "huxi": 3},
    {"kind": "ju", "cards": ["x8", "x9", "x10"], "huxi": 0},
    {"kind": "ju", "cards": ["d2", "d7", "d10"], "huxi": 6},
]
WU_HAND = "x1x1x1 d1d1d1 d3d3d3 x8x8x8 x4 x4 d4 d4"  # with pao:d9d9d9d9: waits x4, d4


def sorted_groups(groups: object) -> list[str]:
    """Groups (a response or a list of them) in a fixed order, to compare without the analysis' order."""
    if isinstance(groups, dict):
        groups = groups["groups"]
    return sorted(json.dumps(g, sort_keys=True) for g in groups)  # type: ignore[union-attr]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``paohuzi analyze ARGS`` in this process, with ``stdin`` as its standard input; what a subprocess would
    have given (exit status, stdout, stderr). An argparse exit (``SystemExit``) counts as the exit status."""
    out, err, saved = io.StringIO(), io.StringIO(), sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(["analyze", *args])
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(["paohuzi", "analyze", *args], status, out.getvalue(), err.getvalue())


def run_script(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``paohuzi analyze ARGS`` through the installed console script, in a subprocess."""
    if not SCRIPT.exists():  # pragma: no cover - the venv always has it
        pytest.skip(f"no console script at {SCRIPT}")
    return subprocess.run(
        [str(SCRIPT), "analyze", *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def run_json(request: object, *args: str) -> tuple[dict, int]:
    done = run("--json", *args, stdin=request if isinstance(request, str) else json.dumps(request))
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0]), done.returncode


class TestHuman:
    def test_complete_hand(self) -> None:
        done = run(RED_HAND, "--table", "peng:x7x7x7", "--card", "x10", "--source", "self", "--rules", "qq")
        assert done.returncode == 0 and done.stderr == ""
        out = done.stdout
        assert "complete with the card: 25 胡息, 10 points" in out
        for line in (
            "碰 peng  x7 x7 x7   七七七",
            "坎 kan   d4 d4 d4   肆肆肆",
            "句 ju    d2 d7 d10  贰柒拾",
        ):
            assert line in out
        assert "名堂    红胡 2番, 自摸 (底 +1)" in out
        assert "red 11 · big 9 · small 12" in out
        assert "番 2 × 底 5 = 10 points" in out

    def test_default_source_is_self_and_cards_as_arguments(self) -> None:
        done = run(*RED_HAND.split(), "--table", "peng:x7 x7 x7", "--card", "十")
        assert done.returncode == 0 and "番 2 × 底 5 = 10 points" in done.stdout

    def test_other_and_last_card(self) -> None:
        done = run(RED_HAND, "--table", "碰:七七七", "--card", "x10", "--source", "other", "--last-card")
        assert done.returncode == 0
        assert "card    x10 (十) from other, 海底 (last card)" in done.stdout
        assert "名堂    红胡 2番, 海底胡 2番" in done.stdout and "番 4 × 底 4 = 16 points" in done.stdout

    def test_discard_not_won(self) -> None:
        done = run(RED_HAND, "--table", "peng:x7x7x7", "--card", "x10", "--source", "discard")
        assert done.returncode == 0
        assert "not complete with this card" in done.stdout and "win_on_discard is off, R4.2" in done.stdout

    def test_waits(self) -> None:
        done = run(WU_HAND, "--table", "pao:d9d9d9d9")
        assert done.returncode == 0
        out = done.stdout
        assert "not complete as the cards stand" in out and "waits (听牌)" in out
        rows = [line.split() for line in out.splitlines() if line.startswith(("  x4", "  d4"))]
        assert rows == [
            ["x4", "四", "30", "乌胡,", "对对胡", "10", "7", "70"],
            ["d4", "肆", "33", "乌胡,", "对对胡", "10", "8", "80"],
        ]

    def test_no_waits(self) -> None:
        done = run("x1 x5 x9")
        assert done.returncode == 0 and "no waits" in done.stdout

    def test_tianhu_dealt(self) -> None:
        done = run("x1x1x1x1 x4x4x4x4 d5d5d5d5 x2 x3 x7 x9 d8 d8", "--tianhu")
        assert done.returncode == 0
        assert "complete as dealt (天胡, counted as 自摸): 30 胡息, 17 points" in done.stdout
        assert "loose  x2 x3 x7 x9 d8 d8" in done.stdout
        assert "天胡 (胡息 ×2 in the base)" in done.stdout

    def test_tianhu_on_a_card(self) -> None:
        done = run(RED_HAND, "--table", "peng:x7x7x7", "--card", "x10", "--source", "other", "--tianhu")
        assert done.returncode == 0 and "番 2 × 底 13 = 26 points" in done.stdout

    def test_other_preset(self) -> None:
        done = run(RED_HAND, "--table", "peng:x7x7x7", "--card", "x10", "--rules", "湖南")
        assert done.returncode == 0 and "红和 2番" in done.stdout and "rules   hunan (湖南)" in done.stdout

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["x1 y2"], "bad card token 'y2' at position 3 in 'x1 y2'"),
            (["x1 x1 x1", "--card", "x1", "--table", "peng:x1x1x1"], "more than 4 of a kind"),
            (["x1", "--table", "peng:x1x2x3"], "peng (碰) needs cards of one kind, got x1 x2 x3"),
            (["x1", "--table", "x1x2x3"], "a table group is written kind:cards"),
            (["x1", "--table", "pong:x1x1x1"], "unknown group kind 'pong'"),
            (["x1", "--table", "kan:x3x3x3"], "kan (坎) cannot lie on a table"),
            (["x1", "--table", "jiang:x3x3"], "jiang (将) cannot lie on a table"),
            (["x1", "--rules", "zz"], "unknown rules preset 'zz'"),
            ([], "give the cards in hand"),
            (["x1", "--source", "self"], "source 'self' needs a card"),
            (["x1", "--card", "x2", "--source", "none"], "card x2 needs a source"),
            (["x1", "--card", "x2", "--source", "table"], "source must be one of none, self, other, discard"),
            (["x1", "--card", "x2 x3"], "card must be exactly one card"),
            (["x1", "--card", "z9"], "bad card token 'z9'"),
        ],
    )
    def test_errors(self, args: list[str], message: str) -> None:
        done = run(*args)
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.startswith("paohuzi analyze: error: ") and message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


class TestJson:
    def test_complete(self) -> None:
        response, status = run_json(
            {
                "rules": "qq",
                "hand": RED_HAND,
                "table": [{"kind": "peng", "cards": "x7 x7 x7"}],
                "card": "x10",
                "source": "self",
                "last_card": False,
                "tianhu": False,
            }
        )
        assert status == 0
        # Table groups come first; the hand groups' order is the analysis' own, not part of the contract.
        assert response["groups"][0] == RED_GROUPS[0] and sorted_groups(response) == sorted_groups(RED_GROUPS)
        assert response == {
            "complete": True,
            "huxi": 25,
            "groups": response["groups"],
            "names": [{"name": "红胡", "fan": 2}, {"name": "自摸", "fan": 0}],
            "fan": 2,
            "base": 5,
            "points": 10,
            "zimo": True,
        }
        assert list(response) == ["complete", "huxi", "groups", "names", "fan", "base", "points", "zimo"]

    def test_defaults(self) -> None:
        """rules qq, source self with a card; hand and table cards may be token lists."""
        response, status = run_json(
            {"hand": RED_HAND.split(), "table": [{"kind": "碰", "cards": ["x7", "x7", "x7"]}], "card": "x10"}
        )
        assert status == 0 and response["points"] == 10 and response["zimo"] is True

    def test_other_source_haidi(self) -> None:
        response, _ = run_json(
            {"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10", "source": "other", "last_card": True}
        )
        assert response["names"] == [{"name": "红胡", "fan": 2}, {"name": "海底胡", "fan": 2}]
        assert (response["fan"], response["base"], response["points"], response["zimo"]) == (4, 4, 16, False)

    def test_rules_object(self) -> None:
        response, status = run_json(
            {"rules": {"name": "hunan", "stake": 2}, "hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10"}
        )
        assert status == 0 and response["names"][0] == {"name": "红和", "fan": 2}

    def test_incomplete_with_card(self) -> None:
        assert run_json({"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x5"}) == ({"complete": False}, 0)
        assert run_json({"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10", "source": "discard"}) == (
            {"complete": False},
            0,
        )

    def test_waits(self) -> None:
        response, status = run_json({"hand": WU_HAND, "table": [{"kind": "pao", "cards": "d9d9d9d9"}]})
        assert status == 0
        assert response == {
            "complete": False,
            "waits": [{"card": "x4", "huxi": 30, "points": 70}, {"card": "d4", "huxi": 33, "points": 80}],
        }

    def test_waits_last_card(self) -> None:
        response, _ = run_json({"hand": WU_HAND, "table": "pao:d9d9d9d9", "last_card": True, "source": "none"})
        assert response["waits"] == [
            {"card": "x4", "huxi": 30, "points": 84},
            {"card": "d4", "huxi": 33, "points": 96},
        ]

    def test_complete_as_it_stands_reports_both(self) -> None:
        """Without a card, a hand complete as it stands (a forced 提/偎 completion, 自摸) and its waits."""
        response, status = run_json({"hand": RED_HAND + " x10", "table": "peng:x7x7x7"})
        assert status == 0
        assert response["complete"] is True and response["zimo"] is True and response["points"] == 10
        assert sorted_groups(response) == sorted_groups(RED_GROUPS) and response["waits"] == []

    def test_tianhu_dealt_has_loose_cards(self) -> None:
        response, _ = run_json({"hand": "x1x1x1x1 x4x4x4x4 d5d5d5d5 x2 x3 x7 x9 d8 d8", "tianhu": True})
        assert response["loose"] == ["x2", "x3", "x7", "x9", "d8", "d8"]
        assert (response["huxi"], response["base"], response["points"]) == (30, 17, 17)
        assert response["names"] == [
            {"name": "平胡", "fan": 1},
            {"name": "天胡", "fan": 0},
            {"name": "自摸", "fan": 0},
        ]
        assert [g["kind"] for g in response["groups"]] == ["ti", "ti", "ti"]

    @pytest.mark.parametrize(
        ("request_", "message"),
        [
            ("{not json", "invalid JSON"),
            ("[1, 2]", "a request must be a JSON object, got list"),
            ({"hand": "x1 y2"}, "bad card token 'y2' at position 3 in 'x1 y2'"),
            ({"hand": ["x1", "q"]}, "bad card token 'q' at position 1 of hand"),
            ({"hand": [1]}, "hand[0] must be a card token"),
            ({"hand": 5}, "hand must be card text"),
            ({}, 'the request needs "hand"'),
            ({"hand": "x1", "hnad": "x2"}, "unknown request keys: hnad"),
            ({"hand": "x1 x1 x1 x1", "card": "x1"}, "more than 4 of a kind"),
            ({"hand": "x1 x1", "table": [{"kind": "peng", "cards": "x1 x1 x1"}]}, "5 × x1"),
            (
                {"hand": "x1", "table": [{"kind": "peng", "cards": "x1 x2 x3"}]},
                "peng (碰) needs cards of one kind",
            ),
            (
                {"hand": "x1", "table": [{"kind": "chi", "cards": "x1 x5 x9"}]},
                "chi (吃) needs a sequence or a 绞",
            ),
            (
                {"hand": "x1", "table": [{"kind": "kan", "cards": "x3 x3 x3"}]},
                "kan (坎) cannot lie on a table",
            ),
            ({"hand": "x1", "table": [{"kind": "peng"}]}, "table[0] must be"),
            ({"hand": "x1", "table": {"peng": "x3x3x3"}}, "table must be a list"),
            ({"hand": "x1", "rules": "zz"}, "unknown rules preset 'zz'"),
            ({"hand": "x1", "rules": {"name": "qq", "min_huxi": -3}}, "min_huxi must be one of 15, 18, 21, got -3"),
            ({"hand": "x1", "rules": 3}, "rules must be a preset name or an object"),
            ({"hand": "x1", "card": 10}, "card must be one card token"),
            ({"hand": "x1", "source": "self"}, "source 'self' needs a card"),
            ({"hand": "x1", "card": "x2", "source": "none"}, "card x2 needs a source"),
            ({"hand": "x1", "card": "x2", "source": "floor"}, "source must be one of"),
            ({"hand": "x1", "last_card": "yes"}, "last_card must be true or false"),
            ({"hand": "x1", "tianhu": 1}, "tianhu must be true or false"),
        ],
    )
    def test_errors(self, request_: object, message: str) -> None:
        response, status = run_json(request_)
        assert status == 2
        assert list(response) == ["error"] and message in response["error"]

    def test_json_with_human_arguments_is_an_error(self) -> None:
        response, status = run_json({"hand": "x1"}, "x1", "--card", "x2")
        assert status == 2 and "do not also give a hand argument, --card" in response["error"]


class TestBatch:
    def test_batch_file(self, tmp_path: Path) -> None:
        requests = tmp_path / "requests.jsonl"
        requests.write_text(
            "\n".join(
                [
                    json.dumps({"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10"}),
                    "",
                    json.dumps({"hand": "x1 y2"}),
                    "{oops",
                    json.dumps({"hand": WU_HAND, "table": "pao:d9d9d9d9"}, ensure_ascii=False),
                ]
            )
            + "\n",
            encoding="utf-8",
        )
        done = run("--batch", str(requests))
        assert done.returncode == 2 and done.stderr == ""
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(answers) == 4  # the blank line is not a request
        assert answers[0]["points"] == 10
        assert answers[1] == {"error": "bad card token 'y2' at position 3 in 'x1 y2'"}
        assert answers[2]["error"].startswith("invalid JSON")
        assert answers[3]["waits"][1] == {"card": "d4", "huxi": 33, "points": 80}

    def test_batch_all_good_from_stdin(self) -> None:
        lines = [
            json.dumps({"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10", "source": s})
            for s in ("self", "other", "discard")
        ]
        done = run("--batch", "-", stdin="\n".join(lines))
        assert done.returncode == 0
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert [a.get("points") for a in answers] == [10, 8, None]
        assert answers[2] == {"complete": False}

    def test_batch_missing_file(self, tmp_path: Path) -> None:
        done = run("--batch", str(tmp_path / "nope.jsonl"))
        assert done.returncode == 2
        assert json.loads(done.stdout)["error"].startswith("cannot read ")

    def test_batch_with_json_flag(self, tmp_path: Path) -> None:
        requests = tmp_path / "r.jsonl"
        requests.write_text(json.dumps({"hand": "x1 x2"}) + "\n", encoding="utf-8")
        done = run("--json", "--batch", str(requests))
        assert done.returncode == 0 and json.loads(done.stdout) == {"complete": False, "waits": []}


class TestConsoleScript:
    """The same through the installed ``paohuzi`` script, once per mode: what the in-process runs above cannot
    show (the entry point, the exit status of a process, a traceback-free error, UTF-8 through a pipe)."""

    def test_human(self) -> None:
        done = run_script(RED_HAND, "--table", "peng:x7x7x7", "--card", "x10", "--source", "self", "--rules", "qq")
        assert done.returncode == 0 and done.stderr == ""
        assert "complete with the card: 25 胡息, 10 points" in done.stdout
        assert "坎 kan   d4 d4 d4   肆肆肆" in done.stdout

    def test_human_error_is_one_line_and_exit_2(self) -> None:
        done = run_script("x1 y2")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == "paohuzi analyze: error: bad card token 'y2' at position 3 in 'x1 y2'\n"

    def test_json(self) -> None:
        done = run_script("--json", stdin=json.dumps({"hand": WU_HAND, "table": "pao:d9d9d9d9"}))
        assert done.returncode == 0 and done.stderr == ""
        assert json.loads(done.stdout) == {
            "complete": False,
            "waits": [{"card": "x4", "huxi": 30, "points": 70}, {"card": "d4", "huxi": 33, "points": 80}],
        }

    def test_batch_with_a_bad_line_exits_2(self) -> None:
        lines = [json.dumps({"hand": RED_HAND, "table": "peng:x7x7x7", "card": "x10"}), "{oops"]
        done = run_script("--batch", "-", stdin="\n".join(lines) + "\n")
        assert done.returncode == 2 and done.stderr == ""
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert answers[0]["points"] == 10 and answers[1]["error"].startswith("invalid JSON")
