"""Duplicate matches between bots (issue #4): the engine of ``paohuzi simulate``.

Every **deal** (a seed: one shuffle, one dealer) is played once for each distinct seating of the bots
(:func:`paohuzi.stats.seatings`), so each bot meets the same cards from every seat. A bot acts only through
``bot.act(observation, legal)``; the runner gives it its seat's observation (R5) and nothing else.

Seeds: deal ``i`` of a match with seed ``S`` is the hand seed ``S × 1,000,000 + i``; the bot in seat ``s``
of seating ``j`` gets the seed ``(S × 1,000,000 + i) × 64 + 4j + s``. A match is therefore reproducible,
whatever the number of processes.

Results are in **points** (R7): a seat's net settlement divided by the room stake, so the winner of a
2-point hand scores +4 and each loser −2 (three seats; the sum is always 0).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from paohuzi.bots.base import Bot, make_bot
from paohuzi.engine import Action, Hand, OutcomeKind
from paohuzi.rules import RuleSet
from paohuzi.stats import Estimate, mean_ci, paired_difference, per_deal_means, seatings

__all__ = [
    "HandResult", "BotRow", "MatchResult", "deal_seed", "play_hand", "play_deal", "play_seatings", "run_match",
    "summarize",
]

DEALS_PER_SEED = 1_000_000


def deal_seed(seed: int, deal: int) -> int:
    """The hand seed of deal number ``deal`` in a match with seed ``seed``."""
    return seed * DEALS_PER_SEED + deal


@dataclass(frozen=True, slots=True)
class HandResult:
    """One hand of a match.

    :ivar deal: the deal number; ``seating`` the seating's index; ``bots`` the bot spec in each seat.
    :ivar points: each seat's net result in points (payment / stake).
    :ivar winner: the winning seat, or None (荒庄 or an escape).
    :ivar huxi: the winner's 胡息 (0 without a winner).
    :ivar decisions: per seat, how many times its bot was asked; ``seconds`` the time it took in all.
    """

    deal: int
    seating: int
    bots: tuple[str, ...]
    points: tuple[float, ...]
    winner: int | None
    draw: bool
    huxi: int
    decisions: tuple[int, ...]
    seconds: tuple[float, ...]
    sitting_out: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "deal": self.deal, "seating": self.seating, "bots": list(self.bots), "points": list(self.points),
            "winner": self.winner, "draw": self.draw, "huxi": self.huxi, "decisions": list(self.decisions),
            "seconds": list(self.seconds), "sitting_out": self.sitting_out,
        }


def play_hand(
    rules: RuleSet, seed: int, bots: Sequence[Bot], *, clock: Callable[[], float] = time.perf_counter
) -> tuple[Hand, list[int], list[float]]:
    """Play one hand with ``bots[seat]`` in each seat; returns the hand, decisions and seconds per seat.

    :raises paohuzi.engine.IllegalActionError: if a bot plays an illegal action (the message names it).
    """
    hand = Hand(rules, seed=seed)
    n = hand.table_size
    decisions = [0] * n
    seconds = [0.0] * n
    for bot in bots:
        bot.new_hand()
    while not hand.over:
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        observation = hand.observation(seat)
        start = clock()
        action = bots[seat].act(observation, legal)
        seconds[seat] += clock() - start
        decisions[seat] += 1
        if not isinstance(action, (Action, str)):
            raise TypeError(f"bot {getattr(bots[seat], 'name', bots[seat])!r} returned {action!r}, not an Action")
        try:
            hand.apply(seat, action)
        except ValueError as exc:
            raise type(exc)(f"bot {getattr(bots[seat], 'name', '?')!r} in seat {seat}: {exc}") from exc
    return hand, decisions, seconds


@dataclass(frozen=True, slots=True)
class _DealTask:
    specs: tuple[str, ...]
    rules: dict[str, Any]
    seed: int
    deal: int
    record_dir: str | None


def play_deal(task: _DealTask) -> list[HandResult]:
    """Play one deal with every seating (a task for a worker process)."""
    return play_seatings(task.specs, RuleSet.from_dict(task.rules), task.seed, task.deal, record_dir=task.record_dir)


def play_seatings(
    specs: Sequence[str],
    rules: RuleSet,
    seed: int,
    deal: int,
    *,
    make: Callable[[str, int], Bot] = make_bot,
    record_dir: str | None = None,
) -> list[HandResult]:
    """Play deal number ``deal`` of a match with seed ``seed`` once with every seating of ``specs``.

    :param make: builds the bot of a spec with its seed (:func:`~paohuzi.bots.make_bot`; ``paohuzi.env.evaluate``
        passes one that also knows a policy object by its name).
    """
    stake = max(1, rules.stake)
    hseed = deal_seed(seed, deal)
    out = []
    for j, seating in enumerate(seatings(specs)):
        seated = [specs[i] for i in seating]
        bots = [make(spec, hseed * 64 + 4 * j + s) for s, spec in enumerate(seated)]
        hand, decisions, seconds = play_hand(rules, hseed, bots)
        outcome = hand.outcome
        assert outcome is not None
        n = hand.table_size
        if record_dir is not None:
            record = hand.record()
            record["bots"] = seated
            record["deal"] = deal
            record["seating"] = j
            path = os.path.join(record_dir, f"deal{deal:06d}-seating{j}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(record, f, ensure_ascii=False)
        out.append(
            HandResult(
                deal=deal,
                seating=j,
                bots=tuple(seated[:n]),
                points=tuple(p / stake for p in outcome.payments),
                winner=outcome.winner,
                draw=outcome.kind is OutcomeKind.DRAW,
                huxi=outcome.huxi if outcome.winner is not None else 0,
                decisions=tuple(decisions),
                seconds=tuple(seconds),
                sitting_out=hand.sitting_out,
            )
        )
    return out


def _tasks(specs: Sequence[str], rules: RuleSet, seed: int, deals: int, record_dir: str | None) -> Iterator[_DealTask]:
    for i in range(deals):
        yield _DealTask(tuple(specs), rules.to_dict(), seed, i, record_dir)


def run_match(
    specs: Sequence[str],
    rules: RuleSet,
    *,
    deals: int,
    seed: int = 0,
    jobs: int = 1,
    record_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_deal: Callable[[list[HandResult]], None] | None = None,
) -> list[HandResult]:
    """Play ``deals`` duplicate deals between the bots ``specs`` (one per seat); results sorted by deal.

    :param jobs: worker processes (1: play here).
    :param progress: called as ``progress(hands_done, hands_total)`` after each deal.
    :param on_deal: called with each deal's results as they come (in order of completion).
    :raises paohuzi.bots.BotError: for a bot spec that cannot be made (checked before any hand).
    """
    specs = list(specs)
    if len(specs) != rules.players_at_table:
        raise ValueError(f"{rules.players_at_table} bots are needed (one per seat), got {len(specs)}: {specs}")
    for spec in dict.fromkeys(specs):
        make_bot(spec, seed=0)  # fail early on a bad spec
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)
    per_deal = len(seatings(specs))
    total = per_deal * deals
    results: list[HandResult] = []
    tasks = _tasks(specs, rules, seed, deals, record_dir)
    if jobs <= 1:
        for task in tasks:
            batch = play_deal(task)
            results += batch
            if on_deal is not None:
                on_deal(batch)
            if progress is not None:
                progress(len(results), total)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for batch in pool.map(play_deal, tasks, chunksize=1):
                results += batch
                if on_deal is not None:
                    on_deal(batch)
                if progress is not None:
                    progress(len(results), total)
    results.sort(key=lambda r: (r.deal, r.seating))
    return results


@dataclass(frozen=True, slots=True)
class BotRow:
    """One bot's line of the match table.

    :ivar points: mean points per hand, with its 95 % interval over per-deal means.
    :ivar win_rate: hands won / hands played; ``draw_rate`` 荒庄 / hands played.
    :ivar win_huxi: mean 胡息 of its wins (NaN without a win).
    :ivar decision_ms: mean milliseconds per decision; ``decisions`` how many.
    """

    bot: str
    hands: int
    points: Estimate
    win_rate: float
    draw_rate: float
    win_huxi: float
    decision_ms: float
    decisions: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot, "hands": self.hands, "points": self.points.to_dict(), "win_rate": self.win_rate,
            "draw_rate": self.draw_rate, "win_huxi": _num(self.win_huxi), "decision_ms": _num(self.decision_ms),
            "decisions": self.decisions,
        }


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The summary of a match: one row per distinct bot, and the paired difference of every two bots."""

    bots: tuple[str, ...]
    deals: int
    hands: int
    rows: tuple[BotRow, ...]
    differences: tuple[tuple[str, str, Estimate], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "deals": self.deals,
            "hands": self.hands,
            "table": [r.to_dict() for r in self.rows],
            "differences": [{"a": a, "b": b, **e.to_dict()} for a, b, e in self.differences],
        }

    def table(self) -> str:
        """The table as text."""
        head = (
            f"{'bot':<24} {'hands':>7} {'points/hand (95% CI)':>26} {'win':>6} {'荒庄':>6} {'胡息/win':>8}"
            f" {'ms/dec':>8}"
        )
        lines = [head, "-" * len(head)]
        for r in self.rows:
            ci = f"{r.points.mean:+.3f} [{r.points.low:+.3f}, {r.points.high:+.3f}]"
            huxi = "—" if math.isnan(r.win_huxi) else f"{r.win_huxi:.1f}"
            lines.append(
                f"{r.bot:<24} {r.hands:>7} {ci:>26} {r.win_rate:>6.1%} {r.draw_rate:>6.1%} {huxi:>8} "
                f"{r.decision_ms:>8.2f}"
            )
        if self.differences:
            lines.append("")
            lines.append("paired difference of points per hand (per deal, 95% CI):")
            for a, b, e in self.differences:
                sign = "significant" if e.excludes_zero else "not significant"
                lines.append(f"  {a} − {b}: {e.mean:+.3f} [{e.low:+.3f}, {e.high:+.3f}] ({sign})")
        return "\n".join(lines)


