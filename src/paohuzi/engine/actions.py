"""Actions (R4.2–R4.5): the choices a seat makes, with one text notation, and the engine's errors.

A seat only ever chooses among :meth:`paohuzi.engine.Hand.legal_actions`. Forced moves — 提, 偎, 跑 and
比 (R4.4) — are never actions: the engine makes them and reports them as events.

Notation (used in records, the CLI, logs and the wire protocol; ``str(action)`` gives it and
:meth:`Action.parse` reads it):

=========================================  ==================================================================
``discard x7``                             出牌: discard one card from hand (never a 坎 card, R4.6)
``hu``                                     胡: win with the card on offer, or with the cards as they stand
``peng``                                   碰: take the card on offer with a hand pair (R4.3)
``chi x8 x9``                              吃: take the card on offer with these two hand cards (R4.3)
``chi x8 x9 | bi x7 x8 x9 | bi x7 d7 d7``  吃 with its 比 groups (R4.5): each ``bi`` lists a whole 3-card
                                           group (the card eaten included) laid down from hand
``pass``                                   过: decline every claim on offer (or: do not 胡)
=========================================  ==================================================================

Cards inside an action are sorted; the 比 groups too. The parser also accepts Chinese card characters and
the Chinese verbs 出 胡 碰 吃 过 比.

>>> Action.parse("chi x9 x8 | bi x7 x8 x9")
Action.parse('chi x8 x9 | bi x7 x8 x9')
>>> str(Action.parse("出 柒")), str(Action.parse("过"))
('discard d7', 'pass')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from paohuzi._compiled import reduce_frozen
from paohuzi.cards import Card, NotationError, PaohuziError, parse_cards
from paohuzi.groups import is_jiao, is_sequence

__all__ = ["ActionKind", "Action", "IllegalActionError", "HU", "PENG", "PASS"]


class IllegalActionError(PaohuziError):
    """An action a seat may not take now: wrong seat, not among its legal actions, malformed, or the hand
    is over. The state is left unchanged.

    :ivar seat: the seat that tried it (or None when the seat itself was bad).
    :ivar action: the action (or the text) that was refused.
    :ivar reason: why, in words, with the rule section.
    """

    def __init__(self, seat: object, action: object, reason: str) -> None:
        self.seat = seat
        self.action = action
        self.reason = reason
        super().__init__(f"seat {seat} cannot play {str(action)!r}: {reason}")


class ActionKind(Enum):
    """The kinds of action a seat may choose. Forced moves (提 偎 跑 比) are not actions (R4.4)."""

    DISCARD = "discard"  # 出牌
    HU = "hu"  # 胡
    PENG = "peng"  # 碰
    CHI = "chi"  # 吃 (with its 比)
    PASS = "pass"  # 过

    @property
    def chinese(self) -> str:
        return _CHINESE[self]


_CHINESE = {
    ActionKind.DISCARD: "出",
    ActionKind.HU: "胡",
    ActionKind.PENG: "碰",
    ActionKind.CHI: "吃",
    ActionKind.PASS: "过",
}
_VERBS = {k.value: k for k in ActionKind} | {v: k for k, v in _CHINESE.items()}


@dataclass(frozen=True, slots=True)
class Action:
    """One choice of one seat. Immutable and hashable; cards are kept sorted.

    :ivar kind: what the seat does.
    :ivar card: the card discarded (``discard`` only).
    :ivar cards: the two hand cards eaten with (``chi`` only).
    :ivar bi: the 比 groups laid down with a 吃 (R4.5), each three cards including the eaten kind.
    :raises NotationError: if the fields do not fit the kind.
    """

    kind: ActionKind
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    bi: tuple[tuple[Card, ...], ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def __post_init__(self) -> None:
        kind = self.kind
        if not isinstance(kind, ActionKind):
            raise NotationError(f"not an action kind: {kind!r}")
        if kind is ActionKind.DISCARD:
            if self.card is None or self.cards or self.bi:
                raise NotationError("discard takes exactly one card, like 'discard x7'")
            object.__setattr__(self, "card", Card(self.card))
            return
        if self.card is not None:
            raise NotationError(f"{kind.value} takes no card")
        if kind is ActionKind.CHI:
            cards = tuple(sorted(Card(c) for c in self.cards))
            if len(cards) != 2:
                raise NotationError(f"chi takes the two hand cards it eats with, like 'chi x8 x9'; got {len(cards)}")
            bi = tuple(sorted(tuple(sorted(Card(c) for c in g)) for g in self.bi))
            for g in bi:
                # notation only: 一五十 is a well-formed 句 here; whether the rule set has it (R9.3) is legality's
                if len(g) != 3 or not (is_sequence(g, yiwushi=True) or is_jiao(g)):
                    raise NotationError(
                        f"a bi group is a 句 or 绞 of three cards, got {' '.join(str(c) for c in g)!r}"
                    )
            if len(bi) > 2:
                raise NotationError("at most two bi groups (R4.5)")
            object.__setattr__(self, "cards", cards)
            object.__setattr__(self, "bi", bi)
        elif self.cards or self.bi:
            raise NotationError(f"{kind.value} takes no cards")

    @classmethod
    def discard(cls, card: Card | int) -> Action:
        """``discard <card>``.

        :raises NotationError: if ``card`` is not a card.
        """
        try:
            return _DISCARDS[card]
        except (KeyError, TypeError):
            raise NotationError(f"not a card: {card!r}") from None

    @classmethod
    def chi(cls, cards: tuple[Card, ...] | list[Card], bi: tuple[tuple[Card, ...], ...] = ()) -> Action:
        """``chi a b [| bi x y z]…``."""
        return cls(ActionKind.CHI, None, tuple(cards), tuple(tuple(g) for g in bi))

    @classmethod
    def parse(cls, text: str | object) -> Action:
        """Parse the action notation (see the module docstring).

        :raises NotationError: naming what is wrong.

        >>> Action.parse("discard d10") == Action.discard(Card.D10)
        True
        >>> Action.parse("chi x8")
        Traceback (most recent call last):
        ...
        paohuzi.cards.NotationError: chi takes the two hand cards it eats with, like 'chi x8 x9'; got 1
        """
        if not isinstance(text, str):
            raise NotationError(f"an action must be text, got {type(text).__name__}")
        parts = text.split("|")
        head = parts[0].strip()
        if not head:
            raise NotationError(f"empty action {text!r} (expected discard, hu, peng, chi or pass)")
        verb, _, rest = head.partition(" ")
        verb_key = verb.lower()
        if verb_key not in _VERBS and len(verb) > 1 and verb[0] in _CHINESE_VERBS:
            verb_key, rest = verb[0], verb[1:] + " " + rest  # "出七"
        kind = _VERBS.get(verb_key)
        if kind is None:
            raise NotationError(f"unknown action {verb!r} in {text!r} (expected discard, hu, peng, chi or pass)")
        if kind is not ActionKind.CHI and len(parts) > 1:
            raise NotationError(f"only chi takes bi groups: {text!r}")
        if kind is ActionKind.DISCARD:
            cards = parse_cards(rest)
            if len(cards) != 1:
                raise NotationError(f"discard takes exactly one card, like 'discard x7'; got {text!r}")
            return cls.discard(cards[0])
        if kind is ActionKind.CHI:
            bi = []
            for part in parts[1:]:
                part = part.strip()
                bverb, _, brest = part.partition(" ")
                if bverb.lower() not in ("bi", "比"):
                    if part[:1] == "比":
                        brest = part[1:]
                    else:
                        raise NotationError(f"expected 'bi <three cards>' after '|', got {part!r} in {text!r}")
                bi.append(parse_cards(brest))
            return cls.chi(parse_cards(rest), tuple(bi))
        if rest.strip():
            raise NotationError(f"{kind.value} takes no cards: {text!r}")
        return _SIMPLE[kind]

    def __str__(self) -> str:
        kind = self.kind
        if kind is ActionKind.DISCARD:
            return f"discard {self.card}"
        if kind is ActionKind.CHI:
            text = f"chi {self.cards[0]} {self.cards[1]}"
            for g in self.bi:
                text += " | bi " + " ".join(str(c) for c in g)
            return text
        return str(kind.value)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @property
    def chinese(self) -> str:
        """The action in Chinese, e.g. ``出 柒``, ``吃 八九 比 七八九``."""
        kind = self.kind
        if kind is ActionKind.DISCARD:
            assert self.card is not None
            return f"出 {self.card.chinese}"
        if kind is ActionKind.CHI:
            text = "吃 " + "".join(c.chinese for c in self.cards)
            for g in self.bi:
                text += " 比 " + "".join(c.chinese for c in g)
            return text
        return kind.chinese


_CHINESE_VERBS = frozenset(_CHINESE.values())
_DISCARDS: dict[int, Action] = {c: Action(ActionKind.DISCARD, c) for c in Card}
HU = Action(ActionKind.HU)
PENG = Action(ActionKind.PENG)
PASS = Action(ActionKind.PASS)
_SIMPLE = {ActionKind.HU: HU, ActionKind.PENG: PENG, ActionKind.PASS: PASS}
