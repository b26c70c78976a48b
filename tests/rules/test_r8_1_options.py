"""R8 presets read from the rule book's own tables, R8.1 house options (validation, the command-line form,
zimo × cap scoring, 放炮包赔 and the R7.3 双倍积分卡 in settlement)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paohuzi.analysis import Arrangement
from paohuzi.groups import Group
from paohuzi.rules import RuleSet, RuleSetError, find_preset, parse_rules, preset_names
from paohuzi.scoring import Name, ScoringError, score, settle

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _table(heading: str) -> list[list[str]]:
    """The first Markdown table after ``heading`` in docs/rules.md, as rows of cells (header included)."""
    text = RULES_MD.read_text(encoding="utf-8")
    start = text.index(heading)
    rows = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif rows:
            break
    return rows


def _classic() -> list[str]:
    """The presets of R8 (the classic family); R9's are tested in tests/rules/test_r9_families.py."""
    return [n for n in preset_names() if find_preset(n).family == "classic"]


def _value(cell: str) -> object:
    cell = cell.strip("` ")
    if cell in ("on", "off"):
        return cell == "on"
    return int(cell) if cell.isdigit() else cell


def test_r8_every_preset_equals_the_rule_books_table() -> None:
    rows = _table("## R8 Presets")
    header = rows[0]
    names = [re.sub(r"\s*\(default\)", "", h).strip("` ") for h in header[1:]]
    assert names == ["qq", "hengyang", "hunan", "huayang"] and set(names) == set(_classic())
    fan_tables = {"A": "qq", "B": "hunan", "C": "huayang"}
    checked = set()
    for option, *cells in rows[1:]:
        for name, cell in zip(names, cells, strict=True):
            rules = find_preset(name)
            if option == "players":
                assert rules.players_at_table == 3 and not rules.four_players
                assert ("four_players" in cell) == (name == "hunan")
            elif option == "名堂 table":
                letter, *level = cell.split()
                assert rules.fan_table == fan_tables[letter]
                if level:
                    assert rules.huayang_level == level[0].strip("()`")
            elif option == "room stake d":
                assert rules.stake == int(cell)
            else:
                assert getattr(rules, option) == _value(cell), (name, option)
            checked.add(option)
    assert checked == {
        "players",
        "min_huxi",
        "chou_blocks_peng",
        "win_on_discard",
        "tianhu_on_liangzhang",
        "tianhu_double_huxi",
        "名堂 table",
        "room stake d",
    }


def test_r8_1_every_house_option_has_the_rule_books_values_and_default() -> None:
    rows = _table("### R8.1 House options")
    assert rows[0] == ["option", "values", "default", "meaning"]
    allowed = {
        "stake": ((0, 1000), None),
        "rounds": ((1, 64), 8),
        "four_players": ((False, True), False),
        "min_huxi": ((15, 18, 21), 15),
        "zimo": (("plus_one", "double", "none"), "plus_one"),
        "cap": ((0, 50, 100, 200, 300, 600), 0),
        "must_hu": ((False, True), False),
        "discarder_pays": ((False, True), False),
        "first_dealer": (("draw", "owner"), "draw"),
    }
    seen = set()
    for option, values, default, _meaning in rows[1:]:
        if option.startswith("chou_blocks_peng"):
            continue  # preset values, checked against the R8 table
        key = option.split()[0]
        seen.add(key)
        want_values, want_default = allowed[key]
        if "–" in values:
            low, high = (int(v) for v in values.split("–"))
            assert (low, high) == want_values
        elif values == "on/off":
            assert want_values == (False, True)
        else:
            assert tuple(_value(v) for v in values.split(", ")) == want_values
        if default != "preset":
            want = _value(default)
            assert want == want_default
            for name in _classic():  # the R9 families have their own defaults (tests/rules/test_r9_families.py)
                assert getattr(find_preset(name), key) == want, (name, key)
    assert seen == set(allowed)


