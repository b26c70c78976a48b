"""Groups (门子), R3: the kinds of group, their validation and the 胡息 each scores.

The R3 shape table lives here and only here: :data:`SEQUENCE_SHAPES` and :data:`JIAO_SHAPES` (every 句
and 绞 as three card kind indices with its 胡息), :data:`SHAPE_OF` (lookup by cards), :data:`PARTNERS`
(which two cards complete a 句 or 绞 with a card) and :data:`SAME_KIND_HUXI` / :func:`same_kind_huxi`
(胡息 of the same-kind groups by kind and case). :class:`Group`, the analysis search, the engine's claim
search and the bots' evaluation derive their forms from it.

>>> g = Group.parse("peng:d5d5d5")
>>> g, g.huxi, str(g)
(Group.parse('peng:d5 d5 d5'), 3, 'peng:d5 d5 d5')
>>> Group.parse("ju:x2 x7 x10").huxi, Group.parse("ju:d1 d2 d3").huxi, Group.parse("ju:x4 x5 x6").huxi
(3, 6, 0)
>>> Group.chi(parse_cards("x8 x8 d8")).kind
<GroupKind.JIAO: 'jiao'>
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

from paohuzi.cards import NUM_KINDS, Card, NotationError, PaohuziError, parse_cards

__all__ = [
    "GroupKind", "Group", "GroupError", "TABLE_KINDS", "HAND_KINDS", "SCORING_SEQUENCES", "is_sequence", "is_jiao",
    "Shape", "SAME_KIND_HUXI", "SCORING_SEQUENCE_HUXI", "SEQUENCE_SHAPES", "JIAO_SHAPES", "MIXED_SHAPES",
    "SHAPE_OF", "PARTNERS", "same_kind_huxi", "parse_groups", "format_groups", "YIWUSHI_SHAPES",
    "MIXED_SHAPES_YIWUSHI", "PARTNERS_YIWUSHI", "is_yiwushi", "mixed_shapes", "partners",
]


class GroupError(PaohuziError):
    """Cards that do not form the group they claim to be (R3)."""


class GroupKind(Enum):
    """A kind of group (门子), with its Chinese name. R3."""

    TI = "ti"  # 提: four of a kind on the table, 3 down 1 up
    PAO = "pao"  # 跑: four of a kind on the table, all up
    WEI = "wei"  # 偎: three of a kind on the table, face down
    CHOUWEI = "chouwei"  # 臭偎: a 偎 after 忍碰, one card up
    KAN = "kan"  # 坎: three of a kind in hand
    PENG = "peng"  # 碰: three of a kind on the table, all up
    JU = "ju"  # 句: a sequence (incl. 二七十)
    JIAO = "jiao"  # 绞: same point, two of one case + one of the other
    JIANG = "jiang"  # 将: the pair, only at the win

    @property
    def chinese(self) -> str:
        return _CHINESE[self]

    @property
    def size(self) -> int:
        """How many cards a group of this kind holds."""
        return 4 if self in (GroupKind.TI, GroupKind.PAO) else 2 if self is GroupKind.JIANG else 3

    @property
    def same_kind(self) -> bool:
        """True for the groups made of one card kind (提 跑 偎 臭偎 坎 碰 将)."""
        return self not in (GroupKind.JU, GroupKind.JIAO)

    @property
    def four(self) -> bool:
        """True for 提 and 跑, the groups that call for a 将 pair (R6.1) and count in R4.6."""
        return self in (GroupKind.TI, GroupKind.PAO)


_CHINESE = {
    GroupKind.TI: "提",
    GroupKind.PAO: "跑",
    GroupKind.WEI: "偎",
    GroupKind.CHOUWEI: "臭偎",
    GroupKind.KAN: "坎",
    GroupKind.PENG: "碰",
    GroupKind.JU: "句",
    GroupKind.JIAO: "绞",
    GroupKind.JIANG: "将",
}

#: The group kinds that can lie on a player's table (R3): 吃 leaves a 句 or 绞 there.
TABLE_KINDS = frozenset(
    {GroupKind.TI, GroupKind.PAO, GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG, GroupKind.JU, GroupKind.JIAO}
)
#: The group kinds that a winning hand's own cards form (R6.1).
HAND_KINDS = frozenset({GroupKind.KAN, GroupKind.JU, GroupKind.JIAO, GroupKind.JIANG})

# ---------------------------------------------------------------------------------------------------
# The R3 shape table: the one place the group shapes and their 胡息 are written. Everything else (the
# Group class, the analysis search, the engine's claim search, the bots' evaluation, the wire's group
# 胡息) derives its own form from it. Cards are plain kind indices here (Card values, 0–19) so that hot
# paths can use the tables as they are.
# ---------------------------------------------------------------------------------------------------

#: 胡息 of the same-kind groups, (small, big), by kind. R3.
SAME_KIND_HUXI: dict[GroupKind, tuple[int, int]] = {
    GroupKind.TI: (9, 12),
    GroupKind.PAO: (6, 9),
    GroupKind.WEI: (3, 6),
    GroupKind.CHOUWEI: (3, 6),
    GroupKind.KAN: (3, 6),
    GroupKind.PENG: (1, 3),
    GroupKind.JIANG: (0, 0),
}
#: 胡息 of the scoring sequences 一二三 and 二七十, (small, big). R3. Other sequences and 绞 score 0.
SCORING_SEQUENCE_HUXI = (3, 6)

#: The two sequences that score 胡息 (一二三 and 二七十), by their points. R3.
SCORING_SEQUENCES = frozenset({(1, 2, 3), (2, 7, 10)})


class Shape(NamedTuple):
    """A three-card group of mixed kinds (句 or 绞) as a table row. R3.

    :ivar kind: ``GroupKind.JU`` or ``GroupKind.JIAO``.
    :ivar cards: the three card kind indices (``Card`` values), ascending.
    :ivar huxi: the 胡息 the group scores.
    """

    kind: GroupKind
    cards: tuple[int, int, int]
    huxi: int


def _sequence_shapes() -> tuple[Shape, ...]:
    out: list[Shape] = []
    for big in (0, 1):
        base = 10 * big
        runs = [(p, p + 1, p + 2) for p in range(1, 9)] + [(2, 7, 10)]  # consecutive points, then 二七十
        for points in runs:
            huxi = SCORING_SEQUENCE_HUXI[big] if points in SCORING_SEQUENCES else 0
            cards = (base + points[0] - 1, base + points[1] - 1, base + points[2] - 1)
            out.append(Shape(GroupKind.JU, cards, huxi))
    return tuple(out)


def _jiao_shapes() -> tuple[Shape, ...]:
    out: list[Shape] = []
    for small in range(10):
        out.append(Shape(GroupKind.JIAO, (small, small, small + 10), 0))  # two small, one big
        out.append(Shape(GroupKind.JIAO, (small, small + 10, small + 10), 0))  # one small, two big
    return tuple(out)


#: Every 句 (R3): 8 runs of three consecutive points and 二七十, in each case (18 shapes).
SEQUENCE_SHAPES: tuple[Shape, ...] = _sequence_shapes()
#: Every 绞 (R3): for each point, two small + one big and one small + two big (20 shapes).
JIAO_SHAPES: tuple[Shape, ...] = _jiao_shapes()
#: Every group of mixed kinds, 句 then 绞: what 吃 can form and what a hand's loose cards split into.
MIXED_SHAPES: tuple[Shape, ...] = SEQUENCE_SHAPES + JIAO_SHAPES
#: 一五十 / 壹伍拾, a 句 like 二七十 (3 / 6 胡息) only with the rule option ``yiwushi`` (R9.3 六胡抢).
YIWUSHI_SHAPES: tuple[Shape, ...] = tuple(
    Shape(GroupKind.JU, (base, base + 4, base + 9), SCORING_SEQUENCE_HUXI[big]) for big, base in ((0, 0), (1, 10))
)
#: The mixed groups with ``yiwushi`` (R9.3): the 句 of R3, 一五十, then the 绞 (the search's order in a slot).
MIXED_SHAPES_YIWUSHI: tuple[Shape, ...] = SEQUENCE_SHAPES + YIWUSHI_SHAPES + JIAO_SHAPES
#: The shape of three ascending card kind indices, for the mixed groups (R3, without 一五十).
SHAPE_OF: dict[tuple[int, int, int], Shape] = {s.cards: s for s in MIXED_SHAPES}
# Every shape a Group may hold: a Group is rule-free; what the rules let a player form is checked where the rules
# are known (the analysis refuses a table 一五十 without ``yiwushi``; the engine offers 吃 from the rules' shapes).
_ANY_SHAPE: dict[tuple[int, int, int], Shape] = {s.cards: s for s in MIXED_SHAPES_YIWUSHI}


def mixed_shapes(yiwushi: bool) -> tuple[Shape, ...]:
    """The 句 and 绞 a rule set's players form: R3's, and 一五十 with the option ``yiwushi`` (R9.3)."""
    return MIXED_SHAPES_YIWUSHI if yiwushi else MIXED_SHAPES


def is_yiwushi(cards: Sequence[Card]) -> bool:
    """True for 一五十 or 壹伍拾 (R9.3), in any order.

    >>> is_yiwushi(parse_cards("x10 x1 x5")), is_yiwushi(parse_cards("x1 x5 d10"))
    (True, False)
    """
    return len(cards) == 3 and tuple(sorted(int(c) for c in cards)) in _YIWUSHI_CARDS


_YIWUSHI_CARDS = frozenset(s.cards for s in YIWUSHI_SHAPES)


def _partners(shapes: tuple[Shape, ...] = MIXED_SHAPES) -> tuple[tuple[tuple[int, int], ...], ...]:
    table: list[set[tuple[int, int]]] = [set() for _ in range(NUM_KINDS)]
    for shape in shapes:
        a, b, c = shape.cards
        table[a].add((b, c))
        table[b].add((a, c))
        table[c].add((a, b))
    return tuple(tuple(sorted(pairs)) for pairs in table)


#: For each card kind k, the pairs of card kinds (a, b), a <= b, that form a 句 or 绞 with k (R3), ascending.
PARTNERS: tuple[tuple[tuple[int, int], ...], ...] = _partners()
#: :data:`PARTNERS` with 一五十 (R9.3 ``yiwushi``).
PARTNERS_YIWUSHI: tuple[tuple[tuple[int, int], ...], ...] = _partners(MIXED_SHAPES_YIWUSHI)


def partners(yiwushi: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    """:data:`PARTNERS` of a rule set: with 一五十 under ``yiwushi`` (R9.3)."""
    return PARTNERS_YIWUSHI if yiwushi else PARTNERS


def same_kind_huxi(kind: GroupKind, card: int) -> int:
    """The 胡息 of a same-kind group of ``kind`` made of ``card`` (R3).

    >>> same_kind_huxi(GroupKind.KAN, Card.D4), same_kind_huxi(GroupKind.TI, Card.X1)
    (6, 9)
    """
    return SAME_KIND_HUXI[kind][1 if card >= 10 else 0]


def is_sequence(cards: Sequence[Card], *, yiwushi: bool = False) -> bool:
    """True if three cards of one case are consecutive points or 二七十 (R3), or 一五十 with ``yiwushi`` (R9.3)."""
    shape = _shape_of(cards)
    if shape is None:
        return yiwushi and is_yiwushi(cards)
    return shape.kind is GroupKind.JU


def is_jiao(cards: Sequence[Card]) -> bool:
    """True for 绞: one point, two cards of one case and one of the other (R3)."""
    shape = _shape_of(cards)
    return shape is not None and shape.kind is GroupKind.JIAO


def _shape_of(cards: Sequence[Card]) -> Shape | None:
    if len(cards) != 3:
        return None
    a, b, c = sorted(int(x) for x in cards)
    return SHAPE_OF.get((a, b, c))


@dataclass(frozen=True, slots=True)
class Group:
    """A group (门子): its kind and its cards, sorted. Validated on creation. R3.

    :raises GroupError: if the cards do not form a group of that kind.
    """

    kind: GroupKind
    cards: tuple[Card, ...]
    #: The 胡息 this group scores (R3), computed once.
    huxi: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cards = tuple(sorted(Card(c) for c in self.cards))
        object.__setattr__(self, "cards", cards)
        kind = self.kind
        if len(cards) != kind.size:
            raise GroupError(f"{kind.value} ({kind.chinese}) needs {kind.size} cards, got {len(cards)}: {self._text()}")
        if kind.same_kind:
            if len(set(cards)) != 1:
                raise GroupError(f"{kind.value} ({kind.chinese}) needs cards of one kind, got {self._text()}")
        elif kind is GroupKind.JU:
            if not is_sequence(cards, yiwushi=True):
                raise GroupError(
                    f"ju (句) needs three consecutive cards of one case or 二七十 (or 一五十, R9.3), got {self._text()}"
                )
        elif not is_jiao(cards):
            raise GroupError(
                f"jiao (绞) needs one point, two of one case and one of the other, got {self._text()}"
            )
        object.__setattr__(self, "huxi", self._huxi())

    def _text(self) -> str:
        return " ".join(str(Card(c)) for c in self.cards)

    def _huxi(self) -> int:
        cards = self.cards
        if self.kind.same_kind:
            return same_kind_huxi(self.kind, cards[0])
        return _ANY_SHAPE[(cards[0], cards[1], cards[2])].huxi

    @property
    def card(self) -> Card:
        """The card kind of a same-kind group (提 跑 偎 臭偎 坎 碰 将)."""
        return self.cards[0]

    @classmethod
    def chi(cls, cards: Sequence[Card]) -> Group:
        """The group an eaten 句 or 绞 forms on the table (吃, R4.3).

        :raises GroupError: if the three cards are neither a sequence nor a 绞.
        """
        # Groups are immutable: one per set of cards, made once (bots weigh the same 吃 in every rollout).
        key = tuple(sorted([int(c) for c in cards])) if all(isinstance(c, int) for c in cards) else None
        known = _CHI_MADE.get(key) if key is not None and cls is Group else None
        if known is not None:
            return known
        if is_sequence(cards, yiwushi=True):  # 一五十 (R9.3): whether the rules allow it is checked by the caller
            made = cls(GroupKind.JU, tuple(cards))
        elif is_jiao(cards):
            made = cls(GroupKind.JIAO, tuple(cards))
        else:
            raise GroupError(f"chi (吃) needs a sequence or a 绞, got {' '.join(str(c) for c in cards)}")
        if key is not None and cls is Group:
            _CHI_MADE[key] = made
        return made

    @classmethod
    def parse(cls, text: str) -> Group:
        """Parse ``kind:cards`` (``peng:d5d5d5``, ``chi:x1 x2 x3``, ``jiao:x8 x8 d8``).

        ``chi`` stands for an eaten 句 or 绞 and becomes ``ju`` or ``jiao``.

        :raises NotationError: for an unknown kind or bad card tokens.
        :raises GroupError: for cards that do not form the group.
        """
        kind_text, sep, cards_text = text.partition(":")
        if not sep:
            raise NotationError(f"a group is written kind:cards (like peng:d5d5d5), got {text!r}")
        return cls.from_kind_name(kind_text.strip(), parse_cards(cards_text))

    @classmethod
    def from_kind_name(cls, name: str, cards: Sequence[Card]) -> Group:
        """Build a group from a kind name (``peng``, ``chi``, ``提`` …) and its cards."""
        key = name.strip().lower()
        if key in ("chi", "吃"):
            return cls.chi(cards)
        kind = _KIND_NAMES.get(key)
        if kind is None:
            names = ", ".join(sorted(k.value for k in GroupKind)) + ", chi"
            raise NotationError(f"unknown group kind {name!r} (expected one of {names})")
        return cls(kind, tuple(cards))

    def __str__(self) -> str:
        return f"{self.kind.value}:{self._text()}"

    def __repr__(self) -> str:
        return f"Group.parse({str(self)!r})"

    @property
    def chinese(self) -> str:
        """Kind and cards in Chinese, e.g. ``碰 伍伍伍``."""
        return f"{self.kind.chinese} {''.join(c.chinese for c in self.cards)}"

    def to_dict(self) -> dict[str, Any]:
        """The wire form of a group: ``{"kind", "cards", "huxi"}`` (cards as tokens, 胡息 per R3).

        >>> Group.parse("ju:x2x7x10").to_dict()
        {'kind': 'ju', 'cards': ['x2', 'x7', 'x10'], 'huxi': 3}
        """
        # ``_value_``, not ``value``: an Enum's ``value`` is a Python-level property, and this runs for every group of
        # every view sent (issue 33)
        return {"kind": self.kind._value_, "cards": [_CARD_TEXT[c] for c in self.cards], "huxi": self.huxi}


#: :meth:`Group.chi` by its sorted card kinds (at most the 1,000-odd 句 and 绞 there are).
_CHI_MADE: dict[tuple[int, ...], Group] = {}


_KIND_NAMES: dict[str, GroupKind] = {k.value: k for k in GroupKind} | {k.chinese: k for k in GroupKind}
_CARD_TEXT = tuple(str(c) for c in Card)


def parse_groups(text: str, *, what: str = "group") -> tuple[Group, ...]:
    """Groups written ``kind:cards`` one after another (the inverse of :func:`format_groups`).

    Groups are separated by spaces or ``;``; a group's cards may contain spaces (``peng:d5 d5 d5``).
    Kinds are as in :meth:`Group.from_kind_name` (``chi`` becomes ``ju`` or ``jiao``). ``what`` names a group
    in the error messages (``"table group"``).

    :raises NotationError: for text before the first ``kind:``, an unknown kind or a bad card token.
    :raises GroupError: for cards that do not form their group.

    >>> [str(g) for g in parse_groups("peng:d5d5d5 chi:x1 x2 x3; 偎:三三三")]
    ['peng:d5 d5 d5', 'ju:x1 x2 x3', 'wei:x3 x3 x3']
    >>> parse_groups("") == ()
    True
    """
    if not isinstance(text, str):
        raise NotationError(f"{what}s must be text like 'peng:d5d5d5 chi:x1x2x3', got {type(text).__name__}")
    parts: list[list[str]] = []
    for token in re.split(r"[\s;]+", text.strip()):
        if not token:
            continue
        if ":" in token:
            parts.append([token])
        elif not parts:
            raise NotationError(f"a {what} is written kind:cards (like peng:d5d5d5), got {token!r} in {text!r}")
        else:
            parts[-1].append(token)
    groups: list[Group] = []
    for part in parts:
        kind, _sep, first = part[0].partition(":")
        groups.append(Group.from_kind_name(kind, parse_cards(" ".join([first, *part[1:]]))))
    return tuple(groups)


def format_groups(groups: Sequence[Group]) -> str:
    """Groups as text that :func:`parse_groups` reads back: ``kind:cards`` separated by ``"; "``.

    >>> text = format_groups(parse_groups("peng:d5d5d5 吃:x8 x8 d8"))
    >>> text, parse_groups(text) == parse_groups("peng:d5d5d5 吃:x8 x8 d8")
    ('peng:d5 d5 d5; jiao:x8 x8 d8', True)
    """
    return "; ".join(str(g) for g in groups)
