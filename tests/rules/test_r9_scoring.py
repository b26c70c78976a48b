"""R9.1, R9.2, R9.4 scoring of the regional families: every test anchor of the rule book exactly, the 囤 table's
boundaries, 醒 in each group kind, 黄番 with 0, 1, 2 drawn hands, the 卡胡 choice (R6.2 by the family's points),
base_bonus, the formula, the JSON form and the errors."""

from __future__ import annotations

import pytest

from paohuzi import analysis
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import (
    PlayFacts,
    ScoringError,
    analyze_hand,
    evaluate,
    evaluate_tianhu_dealt,
    formula,
    score,
    scored_waits,
    settle,
)
from paohuzi.scoring.family import tun_classic, tun_shihuka

from .fan_hands import arr

D = find_preset("changde")
E = find_preset("changde_qmt")
F = find_preset("shihuka")

# R9.1 anchor: 21 胡息, 12 red, no other 名堂 of table E; won by the winner's own draw (d8).
QMT_HAND = parse_cards("x2 x2 x2 x5 x7 x7 x7 x8 x8 d4 d4 d4 d5 d5 d7 d7 d7")
QMT_TABLE = [Group.parse("peng:d2d2d2")]
# R9.2 anchor: 11 胡息 (the only reading), 11 red.
SHK_HAND = parse_cards("x10 x10 x10 d2 d7 d10 x6 x7 d7 d8 d9 d4 d5 d6")
SHK_TABLE = [Group.parse("peng:x2x2x2"), Group.parse("peng:x5x5x5")]
# R9.2 卡胡: the same cards read as 10 胡息 (碰 一 stays a 碰, 一二三 in hand) or 12 (跑 一, 将 …), 7 red.
KA_HAND = parse_cards("x2 x3 x4 x4 x5 x5 x6 x6 x7 x7 d1 d2 d3 d4 d4 d5 d6")
KA_TABLE = [Group.parse("peng:x1x1x1")]


class TestR91Anchors:
    def test_r9_1_anchor_zimo_21_huxi_12_red(self) -> None:
        """自摸, 21 胡息, 12 red, changde_qmt: base 3 + 1 = 4, 番 5, 20 per loser × d."""
        win = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, E)
        assert win is not None
        s = win.score
        assert (win.huxi, s.red, s.tun, s.base, s.fan, s.points) == (21, 12, 3, 4, 5, 20)
        assert [(n.name, n.fan) for n in s.names] == [("红胡", 5), ("自摸", 0)]
        assert settle(0, s.points, (0, 1, 2), 1) == {0: 40, 1: -20, 2: -20}
        assert settle(0, s.points, (0, 1, 2), 3) == {0: 120, 1: -60, 2: -60}

    @pytest.mark.parametrize(("n", "fan", "points"), [(0, 5, 20), (1, 7, 28), (2, 8, 32)])
    def test_r9_1_anchor_huangfan_after_drawn_hands(self, n: int, fan: int, points: int) -> None:
        """The same after 2 drawn hands with 黄番: 番 5 + 3 = 8, 32 per loser; after 1: 5 + 2; after 0: none."""
        rules = E.with_options(huangfan=True)
        win = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, rules, facts=PlayFacts(drawn_before=n))
        assert win is not None and (win.score.fan, win.points) == (fan, points)
        assert ("黄番" in [x.name for x in win.score.names]) == (n > 0)

    def test_r9_1_changde_d_on_the_same_hand(self) -> None:
        """Table D: 红胡 2 (10–12 red); base 4 → 8."""
        win = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, D)
        assert win is not None and (win.score.base, win.score.fan, win.points) == (4, 2, 8)

    def test_r9_1_only_drawn_cards_are_won(self) -> None:
        assert evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.DISCARD, E) is None
        other = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.OTHER, E)  # another's draw: no 自摸 + 1
        assert other is not None and (other.score.base, other.points) == (3, 15)

    def test_r9_1_zimo_options_apply(self) -> None:
        """R8.1 zimo applies to 常德 too: double → 3 × 5 × 2; none → 3 × 5."""
        double = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, E.with_options(zimo="double"))
        none = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, E.with_options(zimo="none"))
        assert double is not None and none is not None and (double.points, none.points) == (30, 15)