def summarize(results: Sequence[HandResult], specs: Sequence[str]) -> MatchResult:
    """The table of a match: per distinct bot spec, in the order first given."""
    names = list(dict.fromkeys(specs))
    per_value: list[tuple[int, str, float]] = []
    hands = {b: 0 for b in names}
    wins = {b: 0 for b in names}
    draws = {b: 0 for b in names}
    huxi = {b: 0 for b in names}
    decisions = {b: 0 for b in names}
    seconds = {b: 0.0 for b in names}
    deals = set()
    for r in results:
        deals.add(r.deal)
        for seat, bot in enumerate(r.bots):
            if seat == r.sitting_out:
                continue
            per_value.append((r.deal, bot, r.points[seat]))
            hands[bot] += 1
            draws[bot] += r.draw
            if r.winner == seat:
                wins[bot] += 1
                huxi[bot] += r.huxi
            decisions[bot] += r.decisions[seat]
            seconds[bot] += r.seconds[seat]
    means = per_deal_means(per_value)
    rows = []
    for b in names:
        n = hands[b]
        rows.append(
            BotRow(
                bot=b,
                hands=n,
                points=mean_ci(means.get(b, [])),
                win_rate=wins[b] / n if n else float("nan"),
                draw_rate=draws[b] / n if n else float("nan"),
                win_huxi=huxi[b] / wins[b] if wins[b] else float("nan"),
                decision_ms=1000.0 * seconds[b] / decisions[b] if decisions[b] else float("nan"),
                decisions=decisions[b],
            )
        )
    diffs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if len(means.get(a, [])) == len(means.get(b, [])):
                diffs.append((a, b, paired_difference(means[a], means[b])))
    return MatchResult(tuple(specs), len(deals), len(results), tuple(rows), tuple(diffs))
