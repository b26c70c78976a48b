"""Greedy's candidate actions and what each leaves, as numbers: the inputs of the learned scorer (issue #16).

:func:`candidates` picks the actions worth a second look exactly as ``search`` does (greedy's best
``k`` within ``window`` of its best score, :mod:`paohuzi.bots.greedy`), and :func:`features` describes one
candidate by the hand it leaves, read with greedy's own evaluation (:mod:`paohuzi.bots.evaluation`): the
action's kind, greedy's score and rank, the distance (向听) and 胡息 of the hand left, at 听牌 the live
winning cards and their points, 进张, the danger of the card it discards, the 胡息 a claim lays down — plus
a summary of the table that is the same for every candidate (stock left, phase, the other seats' shown 胡息
and hand sizes).

Everything comes from the seat's :class:`~paohuzi.bots.view.View` (its observation, R5): nothing hidden.
The network that scores these vectors is :class:`paohuzi.bots.scorer.Scorer`; docs/AI.md §8.
"""

from __future__ import annotations

from collections.abc import Sequence

from paohuzi.bots import greedy
from paohuzi.bots.evaluation import reach, useful_cards
from paohuzi.bots.view import View
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Action, ActionKind
from paohuzi.groups import Group

__all__ = ["CONTEXT_SIZE", "ACTION_SIZE", "FEATURE_SIZE", "candidates", "features", "after"]

_BIG = [Card(k).big for k in range(NUM_KINDS)]
_POINT = [Card(k).point for k in range(NUM_KINDS)]

#: Sizes of the summary shared by every candidate, of the per-action part, and of the whole vector.
CONTEXT_SIZE = 14
ACTION_SIZE = 27
FEATURE_SIZE = CONTEXT_SIZE + ACTION_SIZE


def candidates(view: View, legal: Sequence[Action], k: int = 4, window: float = 8.0) -> tuple[
        Action, list[tuple[float, Action]]]:
    """Greedy's choice and its best ``k`` actions within ``window`` of the best score, ``(score, action)``
    best first (greedy's choice first): the same rule as ``search``'s candidates."""
    choice, scored = greedy.choose(view, legal)
    best = scored[0][0]
    cands = [(v, a) for v, a in scored[:k] if v >= best - window]
    return choice, cands


def after(view: View, action: Action) -> tuple[list[int], list[Group], int | None]:
    """The hand and table ``action`` leaves waiting for the next card, and the kind it discards (a 碰/吃
    that owes a discard, R4.6, is followed by greedy's best discard; a 过 leaves the hand as it is)."""
    if action.kind is ActionKind.DISCARD:
        assert action.card is not None
        counts = list(view.counts)
        counts[int(action.card)] -= 1
        return counts, list(view.table), int(action.card)
    if action.kind in (ActionKind.PENG, ActionKind.CHI) and view.pending is not None:
        counts, table = greedy.after_claim(view, action)
        kinds = greedy.discardable(counts)
        if not view.owes_discard_after_take() or not kinds:
            return counts, table, None
        k = greedy.discard_scores(view, counts, table, kinds)[0][1]
        counts[k] -= 1
        return counts, table, k
    return list(view.counts), list(view.table), None


def _context(view: View, n_cands: int) -> list[float]:
    seat = view.seat
    dist, _ = reach(view.counts, view.table, view.rules.min_huxi, view.rules.complete_groups, view.rules.yiwushi)
    others = list(view.others)[:2] + [None] * max(0, 2 - len(view.others))
    out = [
        view.stock / 20.0,
        float(view.phase == "claim"),
        float(view.pending_drawn),
        min(max(dist, 0), 6) / 6.0,
        sum(g.huxi for g in view.table) / 30.0,
        float(view.dealer == seat),
        n_cands / 4.0,
    ]
    for s in others:
        out.append(0.0 if s is None else sum(g.huxi for g in view.tables[s]) / 30.0)
    for s in others:
        out.append(0.0 if s is None else view.hand_counts[s] / 20.0)
    for s in others:
        out.append(float(s is not None and s in view.dead))
    out.append(float(view.stock <= 3))
    return out


def _action(view: View, action: Action, score: float, best: float, rank: int) -> list[float]:
    kind = action.kind
    counts, table, discard = after(view, action)
    dist, huxi, waits = greedy.exact_distance(view, counts, table)
    out = [float(kind is ActionKind.DISCARD), float(kind is ActionKind.PASS), float(kind is ActionKind.PENG),
           float(kind is ActionKind.CHI), len(action.bi) / 2.0,
           max(score - best, -20.0) / 10.0, float(rank == 0), rank / 3.0]
    out += [float(dist <= 0), float(dist == 1), float(dist == 2), float(dist >= 3)]
    out += [huxi / 30.0, max(0, view.rules.min_huxi - huxi) / 15.0]
    if waits:
        live = sum(view.unseen[c] * p for c, p in waits)
        cards = sum(view.unseen[c] for c, _ in waits)
        out += [live / 20.0, cards / 8.0, max(p for _, p in waits) / 20.0, len(waits) / 5.0, float(live == 0)]
    else:
        out += [0.0] * 5
    useful = 0
    if dist > 0:
        rules = view.rules
        useful, _ = useful_cards(
            counts, table, view.unseen, rules.min_huxi, groups=rules.complete_groups, yiwushi=rules.yiwushi
        )
    out.append(min(useful, 30) / 20.0)
    if discard is None:
        out += [0.0] * 6
    else:
        nxt = view.next_seat
        out += [greedy.danger(view, discard, view.others, nxt) / 3.0, view.unseen[discard] / 3.0,
                float(view.unseen[discard] == 0), float(_BIG[discard]), _POINT[discard] / 10.0,
                float(nxt not in view.dead and discard not in view.discarded[nxt])]
    gain = sum(g.huxi for g in table) - sum(g.huxi for g in view.table)
    out.append(gain / 10.0)
    return out


def features(view: View, cands: Sequence[tuple[float, Action]]) -> list[list[float]]:
    """One row of :data:`FEATURE_SIZE` floats per candidate (``(score, action)`` as :func:`candidates`
    gives them, best first): the shared summary, then the candidate's own part. Plain lists (the bots
    need no numpy)."""
    best = cands[0][0]
    ctx = _context(view, len(cands))
    return [ctx + _action(view, a, v, best, i) for i, (v, a) in enumerate(cands)]
