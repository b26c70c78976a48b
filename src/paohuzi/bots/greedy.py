"""``greedy``: a hand-crafted player that judges each choice by the hand it leaves (one ply, no search).

For every legal action the bot looks at the hand that would result — after a 吃 with its 比 groups or a
碰, and after the best discard that then follows (R4.6) — and scores it with
:mod:`paohuzi.bots.evaluation` (see docs/AI.md §3 for the weights):

1. **distance** (向听): cards still needed for a complete hand with the 胡息 minimum (fewer is better),
   exact at 听牌 (:func:`paohuzi.analysis.waits`);
2. **胡息** the hand can reach, and at 听牌 the exact points (胡息, 名堂, 番) of each winning card
   (:func:`paohuzi.scoring.scored_waits`) weighted by its unseen copies — a hand waiting on dead cards is
   worth little;
3. with ``useful=True`` only, **进张**: the unseen copies of the cards that would bring the distance down
   (ten times slower; the default player does without, since it is also the search bot's rollout policy);
4. **discard safety**: a card whose other copies are all seen (熟张), or that the 下家 has discarded (so it
   may never 吃 it, R4.7), feeds nobody; a 生张 may give the 下家 a 吃 or anyone a 碰 — weighed more when the
   hand is 听牌 (the seeds' tip: 听牌时退熟张);
5. tie-breaks from the seeds: throw lone 一 and 十 early, and small cards before big ones (宁小莫大).

A 胡 is always taken. 坎 cards are never discardable (the engine does not offer them).
"""

from __future__ import annotations

from collections.abc import Sequence

from paohuzi import scoring
from paohuzi._compiled import mypyc_attr
from paohuzi.bots.base import Bot
from paohuzi.bots.evaluation import partner_kinds, reach, reach3, useful_cards
from paohuzi.bots.view import View, read
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine import Action, ActionKind, Observation
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet

__all__ = ["GreedyBot", "score_hand", "choose", "after_claim", "discardable", "danger", "discard_scores",
           "exact_distance", "wait_wins"]

_PARTNERS = [partner_kinds(k) for k in range(NUM_KINDS)]
_PARTNERS_YIWUSHI = [partner_kinds(k, yiwushi=True) for k in range(NUM_KINDS)]  # with 一五十 (R9.3)
_BIG = [Card(k).big for k in range(NUM_KINDS)]
_EDGE = [Card(k).point in (1, 10) for k in range(NUM_KINDS)]
_CARDS = tuple(Card)
# scored_waits of recent 听牌 hands: (counts, table, rule set) -> ((card, points), ...). Bounded.
_WAITS: dict[tuple[tuple[int, ...], tuple[Group, ...], int], tuple[tuple[int, int], ...]] = {}
_WAITS_LIMIT = 200_000
# Each rule set the cache has seen, as a small number: equal rule sets share one (so do their waits), and
# the lookup by id spares hashing a RuleSet's ~40 fields at every call; the rule sets are kept alive so that
# an id is never reused. Two presets of one name with different options (R8.1 自摸, R9 醒 …) score
# differently, so the name alone is not a key.
_RULE_KEYS: dict[RuleSet, int] = {}
_RULE_IDS: dict[int, tuple[int, RuleSet]] = {}


def _rule_key(rules: RuleSet) -> int:
    found = _RULE_IDS.get(id(rules))
    if found is not None:
        return found[0]
    key = _RULE_KEYS.setdefault(rules, len(_RULE_KEYS))
    if len(_RULE_IDS) >= 4096:  # rule sets made afresh (one per match, say): forget the old ones' ids
        _RULE_IDS.clear()
    _RULE_IDS[id(rules)] = (key, rules)
    return key


def _scored_waits(view: View, counts: Sequence[int], table: Sequence[Group]) -> tuple[tuple[int, int], ...]:
    rules = view.rules
    key = (tuple(counts), tuple(table), _rule_key(rules))
    hit = _WAITS.get(key)
    if hit is None:
        cards = [_CARDS[k] for k in range(NUM_KINDS) for _ in range(counts[k])]
        hit = tuple((int(c), w.points) for c, w in wait_wins(cards, table, rules))
        if len(_WAITS) >= _WAITS_LIMIT:
            _WAITS.clear()
        _WAITS[key] = hit
    return hit


def wait_wins(cards: Sequence[Card], table: Sequence[Group], rules: RuleSet) -> list[tuple[Card, scoring.Win]]:
    """听牌: each winning card with its best win as the player's own draw (:func:`paohuzi.scoring.scored_waits`,
    the family's points, R6.2/R9), and under 随醒 (R9.4) with that card as the 醒 card — the copies of the card
    won in the winner's groups add to 囤, so a wait on a card the hand holds more of is worth more. (翻醒
    turns up a card nobody knows yet: left out here; search's rollouts play it.)"""
    waits = scoring.scored_waits(cards, table, rules)
    if rules.xing != "sui" or not waits:
        return waits
    out = []
    for card, win in waits:
        for c, w in scoring.scored_waits(cards, table, rules, facts=scoring.PlayFacts(xing_card=card)):
            if c == card:
                win = w
                break
        out.append((card, win))
    return out


