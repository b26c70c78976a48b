"""Cards and their notation (R1): every kind round-trips, bad tokens are named with their position."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.cards import (
    COPIES,
    DECK_SIZE,
    NUM_KINDS,
    Card,
    NotationError,
    PaohuziError,
    cards_of_counts,
    counts_of,
    format_cards,
    full_deck,
    parse_cards,
)

SMALL = "一二三四五六七八九十"
BIG = "壹贰叁肆伍陆柒捌玖拾"
ALL = list(Card)


class TestCard:
    def test_twenty_kinds(self) -> None:
        assert len(ALL) == NUM_KINDS == 20
        assert [str(c) for c in ALL] == [f"x{p}" for p in range(1, 11)] + [f"d{p}" for p in range(1, 11)]
        assert "".join(c.chinese for c in ALL) == SMALL + BIG

    @pytest.mark.parametrize("card", ALL, ids=str)
    def test_round_trip_ascii(self, card: Card) -> None:
        assert Card.parse(str(card)) is card
        assert Card.parse(str(card).upper()) is card
        assert Card.parse(f"  {card} ") is card
        assert f"{card}" == str(card)
        assert f"{card:>4}" == f"{card!s:>4}"

    @pytest.mark.parametrize("card", ALL, ids=str)
    def test_round_trip_chinese(self, card: Card) -> None:
        assert Card.parse(card.chinese) is card

    @pytest.mark.parametrize("card", ALL, ids=str)
    def test_repr_rebuilds(self, card: Card) -> None:
        assert repr(card) == f"Card.parse({str(card)!r})"
        assert eval(repr(card)) is card

    @pytest.mark.parametrize("card", ALL, ids=str)
    def test_of_and_properties(self, card: Card) -> None:
        assert Card.of(card.point, card.big) is card
        assert 1 <= card.point <= 10
        assert card.big == str(card).startswith("d")
        assert card.red == (card.point in (2, 7, 10))
        other = card.other_case
        assert other.point == card.point and other.big != card.big and other.other_case is card

    def test_red_cards(self) -> None:
        # R1: 二 七 十 贰 柒 拾 are red; 24 red cards in the deck.
        assert "".join(c.chinese for c in ALL if c.red) == "二七十贰柒拾"
        assert sum(c.red for c in full_deck()) == 24

    @pytest.mark.parametrize("point", [0, 11, -1])
    def test_of_bad_point(self, point: int) -> None:
        with pytest.raises(NotationError, match="1–10"):
            Card.of(point, False)

    @pytest.mark.parametrize("token", ["", "x0", "x11", "d", "y1", "1", "xx1", "廿", "x 1", "十十"])
    def test_parse_bad_token(self, token: str) -> None:
        with pytest.raises(NotationError) as err:
            Card.parse(token)
        assert repr(token) in str(err.value)

    def test_parse_not_text(self) -> None:
        with pytest.raises(NotationError):
            Card.parse(7)  # type: ignore[arg-type]

    def test_errors_are_value_errors(self) -> None:
        assert issubclass(NotationError, PaohuziError) and issubclass(PaohuziError, ValueError)


class TestParseCards:
    @pytest.mark.parametrize(
        "text",
        [
            "x1 x2 x10 d7",
            "x1,x2,x10,d7",
            "x1，x2、x10 ,d7",
            "x1x2x10d7",
            "X1 X2 X10 D7",
            "一二十柒",
            "一 二,十柒",
            "x1二 x10柒",
            "\tx1\nx2\r\nx10  d7 ",
        ],
    )
    def test_separators_and_forms(self, text: str) -> None:
        assert parse_cards(text) == (Card.X1, Card.X2, Card.X10, Card.D7)

    def test_empty(self) -> None:
        assert parse_cards("") == () and parse_cards(" , ") == ()

    @pytest.mark.parametrize(
        ("text", "token", "position"),
        [
            ("x1 y2", "y2", 3),
            ("y2", "y2", 0),
            ("x1 x11", "x11", 3),
            ("x1,x0,x2", "x0", 3),
            ("d5d5d", "d", 4),
            ("一二 廿三", "廿三", 3),
            ("x1 d12 x3", "d12", 3),
            ("x1 x2 x3 x4 5", "5", 12),
        ],
    )
    def test_bad_token_named_with_position(self, text: str, token: str, position: int) -> None:
        with pytest.raises(NotationError) as err:
            parse_cards(text)
        assert str(err.value) == f"bad card token {token!r} at position {position} in {text!r}"

    def test_not_text(self) -> None:
        with pytest.raises(NotationError, match="must be text"):
            parse_cards(["x1"])  # type: ignore[arg-type]


class TestFormat:
    def test_whole_deck_round_trip(self) -> None:
        deck = tuple(full_deck())
        assert len(deck) == DECK_SIZE == NUM_KINDS * COPIES
        assert parse_cards(format_cards(deck)) == deck
        assert parse_cards(format_cards(deck, chinese=True)) == deck

    def test_formats(self) -> None:
        cards = parse_cards("x2 x7 x10 d1 d10")
        assert format_cards(cards) == "x2 x7 x10 d1 d10"
        assert format_cards(cards, chinese=True) == "二七十壹拾"
        assert format_cards([]) == ""

    def test_counts(self) -> None:
        deck = full_deck()
        assert counts_of(deck) == [4] * 20
        assert cards_of_counts(counts_of(deck)) == tuple(deck)
        assert counts_of(parse_cards("x1 x1 d10")) == [2] + [0] * 18 + [1]


cards_lists = st.lists(st.sampled_from(ALL), max_size=30)
separators = st.sampled_from([" ", ",", "，", "、", "  ", "\t", ", "])


@given(cards_lists, separators, st.booleans())
def test_fuzz_format_parse(cards: list[Card], sep: str, chinese: bool) -> None:
    """format → parse gives the cards back, with any separator, ASCII or Chinese."""
    tokens = [c.chinese if chinese else str(c) for c in cards]
    assert parse_cards(sep.join(tokens)) == tuple(cards)
    assert parse_cards(format_cards(cards, chinese=chinese)) == tuple(cards)


@given(st.text(alphabet=st.sampled_from(list("xXdD0123456789 ,，、" + SMALL + BIG + "yz廿")), max_size=40))
def test_fuzz_parse_format_parse(text: str) -> None:
    """parse → format → parse is stable; anything that is not a card list is a NotationError, not a crash."""
    try:
        cards = parse_cards(text)
    except NotationError as err:
        assert "bad card token" in str(err) and "at position" in str(err)
        return
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, chinese=True)) == cards


def _outcome(parse: object, text: str) -> object:
    try:
        return parse(text)  # type: ignore[operator]
    except NotationError as err:
        return str(err)


_PIECES = [str(c) for c in ALL] + [str(c).upper() for c in ALL] + list(SMALL + BIG)
_PIECES += [" ", "  ", ",", "，", "、", "\t", "\n", "\x0c", "\u3000", "1", "0", "x", "D", "y", "廿", "x1 1", "d10d1"]


@given(st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
def test_r1_parse_fast_paths_agree_with_the_scanner(text: str) -> None:
    """The regex-free fast paths of ``parse_cards`` give exactly the cards or the error of the general scanner."""
    from paohuzi.cards import _scan_cards

    assert _outcome(parse_cards, text) == _outcome(_scan_cards, text)


@pytest.mark.parametrize(
    "text",
    ["x1 d10 柒", "X1 D10", "一二三 壹,贰", "x1  x2", " x1 ", "x1\tx2", "x1,x2", "d5d5d5", "x11", "一1", "x1 y2", ""],
)
def test_r1_parse_fast_paths_examples(text: str) -> None:
    from paohuzi.cards import _scan_cards

    assert _outcome(parse_cards, text) == _outcome(_scan_cards, text)
