"""Rule sets (R8): the presets match the R8 table exactly, aliases find them, bad options are all listed."""

from __future__ import annotations

import dataclasses

import pytest

from paohuzi.cards import PaohuziError
from paohuzi.rules import FAN_TABLES, HUAYANG_LEVELS, RuleSet, RuleSetError, find_preset, preset_names
from paohuzi.rules.families import FAMILY_FIELDS, HAND_FIELDS

# The R8 table of docs/rules.md, column by column ("名堂 table" A/B/C is fan_table qq/hunan/huayang).
R8 = {
    "qq": {
        "four_players": False,
        "min_huxi": 15,
        "chou_blocks_peng": True,
        "win_on_discard": False,
        "tianhu_on_liangzhang": True,
        "tianhu_double_huxi": True,
        "fan_table": "qq",
        "stake": 3,
    },
    "hengyang": {
        "four_players": False,
        "min_huxi": 15,
        "chou_blocks_peng": True,
        "win_on_discard": False,
        "tianhu_on_liangzhang": True,
        "tianhu_double_huxi": True,
        "fan_table": "qq",
        "stake": 1,
    },
    "hunan": {
        "four_players": False,
        "min_huxi": 15,
        "chou_blocks_peng": False,
        "win_on_discard": False,
        "tianhu_on_liangzhang": False,
        "tianhu_double_huxi": False,
        "fan_table": "hunan",
        "stake": 1,
    },
    "huayang": {
        "four_players": False,
        "min_huxi": 15,
        "chou_blocks_peng": True,
        "win_on_discard": False,
        "tianhu_on_liangzhang": False,
        "tianhu_double_huxi": False,
        "fan_table": "huayang",
        "huayang_level": "half",
        "stake": 1,
    },
}


class TestPresets:
    def test_names(self) -> None:
        assert preset_names() == (
            "qq", "changde", "changde_qmt", "hengyang", "huayang", "hunan", "liuhuqiang", "shihuka"
        )  # fmt: skip
        assert {n for n in preset_names() if find_preset(n).family == "classic"} == set(R8)

    @pytest.mark.parametrize("name", list(R8))
    def test_match_r8_table(self, name: str) -> None:
        rules = find_preset(name)
        assert rules.name == name
        for option, value in R8[name].items():
            assert getattr(rules, option) == value, option
            assert type(getattr(rules, option)) is type(value), option

    def test_every_option_is_covered(self) -> None:
        # the R8 table's options; the R8.1 house options (tests/rules/test_r8_1_options.py) have one default
        house = {"rounds", "zimo", "cap", "must_hu", "discarder_pays", "first_dealer"}
        # the R9 fields (issue 29) belong to the families, tests/rules/test_r9_families.py
        options = {f.name for f in dataclasses.fields(RuleSet)} - {"name", "title", "huayang_level"} - house
        options -= set(FAMILY_FIELDS) | set(HAND_FIELDS)  # and issue 30's (R9.3), tests/rules/test_r9_3_liuhuqiang.py
        for name, table in R8.items():
            assert options <= set(table), name

    def test_players(self) -> None:
        # R8 "players": 3 everywhere; 湖南 may seat four (守醒, R2).
        assert all(find_preset(n).players_at_table == 3 for n in R8)
        assert find_preset("hunan").with_options(four_players=True).players_at_table == 4

    def test_default_is_qq(self) -> None:
        assert find_preset("default") == find_preset("qq") == RuleSet(stake=3) == RuleSet.from_dict({"stake": 3})

    def test_titles(self) -> None:
        assert {n: find_preset(n).title for n in R8} == {
            "qq": "QQ游戏",
            "hengyang": "衡阳",
            "hunan": "湖南",
            "huayang": "花样",
        }

    @pytest.mark.parametrize(
        ("alias", "name"),
        [
            ("QQ", "qq"),
            ("qqgame", "qq"),
            ("default", "qq"),
            (" Default ", "qq"),
            ("衡阳", "hengyang"),
            ("湖南", "hunan"),
            ("HUNAN", "hunan"),
            ("花样", "huayang"),
            ("HuaYang", "huayang"),
        ],
    )
    def test_aliases(self, alias: str, name: str) -> None:
        assert find_preset(alias) is find_preset(name)

    @pytest.mark.parametrize("bad", ["nope", "", "q q", 3, None])
    def test_unknown_preset(self, bad: object) -> None:
        with pytest.raises(RuleSetError) as err:
            find_preset(bad)  # type: ignore[arg-type]
        assert "unknown rules preset" in str(err.value)
        assert "qq, changde, changde_qmt, hengyang, huayang, hunan, liuhuqiang, shihuka" in str(err.value)

    def test_frozen(self) -> None:
        with pytest.raises(dataclasses.FrozenInstanceError):
            find_preset("qq").stake = 9  # type: ignore[misc]


class TestOptions:
    def test_with_options(self) -> None:
        rules = find_preset("qq").with_options(min_huxi=18, win_on_discard=True)
        assert (rules.name, rules.min_huxi, rules.win_on_discard, rules.stake) == ("qq", 18, True, 3)
        assert find_preset("qq").min_huxi == 15

    def test_round_trip_dict(self) -> None:
        for name in R8:
            rules = find_preset(name).with_options(stake=7)
            assert RuleSet.from_dict(rules.to_dict()) == rules

    def test_every_bad_option_listed(self) -> None:
        with pytest.raises(RuleSetError) as err:
            RuleSet(
                four_players=1,
                min_huxi=-1,
                stake="3",
                fan_table="zz",
                huayang_level="full",  # type: ignore[arg-type]
                tianhu_double_huxi="yes",
            )  # type: ignore[arg-type]
        message = str(err.value)
        for fragment in (
            "four_players must be true or false, got 1",
            "min_huxi must be one of 15, 18, 21, got -1",
            "stake must be a whole number",
            "fan_table must be one of qq, hunan, huayang, got 'zz'",
            "huayang_level must be one of basic, half, got 'full'",
            "tianhu_double_huxi must be true or false",
        ):
            assert fragment in message
        assert message.count(";") == 5

    def test_bool_is_not_a_number(self) -> None:
        with pytest.raises(RuleSetError, match="min_huxi"):
            find_preset("qq").with_options(min_huxi=True)

    def test_every_unknown_option_listed(self) -> None:
        with pytest.raises(RuleSetError) as err:
            find_preset("qq").with_options(shou_xing=True, zz=1)
        assert "unknown rule options: shou_xing, zz" in str(err.value)
        assert "min_huxi" in str(err.value)  # the known ones are listed

    def test_from_dict_errors(self) -> None:
        with pytest.raises(RuleSetError, match="unknown rules preset"):
            RuleSet.from_dict({"name": "nope"})
        with pytest.raises(RuleSetError, match="rules must be an object"):
            RuleSet.from_dict(["qq"])  # type: ignore[arg-type]
        with pytest.raises(RuleSetError, match="unknown rule options: bogus"):
            RuleSet.from_dict({"name": "hunan", "bogus": 1})

    def test_constants(self) -> None:
        assert FAN_TABLES == ("qq", "hunan", "huayang", "changde", "changde_qmt", "shihuka", "liuhuqiang")
        assert HUAYANG_LEVELS == ("basic", "half")
        assert issubclass(RuleSetError, PaohuziError)