_PENG = [Group(GroupKind.PENG, (Card(k),) * 3) for k in range(NUM_KINDS)]

# Weights of the hand score. The distance dominates; the rest orders hands at equal distance.
W_DISTANCE = 10.0
W_USEFUL = 0.3
USEFUL_CAP = 20
W_HUXI = 0.05
W_WIN = 0.6  # per expected point at 听牌: Σ unseen copies × points / 4
W_SAFETY = 0.6
PASS_BIAS = 0.3  # prefer not to claim when a claim changes nothing
DISCARD_HITS = 3  # discards kept at the best distance before the search for more stops


def exact_distance(
    view: View, counts: Sequence[int], table: Sequence[Group]
) -> tuple[int, int, tuple[tuple[int, int], ...] | None]:
    """``(distance, 胡息, waits)``: the estimate of :mod:`~paohuzi.bots.evaluation`, made exact when the
    hand is one card from complete in shape — then ``waits`` are the winning kinds with their points
    (empty if the 胡息 fall short) and the distance is 0 exactly when there are some."""
    dist, huxi, shape = reach3(counts, table, view.rules.min_huxi, view.rules.complete_groups, view.rules.yiwushi)
    if shape == 0:
        waits = _scored_waits(view, counts, table)
        return (0 if waits else max(dist, 1)), huxi, waits
    return dist, huxi, None


def score_hand(
    view: View,
    counts: Sequence[int],
    table: Sequence[Group],
    *,
    useful: bool = False,
    exact: tuple[int, int, tuple[tuple[int, int], ...] | None] | None = None,
) -> float:
    """The score of a hand waiting for its next card (after any discard): higher is better. ``exact``:
    :func:`exact_distance` of this hand when the caller has it already."""
    dist, huxi, waits = exact if exact is not None else exact_distance(view, counts, table)
    value = -W_DISTANCE * dist + W_HUXI * huxi
    if waits:
        # 听牌: the exact winning cards and what each would score.
        live = sum(view.unseen[c] * points for c, points in waits)
        value += W_WIN * live / 4.0
        if not live:
            value -= W_DISTANCE / 2  # waiting on dead cards
        return value
    if useful and dist > 0:
        rules = view.rules
        n, _ = useful_cards(
            counts, table, view.unseen, rules.min_huxi, groups=rules.complete_groups, yiwushi=rules.yiwushi
        )
        value += W_USEFUL * min(n, USEFUL_CAP)
    return value


def danger(view: View, kind: int, others: Sequence[int], nxt: int) -> float:
    """How much discarding ``kind`` may help another seat (0 = a 熟张 nobody can use)."""
    danger = 0.0
    left = view.unseen[kind]
    partner_table = _PARTNERS_YIWUSHI if view.rules.yiwushi else _PARTNERS
    for s in others:
        if s in view.dead or kind in view.discarded[s]:
            continue
        if left >= 2:
            danger += 0.25 * (left - 1)  # 碰 needs a pair in that hand
        if s == nxt:
            partners = sum(view.unseen[p] for p in partner_table[kind])
            danger += 0.04 * partners  # 吃 by the 下家
    return danger


def _tiebreak(counts: Sequence[int], kind: int) -> float:
    """Seed tips: a lone 一/十 goes first; small before big."""
    bonus = 0.0 if _BIG[kind] else 0.05
    if counts[kind] == 1 and _EDGE[kind] and not any(counts[p] for p in _PARTNERS[kind]):
        bonus += 0.15
    return bonus


