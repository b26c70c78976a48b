"""The action notation (parse/format pairs over the whole domain, a hypothesis fuzz) and illegal actions
(wrong seat, not legal, malformed): a clear IllegalActionError and an unchanged state."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.cards import Card, NotationError, PaohuziError
from paohuzi.engine import HU, PASS, PENG, Action, ActionKind, IllegalActionError
from paohuzi.groups import is_jiao, is_sequence

from .helpers import W_HANDS, deal, legal, play


def _all_groups() -> list[tuple[Card, ...]]:
    return [g for g in itertools.combinations_with_replacement(list(Card), 3) if is_sequence(g) or is_jiao(g)]


class TestAction:
    def test_round_trip_over_every_simple_action(self) -> None:
        actions = [HU, PENG, PASS, *(Action.discard(c) for c in Card)]
        for a in actions:
            assert Action.parse(str(a)) == a
            assert eval(repr(a)) == a  # noqa: S307 — repr rebuilds the action
        assert str(Action.discard(Card.D10)) == "discard d10"

    def test_round_trip_over_every_chi_and_bi(self) -> None:
        groups = _all_groups()
        pairs = list(itertools.combinations_with_replacement(list(Card), 2))
        for (a, b), g in zip(pairs, itertools.cycle(groups), strict=False):
            for bi in ((), (g,), (g, groups[0])):
                action = Action.chi((b, a), tuple(reversed(bi)))
                assert Action.parse(str(action)) == action
        for g in groups:
            assert Action.parse(f"chi x1 x2 | bi {' '.join(map(str, g))}").bi == (g,)

    def test_chinese_forms(self) -> None:
        assert Action.parse("出 柒") == Action.discard(Card.D7)
        assert Action.parse("出七") == Action.discard(Card.X7)
        assert Action.parse("吃 八九 | 比 七八九") == Action.parse("chi x8 x9 | bi x7 x8 x9")
        assert Action.parse("碰") is PENG and Action.parse("胡") is HU and Action.parse("过") is PASS
        assert Action.parse("chi x8 x9 | bi x7 x8 x9").chinese == "吃 八九 比 七八九"
        assert Action.discard(Card.D1).chinese == "出 壹"

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("", "empty action"),
            ("dance", "unknown action 'dance'"),
            ("discard", "discard takes exactly one card"),
            ("discard x1 x2", "discard takes exactly one card"),
            ("discard x11", "bad card token 'x11'"),
            ("hu x1", "hu takes no cards"),
            ("peng | bi x1 x2 x3", "only chi takes bi groups"),
            ("chi x8", "chi takes the two hand cards"),
            ("chi x8 x9 | x7 x8 x9", "expected 'bi <three cards>'"),
            ("chi x8 x9 | bi x7 x8", "a bi group is a 句 or 绞 of three cards"),
            ("chi x8 x9 | bi x1 x5 x9", "a bi group is a 句 or 绞 of three cards"),
        ],
    )
    def test_malformed_text_is_refused_with_its_reason(self, text: str, message: str) -> None:
        with pytest.raises(NotationError, match=message):
            Action.parse(text)

    def test_actions_are_values(self) -> None:
        a = Action.parse("chi x9 x8 | bi x7 x8 x9")
        assert a == Action(ActionKind.CHI, None, (Card.X8, Card.X9), ((Card.X9, Card.X8, Card.X7),))
        assert hash(a) == hash(Action.parse(str(a)))
        with pytest.raises(AttributeError):
            a.kind = ActionKind.HU  # type: ignore[misc]
        with pytest.raises(NotationError):
            Action(ActionKind.DISCARD)
        with pytest.raises(NotationError):
            Action.discard(25)


@given(st.text(max_size=40))
def test_parse_never_crashes(text: str) -> None:
    try:
        action = Action.parse(text)
    except NotationError:
        return
    assert Action.parse(str(action)) == action


@given(st.sampled_from(list(Card)), st.sampled_from(list(Card)), st.lists(st.sampled_from(_all_groups()), max_size=2))
def test_chi_round_trip(a: Card, b: Card, bi: list[tuple[Card, ...]]) -> None:
    action = Action.chi((a, b), tuple(bi))
    assert Action.parse(str(action)) == action
    assert Action.parse(str(action).replace(" ", "  ")) == action


class TestIllegalActions:
    def _unchanged(self, hand, seat, action, match):  # type: ignore[no-untyped-def]
        before, events = hand.referee_view(), len(hand.events)
        with pytest.raises(IllegalActionError, match=match) as info:
            hand.apply(seat, action)
        assert isinstance(info.value, PaohuziError) and isinstance(info.value, ValueError)
        assert hand.referee_view() == before and len(hand.events) == events
        return info.value

    def test_wrong_seat(self) -> None:
        hand = deal()
        err = self._unchanged(hand, 1, "discard x2", r"seat 1 has no decision to make now \(deciding: 0\)")
        assert err.seat == 1 and err.action == Action.discard(Card.X2)

    def test_not_in_the_legal_list(self) -> None:
        hand = deal()
        self._unchanged(hand, 0, "discard x1", "x1 is part of a 坎")
        self._unchanged(hand, 0, "discard d5", "seat 0 holds no d5")
        self._unchanged(hand, 0, "peng", "not among the legal actions now: discard x2, discard x4")
        self._unchanged(hand, 0, "hu", "the cards are not complete")

    def test_wrong_way_to_chi(self) -> None:
        hand = deal(W_HANDS, stock="x10")
        play(hand, "0: discard x2")
        self._unchanged(hand, 1, "chi x9 x8 | bi x8 x9 x10", "not one of the ways to 吃 x10")
        self._unchanged(hand, 0, "chi x8 x9", "seat 0 cannot 吃 x10 here")
        assert legal(hand, 1) == ["hu", "chi x8 x9", "pass"]

    def test_malformed(self) -> None:
        hand = deal()
        self._unchanged(hand, 0, "discard", "discard takes exactly one card")
        self._unchanged(hand, 0, 42, "an action is an Action or its text, got int")
        self._unchanged(hand, 0, None, "an action is an Action or its text")
        self._unchanged(hand, 7, "discard x2", r"no such seat \(seats are 0–2\)")
        self._unchanged(hand, "0", "discard x2", "no such seat")
        self._unchanged(hand, True, "discard x2", "no such seat")

    def test_after_the_end(self) -> None:
        hand = deal(W_HANDS, stock="x10")
        play(hand, "0: discard x2", "1: hu")
        self._unchanged(hand, 0, "pass", "the hand is over")

    def test_twice_in_one_window(self) -> None:
        hand = deal(W_HANDS, stock="x10")
        play(hand, "0: discard x2", "0: pass")
        self._unchanged(hand, 0, "peng", "seat 0 has no decision to make now")