class TestR92Anchors:
    def test_r9_2_anchor_zimo(self) -> None:
        """11 胡息, 11 red, 自摸 → 1 × 2 × 2 = 4 per loser."""
        win = evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.SELF, F)
        assert win is not None
        s = win.score
        assert (win.huxi, s.red, s.tun, s.base, s.fan, s.zimo_double, s.points) == (11, 11, 1, 1, 2, True, 4)
        assert settle(0, s.points, (0, 1, 2), 1) == {0: 8, 1: -4, 2: -4}

    def test_r9_2_anchor_on_a_discard(self) -> None:
        """The same won on a discard → the discarder pays 1 × 2 × 2 = 4 (points 2 × (players − 1)), the third 0."""
        win = evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.DISCARD, F)
        assert win is not None and (win.points, win.score.zimo) == (2, False)
        assert settle(0, win.points, (0, 1, 2), 1, payer=1) == {0: 4, 1: -4, 2: 0}
        assert settle(2, win.points, (0, 1, 2), 1, payer=0) == {0: -4, 1: 0, 2: 4}

    def test_r9_2_anchor_kahu_beats_12_huxi(self) -> None:
        """10 胡息 平胡 自摸 → 3 × 1 × 2 = 6 per loser; the 12-胡息 reading of the same cards scores 2 × 1 × 2 = 4."""
        win = evaluate(KA_HAND, KA_TABLE, Card.X1, Source.SELF, F)
        assert win is not None
        assert (win.huxi, win.score.tun, win.score.fan, win.points) == (10, 3, 1, 6)
        assert formula(win.score) == "卡胡 3囤 × 平胡1番 × 自摸2 = 6分"
        assert formula(win.score, "en") == "Ka Hu 3 tun × Plain win 1 fan × self-drawn 2 = 6 points"
        # the other reading exists and is worth less: under R7.1 (hengyang) the 12-胡息 one is chosen
        classic = evaluate(KA_HAND, KA_TABLE, Card.X1, Source.SELF, find_preset("hengyang").with_options(min_huxi=15))
        assert classic is None  # 12 < 15: so read it with the family's tun on the 12-胡息 arrangement
        twelve = [a for a in _all(KA_HAND, KA_TABLE, Card.X1) if a.huxi == 12]
        assert twelve and score(twelve[0], F, zimo=True).points == 4

    def test_r9_2_min_huxi_10(self) -> None:
        assert evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.SELF, F) is not None


def _all(hand: list[Card], table: list[Group], card: Card) -> tuple[Arrangement, ...]:
    return analysis.arrangements_all(hand, table, card, Source.SELF, min_huxi=10)


# 7 groups, red 2 (no red 名堂 in table F), by 胡息.
BY_HUXI = {
    10: "kan:d1d1d1 kan:x1x1x1 peng:x9x9x9 ju:x6x7x8 ju:d6d7d8 ju:x3x4x5 ju:d3d4d5",
    11: "kan:d1d1d1 kan:x1x1x1 peng:x9x9x9 peng:x4x4x4 ju:x6x7x8 ju:d6d7d8 ju:d3d4d5",
    12: "kan:d1d1d1 kan:x1x1x1 kan:x9x9x9 ju:x6x7x8 ju:d6d7d8 ju:x3x4x5 ju:d3d4d5",
    14: "kan:d1d1d1 kan:x1x1x1 kan:x9x9x9 peng:x4x4x4 peng:x5x5x5 ju:x6x7x8 ju:d6d7d8",
    15: "kan:d1d1d1 kan:d9d9d9 kan:x1x1x1 ju:x6x7x8 ju:d6d7d8 ju:x3x4x5 ju:d3d4d5",
    17: "kan:d1d1d1 kan:d9d9d9 kan:x1x1x1 peng:x4x4x4 peng:x5x5x5 ju:x6x7x8 ju:d6d7d8",
    18: "kan:d1d1d1 kan:d9d9d9 kan:x1x1x1 kan:x9x9x9 ju:x6x7x8 ju:d6d7d8 ju:d3d4d5",
}


