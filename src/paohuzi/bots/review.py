"""复盘 (hand review, issue 34 part 1): every decision one seat made in a finished hand, judged from that seat's
own observation only (R5) by 大师's machinery — sampled worlds and greedy rollouts.

For each decision of the seat with a real choice (a discard, 吃/碰/过, a 胡 offered: more than one legal
action) the review

1. takes the candidates 大师 chooses among — greedy's best :data:`CANDIDATES` actions within 8 points of
   the best (:func:`paohuzi.bots.candidates.candidates`: the scorer network of the 大师 level only rescores
   these) — plus the action played and a 胡 when one was offered (a declined 胡 is judged too);
2. deals ``worlds`` worlds from the seat's observation alone (:func:`paohuzi.bots.world.sample_world`: the
   other hands, hidden 偎 and stock drawn from the cards the seat has not seen), the same worlds for every
   candidate (common random numbers), and plays each candidate out to the end with greedy at every seat
   (:func:`paohuzi.bots.search.rollout`, as ``search`` and 大师's race do);
3. reports each candidate's **expected points** (the mean of the seat's payment at the end, R7.3) with its
   standard error, the best candidate, and the **loss** of the move played: best mean − played mean with the
   standard error of that paired difference. A decision is **marked** (a mistake) when the loss exceeds
   ``threshold`` points and ``z`` standard errors.

The per-hand figures: ``accuracy`` (准确率) is the share of judged decisions whose move was within
``threshold`` of the best (not marked), ``points_lost`` the sum of the significant losses.

Only the observation enters the judgement (never the hidden cards the record holds), and every random draw
comes from a generator seeded by ``(seed, the decision's number)``: a review is a pure function of (record,
seat, seed, settings), cacheable, and the same for any hidden cards consistent with what the seat saw.

Families (R9): the families 大师 plays itself (:attr:`paohuzi.bots.levels.Level.families`: ``classic`` —
qq, hunan, hengyang, huayang); another family raises :class:`ReviewError`.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=3)
>>> while not hand.over:
...     s = hand.deciding[0]
...     _ = hand.apply(s, hand.legal_actions(s)[0])
>>> r = review_record(hand.record(), 0, seed=1, settings=ReviewSettings(worlds=2))
>>> r.seat, r.worlds, len(r.decisions) == r.judged
(0, 2, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from paohuzi.bots.candidates import candidates
from paohuzi.bots.levels import level
from paohuzi.bots.search import rollout
from paohuzi.bots.view import View, read
from paohuzi.bots.world import World, build_hand, sample_world
from paohuzi.cards import NUM_KINDS, Card, PaohuziError
from paohuzi.engine import Action, ActionKind, Hand, Hidden, Observation, replay
from paohuzi.rules import RuleSet

__all__ = [
    "CANDIDATES",
    "Choice",
    "Decision",
    "Review",
    "ReviewData",
    "ReviewError",
    "ReviewSettings",
    "judge",
    "review_families",
    "review_record",
]

_CARDS = tuple(Card)

#: Greedy's best actions judged at a decision (大师's candidates: ``scorer`` and ``search`` pick among 4).
CANDIDATES = 4


class ChoiceData(TypedDict):
    """:meth:`Choice.to_dict`."""

    action: str
    mean: float
    se: float


class DecisionData(TypedDict):
    """:meth:`Decision.to_dict`."""

    index: int
    phase: str
    played: str
    best: str
    loss: float
    loss_se: float
    worlds: int
    significant: bool
    marked: bool
    choices: list[ChoiceData]


class SettingsData(TypedDict):
    """:meth:`ReviewSettings.to_dict`."""

    worlds: int
    threshold: float
    z: float


class ReviewData(TypedDict):
    """:meth:`Review.to_dict`: the JSON of a review (the CLI's ``--json``, the server's answer)."""

    seat: int
    seed: int
    preset: str
    points: int
    settings: SettingsData
    judged: int
    marked: int
    accuracy: float
    points_lost: float
    decisions: list[DecisionData]


class ReviewError(PaohuziError):
    """A hand that cannot be reviewed: a bad record, a seat not in it, a hand not over, a family without a 大师,
    bad settings."""


def review_families() -> tuple[str, ...]:
    """The rule-set families (R9) a review covers: those the 大师 level plays itself."""
    families = level("master").families
    return families if families is not None else ()


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """How much work a review does and what it marks.

    :ivar worlds: sampled worlds per decision (each candidate is played out once in each). 大师 in play
        races on up to 12 for its two closest candidates; a review plays every candidate in 32 by default.
    :ivar threshold: points a move may lose against the best before it is marked.
    :ivar z: and the loss must exceed this many standard errors (noise alone marks nothing).
    """

    worlds: int = 32
    threshold: float = 1.0
    z: float = 2.0

    def __post_init__(self) -> None:
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or not 2 <= self.worlds <= 256:
            raise ReviewError(f"worlds must be a whole number from 2 to 256, got {self.worlds!r}")
        for name in ("threshold", "z"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ReviewError(f"{name} must be a number ≥ 0, got {value!r}")

    def to_dict(self) -> SettingsData:
        return {"worlds": self.worlds, "threshold": self.threshold, "z": self.z}


@dataclass(frozen=True, slots=True)
class Choice:
    """One candidate at a decision: its expected points (mean payment of the seat over the worlds) and the
    standard error of that mean."""

    action: str
    mean: float
    se: float

    def to_dict(self) -> ChoiceData:
        return {"action": self.action, "mean": _round(self.mean), "se": _round(self.se)}


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision of the seat.

    :ivar index: the action's number in the record (0-based: ``record["actions"][index]``).
    :ivar phase: ``discard``, ``claim`` (吃/碰/过, a 胡 on another's card), ``self_hu`` or ``liangzhang``.
    :ivar played: the action played (its text, :class:`paohuzi.engine.Action`); :ivar best: the best candidate.
    :ivar loss: best mean − played mean (points, ≥ 0); :ivar loss_se: its paired standard error.
    :ivar worlds: worlds played (fewer than asked only when some sampled worlds did not fit the view).
    :ivar significant: the loss exceeds ``z`` standard errors (below that it may be the noise of the worlds).
    :ivar marked: significant, and the loss exceeds the threshold: a mistake.
    :ivar choices: every candidate judged, best first.
    """

    index: int
    phase: str
    played: str
    best: str
    loss: float
    loss_se: float
    worlds: int
    significant: bool
    marked: bool
    choices: tuple[Choice, ...]

    def to_dict(self) -> DecisionData:
        return {
            "index": self.index, "phase": self.phase, "played": self.played, "best": self.best,
            "loss": _round(self.loss), "loss_se": _round(self.loss_se), "worlds": self.worlds,
            "significant": self.significant, "marked": self.marked, "choices": [c.to_dict() for c in self.choices],
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A hand's review for one seat.

    :ivar decisions: the judged decisions, in order. :ivar judged: how many.
    :ivar accuracy: 准确率, the share of judged decisions not marked (1.0 when none was judged).
    :ivar points_lost: the sum of the significant losses (expected points given away; a loss within ``z``
        standard errors counts 0: the best of several noisy means is biased upwards).
    :ivar marked: how many decisions are marked. :ivar points: the seat's actual payment in the hand.
    """

    seat: int
    seed: int
    worlds: int
    threshold: float
    z: float
    preset: str
    decisions: tuple[Decision, ...]
    points: int

    @property
    def judged(self) -> int:
        return len(self.decisions)

    @property
    def marked(self) -> int:
        return sum(d.marked for d in self.decisions)

    @property
    def accuracy(self) -> float:
        return 1.0 if not self.decisions else 1.0 - self.marked / len(self.decisions)

    @property
    def points_lost(self) -> float:
        return sum(d.loss for d in self.decisions if d.significant)

    def to_dict(self) -> ReviewData:
        return {
            "seat": self.seat, "seed": self.seed, "preset": self.preset, "points": self.points,
            "settings": {"worlds": self.worlds, "threshold": self.threshold, "z": self.z},
            "judged": self.judged, "marked": self.marked, "accuracy": _round(self.accuracy, 4),
            "points_lost": _round(self.points_lost), "decisions": [d.to_dict() for d in self.decisions],
        }


def _round(x: float, digits: int = 3) -> float:
    return round(x, digits) + 0.0  # + 0.0: no -0.0 in the JSON


def judge(
    observation: Observation, legal: Sequence[Action], played: Action, rng: random.Random,
    settings: ReviewSettings, rules: RuleSet | None = None, index: int = 0, drawn: Card | None = None,
) -> Decision | None:
    """One decision judged from ``observation`` alone (R5): the candidates (:data:`CANDIDATES` of greedy's, the
    move ``played`` and any 胡) played out in ``settings.worlds`` worlds dealt by ``rng``. None when there was
    no choice (one legal action) or no sampled world fitted the view.

    :param drawn: in phase ``self_hu``, the card the seat drew and 提'd or 偎'd itself (R4.2.3): its own card,
        which the observation does not repeat (:attr:`paohuzi.engine.Hidden.drawn`).
    :raises ReviewError: if ``played`` is not one of ``legal``.
    """
    if played not in legal:
        raise ReviewError(f"action {index}: {played} is not a legal action of seat {observation.seat}")
    if len(legal) < 2:
        return None
    view = read(observation, rules)
    _, scored = candidates(view, legal, k=CANDIDATES)
    cands = [played] + [a for _, a in scored if a != played]
    cands += [a for a in legal if a.kind is ActionKind.HU and a not in cands]
    if len(cands) < 2:  # greedy saw one sensible move and it was played: compare with the rest of legal
        cands += [a for a in legal if a not in cands][: CANDIDATES - 1]
    results = _play_out(view, cands, rng, settings.worlds, drawn)
    if not results[0]:
        return None
    means = [_mean_se(r) for r in results]
    order = sorted(range(len(cands)), key=lambda i: (-means[i][0], i))
    best = order[0]
    diffs = [b - p for b, p in zip(results[best], results[0], strict=True)]
    loss, loss_se = _mean_se(diffs)
    if best == 0:
        loss, loss_se = 0.0, 0.0
    significant = len(diffs) >= 2 and loss > 0 and loss > settings.z * loss_se
    marked = significant and loss > settings.threshold
    return Decision(
        index=index, phase=observation.phase.value, played=str(played), best=str(cands[best]),
        loss=loss, loss_se=loss_se, worlds=len(results[0]), significant=significant, marked=marked,
        choices=tuple(Choice(str(cands[i]), *means[i]) for i in order),
    )


def _built(view: View, world: World, drawn: Card | None) -> Hand:
    """:func:`paohuzi.bots.world.build_hand`, with the seat's own drawn card in phase ``self_hu``."""
    if drawn is None:
        return build_hand(view, world)
    hidden = Hidden(
        hands=tuple(tuple(_CARDS[k] for k in range(NUM_KINDS) for _ in range(h[k])) for h in world.hands),
        wei=tuple(tuple(_CARDS[k] for k in w) for w in world.wei),
        stock=tuple(_CARDS[k] for k in world.stock),
        drawn=drawn,
    )
    return Hand.from_position(view.rules, view.observation, hidden)


def _play_out(
    view: View, cands: Sequence[Action], rng: random.Random, worlds: int, drawn: Card | None
) -> list[list[float]]:
    """Each candidate's payments in the same sampled worlds (a world every candidate is legal in)."""
    seat = view.seat
    results: list[list[float]] = [[] for _ in cands]
    tries = 0
    while len(results[0]) < worlds and tries < 4 * worlds + 20:
        tries += 1
        try:
            base = _built(view, sample_world(view, rng), drawn)
        except (PaohuziError, KeyError, IndexError, StopIteration):
            continue
        if seat not in base.deciding:
            continue
        legal = set(base.legal_actions(seat))
        if not all(a in legal for a in cands):
            continue
        for i, action in enumerate(cands):
            hand = base.copy()
            hand.apply(seat, action)
            rollout(hand)
            results[i].append(float(hand.outcome.payments[seat]) if hand.outcome is not None else 0.0)
    return results


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def review_record(
    record: Mapping[str, Any], seat: int, *, seed: int = 0, settings: ReviewSettings | None = None
) -> Review:
    """The review of a finished hand's record (``Hand.record()``, ``paohuzi simulate --record``, the server's
    replay API) for ``seat``: each of its decisions judged by :func:`judge` with a generator seeded by
    ``(seed, the action's number)``.

    :raises ReviewError: a record that does not replay, a hand not over, a seat not in it, a family without
        a 大师 (R9), bad settings.
    """
    settings = settings or ReviewSettings()
    if not isinstance(record, Mapping):
        raise ReviewError(f"a record is a JSON object, got {type(record).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ReviewError(f"seed must be a whole number, got {seed!r}")
    try:
        final = replay(dict(record))
        hand = replay(dict(record), upto=0)
    except PaohuziError as exc:
        raise ReviewError(f"the record does not replay: {exc}") from exc
    families = review_families()
    if hand.rules.family not in families:
        raise ReviewError(
            f"no 大师 for the {hand.rules.family!r} family ({hand.rules.name}): reviews cover "
            f"{', '.join(families)} (R9)"
        )
    if final.outcome is None:
        raise ReviewError("the hand is not over: only a finished hand is reviewed")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < hand.table_size:
        raise ReviewError(f"seat must be 0 … {hand.table_size - 1}, got {seat!r}")
    if seat not in final.seats:
        raise ReviewError(f"seat {seat} sat out this hand")
    decisions = _review_actions(hand, record["actions"], seat, seed, settings)
    return Review(
        seat=seat, seed=seed, worlds=settings.worlds, threshold=settings.threshold, z=settings.z,
        preset=hand.rules.name, decisions=tuple(decisions), points=int(final.outcome.payments[seat]),
    )


def _review_actions(
    hand: Hand, actions: Sequence[Any], seat: int, seed: int, settings: ReviewSettings
) -> list[Decision]:
    out: list[Decision] = []
    for i, (who, text) in enumerate(actions):
        if who == seat and text != "leave" and seat in hand.deciding:
            legal = hand.legal_actions(seat)
            played = Action.parse(text)
            rng = random.Random(f"paohuzi-review:{seed}:{i}")
            drawn = hand.hidden(seat).drawn  # its own card, in phase self_hu (R4.2.3); else None
            found = judge(hand.observation(seat), legal, played, rng, settings, hand.rules, i, drawn)
            if found is not None:
                out.append(found)
        if text == "leave":
            hand.leave(who)
        else:
            hand.apply(who, text)
    return out
