"""The words of the regional families (R9.1, R9.2, R9.4; issue 29) in both languages: every 名堂 of tables
D, E and F (and 卡胡) has its English, every option a family offers in the create-room dialog has a label
and each of its values a word, and every preset and family a name. No browser needed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from paohuzi.rules import family_options, find_preset, preset_names

from .make_font import WEB

# The 名堂 of R9.1 Table D (常德 红黑点), Table E (常德 全名堂) and R9.2 Table F (十胡卡), as the server names
# them, and 卡胡 (R9.2: 10 胡息 scores 3 囤).
TABLE_D = ("红胡", "红乌", "点胡", "黑胡", "对对胡")
TABLE_E = ("红胡", "点胡", "黑胡", "大字胡", "小字胡", "对对胡", "海底胡", "天胡", "地胡", "听胡")
TABLE_E_OPTIONS = ("耍猴", "行行息", "团圆", "黄番")
TABLE_F = ("红胡", "红乌", "一点红", "黑胡", "天胡", "地胡", "海底")
# The options the create dialog shows (web/js/create_room.js ORDER and CHECKS) and the key of each label.
LABELS = {
    "min_huxi": "optMinHuxi",
    "zimo": "optZimo",
    "cap": "optCap",
    "first_dealer": "optDealer",
    "must_hu": "optMustHu",
    "four_players": "fourPlayers",
    "xing": "optXing",
    "base_bonus": "optBaseBonus",
    "hongheidian": "optHongheidian",
    "duiduihu": "optDuiduihu",
    "tiandi_haidi": "optTiandiHaidi",
    "shuahou": "optShuahou",
    "hanghangxi": "optHanghangxi",
    "tuanyuan": "optTuanyuan",
    "huangfan": "optHuangfan",
}
VALUE_KEYS = {"xing": "xing_{}", "base_bonus": "baseBonus_{}", "zimo": "zimo_{}", "first_dealer": "dealer_{}"}


@pytest.fixture(scope="module")
def words() -> dict[str, dict[str, Any]]:
    return {name: json.loads((WEB / "i18n" / f"{name}.json").read_text(encoding="utf-8")) for name in ("zh", "en")}


@pytest.mark.parametrize("name", sorted({*TABLE_D, *TABLE_E, *TABLE_E_OPTIONS, *TABLE_F, "卡胡"}))
def test_r9_every_mingtang_of_tables_d_e_f_has_its_english(words: dict[str, dict[str, Any]], name: str) -> None:
    english = words["en"]["mingtang"].get(name)
    assert english and not re.search(r"[\u4e00-\u9fff]", english), (name, english)


def test_r9_every_option_a_family_offers_has_a_label_and_words_for_its_values(
    words: dict[str, dict[str, Any]],
) -> None:
    shown = set()
    for preset in preset_names():
        for option, values in family_options(find_preset(preset)).items():
            if option not in LABELS:
                continue  # not offered in the dialog (R8.1 options rooms have never set: 臭牌, 亮张 天胡 …)
            shown.add(option)
            for lang in ("zh", "en"):
                strings = words[lang]["strings"]
                assert strings.get(LABELS[option]), (lang, option)
                if option in VALUE_KEYS:
                    for value in values:
                        assert strings.get(VALUE_KEYS[option].format(value)), (lang, option, value)
    assert {"xing", "base_bonus", "hongheidian", "duiduihu", "shuahou", "huangfan"} <= shown


def test_r9_every_preset_and_family_has_a_name_in_both_languages(words: dict[str, dict[str, Any]]) -> None:
    for lang in ("zh", "en"):
        assert set(words[lang]["presets"]) == set(preset_names()), lang
        for preset in preset_names():
            assert words[lang]["strings"][f"family_{find_preset(preset).family}"], (lang, preset)
    assert words["zh"]["presets"]["shihuka"] == find_preset("shihuka").title == "衡阳十胡卡"
    assert words["zh"]["strings"]["xing_fan"] == "翻醒" and words["zh"]["strings"]["xing_sui"] == "随醒"