class TestTun:
    @pytest.mark.parametrize(("huxi", "tun"), [(10, 3), (11, 1), (12, 2), (14, 2), (15, 3), (17, 3), (18, 4)])
    def test_r9_2_tun_boundaries(self, huxi: int, tun: int) -> None:
        """十胡卡 囤: 10 → 3 (卡胡), 11 → 1, 12–14 → 2, 15–17 → 3, then 3 + ⌊(胡息 − 15)/3⌋; 自摸 doubles."""
        a = arr(BY_HUXI[huxi])
        assert (a.huxi, score(a, F).red) == (huxi, 2)
        s = score(a, F, zimo=True)
        assert (s.tun, s.base, s.fan, s.points) == (tun, tun, 1, tun * 2)
        assert score(a, F.with_options(zimo="none"), zimo=True).points == tun

    def test_r9_2_tun_formula_beyond(self) -> None:
        assert [tun_shihuka(h, False, F) for h in range(15, 31)] == [3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8]

    def test_r9_2_tianhu_below_10_counts_1(self) -> None:
        """天胡 (3 提) uses the table; below 10 胡息 it counts 1 囤; 自摸翻倍 applies (天胡 is 自摸)."""
        hand = parse_cards("x1x1x1x1 x4x4x4x4 x5x5x5x5 x2 x3 x6 x8 d8 d8")  # 3 small 提 = 27 胡息
        win = evaluate_tianhu_dealt(hand, [], F)
        assert win is not None and win.huxi >= 27 and win.score.tun == tun_shihuka(win.huxi, True, F)
        assert [tun_shihuka(h, True, F) for h in (0, 5, 9)] == [1, 1, 1]

    def test_r7_1_tun_in_changde(self) -> None:
        assert [tun_classic(h, False, D) for h in (15, 17, 18, 20, 21)] == [1, 1, 2, 2, 3]
        assert score(arr(BY_HUXI[18]), D, zimo=True).base == 3  # 2 + 1 for 自摸 (R7.1)


SUI = F.with_options(xing="sui")


class TestXing:
    @pytest.mark.parametrize(
        ("group", "card", "xing"),
        [
            ("ti:x4x4x4x4", Card.X4, 4),
            ("pao:d4d4d4d4", Card.D4, 4),
            ("kan:x4x4x4", Card.X4, 3),
            ("wei:x4x4x4", Card.X4, 3),
            ("chouwei:x4x4x4", Card.X4, 3),
            ("peng:x4x4x4", Card.X4, 3),
            ("ju:x3x4x5", Card.X4, 1),
            ("jiao:x4d4d4", Card.X4, 1),
            ("jiao:x4d4d4", Card.D4, 2),
            ("jiang:x4x4", Card.X4, 2),
        ],
    )
    def test_r9_4_xing_per_group_kind(self, group: str, card: Card, xing: int) -> None:
        """醒 = copies of the exact card in the winner's groups and pair: 4 提/跑, 3 坎/偎/碰, 1 句, 1–2 绞, 2 pair."""
        rest = "kan:d1d1d1 kan:x1x1x1 kan:x9x9x9 ju:x6x7x8 ju:d6d7d8 ju:d8d9d10"
        s = score(arr(f"{group} {rest}"), SUI, facts=PlayFacts(xing_card=card))
        assert s.xing == xing and s.xing_card is card
        assert s.base == s.tun + xing  # R9.4: added to 囤 before 番

    def test_r9_4_case_matters_and_absent_card(self) -> None:
        a = arr("kan:x4x4x4 kan:d1d1d1 kan:x1x1x1 kan:x9x9x9 ju:x6x7x8 ju:d6d7d8 ju:d8d9d10")
        assert score(a, SUI, facts=PlayFacts(xing_card=Card.D4)).xing == 0
        assert score(a, SUI, facts=PlayFacts(xing_card=Card.X1)).xing == 3

    def test_r9_4_xing_adds_before_fan_and_zimo(self) -> None:
        """12 胡息 (2 囤) + 醒 3 (坎 一), 平胡, 自摸 → (2 + 3) × 1 × 2 = 10."""
        s = score(arr(BY_HUXI[12]), SUI, zimo=True, facts=PlayFacts(xing_card=Card.X1))
        assert (s.tun, s.xing, s.base, s.points) == (2, 3, 5, 10)
        assert formula(s) == "(2囤 + 3醒) × 平胡1番 × 自摸2 = 10分"

    def test_r9_4_loose_tianhu_cards_do_not_count(self) -> None:
        hand = parse_cards("x1x1x1x1 x4x4x4x4 x5x5x5x5 x2 x3 x6 x8 d8 d8")
        win = evaluate_tianhu_dealt(hand, [], SUI, PlayFacts(xing_card=Card.X6))
        assert win is not None and Card.X6 in win.arrangement.loose and win.score.xing == 0
        four = evaluate_tianhu_dealt(hand, [], SUI, PlayFacts(xing_card=Card.X4))
        assert four is not None and four.score.xing == 4

    def test_r9_4_choice_follows_xing(self) -> None:
        """R6.2 by the family's points: with 醒 on 一 the arrangement holding more 一 can win over more 胡息."""
        fan_card = F.with_options(xing="fan")
        win = evaluate(KA_HAND, KA_TABLE, Card.X1, Source.SELF, fan_card, facts=PlayFacts(xing_card=Card.X1))
        assert win is not None
        best = max(
            (score(a, fan_card, zimo=True, facts=PlayFacts(xing_card=Card.X1)).points, a.huxi)
            for a in _all(KA_HAND, KA_TABLE, Card.X1)
        )
        assert (win.points, win.huxi) == best


