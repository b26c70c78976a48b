"""Hand analysis, R6: complete hands, the best arrangement, waits (听牌) and partial arrangements.

The analysis answers "how can these cards be arranged" and "how many 胡息 does each way score". Which
arrangement is *best* also depends on the 名堂 (R6.2: most points first), so this module returns, for a
hand, the best arrangement of each **shape** — at most one 对对 shape (every group of one kind) and one
other — and :func:`paohuzi.scoring.evaluate` picks between them. For a fixed set of cards the points
depend only on the 胡息 and on the shape, so those candidates always contain the best arrangement.

API (implemented below):

- :class:`Source` — where the card being won came from.
- :class:`Arrangement` — groups, 胡息, shape.
- :func:`arrangements` — the candidate best arrangements of a complete hand (empty if incomplete).
- :func:`is_complete` — shortcut.
- :func:`waits` — 听牌: for a hand without a card, each card kind whose own draw completes it.
- :func:`partial_arrangement` — the best partial arrangement of any cards (R6.4, R7.3 逃跑).
- :func:`dealt_tianhu` / :func:`tianhu_arrangement` — the dealt 天胡 of R6.4.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from paohuzi.cards import Card
from paohuzi.groups import Group

__all__ = [
    "Source",
    "Arrangement",
    "AnalysisError",
]


class Source(Enum):
    """Where the card being won (or tried) came from. R6.1."""

    NONE = "none"  # no card: the hand as it stands
    SELF = "self"  # drawn by the player (自摸)
    OTHER = "other"  # drawn and shown by another player
    DISCARD = "discard"  # discarded from another player's hand


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One way to arrange a player's cards (R6.1) with its 胡息.

    :ivar groups: every group — the table groups as they stand after the win (a 偎 the card joined is
        now a 提 or 跑), then the groups of the hand cards (坎, 句, 绞, 将, and the group the card made).
    :ivar huxi: the sum of the groups' 胡息.
    :ivar duidui: 对对 shape: every group is of one kind (碰/偎/臭偎/坎/跑/提 or the 将).
    :ivar loose: cards left out of any group (only in partial arrangements, R6.4).
    """

    groups: tuple[Group, ...]
    huxi: int
    duidui: bool
    loose: tuple[Card, ...] = ()
