"""R9 rule families as data (issue 29): the presets changde, changde_qmt, shihuka (R9.1, R9.2), the options each
family offers (family_options), and the errors naming the option and the family."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.rules import RuleSet, RuleSetError, family_options, find_preset, parse_rules, preset_names
from paohuzi.rules.families import FAMILIES, FAMILY_FIELDS

CLASSIC = ("qq", "hengyang", "hunan", "huayang")
NEW = ("changde", "changde_qmt", "shihuka")


class TestR9Presets:
    def test_r9_families_of_every_preset(self) -> None:
        assert {n: find_preset(n).family for n in preset_names()} == {
            "qq": "classic",
            "hengyang": "classic",
            "hunan": "classic",
            "huayang": "classic",
            "changde": "changde",
            "changde_qmt": "changde",
            "shihuka": "shihuka",
            "liuhuqiang": "liuhuqiang",  # R9.3 (issue 30)
        }

    def test_r9_titles_and_aliases(self) -> None:
        assert [find_preset(n).title for n in NEW] == ["常德红黑点", "常德全名堂", "衡阳十胡卡"]
        assert find_preset("常德") is find_preset("changde")
        assert find_preset("红黑点") is find_preset("changde")
        assert find_preset("全名堂") is find_preset("changde_qmt")
        assert find_preset("十胡卡") is find_preset("shihuka")
        assert find_preset("衡阳十胡卡") is find_preset("SHIHUKA")

    def test_r9_1_changde_is_hunan_with_table_d(self) -> None:
        # R9.1: as hunan: 3 players, chou_blocks_peng off, no 亮张 天胡; 15; R7.1 base, 自摸 + 1; drawn cards only
        hunan = find_preset("hunan")
        for name, table in (("changde", "changde"), ("changde_qmt", "changde_qmt")):
            rules = find_preset(name)
            same = ("four_players", "min_huxi", "chou_blocks_peng", "win_on_discard", "tianhu_on_liangzhang")
            assert all(getattr(rules, o) == getattr(hunan, o) for o in (*same, "tianhu_double_huxi", "stake"))
            assert (rules.fan_table, rules.tun, rules.zimo, rules.xing, rules.duiduihu) == (
                table, "classic", "plus_one", "none", True,
            )
            assert not (rules.shuahou or rules.hanghangxi or rules.tuanyuan or rules.huangfan)

    def test_r9_2_shihuka_is_hengyang_but(self) -> None:
        rules = find_preset("shihuka")
        assert (rules.min_huxi, rules.win_on_discard, rules.discarder_pays, rules.zimo) == (10, True, True, "double")
        assert (rules.tianhu_double_huxi, rules.tianhu_on_liangzhang, rules.chou_blocks_peng) == (False, True, True)
        assert (rules.tun, rules.fan_table, rules.hongheidian) == ("shihuka", "shihuka", True)
        assert not rules.tiandi_haidi
        assert (rules.xing, rules.base_bonus, rules.stake, rules.players_at_table) == ("none", "none", 1, 3)


class TestR9Dicts:
    @pytest.mark.parametrize("name", CLASSIC)
    def test_classic_dict_is_unchanged(self, name: str) -> None:
        data = find_preset(name).to_dict()
        assert not set(FAMILY_FIELDS) & set(data)
        assert list(data)[-1] == "first_dealer" and len(data) == 17

    @pytest.mark.parametrize("name", NEW)
    def test_family_dict_round_trips(self, name: str) -> None:
        rules = find_preset(name)
        data = rules.to_dict()
        assert data["family"] == rules.family and list(data)[-len(FAMILY_FIELDS) :] == list(FAMILY_FIELDS)
        assert RuleSet.from_dict(json.loads(json.dumps(data))) == rules

    def test_from_dict_reads_an_old_dict(self) -> None:
        old = {"name": "hunan", "four_players": True, "cap": 100}
        assert RuleSet.from_dict(old) == find_preset("hunan").with_options(four_players=True, cap=100)

    def test_family_is_not_an_option(self) -> None:
        with pytest.raises(RuleSetError, match="unknown rule options: family"):
            find_preset("qq").with_options(family="shihuka")
        with pytest.raises(RuleSetError, match="family of the qq rules is 'classic', not 'shihuka'"):
            RuleSet.from_dict({"name": "qq", "family": "shihuka"})


class TestFamilyOptions:
    def test_classic_offers_r8_1(self) -> None:
        assert family_options(find_preset("qq")) == {
            "min_huxi": (15, 18, 21),
            "chou_blocks_peng": (False, True),
            "win_on_discard": (False, True),
            "tianhu_on_liangzhang": (False, True),
            "tianhu_double_huxi": (False, True),
            "zimo": ("plus_one", "double", "none"),
            "cap": (0, 50, 100, 200, 300, 600),
            "must_hu": (False, True),
            "discarder_pays": (False, True),
            "first_dealer": ("draw", "owner"),
        }
        assert family_options(find_preset("hunan"))["four_players"] == (False, True)

    def test_changde_offers_shouxing_and_its_table(self) -> None:
        d = family_options(find_preset("changde"))
        e = family_options(find_preset("changde_qmt"))
        assert d["four_players"] == e["four_players"] == (False, True)  # R9.1 守醒
        assert d["min_huxi"] == (15, 18, 21)
        assert "win_on_discard" not in d and "discarder_pays" not in d and "xing" not in d
        assert set(d) - set(e) == {"duiduihu"}
        assert set(e) - set(d) == {"shuahou", "hanghangxi", "tuanyuan", "huangfan"}

    def test_shihuka_offers(self) -> None:
        f = family_options(find_preset("shihuka"))
        assert f["min_huxi"] == (10,) and f["zimo"] == ("double", "none")
        assert f["xing"] == ("none", "fan", "sui") and f["base_bonus"] == ("none", "plus_one", "double")
        assert f["hongheidian"] == f["tiandi_haidi"] == (False, True)
        assert "four_players" not in f and "win_on_discard" not in f and "tianhu_double_huxi" not in f

    @pytest.mark.parametrize("name", preset_names())
    def test_every_offered_value_is_accepted(self, name: str) -> None:
        rules = find_preset(name)
        for option, values in family_options(rules).items():
            for value in values:
                assert getattr(rules.with_options(**{option: value}), option) == value

    @given(st.sampled_from(preset_names()), st.data())
    def test_any_offered_combination_is_valid(self, name: str, data: st.DataObject) -> None:
        rules = find_preset(name)
        chosen = {o: data.draw(st.sampled_from(v)) for o, v in family_options(rules).items()}
        changed = rules.with_options(**chosen)
        assert changed.family == rules.family and RuleSet.from_dict(changed.to_dict()) == changed


class TestFamilyErrors:
    @pytest.mark.parametrize(
        ("name", "options", "message"),
        [
            ("changde", {"xing": "fan"}, "xing is not an option of the changde family (its options: four_players,"),
            (
                "changde",
                {"win_on_discard": True},
                "win_on_discard cannot be turned on in the changde family (R9.1: only drawn cards are won)",
            ),
            ("changde_qmt", {"discarder_pays": True}, "discarder_pays cannot be turned on in the changde family"),
            ("shihuka", {"min_huxi": 15}, "min_huxi must be 10 in the shihuka family (R9.2), got 15"),
            ("changde", {"min_huxi": 10}, "min_huxi must be one of 15, 18, 21 in the changde family (R9.1), got 10"),
            ("shihuka", {"zimo": "plus_one"}, "zimo must be one of double, none in the shihuka family (R9.2)"),
            ("shihuka", {"win_on_discard": False}, "win_on_discard cannot be turned off in the shihuka family"),
            ("shihuka", {"tianhu_double_huxi": True}, "tianhu_double_huxi cannot be turned on in the shihuka family"),
            ("shihuka", {"four_players": True}, "four_players is not an option of the shihuka family"),
            ("shihuka", {"huangfan": True}, "huangfan is not an option of the shihuka family (its options: min_huxi"),
            ("changde", {"shuahou": True}, "shuahou is an option of the changde_qmt rules of the changde family only"),
            ("changde_qmt", {"duiduihu": False}, "duiduihu cannot be turned off in the changde family"),
            ("qq", {"xing": "sui"}, "xing is not an option of the classic family (its options: min_huxi,"),
            ("qq", {"hongheidian": True}, "hongheidian is not an option of the classic family"),
            ("qq", {"tun": "shihuka"}, "tun must be classic in the classic family (R8.1), got 'shihuka'"),
            ("qq", {"fan_table": "shihuka"}, "fan_table must be one of qq, hunan, huayang, got 'shihuka'"),
            ("shihuka", {"fan_table": "qq"}, "fan_table must be one of shihuka in the shihuka family, got 'qq'"),
            ("shihuka", {"xing": "both"}, "xing must be one of none, fan, sui, got 'both'"),
            ("shihuka", {"base_bonus": 1}, "base_bonus must be one of none, plus_one, double, got 1"),
            ("shihuka", {"hongheidian": "on"}, "hongheidian must be true or false, got 'on'"),
        ],
    )
    def test_error_names_option_and_family(self, name: str, options: dict[str, object], message: str) -> None:
        with pytest.raises(RuleSetError) as err:
            find_preset(name).with_options(**options)
        assert message in str(err.value)
        assert str(err.value).count(";") == 0  # exactly one problem reported

    def test_defaults_may_be_given_again(self) -> None:
        # what a server sends for a room it does not change: the family's fixed values and the defaults
        rules = find_preset("shihuka").with_options(four_players=False, win_on_discard=True, xing="none")
        assert rules == find_preset("shihuka")
        assert find_preset("changde").with_options(win_on_discard=False, xing="none") == find_preset("changde")

    def test_command_line_form(self) -> None:
        rules = parse_rules("十胡卡", ["xing=fan", "base_bonus=plus_one", "zimo=none", "tiandi_haidi=on"])
        assert (rules.xing, rules.base_bonus, rules.zimo, rules.tiandi_haidi) == ("fan", "plus_one", "none", True)
        assert parse_rules("changde", ["four_players=on", "min_huxi=18"]).players_at_table == 4
        with pytest.raises(RuleSetError, match="xing is not an option of the changde family"):
            parse_rules('{"name": "changde_qmt", "xing": "sui"}')

    def test_every_family_field_is_governed(self) -> None:
        # each R9 field is offered or fixed somewhere, or is preset data (family, tun)
        offered = {o for fam in FAMILIES.values() for o in fam.offered}
        offered |= {o for fam in FAMILIES.values() for extra in fam.by_table.values() for o in extra}
        fixed = {o for fam in FAMILIES.values() for o in fam.fixed_options("changde_qmt")}
        assert set(FAMILY_FIELDS) - offered - fixed == {"family"}  # tun: preset data, offered by liuhuqiang (R9.3)
        assert {f.name for f in dataclasses.fields(RuleSet)} >= set(FAMILY_FIELDS)