class TestBaseBonus:
    @pytest.mark.parametrize(("bonus", "base", "text"), [
        ("none", 5, "(2囤 + 3醒) × 平胡1番 × 自摸2 = 10分"),
        ("plus_one", 6, "(2囤 + 3醒 + 底分1) × 平胡1番 × 自摸2 = 12分"),
        ("double", 10, "(2囤 + 3醒) × 底分2 × 平胡1番 × 自摸2 = 20分"),
    ])  # fmt: skip
    def test_r9_2_base_bonus_on_tun_plus_xing(self, bonus: str, base: int, text: str) -> None:
        rules = SUI.with_options(base_bonus=bonus)
        s = score(arr(BY_HUXI[12]), rules, zimo=True, facts=PlayFacts(xing_card=Card.X1))
        assert (s.base, s.points, s.base_bonus) == (base, base * 2, bonus)
        assert formula(s) == text

    def test_r8_1_cap_on_family_points(self) -> None:
        s = score(arr(BY_HUXI[18]), F.with_options(cap=50, base_bonus="double"), zimo=True)
        assert (s.uncapped, s.points) == (16, 16)
        win = evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, E.with_options(cap=50, huangfan=True),
                       facts=PlayFacts(drawn_before=9))  # fmt: skip
        assert win is not None and (win.score.uncapped, win.points) == (60, 50)
        assert formula(win.score) == "(3囤 + 自摸1) × (红胡5番 + 黄番10番) = 60分, 封顶50分"


class TestWire:
    def test_to_dict_adds_family_fields_only_for_families(self) -> None:
        win = evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.SELF, F)
        assert win is not None
        data = win.to_dict()
        assert {k: data[k] for k in ("tun", "xing", "xing_card", "combine")} == {
            "tun": 1, "xing": 0, "xing_card": None, "combine": "add",
        }  # fmt: skip
        sui = evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.SELF, SUI, facts=PlayFacts(xing_card=Card.X8))
        assert sui is not None and (sui.to_dict()["xing_card"], sui.to_dict()["xing"]) == ("x8", 1)
        classic = evaluate(parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9"),
                           [Group.parse("peng:x7x7x7")], Card.X10, Source.SELF, find_preset("qq"))  # fmt: skip
        assert classic is not None
        assert list(classic.to_dict()) == ["huxi", "groups", "names", "fan", "base", "points", "zimo"]
        assert (classic.score.tun, classic.score.family, classic.score.combine) == (4, "classic", "add")
        assert formula(classic.score) == "(4囤 + 自摸1) × 红胡2番 = 10分"

    def test_hunan_combines_largest(self) -> None:
        assert score(arr(BY_HUXI[18]), find_preset("hunan")).combine == "largest"

    def test_waits_and_analyze_hand_score_by_family(self) -> None:
        hand = [c for c in KA_HAND]
        waits = scored_waits(hand, KA_TABLE, F)
        assert (Card.X1, 10, 6) in [(c, w.huxi, w.points) for c, w in waits]
        found = analyze_hand(KA_HAND, KA_TABLE, Card.X1, Source.SELF, F)
        assert found.win is not None and found.win.points == 6


class TestFactErrors:
    def test_xing_card_without_xing(self) -> None:
        with pytest.raises(ScoringError, match=r"xing_card is given but the changde_qmt rules \(changde family\)"):
            evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, E, facts=PlayFacts(xing_card=Card.X1))
        with pytest.raises(ScoringError, match="have no 醒"):
            evaluate(QMT_HAND, QMT_TABLE, Card.D8, Source.SELF, find_preset("qq"), facts=PlayFacts(xing_card=Card.X1))

    @pytest.mark.parametrize(
        ("facts", "message"),
        [
            (PlayFacts(drawn_before=-1), "drawn_before must be a whole number ≥ 0, got -1"),
            (PlayFacts(drawn_before=True), "drawn_before must be a whole number"),
            (PlayFacts(xing_card="x1"), "xing_card must be a card, got 'x1'"),  # type: ignore[arg-type]
            (PlayFacts(dihu=1), "dihu must be true or false"),  # type: ignore[arg-type]
            (PlayFacts(tinghu="yes"), "tinghu must be true, false or null"),  # type: ignore[arg-type]
        ],
    )
    def test_bad_facts(self, facts: PlayFacts, message: str) -> None:
        with pytest.raises(ScoringError, match=message):
            evaluate(SHK_HAND, SHK_TABLE, Card.X8, Source.SELF, SUI, facts=facts)
