"""The value types of the hand analysis (R6.1): :class:`Source`, :class:`Arrangement`, :class:`AnalysisError`.

Re-exported by :mod:`paohuzi.analysis`; import them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from paohuzi.cards import Card, PaohuziError
from paohuzi.groups import Group

__all__ = ["Source", "Arrangement", "AnalysisError"]


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


class AnalysisError(PaohuziError):
    """Cards that cannot be analysed: more than 4 of a kind, a group that cannot lie on a table, ..."""
