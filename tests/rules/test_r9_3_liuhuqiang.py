"""R9.3 衡阳六胡抢 (preset ``liuhuqiang``): the rule set (hand size, active players, options and their errors), the
囤 functions (三息一囤 with 底 1 / 2, 一息一囤), table G under both 囤 modes (each entry, 番 multiply), the rule book's
test anchor exactly ((3 + 4) × 4 × 2 = 56 per loser), payments with (players − 1) shares, 逃跑 with four players,
the formula, and the old presets untouched."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.analysis import Source
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import parse_groups
from paohuzi.rules import RuleSet, RuleSetError, family_options, find_preset, parse_rules, preset_names
from paohuzi.rules.families import HAND_FIELDS
from paohuzi.scoring import PlayFacts, analyze_hand, escape_settlement, evaluate, formula, score, settle
from paohuzi.scoring.family import tun_liuhuqiang

from ..support.fast import examples
from .fan_hands import arr

L = find_preset("liuhuqiang")
ONE_XI = L.with_options(tun="1xi1tun")

# The R9.3 anchor: a non-dealer 自摸s 贰 onto a hand 坎 of 贰 (提, 12 胡息); 碰 七 and 碰 十 (1 each), 四五六, 将 八八:
# 14 胡息, 10 red (贰 × 4, 七 × 3, 十 × 3), 15 cards = 5 门子.
ANCHOR_HAND = parse_cards("d2 d2 d2 x4 x5 x6 x8 x8")
ANCHOR_TABLE = parse_groups("peng:x7x7x7 peng:x10x10x10")

# 15-card arrangements (5 门子) by red count, with their 胡息.
RED_15 = {
    0: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 kan:x9x9x9", 12),
    1: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:x6x7x8", 9),
    4: ("ju:x2x7x10 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:d6d7d8", 9),
    7: ("kan:x7x7x7 ju:x2x7x10 kan:d1d1d1 ju:x3x4x5 ju:d6d7d8", 12),
    8: ("kan:x7x7x7 kan:d2d2d2 ju:x1x2x3 ju:d6d7d8 ju:x3x4x5", 12),
    9: ("kan:x7x7x7 kan:d2d2d2 ju:x2x7x10 ju:x3x4x5 ju:d3d4d5", 12),
    10: ("kan:x7x7x7 kan:d2d2d2 ju:x2x7x10 ju:d6d7d8 ju:x3x4x5", 12),
    15: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 ju:d2d7d10 ju:x2x7x10", 21),
}


class TestR9_3RuleSet:
    def test_r9_3_preset(self) -> None:
        assert (L.name, L.title, L.family, L.fan_table, L.tun, L.di) == (
            "liuhuqiang", "衡阳六胡抢", "liuhuqiang", "liuhuqiang", "3xi1tun", 1
        )  # fmt: skip
        assert (L.players, L.active_players, L.players_at_table, L.four_players) == (4, 4, 4, False)
        assert (L.min_huxi, L.zimo, L.stake, L.hongheidian, L.xing) == (6, "double", 1, True, "none")
        assert (L.chou_blocks_peng, L.win_on_discard, L.discarder_pays) == (True, True, True)
        assert (L.tianhu_on_liangzhang, L.tianhu_double_huxi, L.yiwushi, L.mingwei) == (False, False, False, False)
        assert find_preset("六胡抢") is L and find_preset("衡阳六胡抢") is L

    def test_r9_3_hand_size_fields(self) -> None:
        # The deal: 15 / 14, stock 23 with 4 players and 37 with 3; 5 门子; R4.6 with 14.
        assert (L.deal_sizes, L.stock_size, L.complete_groups, L.discard_base) == ((15, 14), 23, 5, 14)
        three = L.with_options(players=3)
        assert (three.players_at_table, three.active_players, three.stock_size) == (3, 3, 37)
        for name in ("qq", "hunan", "hengyang", "huayang", "changde", "shihuka"):
            r = find_preset(name)
            assert (r.deal_sizes, r.stock_size, r.complete_groups, r.discard_base, r.active_players) == (
                (21, 20), 19, 7, 20, 3
            )  # fmt: skip
        hunan4 = find_preset("hunan").with_options(four_players=True)
        assert (hunan4.players_at_table, hunan4.active_players, hunan4.stock_size) == (4, 3, 19)

    def test_r9_3_family_options(self) -> None:
        assert family_options(L) == {
            "players": (4, 3),
            "min_huxi": (6, 9, 15),
            "tun": ("3xi1tun", "1xi1tun"),
            "di": (1, 2),
            "chou_blocks_peng": (False, True),
            "tianhu_on_liangzhang": (False, True),
            "zimo": ("double", "none"),
            "cap": (0, 50, 100, 200, 300, 600),
            "must_hu": (False, True),
            "first_dealer": ("draw", "owner"),
            "hongheidian": (False, True),
            "yiwushi": (False, True),
            "mingwei": (False, True),
            "xing": ("none", "fan", "sui"),
        }

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"players": 5}, "players must be one of 4, 3 in the liuhuqiang family (R9.3), got 5"),
            ({"players": True}, "players must be one of 4, 3 in the liuhuqiang family (R9.3), got True"),
            ({"min_huxi": 10}, "min_huxi must be one of 6, 9, 15 in the liuhuqiang family (R9.3), got 10"),
            ({"tun": "classic"}, "tun must be one of 3xi1tun, 1xi1tun in the liuhuqiang family (R9.3)"),
            ({"tun": "5xi"}, "tun must be one of classic, shihuka, 3xi1tun, 1xi1tun, got '5xi'"),
            ({"di": 3}, "di must be one of 1, 2 in the liuhuqiang family (R9.3), got 3"),
            ({"zimo": "plus_one"}, "zimo must be one of double, none in the liuhuqiang family (R9.3)"),
            ({"win_on_discard": False}, "win_on_discard cannot be turned off in the liuhuqiang family"),
            ({"discarder_pays": False}, "discarder_pays cannot be turned off in the liuhuqiang family"),
            ({"tianhu_double_huxi": True}, "tianhu_double_huxi cannot be turned on in the liuhuqiang family"),
            ({"dealer_cards": 21}, "dealer_cards must be 15 in the liuhuqiang family (R9.3: 15-card hands)"),
            ({"four_players": True}, "four_players is not an option of the liuhuqiang family"),
            ({"base_bonus": "double"}, "base_bonus is not an option of the liuhuqiang family"),
            ({"yiwushi": 1}, "yiwushi must be true or false, got 1"),
        ],
    )
    def test_r9_3_bad_options_name_option_and_family(self, options: dict[str, object], message: str) -> None:
        with pytest.raises(RuleSetError, match="invalid rule options") as err:
            L.with_options(**options)
        assert message in str(err.value)

    @pytest.mark.parametrize("name", ["qq", "hunan", "hengyang", "huayang", "changde", "changde_qmt", "shihuka"])
    @pytest.mark.parametrize(
        ("option", "value"), [("players", 4), ("dealer_cards", 15), ("di", 2), ("yiwushi", True), ("mingwei", True)]
    )
    def test_r9_3_fields_are_not_options_of_the_other_families(self, name: str, option: str, value: object) -> None:
        rules = find_preset(name)
        with pytest.raises(RuleSetError, match=f"{option} is not an option of the {rules.family} family"):
            rules.with_options(**{option: value})
        assert rules.with_options(**{option: getattr(RuleSet(), option)}) == rules  # the default is fine

    def test_r9_3_to_dict_round_trip_and_old_dicts_unchanged(self) -> None:
        rules = L.with_options(players=3, tun="1xi1tun", yiwushi=True, mingwei=True, xing="fan")
        data = rules.to_dict()
        assert list(data)[-len(HAND_FIELDS) :] == list(HAND_FIELDS)
        assert (data["players"], data["dealer_cards"], data["di"], data["yiwushi"]) == (3, 15, 1, True)
        assert RuleSet.from_dict(data) == rules
        assert parse_rules("liuhuqiang", ["players=3", "tun=1xi1tun", "yiwushi=on", "mingwei=on", "xing=fan"]) == rules
        for name in preset_names():
            if find_preset(name).family != "liuhuqiang":
                assert not set(HAND_FIELDS) & set(find_preset(name).to_dict()), name

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.data())
    def test_r9_3_every_offered_value_is_accepted(self, data: st.DataObject) -> None:
        options = {k: data.draw(st.sampled_from(v)) for k, v in family_options(L).items()}
        rules = L.with_options(**options)
        assert RuleSet.from_dict(rules.to_dict()) == rules
        assert rules.stock_size + rules.deal_sizes[0] + (rules.players - 1) * rules.deal_sizes[1] == 80


class TestR9_3Tun:
    @pytest.mark.parametrize(
        ("huxi", "di1", "di2"), [(6, 1, 2), (7, 1, 2), (8, 1, 2), (9, 2, 3), (11, 2, 3), (12, 3, 4), (14, 3, 4),
                                 (15, 4, 5), (21, 6, 7), (30, 9, 10)]  # fmt: skip
    )
    def test_r9_3_3xi1tun(self, huxi: int, di1: int, di2: int) -> None:
        """囤 = 底 + ⌊(胡息 − 6)/3⌋, 底 1 or 2."""
        assert tun_liuhuqiang(huxi, False, L) == di1
        assert tun_liuhuqiang(huxi, False, L.with_options(di=2)) == di2

    @pytest.mark.parametrize("huxi", [6, 7, 14, 21, 33])
    def test_r9_3_1xi1tun(self, huxi: int) -> None:
        """囤 = 胡息 (底 plays no part)."""
        assert tun_liuhuqiang(huxi, False, ONE_XI) == huxi == tun_liuhuqiang(huxi, False, ONE_XI.with_options(di=2))


class TestR9_3TableG:
    @pytest.mark.parametrize(
        ("red", "three", "one"),
        [
            (0, ("黑胡", 5), ("黑胡", 2)),
            (1, ("一点红", 3), ("一点红", 2)),
            (4, ("平胡", 1), ("平胡", 1)),
            (7, ("平胡", 1), ("平胡", 1)),
            (8, ("小红", 2), ("平胡", 1)),
            (9, ("小红", 2), ("平胡", 1)),
            (10, ("大红", 4), ("大红", 2)),
            (15, ("大红", 4), ("大红", 2)),
        ],
    )
    def test_r9_3_table_g_each_entry_under_both_tun_modes(
        self, red: int, three: tuple[str, int], one: tuple[str, int]
    ) -> None:
        text, huxi = RED_15[red]
        a = arr(text)
        assert a.huxi == huxi
        s = score(a, L)
        assert s.red == red and [(n.name, n.fan) for n in s.names] == [three]
        assert (s.fan, s.tun, s.points, s.combine) == (three[1], 1 + (huxi - 6) // 3, (1 + (huxi - 6) // 3) * three[1],
                                                         "multiply")  # fmt: skip
        s1 = score(a, ONE_XI)
        assert [(n.name, n.fan) for n in s1.names] == [one]
        assert (s1.fan, s1.tun, s1.points) == (one[1], huxi, huxi * one[1])
        # Without 红黑点 no 名堂 applies: 平胡 1.
        off = score(a, L.with_options(hongheidian=False))
        assert [(n.name, n.fan) for n in off.names] == [("平胡", 1)] and off.points == s.tun

    def test_r9_3_zimo_double_or_none_and_cap(self) -> None:
        a = arr(RED_15[0][0])  # 12 胡息, 黑胡 × 5, 囤 3
        assert score(a, L, zimo=True).points == 3 * 5 * 2
        assert score(a, L.with_options(zimo="none"), zimo=True).points == 15
        capped = score(arr(RED_15[15][0]), L.with_options(cap=50), zimo=True)  # 21 胡息: 囤 6 × 4 × 2 = 48
        assert (capped.uncapped, capped.points) == (48, 48)
        assert score(arr(RED_15[15][0]), L.with_options(cap=50, di=2), zimo=True).points == 50  # 7 × 4 × 2 = 56


class TestR9_3Anchor:
    def test_r9_3_anchor_56_per_loser(self) -> None:
        """4 players, 3xi1tun, 底 1, 随醒, 红黑点, 自摸翻倍: a non-dealer 自摸s with 14 胡息 and 10 red, the card won
        completing a 提 of 贰 → 囤 3, 醒 4, 番 4 (大红), × 2: (3 + 4) × 4 × 2 = 56, paid by each of the 3 others × d."""
        rules = L.with_options(xing="sui")
        win = evaluate(ANCHOR_HAND, ANCHOR_TABLE, Card.D2, Source.SELF, rules, facts=PlayFacts(xing_card=Card.D2))
        assert win is not None
        s = win.score
        assert (win.huxi, s.red, s.tun, s.xing, s.base, s.fan, s.points) == (14, 10, 3, 4, 7, 4, 56)
        assert len(win.arrangement.groups) == 5  # 5 门子: 提 + 2 碰 + 句 + 将
        assert [(n.name, n.fan) for n in s.names] == [("大红", 4), ("自摸", 0)]
        assert formula(s) == "(3囤 + 4醒) × 大红4番 × 自摸2 = 56分"
        assert formula(s, "en") == "(3 tun + 4 xing) × Many red 4 fan × self-drawn 2 = 56 points"
        assert settle(1, s.points, (0, 1, 2, 3), 1) == {0: -56, 1: 168, 2: -56, 3: -56}
        assert settle(1, s.points, (0, 1, 2, 3), 2) == {0: -112, 1: 336, 2: -112, 3: -112}
        d = win.to_dict()
        assert (d["tun"], d["xing"], d["xing_card"], d["combine"], d["points"]) == (3, 4, "d2", "multiply", 56)

    def test_r9_3_anchor_variants(self) -> None:
        # 底 2: (4 + 4) × 4 × 2 = 64; 一息一囤: (14 + 4) × 大红 2 × 2 = 72; no 醒: 3 × 4 × 2 = 24.
        facts = PlayFacts(xing_card=Card.D2)
        for rules, points in ((L.with_options(xing="sui", di=2), 64), (ONE_XI.with_options(xing="sui"), 72)):
            win = evaluate(ANCHOR_HAND, ANCHOR_TABLE, Card.D2, Source.SELF, rules, facts=facts)
            assert win is not None and win.points == points
        plain = evaluate(ANCHOR_HAND, ANCHOR_TABLE, Card.D2, Source.SELF, L)
        assert plain is not None and (plain.points, formula(plain.score)) == (24, "3囤 × 大红4番 × 自摸2 = 24分")

    def test_r9_3_discarder_pays_every_share(self) -> None:
        """A win on a discard (R9.3 as R9.2): the discarder pays points × d × (players − 1), the others nothing."""
        hand = parse_cards("x1 x2 x3 d1 d2 d3 x2 x7 x10 d8 d8 d8 x4 x5")  # + 六 discarded: 18 胡息, 5 red
        win = evaluate(hand, (), Card.X6, Source.DISCARD, L)
        assert win is not None and (win.huxi, win.score.red, win.score.tun, win.points) == (18, 5, 5, 5)
        assert settle(0, win.points, (0, 1, 2, 3), 1, payer=2) == {0: 15, 1: 0, 2: -15, 3: 0}
        assert settle(0, win.points, (0, 1, 2), 1, payer=2) == {0: 10, 1: 0, 2: -10}  # option players 3

    def test_r9_3_min_huxi_6_9_15(self) -> None:
        # 9 胡息 (一点红): complete at 起胡 6 and 9, not at 15.
        hand = parse_cards("x1 x1 x1 d1 d1 d1 x3 x4 x5 d3 d4 d5 x6 x7")
        for m, complete in ((6, True), (9, True), (15, False)):
            assert (evaluate(hand, (), Card.X8, Source.SELF, L.with_options(min_huxi=m)) is not None) is complete

    def test_r9_3_analyze_hand_with_yiwushi(self) -> None:
        hand = parse_cards("x1 x5 x10 d1 d5 d10 x2 x3 x4 d2 d3 d4 x8 x8")
        got = analyze_hand(hand, (), Card.X8, Source.SELF, L.with_options(yiwushi=True))
        assert got.win is not None and (got.win.huxi, got.win.points) == (12, 3 * 1 * 2)
        assert analyze_hand(hand, (), Card.X8, Source.SELF, L).win is None


def test_r9_3_escape_with_three_remaining_players() -> None:
    """逃跑 (R7.3) with 4 active players: H over the three remaining, shared equally, the odd points to those with
    more 胡息."""
    got = escape_settlement(0, {1: 10, 2: 9, 3: 5}, 1)  # H = 24
    assert sum(got.values()) == 0 and got[0] < 0
    shares = sorted((got[s] for s in (1, 2, 3)), reverse=True)
    assert shares[0] - shares[-1] <= 1 and got[1] >= got[2] >= got[3]


def test_r9_3_rule_set_field_defaults_are_the_classic_behaviour() -> None:
    defaults = {f.name: f.default for f in dataclasses.fields(RuleSet)}
    assert {k: defaults[k] for k in HAND_FIELDS} == {
        "players": 3, "dealer_cards": 21, "di": 1, "yiwushi": False, "mingwei": False
    }  # fmt: skip


def test_r9_3_no_dealt_tianhu_on_15_card_hands() -> None:
    """R9.3 decision: no automatic 3 提 / 5 坎 天胡 on 15-card hands (the same cards are one under hengyang)."""
    from paohuzi.scoring import evaluate_tianhu_dealt

    three_ti = parse_cards("x1x1x1x1 x4x4x4x4 d5d5d5d5 x2 x3")
    assert evaluate_tianhu_dealt(three_ti, [], L) is None
    assert evaluate_tianhu_dealt(three_ti, [], find_preset("hengyang")) is not None


# R6.2 under 六胡抢: the win evaluate picks has the family's maximum points among ALL complete arrangements of the
# cards (the brute-force reference, 一五十 included with the option), then the most 胡息.
L_RULES = [
    L,
    L.with_options(tun="1xi1tun", xing="sui"),
    L.with_options(di=2, xing="fan", yiwushi=True),
    L.with_options(zimo="none", cap=50, yiwushi=True, min_huxi=9),
    L.with_options(hongheidian=False, players=3, yiwushi=True),
]


@st.composite
def hands15(draw: st.DrawFn) -> tuple[list[Card], tuple[object, ...], Card, Source]:
    from tests.analysis.reference import FREE_GROUPS, YIWUSHI_GROUPS

    shapes = [g.cards for g in FREE_GROUPS + YIWUSHI_GROUPS if len(g.cards) == 3] + [
        (Card(k),) * 3 for k in range(20)
    ]
    four = draw(st.booleans())
    cards: list[Card] = []
    if four:
        cards += [Card(draw(st.integers(0, 19)))] * 4
        cards += [draw(st.sampled_from([Card(k) for k in range(20) if cards.count(Card(k)) <= 2]))] * 2
    while len(cards) < 15:  # whole groups only, never a fifth copy (R1)
        shape = draw(st.sampled_from([g for g in shapes if all(cards.count(c) + g.count(c) <= 4 for c in g)]))
        cards += shape
    card = cards.pop(draw(st.integers(0, len(cards) - 1)))
    return cards, (), card, draw(st.sampled_from([Source.SELF, Source.OTHER, Source.DISCARD]))


@settings(max_examples=examples(200), deadline=None, derandomize=True)
@given(hands15(), st.sampled_from(L_RULES), st.sampled_from([None, Card.X1, Card.D2, Card.X10]))
def test_r6_2_r9_3_chosen_win_has_the_maximum_points(
    h: tuple[list[Card], tuple[object, ...], Card, Source], rules: RuleSet, xing_card: Card | None
) -> None:
    from paohuzi.analysis import Arrangement
    from tests.analysis.reference import all_arrangements

    hand, _table, card, source = h
    if max((hand + [card]).count(c) for c in set(hand) | {card}) > 4:
        return
    facts = PlayFacts(xing_card=xing_card if rules.xing != "none" else None)
    win = evaluate(hand, (), card, source, rules, facts=facts)
    best: tuple[int, int] | None = None
    for ref in all_arrangements(hand, (), card, source.value, rules.yiwushi):
        if ref.huxi >= rules.min_huxi:
            s = score(Arrangement(ref.groups, ref.huxi, ref.duidui), rules, zimo=source is Source.SELF, facts=facts)
            best = max(best or (s.points, ref.huxi), (s.points, ref.huxi))
    assert (None if win is None else (win.points, win.huxi)) == best
