"""提示 (hints, issue #16): the suggested move for a seat and, for each discard it may make, the 听牌 it leaves.

Everything here is computed from the seat's own observation (``Hand.observation(seat)``) and nothing else:
:func:`hint` takes no hand, no deck and no other seat's cards, so it cannot use what the seat may not see
(R5). The suggestion is the ``normal`` level's choice (:func:`paohuzi.bots.greedy.choose`); the waits are
exact (:func:`paohuzi.bots.greedy.wait_wins`: :func:`paohuzi.scoring.scored_waits`, each wait scored as the
seat's own draw by the family's points, R6, R9; under 随醒 with the card won as the 醒 card, R9.4).

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=7)
>>> h = hint(hand.observation(hand.deciding[0]))
>>> sorted(h)
['discards', 'suggest']
>>> h["suggest"] in hand.observation(hand.deciding[0]).to_dict()["legal"]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paohuzi import scoring
from paohuzi.bots.greedy import choose, wait_wins
from paohuzi.bots.view import read
from paohuzi.cards import Card
from paohuzi.engine import Action, ActionKind, Observation

__all__ = ["hint"]

_CARDS = tuple(Card)


def _discard_waits(observation: Observation, legal: list[Action]) -> list[dict[str, Any]]:
    """For each legal discard (card order): the 听牌 of the hand it leaves, ``[{card, huxi, points}]`` (empty
    when that hand is not 听牌, R6)."""
    view = read(observation)
    kinds = sorted({int(a.card) for a in legal if a.kind is ActionKind.DISCARD and a.card is not None})
    out: list[dict[str, Any]] = []
    for k in kinds:
        counts = list(view.counts)
        counts[k] -= 1
        cards = [_CARDS[c] for c in range(len(counts)) for _ in range(counts[c])]
        waits = scoring.waits_to_dicts(wait_wins(cards, view.table, view.rules))
        out.append({"card": str(_CARDS[k]), "waits": [dict(w) for w in waits]})
    return out


def hint(observation: Observation | Mapping[str, Any]) -> dict[str, Any]:
    """The hint for the seat whose observation (an :class:`~paohuzi.engine.Observation` or its JSON form)
    this is.

    :returns: ``{"suggest": action text or None, "discards": [{"card", "waits": [{"card", "huxi",
        "points"}]}]}`` — ``suggest`` is None when the seat has no decision to make; ``discards`` lists every
        legal discard now (none in a claim window).
    """
    if not isinstance(observation, Observation):
        observation = Observation.from_dict(observation)
    legal = list(observation.legal)
    if not observation.deciding or not legal:
        return {"suggest": None, "discards": []}
    action, _ = choose(read(observation), legal)
    return {"suggest": str(action), "discards": _discard_waits(observation, legal)}