def discard_scores(
    view: View, counts: list[int], table: Sequence[Group], kinds: Sequence[int], *, useful: bool = False
) -> list[tuple[float, int]]:
    """Each discard in ``kinds`` scored: the hand left, its safety and the tie-breaks; best first.

    Without ``useful`` the discards are tried from the loosest card up (fewest partners in hand) and the
    search stops after :data:`DISCARD_HITS` that keep the best distance — the best split of the whole hand
    leaves some card out, and that card's discard keeps its distance — so a decision costs a few analyses
    instead of one per kind. Only the discards tried are returned.
    """
    min_huxi = view.rules.min_huxi
    rough: list[tuple[int, int, int]] = []
    if useful:
        order = kinds
        target = -1 << 30
    else:
        order = sorted(kinds, key=lambda k: (sum(counts[p] for p in _PARTNERS[k]) + 3 * (counts[k] >= 2), k))
        target = reach(counts, table, min_huxi, view.rules.complete_groups, view.rules.yiwushi)[0]
    hits = 0
    exact = {}
    for k in order:
        counts[k] -= 1
        exact[k] = dist, huxi, _ = exact_distance(view, counts, table)
        counts[k] += 1
        rough.append((dist, -huxi, k))
        if dist <= target:
            hits += 1
            if hits >= DISCARD_HITS:
                break
    rough.sort()
    best_dist = rough[0][0]
    safety_weight = W_SAFETY * (2.0 if best_dist <= 0 else 1.0)
    out: list[tuple[float, int]] = []
    others = view.others
    nxt = view.next_seat
    for i, (dist, neg_huxi, k) in enumerate(rough):
        if dist <= best_dist + 1 and i < 6:
            counts[k] -= 1
            value = score_hand(view, counts, table, useful=useful, exact=exact[k])
            counts[k] += 1
        else:
            value = -W_DISTANCE * dist - W_HUXI * neg_huxi
        value -= safety_weight * danger(view, k, others, nxt)
        value += _tiebreak(counts, k)
        out.append((value, k))
    out.sort(key=lambda e: (-e[0], e[1]))
    return out


def discardable(counts: Sequence[int]) -> list[int]:
    return [k for k in range(NUM_KINDS) if 0 < counts[k] < 3]


def after_claim(view: View, action: Action) -> tuple[list[int], list[Group]]:
    """The hand and table after a 碰 or 吃 (with its 比) of the card on offer."""
    assert view.pending is not None
    c = view.pending
    counts = list(view.counts)
    table = list(view.table)
    if action.kind is ActionKind.PENG:
        counts[c] -= 2
        table.append(_PENG[c])
        return counts, table
    a, b = action.cards
    counts[a] -= 1
    counts[b] -= 1
    table.append(Group.chi((Card(c), a, b)))
    for g in action.bi:
        for x in g:
            counts[x] -= 1
        table.append(Group.chi(g))
    return counts, table


def claim_score(view: View, action: Action, *, useful: bool = False) -> float:
    """The score of the hand a claim (碰 / 吃) leaves, after the best discard it then owes.

    Without ``useful`` the hand before its discard is scored as it stands — its best split leaves out the
    card the discard would take (see :func:`discard_scores`) — and the discards are weighed one by one only
    when that hand may be 听牌 after its discard.
    """
    counts, table = after_claim(view, action)
    owes = view.owes_discard_after_take()
    kinds = discardable(counts)
    if owes and not kinds:
        return -1e9
    if not owes:
        return score_hand(view, counts, table, useful=useful)
    if not useful:
        dist, huxi = reach(counts, table, view.rules.min_huxi, view.rules.complete_groups, view.rules.yiwushi)
        if dist > 0:
            return -W_DISTANCE * dist + W_HUXI * huxi
    return discard_scores(view, counts, table, kinds, useful=useful)[0][0]


def choose(view: View, legal: Sequence[Action], *, useful: bool = False) -> tuple[Action, list[tuple[float, Action]]]:
    """The greedy choice among ``legal``, and every action it scored (best first)."""
    if len(legal) == 1:
        return legal[0], [(0.0, legal[0])]
    for a in legal:
        if a.kind is ActionKind.HU:
            return a, [(0.0, a)]
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    scored: list[tuple[float, Action]] = []
    if discards:
        by_kind = {int(a.card): a for a in discards if a.card is not None}
        for value, k in discard_scores(view, list(view.counts), view.table, list(by_kind), useful=useful):
            scored.append((value, by_kind[k]))
    others = [a for a in legal if a.kind is not ActionKind.DISCARD]
    if others:
        base: float | None = None
        for a in others:
            if a.kind is ActionKind.PASS:
                if base is None:
                    base = score_hand(view, list(view.counts), view.table, useful=useful)
                scored.append((base + PASS_BIAS, a))
            elif a.kind in (ActionKind.PENG, ActionKind.CHI) and view.pending is not None:
                scored.append((claim_score(view, a, useful=useful), a))
            else:
                scored.append((-1e9, a))
    scored.sort(key=lambda e: -e[0])
    return scored[0][1], scored


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot of one's own may build on it (paohuzi/_compiled.py)
class GreedyBot(Bot):
    """The hand-crafted one-ply player described in the module docstring.

    :param useful: also count 进张 and weigh every discard (about ten times slower; the search bot's
        rollouts use the default, so that search improves on exactly this player).
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, *, useful: bool = False) -> None:
        super().__init__(seed)
        self.useful = bool(useful)

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        action, _ = choose(read(observation), legal, useful=self.useful)
        return action
