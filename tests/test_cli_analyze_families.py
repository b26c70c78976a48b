"""``paohuzi analyze`` under the regional families (R9.1, R9.2, R9.4): ``"rules": "shihuka"`` and the others, the
play's facts (``drawn_before``, ``xing_card``, ``dihu``, ``tinghu``), the answer's 囤, 醒, 名堂 and formula, and
the errors naming the field and the family. Exact values from the rule book's test anchors. In process
(``paohuzi.cli.main``), and once through the real console script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paohuzi.cli import main

# R9.2's 卡胡: with 五 drawn by the winner, the table 碰 of 五 becomes a 跑 (12 胡息, the 将 十十) or stays a 碰 with
# 三四五 among the hand's 句 (10 胡息). 6 red (二 七 十 十 贰 拾): 平胡.
KAHU = {"hand": "x2 x3 x4 x6 x7 x8 x9 x10 x10 d1 d2 d3 d6 d6 d8 d9 d10", "table": "peng:x5x5x5", "card": "x5"}
KAHU_GROUPS = ["peng:x5 x5 x5", "ju:d1 d2 d3", "ju:x2 x7 x10", "ju:x3 x4 x5", "jiao:x6 d6 d6", "ju:x8 x9 x10",
               "ju:d8 d9 d10"]  # fmt: skip
# R9.2's first anchor: 11 胡息 and 11 red (红胡 2番), 七 drawn by the winner, one reading only.
ELEVEN = {
    "hand": "x10 x2 d6 x4 d2 d7 d3 d5 x3 x5 d1",
    "table": [{"kind": "peng", "cards": "x5 x5 x5"}, {"kind": "chi", "cards": "x10 d10 d10"},
              {"kind": "peng", "cards": "x2 x2 x2"}],
    "card": "x7",
}  # fmt: skip
# R9.1's anchor: 自摸 of 贰, 21 胡息, 12 red, 6 big (no 大字/小字), one reading: base 3 + 1, 红胡 3 + 2 = 5番.
QMT = {"hand": "d7 x5 x8 d1 d10 x6 x3 x10 x7 d3 x7 x4 d2 x2 x3 x2 x1", "table": "chi:x2x7x10", "card": "d2"}


def answer(request: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], int]:
    """``paohuzi analyze --json`` on one request, in process."""
    sys.stdin, saved = __import__("io").StringIO(json.dumps(request)), sys.stdin
    try:
        status = main(["analyze", "--json"])
    finally:
        sys.stdin = saved
    out = capsys.readouterr()
    assert out.err == ""
    return json.loads(out.out), status


def names(response: dict[str, Any]) -> list[tuple[str, int]]:
    return [(n["name"], n["fan"]) for n in response["names"]]


def groups(response: dict[str, Any]) -> list[str]:
    return [f"{g['kind']}:{' '.join(g['cards'])}" for g in response["groups"]]


class TestAnchors:
    def test_r9_2_kahu_10_huxi_beats_12(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.2: 10 胡息 平胡 自摸 → 3 × 1 × 2 = 6 per loser; the 12-胡息 reading would give 2 × 1 × 2 = 4."""
        got, status = answer({"rules": "shihuka", **KAHU}, capsys)
        assert status == 0
        assert got["huxi"] == 10 and got["tun"] == 3 and got["xing"] == 0 and got["points"] == 6
        assert sorted(groups(got)) == sorted(KAHU_GROUPS)
        assert got["combine"] == "add" and got["zimo"] is True
        assert "卡胡" in got["formula"] and got["formula"].endswith("= 6分")

    def test_r9_2_eleven_huxi_red_zimo(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.2: 11 胡息, 11 red, 自摸 → 1 × 2 × 2 = 4 per loser."""
        got, _ = answer({"rules": "十胡卡", **ELEVEN, "source": "self"}, capsys)
        assert (got["huxi"], got["tun"], got["fan"], got["points"]) == (11, 1, 2, 4)
        assert ("红胡", 2) in names(got)

    def test_r9_2_eleven_huxi_on_a_discard(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.2: the same won on a discard: 1 × 2 = 2 points (the discarder pays them × 2, R7.3), no 自摸."""
        got, _ = answer({"rules": "shihuka", **ELEVEN, "source": "discard"}, capsys)
        assert (got["huxi"], got["tun"], got["fan"], got["points"], got["zimo"]) == (11, 1, 2, 2, False)

    def test_r9_1_changde_qmt_anchor(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.1: 自摸, 21 胡息, 12 red, changde_qmt → base 3 + 1 = 4, 番 5, 20 points."""
        got, _ = answer({"rules": "changde_qmt", **QMT}, capsys)
        assert (got["huxi"], got["base"], got["fan"], got["points"]) == (21, 4, 5, 20)
        assert names(got)[0] == ("红胡", 5)

    def test_r9_1_huangfan_after_two_drawn_hands(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.1: the same after 2 drawn hands with 黄番: 番 5 + 3 = 8, 32 points."""
        got, _ = answer({"rules": "changde_qmt", "options": {"huangfan": True}, **QMT, "drawn_before": 2}, capsys)
        assert (got["fan"], got["points"]) == (8, 32)
        assert ("黄番", 3) in names(got)
        one, _ = answer({"rules": "changde_qmt", "options": {"huangfan": True}, **QMT, "drawn_before": 1}, capsys)
        none, _ = answer({"rules": "changde_qmt", "options": {"huangfan": True}, **QMT, "drawn_before": 0}, capsys)
        assert (one["fan"], one["points"], none["fan"], none["points"]) == (7, 28, 5, 20)

    def test_r9_4_sui_xing_card_counts_every_copy(self, capsys: pytest.CaptureFixture[str]) -> None:
        """R9.4 随醒 with the card won (五): the 碰 of 五 (3) and 三四五 (1) → 醒 4; (3 + 4) × 1 × 2 = 14, and the
        10-胡息 reading still wins (the 12's 跑 also holds 4: (2 + 4) × 2 = 12)."""
        request = {"rules": "shihuka", "options": {"xing": "sui"}, **KAHU, "xing_card": "x5"}
        got, _ = answer(request, capsys)
        assert (got["huxi"], got["tun"], got["xing"], got["xing_card"], got["points"]) == (10, 3, 4, "x5", 14)

    def test_r9_4_fan_xing_card_not_held(self, capsys: pytest.CaptureFixture[str]) -> None:
        """翻醒 of a card the winner does not hold: 醒 0."""
        got, _ = answer({"rules": "shihuka", "options": {"xing": "fan"}, **KAHU, "xing_card": "d5"}, capsys)
        assert (got["xing"], got["xing_card"], got["points"]) == (0, "d5", 6)


class TestFacts:
    def test_r9_1_dihu_and_tinghu_add_6_each(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Table E: 地胡 6, 听胡 6, adding up with 红胡 5: base 4 × (5 + 6) = 44, × (5 + 6 + 6) = 68. The table's
        吃 means no 听胡 when the request does not say (derived from the table)."""
        dihu, _ = answer({"rules": "changde_qmt", **QMT, "dihu": True}, capsys)
        both, _ = answer({"rules": "changde_qmt", **QMT, "dihu": True, "tinghu": True}, capsys)
        derived, _ = answer({"rules": "changde_qmt", **QMT, "tinghu": None}, capsys)
        assert (dihu["fan"], dihu["points"], ("地胡", 6) in names(dihu)) == (11, 44, True)
        assert (both["fan"], both["points"], ("听胡", 6) in names(both)) == (17, 68, True)
        assert (derived["fan"], derived["points"]) == (5, 20)

    def test_r9_1_dihu_scores_nothing_where_the_table_has_none(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Decision (docs/scoring.md): 地胡 under table D (changde) is accepted and adds nothing."""
        plain, _ = answer({"rules": "changde", **QMT}, capsys)
        dihu, status = answer({"rules": "changde", **QMT, "dihu": True}, capsys)
        assert status == 0 and dihu == plain


class TestOldPresetsUnchanged:
    def test_no_family_keys_for_qq(self, capsys: pytest.CaptureFixture[str]) -> None:
        got, _ = answer({"rules": "qq", **QMT}, capsys)
        assert not {"tun", "xing", "xing_card", "combine", "formula"} & set(got)


class TestErrors:
    @pytest.mark.parametrize(
        ("request_", "words"),
        [
            ({"rules": "changde_qmt", **QMT, "drawn_before": 2}, ["drawn_before 2", "黄番", "changde family", "huangfan"]),  # noqa: E501
            ({"rules": "changde", **QMT, "drawn_before": 1}, ["drawn_before 1", "黄番", "changde rules (changde family)"]),  # noqa: E501
            ({"rules": "shihuka", **KAHU, "drawn_before": 1}, ["drawn_before 1", "(shihuka family) do not have"]),
            ({"rules": "qq", **KAHU, "drawn_before": 1}, ["drawn_before 1", "qq rules (classic family)"]),
            ({"rules": "changde_qmt", **QMT, "drawn_before": -1}, ["drawn_before", "≥ 0", "-1"]),
            ({"rules": "changde_qmt", **QMT, "drawn_before": True}, ["drawn_before", "True"]),
            ({"rules": "changde_qmt", **QMT, "drawn_before": "2"}, ["drawn_before", "'2'"]),
            ({"rules": "shihuka", **KAHU, "xing_card": "x5"}, ["xing_card", "醒", "shihuka"]),
            ({"rules": "changde", **QMT, "xing_card": "x5"}, ["xing_card", "醒", "changde"]),
            ({"rules": "shihuka", "options": {"xing": "sui"}, **KAHU, "xing_card": "x11"}, ["x11"]),
            ({"rules": "shihuka", "options": {"xing": "sui"}, **KAHU, "xing_card": "x1 x2"}, ["xing_card", "one"]),
            ({"rules": "shihuka", "options": {"xing": "sui"}, **KAHU, "xing_card": 5}, ["xing_card", "5"]),
            ({"rules": "changde_qmt", **QMT, "dihu": "yes"}, ["dihu", "true or false"]),
            ({"rules": "changde_qmt", **QMT, "tinghu": 1}, ["tinghu", "true or false"]),
            ({"rules": "changde", "options": {"xing": "sui"}, **QMT}, ["xing", "changde"]),
            ({"rules": "changde", "options": {"win_on_discard": True}, **QMT}, ["win_on_discard", "changde"]),
            ({"rules": "shihuka", "options": {"min_huxi": 15}, **KAHU}, ["min_huxi", "shihuka"]),
        ],
    )
    def test_bad_fact_or_option_names_the_field_and_family(
        self, request_: dict[str, Any], words: list[str], capsys: pytest.CaptureFixture[str]
    ) -> None:
        got, status = answer(request_, capsys)
        assert status == 2 and set(got) == {"error"}
        for word in words:
            assert word in got["error"], (word, got["error"])


class TestHuman:
    def test_text_lists_tun_xing_and_formula(self, capsys: pytest.CaptureFixture[str]) -> None:
        status = main([
            "analyze", *KAHU["hand"].split(), "--table", KAHU["table"], "--card", "x5", "--rules", "shihuka",
            "--option", "xing=sui", "--xing-card", "x5",
        ])  # fmt: skip
        out = capsys.readouterr().out
        assert status == 0
        assert "complete with the card: 10 胡息, 14 points" in out
        assert "card    x5 (五) from self, 醒 card x5 (五)" in out
        assert "囤 3 · 醒 4 (醒 card x5 五) · 番 add up (R9)" in out
        assert "= 14分" in out

    def test_text_drawn_before_needs_huangfan(self, capsys: pytest.CaptureFixture[str]) -> None:
        status = main(["analyze", *QMT["hand"].split(), "--table", QMT["table"], "--card", "d2", "--rules",
                       "changde_qmt", "--drawn-before", "2"])  # fmt: skip
        err = capsys.readouterr().err
        assert status == 2 and "drawn_before 2 needs 黄番 (R9.1)" in err and "changde family" in err

    def test_json_mode_refuses_the_fact_flags(self, capsys: pytest.CaptureFixture[str]) -> None:
        status = main(["analyze", "--json", "--xing-card", "x5"])
        got = json.loads(capsys.readouterr().out)
        assert status == 2 and "--xing-card" in got["error"]


def test_console_script_shihuka() -> None:
    """The real console script: ``"rules": "shihuka"`` in a batch line."""
    script = Path(sys.executable).with_name("paohuzi")
    if not script.exists():  # pragma: no cover - the venv always has it
        pytest.skip(f"no console script at {script}")
    done = subprocess.run(
        [str(script), "analyze", "--batch", "-"], input=json.dumps({"rules": "shihuka", **KAHU}) + "\n",
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == ""
    got = json.loads(done.stdout)
    assert (got["huxi"], got["tun"], got["points"]) == (10, 3, 6)
