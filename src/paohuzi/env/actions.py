"""The fixed action space of the environment: action IDs ↔ engine :class:`~paohuzi.engine.Action`. R4.2–R4.5.

This module is the one place where action IDs and engine actions meet. Every action the engine can offer
has an ID in ``range(NUM_ACTIONS)``:

=========  ====================================================================================
ID         action
=========  ====================================================================================
0–19       ``discard <card>`` (出牌): the card kind's index, ``x1``…``x10`` = 0–9, ``d1``…``d10`` = 10–19
20         ``hu`` (胡)
21         ``peng`` (碰)
22         ``pass`` (过)
23–114     ``chi`` (吃) with its 比 groups, *relative to the card on offer* (see below)
=========  ====================================================================================

**吃 IDs.** A 吃 takes the card on offer ``c`` with two hand cards; those two cards are one of six
*shapes* relative to ``c`` (``p`` is c's point, ``C`` the card of c's point in the other case):

=====  ============  ===============================  ========================
shape  name          hand cards                       group laid down
=====  ============  ===============================  ========================
0      ``low``       p+1, p+2 (same case)             c is the lowest of a 句
1      ``mid``       p−1, p+1                         c is the middle of a 句
2      ``high``      p−2, p−1                         c is the highest of a 句
3      ``ejs``       the other two of 2, 7, 10        二七十 (p ∈ {2, 7, 10})
4      ``jiao_c``    c, C                             绞 c c C
5      ``jiao_C``    C, C                             绞 c C C
=====  ============  ===============================  ========================

Each 比 group (R4.5) is c plus two more hand cards, so it is also one of these shapes. A 吃 is then a
shape and a multiset of at most two 比 shapes. Of the 6 × 28 such combinations, the 92 that some hand can
hold (no kind used more than twice from hand, since a third copy would be a 坎; at most two copies of c
left in hand) get the IDs 23–114, in the order of :data:`CHI_COMBOS`. Decoding a 吃 ID needs the card on
offer, which every seat sees (R5: the observation's ``pending`` card); the same ID always means the same
move *shape*, which is what a policy should learn.

**一五十** (rule option ``yiwushi``, R9.3): 一五十 / 壹伍拾 is a 句, so 吃 and 比 have a seventh shape, ``yws`` (the
other two of 1, 5, 10). The IDs above keep their meaning and the combinations that use ``yws`` follow them:
IDs 115–170 (:data:`CHI_COMBOS_YIWUSHI`, :func:`num_actions`); :func:`decode` refuses them unless told the option.

>>> from paohuzi.cards import Card
>>> from paohuzi.engine import Action
>>> encode(Action.parse("chi x8 x9 | bi x7 x8 x9"), Card.X7)
24
>>> decode(24, Card.X7), decode(24, Card.D4)
(Action.parse('chi x8 x9 | bi x7 x8 x9'), Action.parse('chi d5 d6 | bi d4 d5 d6'))
>>> action_name(24)
'chi low | bi low'
>>> encode(Action.parse("discard d10")), decode(20), NUM_ACTIONS
(19, Action.parse('hu'), 115)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from itertools import combinations_with_replacement
from typing import Final, SupportsIndex

from paohuzi.cards import NUM_KINDS, Card, PaohuziError
from paohuzi.engine import HU, PASS, PENG, Action

__all__ = [
    "NUM_ACTIONS",
    "DISCARD",
    "HU_ID",
    "PENG_ID",
    "PASS_ID",
    "CHI_BASE",
    "SHAPES",
    "CHI_COMBOS",
    "ActionEncodingError",
    "encode",
    "decode",
    "action_name",
    "legal_ids",
    "action_ids",
    "shape_partners",
    "is_chi",
    "NUM_ACTIONS_YIWUSHI",
    "CHI_COMBOS_YIWUSHI",
    "num_actions",
]

#: IDs 0–19: ``discard`` of the card kind with that index.
DISCARD = 0
HU_ID = 20
PENG_ID = 21
PASS_ID = 22
CHI_BASE = 23

#: The 吃/比 shapes, by index (see the module docstring): six, and ``yws`` (一五十, R9.3) with ``yiwushi``.
SHAPES = ("low", "mid", "high", "ejs", "jiao_c", "jiao_C", "yws")
_CLASSIC_SHAPES = 6


class ActionEncodingError(PaohuziError):
    """An action ID out of range, or one that means nothing with this card on offer, or an action that
    has no ID (a 吃 whose cards do not fit the card on offer)."""


def shape_partners(card: int, yiwushi: bool = False) -> tuple[tuple[int, int] | None, ...]:
    """For the card kind ``card``, the two hand cards (kind indices, sorted) of each shape; None where the
    shape does not exist for this card (``high`` for a 1, ``ejs`` for a 5 …). Six shapes; with ``yiwushi``
    (R9.3) a seventh, ``yws``: the other two of 一五十 (for points 1, 5 and 10).

    >>> [None if p is None else tuple(str(Card(k)) for k in p) for p in shape_partners(Card.X2)]
    [('x3', 'x4'), ('x1', 'x3'), None, ('x7', 'x10'), ('x2', 'd2'), ('d2', 'd2')]
    >>> [str(Card(k)) for k in shape_partners(Card.D10, yiwushi=True)[6]]
    ['d1', 'd5']
    """
    p = card % 10 + 1
    base = card - card % 10
    other = (card + 10) % NUM_KINDS
    out: list[tuple[int, int] | None] = [None] * (len(SHAPES) if yiwushi else _CLASSIC_SHAPES)
    if p + 2 <= 10:
        out[0] = (base + p, base + p + 1)
    if 2 <= p <= 9:
        out[1] = (base + p - 2, base + p)
    if p >= 3:
        out[2] = (base + p - 3, base + p - 2)
    if p in (2, 7, 10):
        a, b = (q for q in (2, 7, 10) if q != p)
        out[3] = (base + a - 1, base + b - 1)
    out[4] = (min(card, other), max(card, other))
    out[5] = (other, other)
    if yiwushi and p in (1, 5, 10):
        a, b = (q for q in (1, 5, 10) if q != p)
        out[6] = (base + a - 1, base + b - 1)
    return tuple(out)


def _feasible(shape: int, bi: tuple[int, ...]) -> bool:
    """Can some hand hold this 吃? No kind used more than twice from hand (R3: three would be a 坎)."""
    for c in range(NUM_KINDS):
        partners = shape_partners(c, yiwushi=True)
        if partners[shape] is None or any(partners[s] is None for s in bi):
            continue
        use = [0] * NUM_KINDS
        for k in partners[shape]:  # type: ignore[union-attr]
            use[k] += 1
        for s in bi:
            use[c] += 1
            for k in partners[s]:  # type: ignore[union-attr]
                use[k] += 1
        if max(use) <= 2:
            return True
    return False


def _combos(shapes: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    bis: list[tuple[int, ...]] = [()]
    bis += [(s,) for s in range(shapes)]
    bis += list(combinations_with_replacement(range(shapes), 2))
    return tuple((shape, bi) for shape in range(shapes) for bi in bis if _feasible(shape, bi))


#: The 吃 combinations (shape, 比 shapes) in ID order: ``CHI_COMBOS[i]`` has ID ``CHI_BASE + i``.
CHI_COMBOS = _combos(_CLASSIC_SHAPES)
NUM_ACTIONS: Final = CHI_BASE + len(CHI_COMBOS)
#: With ``yiwushi`` (R9.3): :data:`CHI_COMBOS`, then every combination that uses ``yws`` (一五十), so the first
#: :data:`NUM_ACTIONS` IDs mean the same under every rule set.
CHI_COMBOS_YIWUSHI = CHI_COMBOS + tuple(c for c in _combos(len(SHAPES)) if c not in CHI_COMBOS)
NUM_ACTIONS_YIWUSHI: Final = CHI_BASE + len(CHI_COMBOS_YIWUSHI)


def num_actions(yiwushi: bool = False) -> int:
    """The size of the action space: :data:`NUM_ACTIONS` (115), or :data:`NUM_ACTIONS_YIWUSHI` for a rule set with
    ``yiwushi`` (一五十 吃 and 比, R9.3).

    >>> num_actions(), num_actions(True)
    (115, 171)
    """
    return NUM_ACTIONS_YIWUSHI if yiwushi else NUM_ACTIONS


_SIMPLE_IDS = {HU: HU_ID, PENG: PENG_ID, PASS: PASS_ID}
_COMBO_ID = {combo: CHI_BASE + i for i, combo in enumerate(CHI_COMBOS_YIWUSHI)}


def _build() -> tuple[list[list[Action | None]], list[dict[Action, int]], list[dict[str, int]]]:
    """Per card on offer (index 0–19; 20 for none): ID → Action, Action → ID and text → ID, over every ID (with
    一五十's: a rule set without ``yiwushi`` never offers those 吃, and :func:`decode` refuses their IDs)."""
    cards = tuple(Card)
    plain: list[Action | None] = [*(Action.discard(cards[k]) for k in range(NUM_KINDS)), HU, PENG, PASS]
    decode_t: list[list[Action | None]] = []
    encode_t: list[dict[Action, int]] = []
    text_t: list[dict[str, int]] = []
    for c in range(NUM_KINDS + 1):
        row = plain + [None] * len(CHI_COMBOS_YIWUSHI)
        if c < NUM_KINDS:
            partners = shape_partners(c, yiwushi=True)
            for i, (shape, bi) in enumerate(CHI_COMBOS_YIWUSHI):
                pair = partners[shape]
                if pair is None or any(partners[s] is None for s in bi):
                    continue
                groups = tuple((c, *partners[s]) for s in bi)  # type: ignore[misc]
                try:
                    row[CHI_BASE + i] = Action.chi(
                        tuple(cards[k] for k in pair), tuple(tuple(cards[k] for k in g) for g in groups)
                    )
                except PaohuziError:  # an engine whose Action refuses a 一五十 比 never offers it either
                    continue
        decode_t.append(row)
        enc = {a: i for i, a in enumerate(row) if a is not None}
        encode_t.append(enc)
        text_t.append({str(a): i for a, i in enc.items()})
    return decode_t, encode_t, text_t


_TABLES: Final = _build()
_DECODE: Final = _TABLES[0]
_ENCODE: Final = _TABLES[1]
_TEXT: Final = _TABLES[2]
_NONE: Final = NUM_KINDS  # the row for "no card on offer"


def _row(card: Card | int | None | object) -> int:
    if card is None:
        return _NONE
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_KINDS:
        raise ActionEncodingError(f"not a card: {card!r}")
    return int(card)


def encode(action: Action, card: Card | int | None = None) -> int:
    """The ID of ``action``; ``card`` is the card on offer (needed for ``chi`` only).

    :raises ActionEncodingError: if the action has no ID with this card on offer.

    >>> encode(Action.parse("pass")), encode(Action.parse("chi x2 d2"), Card.X2)
    (22, 95)
    """
    action_id = _ENCODE[_row(card)].get(action)
    if action_id is None:
        where = "with no card on offer" if card is None else f"with {Card(card)} on offer"
        raise ActionEncodingError(f"{action!r} has no action ID {where}")
    return action_id


def decode(action_id: int | object, card: Card | int | None | object = None, yiwushi: bool = False) -> Action:
    """The engine action of ``action_id``; ``card`` is the card on offer (needed for 吃 IDs only); ``yiwushi``:
    the rule set's option (R9.3), which adds the 一五十 吃 IDs (:func:`num_actions`).

    :raises ActionEncodingError: for an ID out of range, or a 吃 ID that does not exist for this card.

    >>> decode(146, Card.X10, yiwushi=True)
    Action.parse('chi x1 x5')
    """
    if type(action_id) is int:  # the common case, without the protocol check below (microseconds)
        i = action_id
    elif isinstance(action_id, bool) or not isinstance(action_id, SupportsIndex):  # numpy's ints too
        raise ActionEncodingError(f"an action ID is an int, got {action_id!r}")
    else:
        i = operator.index(action_id)
    size = NUM_ACTIONS_YIWUSHI if yiwushi else NUM_ACTIONS
    if not 0 <= i < size:
        raise ActionEncodingError(f"action ID {i} out of range 0–{size - 1}")
    row = _row(card)
    action = _DECODE[row][i]
    if action is None:
        where = "with no card on offer" if row == _NONE else f"with {Card(row)} on offer"
        raise ActionEncodingError(f"action ID {i} ({action_name(i)}) means nothing {where}")
    return action


def legal_ids(legal: Iterable[str], card: Card | int | None = None) -> list[int]:
    """The IDs of legal actions given in the notation (an observation's ``legal`` list), in their order.

    :raises ActionEncodingError: for an action with no ID (it would be an engine/env mismatch).

    >>> legal_ids(["discard x1", "hu", "pass"])
    [0, 20, 22]
    """
    table = _TEXT[_row(card)]
    try:
        return [table[text] for text in legal]
    except KeyError as exc:
        raise ActionEncodingError(f"legal action {exc.args[0]!r} has no action ID") from None


# Per row of _TEXT: id(action) -> (action, its ID). The engine hands out a few shared Action instances (the
# discards, hu, peng, pass, each 吃 with its 比), so most legal actions are found by identity instead of by
# their text; the entry holds the action, so its id cannot be reused while it is cached. Bounded.
_BY_IDENTITY: Final[list[dict[int, tuple[Action, int]]]] = [{} for _ in range(NUM_KINDS + 1)]
_BY_IDENTITY_LIMIT: Final = 50_000


def action_ids(legal: Iterable[Action], card: Card | int | None = None) -> list[int]:
    """The IDs of legal actions (an observation's ``legal``), in their order: :func:`legal_ids` of their
    texts, without making the texts for the actions seen before.

    :raises ActionEncodingError: for an action with no ID (it would be an engine/env mismatch).

    >>> action_ids([Action.discard(Card.X1), HU, PASS])
    [0, 20, 22]
    """
    row = _row(card)
    known = _BY_IDENTITY[row]
    out = []
    for action in legal:
        hit = known.get(id(action))
        if hit is None or hit[0] is not action:
            text = str(action)
            action_id = _TEXT[row].get(text)
            if action_id is None:
                raise ActionEncodingError(f"legal action {text!r} has no action ID")
            if len(known) >= _BY_IDENTITY_LIMIT:
                known.clear()
            hit = known[id(action)] = (action, action_id)
        out.append(hit[1])
    return out


def action_name(action_id: int) -> str:
    """A card-independent name of an ID: ``discard x7``, ``hu``, ``chi mid | bi low | bi jiao_C`` …

    >>> action_name(7), action_name(22), action_name(23)
    ('discard x8', 'pass', 'chi low')
    """
    if not 0 <= action_id < NUM_ACTIONS_YIWUSHI:
        raise ActionEncodingError(f"action ID {action_id} out of range 0–{NUM_ACTIONS_YIWUSHI - 1}")
    if action_id < CHI_BASE:
        return str(_DECODE[_NONE][action_id])
    shape, bi = CHI_COMBOS_YIWUSHI[action_id - CHI_BASE]
    return " | ".join([f"chi {SHAPES[shape]}", *(f"bi {SHAPES[s]}" for s in bi)])


def is_chi(action_id: int) -> bool:
    """True for the 吃 IDs (一五十's too, R9.3)."""
    return CHI_BASE <= action_id < NUM_ACTIONS_YIWUSHI