@pytest.mark.parametrize(
    ("option", "good", "bad", "message"),
    [
        ("min_huxi", [15, 18, 21], [10, 16, 15.0, True], "min_huxi must be one of 15, 18, 21"),
        ("zimo", ["plus_one", "double", "none"], ["twice", 2, None], "zimo must be one of plus_one, double, none"),
        ("cap", [0, 50, 100, 200, 300, 600], [99, -50, "100", False], "cap must be one of 0, 50, 100, 200, 300, 600"),
        ("first_dealer", ["draw", "owner"], ["host", 0], "first_dealer must be one of draw, owner"),
        ("stake", [0, 1, 1000], [-1, 1001, "3", True], "stake must be a whole number from 0 to 1000"),
        ("rounds", [1, 8, 64], [0, 65, 8.0], "rounds must be a whole number from 1 to 64"),
        ("must_hu", [True, False], [1, "on"], "must_hu must be true or false"),
        ("discarder_pays", [True, False], [0, None], "discarder_pays must be true or false"),
    ],
)
def test_r8_1_values_are_checked(option: str, good: list[object], bad: list[object], message: str) -> None:
    qq = find_preset("qq")
    for value in good:
        assert getattr(qq.with_options(**{option: value}), option) == value
    for value in bad:
        with pytest.raises(RuleSetError) as err:
            qq.with_options(**{option: value})
        assert f"{message}, got {value!r}" in str(err.value)


def test_r8_1_options_are_stored_in_to_dict_and_round_trip() -> None:
    rules = find_preset("hunan").with_options(
        four_players=True, cap=100, zimo="double", must_hu=True, min_huxi=18, rounds=16, first_dealer="owner"
    )
    data = rules.to_dict()
    for key in ("rounds", "zimo", "cap", "must_hu", "discarder_pays", "first_dealer", "min_huxi"):
        assert key in data
    assert RuleSet.from_dict(data) == rules


def test_r8_r9_to_dict_is_the_dataclass_as_a_dict_for_every_preset_and_option() -> None:
    """``RuleSet.to_dict`` (a field-by-field dict, issue 33) is ``dataclasses.asdict`` with the family fields kept
    only where they apply, for every preset, with house options changed too; every field stays a plain scalar (what
    lets the dict be built without asdict's deep copy)."""
    import dataclasses

    from paohuzi.rules.families import FAMILIES, FAMILY_FIELDS, HAND_FIELDS

    for name in preset_names():
        for rules in (find_preset(name), find_preset(name).with_options(stake=7, cap=100)):
            expected = dataclasses.asdict(rules)
            family = FAMILIES.get(rules.family)
            dropped = (FAMILY_FIELDS if rules.family == "classic" else ()) + (
                HAND_FIELDS if family is None or not family.hand_fields else ()
            )
            for field in dropped:
                expected.pop(field, None)
            assert rules.to_dict() == expected and list(rules.to_dict()) == list(expected), name
            assert all(type(v) in (bool, int, str) for v in dataclasses.asdict(rules).values()), name


@pytest.mark.parametrize(
    ("spec", "options", "expected"),
    [
        (
            '{"name": "hunan", "four_players": true, "cap": 100}',
            [],
            {"name": "hunan", "four_players": True, "cap": 100},
        ),
        ("hunan", ["cap=100", "zimo=double"], {"name": "hunan", "cap": 100, "zimo": "double"}),
        ("湖南", ["must_hu=on", "four_players=true"], {"name": "hunan", "must_hu": True, "four_players": True}),
        ("qq", ["discarder_pays=off", "min_huxi=21"], {"name": "qq", "discarder_pays": False, "min_huxi": 21}),
        ({"name": "qq", "stake": 5}, ["stake=7"], {"name": "qq", "stake": 7}),
    ],
)
def test_r8_1_parse_rules(spec: object, options: list[str], expected: dict[str, object]) -> None:
    rules = parse_rules(spec, options)  # type: ignore[arg-type]
    for key, value in expected.items():
        assert getattr(rules, key) == value


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("nope", [], "unknown rules preset 'nope'"),
        ("{not json", [], "is not a preset name or a JSON object"),
        ('{"name": "hunan", "bogus": 1}', [], "unknown rule options: bogus"),
        ("qq", ["cap"], "an option is name=value (e.g. cap=100), got 'cap'"),
        ("qq", ["cap=99"], "cap must be one of 0, 50, 100, 200, 300, 600, got 99"),
        ("qq", ["zimo=twice"], "zimo must be one of plus_one, double, none, got 'twice'"),
        ("qq", ["shou_xing=1"], "unknown rule options: shou_xing"),
    ],
)
def test_r8_1_parse_rules_errors(spec: str, options: list[str], message: str) -> None:
    with pytest.raises(RuleSetError) as err:
        parse_rules(spec, options)
    assert message in str(err.value)


# 对对胡 with 21 大字 and no red: ti 壹, 坎 叁 肆 伍, 碰 陆, 偎 捌, 将 玖 — 39 胡息, base 9.
DUIDUI_BIG = tuple(
    Group.parse(g)
    for g in ("ti:d1d1d1d1", "kan:d3d3d3", "kan:d4d4d4", "kan:d5d5d5", "peng:d6d6d6", "wei:d8d8d8", "jiang:d9d9")
)
DUIDUI_BIG_ARR = Arrangement(DUIDUI_BIG, sum(g.huxi for g in DUIDUI_BIG), True)


