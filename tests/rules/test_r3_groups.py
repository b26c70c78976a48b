"""Groups (门子) and their 胡息 (R3): every group of every kind round-trips; bad groups are refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.cards import Card, NotationError, PaohuziError, parse_cards
from paohuzi.groups import (
    HAND_KINDS,
    SCORING_SEQUENCES,
    TABLE_KINDS,
    Group,
    GroupError,
    GroupKind,
    format_groups,
    is_jiao,
    is_sequence,
    parse_groups,
)

SAME_KINDS = [k for k in GroupKind if k.same_kind]


def _all_groups() -> list[Group]:
    groups = [Group(kind, (card,) * kind.size) for kind in SAME_KINDS for card in Card]
    for big in (False, True):
        for p in range(1, 9):
            groups.append(Group(GroupKind.JU, tuple(Card.of(q, big) for q in (p, p + 1, p + 2))))
        groups.append(Group(GroupKind.JU, tuple(Card.of(q, big) for q in (2, 7, 10))))
    for p in range(1, 11):
        small, big = Card.of(p, False), Card.of(p, True)
        groups.append(Group(GroupKind.JIAO, (small, small, big)))
        groups.append(Group(GroupKind.JIAO, (small, big, big)))
    return groups


ALL_GROUPS = _all_groups()

# R3 table: 胡息 small / big of the same-kind groups.
SAME_KIND_HUXI = {
    GroupKind.TI: (9, 12),
    GroupKind.PAO: (6, 9),
    GroupKind.WEI: (3, 6),
    GroupKind.CHOUWEI: (3, 6),
    GroupKind.KAN: (3, 6),
    GroupKind.PENG: (1, 3),
    GroupKind.JIANG: (0, 0),
}


def test_domain_size() -> None:
    # 7 same kinds × 20 cards, 18 sequences (8 + 二七十 per case), 20 绞 (2 shapes × 10 points).
    assert len(ALL_GROUPS) == 7 * 20 + 18 + 20 == len(set(ALL_GROUPS))


class TestGroupKind:
    def test_names(self) -> None:
        assert {k.value: k.chinese for k in GroupKind} == {
            "ti": "提",
            "pao": "跑",
            "wei": "偎",
            "chouwei": "臭偎",
            "kan": "坎",
            "peng": "碰",
            "ju": "句",
            "jiao": "绞",
            "jiang": "将",
        }

    def test_sizes_and_sets(self) -> None:
        assert (
            {k for k in GroupKind if k.size == 4} == {GroupKind.TI, GroupKind.PAO} == {k for k in GroupKind if k.four}
        )
        assert GroupKind.JIANG.size == 2
        assert TABLE_KINDS == {
            GroupKind.TI,
            GroupKind.PAO,
            GroupKind.WEI,
            GroupKind.CHOUWEI,
            GroupKind.PENG,
            GroupKind.JU,
            GroupKind.JIAO,
        }
        assert HAND_KINDS == {GroupKind.KAN, GroupKind.JU, GroupKind.JIAO, GroupKind.JIANG}
        assert SCORING_SEQUENCES == {(1, 2, 3), (2, 7, 10)}


class TestGroup:
    @pytest.mark.parametrize("group", ALL_GROUPS, ids=str)
    def test_round_trip(self, group: Group) -> None:
        assert Group.parse(str(group)) == group
        assert eval(repr(group)) == group
        # No spaces between ASCII cards, Chinese kind name, Chinese cards, upper case.
        assert Group.parse(f"{group.kind.value}:{''.join(str(c) for c in group.cards)}") == group
        assert Group.parse(f"{group.kind.chinese}:{''.join(c.chinese for c in group.cards)}") == group
        assert Group.parse(f" {group.kind.value.upper()} : {' '.join(str(c).upper() for c in group.cards)}") == group
        assert group.chinese == f"{group.kind.chinese} {''.join(c.chinese for c in group.cards)}"

    @pytest.mark.parametrize("group", ALL_GROUPS, ids=str)
    def test_huxi(self, group: Group) -> None:
        """R3: exact 胡息 of every group."""
        big = group.cards[0].big
        if group.kind.same_kind:
            expected = SAME_KIND_HUXI[group.kind][big]
        elif group.kind is GroupKind.JU and tuple(c.point for c in group.cards) in ((1, 2, 3), (2, 7, 10)):
            expected = 6 if big else 3
        else:
            expected = 0
        assert group.huxi == expected

    @pytest.mark.parametrize("group", [g for g in ALL_GROUPS if not g.kind.same_kind], ids=str)
    def test_chi(self, group: Group) -> None:
        """吃 makes a 句 or a 绞 (R4.3); ``chi:`` parses to the same group, cards in any order."""
        assert Group.chi(group.cards[::-1]) == group
        assert Group.parse("chi:" + " ".join(str(c) for c in reversed(group.cards))) == group
        assert Group.parse("吃:" + "".join(c.chinese for c in group.cards)) == group

    def test_chi_made_once_per_cards(self) -> None:
        """Group.chi keeps each group it made (issue 15): the same cards in any order and as ints or Cards give
        the very same group, equal to one built directly; what is not a 句 or 绞 is still refused."""
        made = Group.chi((Card.X5, Card.X3, Card.X4))
        assert Group.chi((2, 3, 4)) is made and Group.chi((Card.X4, 4, 2)) is made
        assert made == Group(GroupKind.JU, (Card.X3, Card.X4, Card.X5)) and made.huxi == 0
        assert Group.chi((Card.X2, Card.X7, Card.X10)).huxi == 3 and Group.chi((0, 1, 2)).huxi == 3  # R3
        for bad in [(0, 1, 3), (0, 0, 0), (0, 1)]:
            with pytest.raises(GroupError, match="chi"):
                Group.chi(bad)

    def test_cards_sorted_and_card(self) -> None:
        g = Group(GroupKind.JU, (Card.X10, Card.X2, Card.X7))
        assert g.cards == (Card.X2, Card.X7, Card.X10) and str(g) == "ju:x2 x7 x10"
        assert Group.parse("peng:d5d5d5").card is Card.D5

    def test_frozen_and_hashable(self) -> None:
        g = Group.parse("kan:x3x3x3")
        with pytest.raises(AttributeError):
            g.kind = GroupKind.PENG  # type: ignore[misc]
        assert {g: 1}[Group.parse("kan:三三三")] == 1

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("peng:d5d5", "peng (碰) needs 3 cards, got 2"),
            ("ti:x1x1x1", "ti (提) needs 4 cards, got 3"),
            ("jiang:x1x1x1", "jiang (将) needs 2 cards, got 3"),
            ("peng:d5d5x5", "peng (碰) needs cards of one kind"),
            ("ju:x1x2d3", "ju (句) needs three consecutive cards of one case or 二七十"),
            ("ju:x1x2x4", "ju (句) needs three consecutive cards"),
            ("ju:x9x10x1", "ju (句) needs three consecutive cards"),
            ("ju:x2x7d10", "ju (句) needs three consecutive cards"),
            ("jiao:x8x8x8", "jiao (绞) needs one point"),
            ("jiao:x8d8d9", "jiao (绞) needs one point"),
            ("chi:x1x5x9", "chi (吃) needs a sequence or a 绞"),
        ],
    )
    def test_malformed_group(self, text: str, message: str) -> None:
        with pytest.raises(GroupError) as err:
            Group.parse(text)
        assert message in str(err.value)
        assert isinstance(err.value, PaohuziError)

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("pong:d5d5d5", "unknown group kind 'pong'"),
            ("d5d5d5", "a group is written kind:cards"),
            ("peng:d5 d5 y5", "bad card token 'y5' at position 6"),
            (":d5d5d5", "unknown group kind ''"),
        ],
    )
    def test_bad_notation(self, text: str, message: str) -> None:
        with pytest.raises(NotationError) as err:
            Group.parse(text)
        assert message in str(err.value)

    def test_predicates(self) -> None:
        assert is_sequence(parse_cards("d2 d7 d10")) and not is_sequence(parse_cards("x2 x7 d10"))
        assert not is_sequence(parse_cards("x1 x2")) and not is_jiao(parse_cards("x1 x1"))
        assert is_jiao(parse_cards("x8 d8 d8")) and not is_jiao(parse_cards("d8 d8 d8"))


@given(st.sampled_from(ALL_GROUPS), st.sampled_from([" ", "", ",", "，"]), st.booleans(), st.booleans())
def test_fuzz_group_round_trip(group: Group, sep: str, chinese_kind: bool, chinese_cards: bool) -> None:
    """format → parse → format is stable in every notation."""
    kind = group.kind.chinese if chinese_kind else group.kind.value
    cards = sep.join(c.chinese if chinese_cards else str(c) for c in group.cards)
    parsed = Group.parse(f"{kind}:{cards}")
    assert parsed == group and str(Group.parse(str(parsed))) == str(group)


@given(st.text(alphabet=st.sampled_from(list("pengjuaoti:xd0123456789 ,伍碰吃")), max_size=20))
def test_fuzz_never_crashes(text: str) -> None:
    """Any text either parses to a group that round-trips or raises a PaohuziError."""
    try:
        group = Group.parse(text)
    except PaohuziError:
        return
    assert Group.parse(str(group)) == group


class TestTextAndWire:
    """``parse_groups``/``format_groups`` (the notation of a list of groups) and ``Group.to_dict`` (the wire)."""

    def test_parse_groups_reads_every_separator_and_chi(self) -> None:
        groups = parse_groups("peng:d5d5d5 chi:x1 x2 x3; 偎:三三三  jiao:x8 d8 d8")
        assert [str(g) for g in groups] == ["peng:d5 d5 d5", "ju:x1 x2 x3", "wei:x3 x3 x3", "jiao:x8 d8 d8"]
        assert parse_groups("  ") == ()

    def test_format_groups_round_trips_every_group(self) -> None:
        assert parse_groups(format_groups(ALL_GROUPS)) == tuple(ALL_GROUPS)

    @pytest.mark.parametrize(
        ("text", "error", "message"),
        [
            ("x1x2x3", NotationError, "a table group is written kind:cards (like peng:d5d5d5), got 'x1x2x3'"),
            ("pong:x1x1x1", NotationError, "unknown group kind 'pong'"),
            ("peng:x1x2x3", GroupError, "peng (碰) needs cards of one kind, got x1 x2 x3"),
            ("peng:x1 y1 x1", NotationError, "bad card token 'y1'"),
        ],
    )
    def test_parse_groups_errors(self, text: str, error: type[Exception], message: str) -> None:
        with pytest.raises(error) as info:
            parse_groups(text, what="table group")
        assert message in str(info.value)

    def test_to_dict_carries_the_huxi_of_every_group(self) -> None:
        for g in ALL_GROUPS:
            assert g.to_dict() == {"kind": g.kind.value, "cards": [str(c) for c in g.cards], "huxi": g.huxi}
        assert Group.parse("ti:d10d10d10d10").to_dict() == {"kind": "ti", "cards": ["d10"] * 4, "huxi": 12}
