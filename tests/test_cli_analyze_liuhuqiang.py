"""``paohuzi analyze`` under 衡阳六胡抢 (R9.3): ``"rules": "liuhuqiang"`` and its options (``tun``, ``di``,
``players``, ``yiwushi``, ``xing``), the answer's 囤, 醒, table G (multiply) and formula, and the errors naming the
option and the family. Exact values from the rule book's test anchor. In process (``paohuzi.cli.main``).
"""

from __future__ import annotations

import json
import sys
from io import StringIO
from typing import Any

import pytest

from paohuzi.cli import main

# R9.3's anchor: 贰 drawn onto a hand 坎 of 贰 (提), 碰 七, 碰 十, 四五六, 将 八八: 14 胡息, 10 red.
ANCHOR = {"hand": "d2 d2 d2 x4 x5 x6 x8 x8", "table": "peng:x7x7x7 peng:x10x10x10", "card": "d2", "source": "self"}
# 一五十 壹伍拾 二三四 贰叁肆 + 八 drawn onto 八八 (偎): 12 胡息 with yiwushi, no reading without it.
YIWUSHI = {"hand": "x1 x5 x10 d1 d5 d10 x2 x3 x4 d2 d3 d4 x8 x8", "card": "x8", "source": "self"}


def answer(request: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], int]:
    sys.stdin, saved = StringIO(json.dumps(request)), sys.stdin
    try:
        status = main(["analyze", "--json"])
    finally:
        sys.stdin = saved
    out = capsys.readouterr()
    assert out.err == ""
    return json.loads(out.out), status


class TestR9_3Analyze:
    def test_r9_3_anchor(self, capsys: pytest.CaptureFixture[str]) -> None:
        got, status = answer({"rules": "liuhuqiang", "options": {"xing": "sui"}, "xing_card": "d2", **ANCHOR}, capsys)
        assert status == 0
        assert (got["huxi"], got["tun"], got["xing"], got["fan"], got["base"], got["points"]) == (14, 3, 4, 4, 7, 56)
        assert got["combine"] == "multiply" and got["xing_card"] == "d2"
        assert [(n["name"], n["fan"]) for n in got["names"]] == [("大红", 4), ("自摸", 0)]
        assert got["formula"] == "(3囤 + 4醒) × 大红4番 × 自摸2 = 56分"
        assert len(got["groups"]) == 5

    @pytest.mark.parametrize(
        ("options", "points", "text"),
        [
            ({"di": 2}, 32, "4囤 × 大红4番 × 自摸2 = 32分"),
            ({"tun": "1xi1tun"}, 56, "14囤 × 大红2番 × 自摸2 = 56分"),
            ({"zimo": "none"}, 12, "3囤 × 大红4番 = 12分"),
            ({"hongheidian": False}, 6, "3囤 × 平胡1番 × 自摸2 = 6分"),
        ],
    )
    def test_r9_3_options(
        self, options: dict[str, object], points: int, text: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        got, status = answer({"rules": {"name": "liuhuqiang", **options}, **ANCHOR}, capsys)
        assert status == 0 and (got["points"], got["formula"]) == (points, text)

    def test_r9_3_yiwushi(self, capsys: pytest.CaptureFixture[str]) -> None:
        got, status = answer({"rules": "liuhuqiang", "options": {"yiwushi": True}, **YIWUSHI}, capsys)
        assert status == 0 and (got["huxi"], got["tun"], got["points"]) == (12, 3, 6)
        assert {"ju:x1 x5 x10", "ju:d1 d5 d10"} <= {f"{g['kind']}:{' '.join(g['cards'])}" for g in got["groups"]}
        got, status = answer({"rules": "liuhuqiang", **YIWUSHI}, capsys)
        assert (got, status) == ({"complete": False}, 0)

    def test_r9_3_waits_with_yiwushi(self, capsys: pytest.CaptureFixture[str]) -> None:
        # 一五 + 贰叁肆 + 坎 八 + 一二三 …: with the option 十 completes 一五十.
        request = {"rules": "liuhuqiang", "options": {"yiwushi": True}, "hand": "x1 x5 d2 d3 d4 x8 x8 x8 x1 x2 x3"}
        got, status = answer(request, capsys)
        assert status == 0 and [w["card"] for w in got["waits"]] == ["x10"]

    @pytest.mark.parametrize(
        ("request_", "message"),
        [
            ({"rules": "liuhuqiang", "options": {"players": 5}, "hand": "x2 x3 x4"},
             "players must be one of 4, 3 in the liuhuqiang family (R9.3), got 5"),
            ({"rules": {"name": "liuhuqiang", "min_huxi": 10}, "hand": "x2 x3 x4"},
             "min_huxi must be one of 6, 9, 15 in the liuhuqiang family (R9.3), got 10"),
            ({"rules": "liuhuqiang", "options": {"four_players": True}, "hand": "x2 x3 x4"},
             "four_players is not an option of the liuhuqiang family"),
            ({"rules": "qq", "options": {"yiwushi": True}, "hand": "x2 x3 x4"},
             "yiwushi is not an option of the classic family"),
            ({"rules": "qq", "hand": "x2 x3 x4", "table": "chi:x1x5x10"},
             "ju:x1 x5 x10 (一五十) is a 句 only with the rule option yiwushi (R9.3)"),
            ({"rules": "liuhuqiang", "xing_card": "d2", **ANCHOR},
             "xing_card is given but the liuhuqiang rules (liuhuqiang family) have no 醒 (xing is none, R9.4)"),
        ],
    )  # fmt: skip
    def test_r9_3_errors_name_option_and_family(
        self, request_: dict[str, Any], message: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        got, status = answer(request_, capsys)
        assert status == 2 and message in got["error"]