@pytest.mark.parametrize(
    ("preset", "names", "uncapped"),
    [
        ("hunan", (("乌对", 10), ("18大字", 7)), 9 * 17),
        ("qq", (("乌胡", 5), ("对对胡", 5), ("大字胡", 9)), 9 * 19),
    ],
)
def test_r8_1_cap_100_against_a_duidui_18_big_hand(
    preset: str, names: tuple[tuple[str, int], ...], uncapped: int
) -> None:
    assert DUIDUI_BIG_ARR.huxi == 39
    free = score(DUIDUI_BIG_ARR, find_preset(preset))
    assert free.names == tuple(Name(n, f) for n, f in names) and free.points == uncapped and not free.capped
    capped = score(DUIDUI_BIG_ARR, find_preset(preset).with_options(cap=100))
    assert (capped.base, capped.fan, capped.uncapped, capped.points, capped.capped) == (
        9,
        free.fan,
        uncapped,
        100,
        True,
    )
    assert str(capped).endswith(f"= {uncapped}, 封顶 100")
    assert settle(0, capped.points, (0, 1, 2), 3) == {0: 600, 1: -300, 2: -300}  # the cap is before × d


@pytest.mark.parametrize(
    ("zimo", "cap", "base", "uncapped", "points"),
    [
        ("plus_one", 0, 10, 170, 170),
        ("plus_one", 100, 10, 170, 100),
        ("double", 0, 9, 306, 306),
        ("double", 300, 9, 306, 300),  # × 2 first, then the cap (R8.1)
        ("double", 600, 9, 306, 306),
        ("none", 50, 9, 153, 50),
    ],
)
def test_r8_1_zimo_then_cap(zimo: str, cap: int, base: int, uncapped: int, points: int) -> None:
    s = score(DUIDUI_BIG_ARR, find_preset("hunan").with_options(zimo=zimo, cap=cap), zimo=True)
    assert (s.base, s.fan, s.uncapped, s.points, s.zimo_double) == (base, 17, uncapped, points, zimo == "double")
    assert s.names[-1] == Name("自摸", 0)  # 自摸 stays listed with 番 0 whatever the mode


def test_r8_1_tianhu_is_zimo_for_the_zimo_option() -> None:
    """天胡 counts as 自摸 (R6.4), so 自摸翻倍 doubles it (R8.1 decision)."""
    rules = find_preset("hunan").with_options(zimo="double")
    s = score(DUIDUI_BIG_ARR, rules, tianhu=True)
    assert (s.base, s.points, s.zimo_double) == (9, 9 * 17 * 2, True)


def test_r8_1_discarder_pays_in_settle() -> None:
    assert settle(1, 5, (0, 1, 2), 2, payer=0) == {0: -20, 1: 20, 2: 0}
    assert settle(3, 5, (0, 1, 3), 1, payer=1) == {0: 0, 1: -10, 3: 10}
    assert settle(1, 5, (0, 1, 2), 2, {1}, payer=0) == {0: -20, 1: 40, 2: 0}
    with pytest.raises(ScoringError, match="payer 1 must be a losing seat"):
        settle(1, 5, (0, 1, 2), 2, payer=1)
    with pytest.raises(ScoringError, match="payer 7 must be a losing seat"):
        settle(1, 5, (0, 1, 2), 2, payer=7)


SHARED_RULES = RULES_MD.parents[2] / "shared" / "RULES.md"  # the rule book beside the checkout, when present


@pytest.mark.skipif(not SHARED_RULES.exists(), reason="no ../shared/RULES.md beside this checkout")
def test_docs_rules_md_is_the_shared_rule_book() -> None:
    """docs/rules.md is the project's copy of RULES.md (issue 11: kept identical in substance)."""

    def lines(path: Path) -> list[str]:
        return [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]

    assert lines(RULES_MD) == lines(SHARED_RULES)


@pytest.mark.parametrize("name", ["qq", "hengyang", "huayang"])
def test_r8_1_four_players_is_a_hunan_option_only(name: str) -> None:
    assert find_preset("hunan").with_options(four_players=True).players_at_table == 4
    with pytest.raises(RuleSetError) as err:
        find_preset(name).with_options(four_players=True)
    assert str(err.value) == (
        f"invalid rule options: four_players is offered with the hunan rules only (R8.1), not with {name!r}"
    )
    with pytest.raises(RuleSetError, match="hunan rules only"):
        parse_rules(f'{{"name": "{name}", "four_players": true}}')
