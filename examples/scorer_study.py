"""Offline study of the learned scorer's decisions (issue #16, docs/AI.md §8a "Rollouts on top of the scorer").

Matches against ``search`` need 3,000 deals and most of an hour to tell +0.2 points a hand apart. This script
asks the same questions on stored positions, paired and much more cheaply:

``collect``
    plays ``--hands`` hands of ``qq`` with greedy at every seat (hand seeds from ``--first``) and at every
    decision where greedy has two or more candidates (its best 4 within 8 points, as the scorer and
    ``search`` pick them) stores the candidates' features and, for ``--worlds`` worlds sampled from the
    seat's view, each candidate's result when greedy plays the hand out (the same worlds for all candidates,
    exactly as ``examples/train_scorer.py`` measures its targets) — world by world, not only their mean.

``report``
    splits each position's worlds in two: the first ``w`` are what a bot could afford to roll out while
    playing, the rest (never seen by the decision) measure the decision without bias. For each weights file
    it prints, per position, the measured gain over greedy's choice of: the scorer alone; a race on the
    first ``w`` worlds that must beat the scorer's choice by one standard error (``scorer_search``'s rule,
    :class:`paohuzi.bots.scorer.ScorerSearchBot`); and ``search``'s own rule on the same worlds (greedy's
    choice to beat, its 3 best candidates) — with paired standard errors. With two weights files it also
    prints their paired difference on every world.

    PYTHONPATH=src python examples/scorer_study.py collect --first 7000000 --hands 400 --jobs 2 --out worlds.npz
    PYTHONPATH=src python examples/scorer_study.py report worlds.npz --weights src/paohuzi/bots/weights/scorer.npz

Positions come from greedy's play, not the scorer's, and a gain per position is not a gain per hand (13.8
such positions a hand, 4.6 a seat); matches remain the test. Needs numpy only.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from collections.abc import Sequence

import numpy as np

from paohuzi.bots.candidates import FEATURE_SIZE, features
from paohuzi.bots.scorer import DEFAULT_SCORER, Scorer

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from train_scorer import MAX_K, measure, positions  # noqa: E402 (the targets' own measuring, beside this script)

K = 4  # greedy's candidates per position, as the scorer is trained


def _hand(job: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    seed, worlds = job
    rng = random.Random(seed * 31 + 5)
    out = []
    for view, cands in positions(seed, K):
        pay = measure(view, [a for _, a in cands], worlds, rng)
        if len(pay) == worlds:  # a full set, so every position splits the same way
            out.append((np.asarray(features(view, cands), np.float32), pay))
    return out


def collect(first: int, hands: int, worlds: int, jobs: int) -> dict[str, np.ndarray]:
    work = [(s, worlds) for s in range(first, first + hands)]
    if jobs <= 1:
        parts = list(map(_hand, work))
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = list(pool.imap(_hand, work, chunksize=2))
    rows = [r for part in parts for r in part]
    n = len(rows)
    x = np.zeros((n, MAX_K, FEATURE_SIZE), np.float32)
    m = np.zeros((n, MAX_K), bool)
    pay = np.zeros((n, worlds, MAX_K), np.float32)
    for i, (f, p) in enumerate(rows):
        c = len(f)
        x[i, :c], m[i, :c], pay[i, :, :c] = f, True, p
    return {"x": x, "m": m, "pay": pay, "first": np.array(first), "hands": np.array(hands)}


def scorer_choice(model: Scorer, x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """What :class:`~paohuzi.bots.scorer.ScorerBot` plays at each position (index into the candidates)."""
    n, k, f = x.shape
    q = model(x.reshape(-1, f)).reshape(n, k)
    adv = np.where(m, q - q[:, :1], -np.inf)
    best = adv.argmax(axis=1)
    return np.where(adv[np.arange(n), best] > float(model.meta.get("margin", 0.0)), best, 0)


GAP = 1.0  # scorer_search[challengers=1,gap=1]


def runner_up(model: Scorer, x: np.ndarray, m: np.ndarray, choice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's best candidate other than ``choice``, and whether it is predicted within :data:`GAP`
    points of it (``scorer_search[challengers=1,gap=1]`` races it then)."""
    n, k, f = x.shape
    q = model(x.reshape(-1, f)).reshape(n, k)
    adv = np.where(m, q - q[:, :1], -np.inf)
    rows = np.arange(n)
    top = adv[rows, choice]
    adv[rows, choice] = -np.inf
    runner = adv.argmax(axis=1)
    return runner, top - adv[rows, runner] < GAP


def race(diff: np.ndarray, m: np.ndarray, prior: np.ndarray, z: float = 1.0) -> np.ndarray:
    """The candidate whose mean paired result over the worlds of ``diff`` (positions × worlds × candidates)
    beats ``prior``'s by more than ``z`` standard errors (the best such), else ``prior``."""
    n, w, _ = diff.shape
    rel = diff - np.take_along_axis(diff, prior[:, None, None].repeat(w, axis=1), axis=2)
    mean, se = rel.mean(axis=1), rel.std(axis=1, ddof=1) / np.sqrt(w)
    ok = np.where(m & (mean > z * se) & (se > 0), mean, -np.inf)
    return np.where(ok.max(axis=1) > 0, ok.argmax(axis=1), prior)


def _line(name: str, got: np.ndarray, base: np.ndarray | None = None, than: str = "") -> str:
    n = len(got)
    out = f"  {name:46s} {got.mean():+.4f} ± {got.std(ddof=1) / np.sqrt(n):.4f}"
    if base is not None:
        d = got - base
        out += f"   − {than} {d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(n):.4f}"
    return out


def report(data: dict[str, np.ndarray], weights: Sequence[str], decide: Sequence[int]) -> list[str]:
    x, m, pay = data["x"], data["m"], data["pay"]
    n, worlds, _ = pay.shape
    rows = np.arange(n)
    diff = pay - pay[:, :, :1]  # each candidate's result minus greedy's choice's, world by world
    models = [Scorer.load(w) for w in weights]
    choices = [scorer_choice(model, x, m) for model in models]
    runners = {w: runner_up(model, x, m, c) for w, model, c in zip(weights, models, choices, strict=True)}
    lines = [f"{n} positions, {worlds} worlds each (gain per position over greedy's choice, ± its standard error)"]
    every = diff.mean(axis=1)
    for path, c in zip(weights, choices, strict=True):
        lines.append(_line(f"scorer {path}, on all {worlds} worlds", every[rows, c]))
    if len(choices) == 2:
        lines.append(_line("first − second weights, all worlds", every[rows, choices[0]] - every[rows, choices[1]]))
    greedy3 = m & (np.arange(m.shape[1]) < 3)  # search's candidates: greedy's best 3
    for w in decide:
        dec, ev = diff[:, :w], diff[:, w:].mean(axis=1)
        lines.append(f"deciding on the first {w} worlds, measured on the other {worlds - w}:")
        searched = ev[rows, race(dec, greedy3, np.zeros(n, int))]
        lines.append(_line("search's rule (greedy's choice to beat, 3 best)", searched))
        for name, c in zip(weights, choices, strict=True):
            base = ev[rows, c]
            lines.append(_line(f"scorer {name}", base, searched, "search's rule"))
            lines.append(_line("  + a race to beat its choice (scorer_search)", ev[rows, race(dec, m, c)], base,
                               "scorer alone"))
            runner, unsure = runners[name]
            duel = np.zeros_like(m)
            duel[rows, c] = duel[rows, runner] = True
            played = np.where(unsure, race(dec, duel, c), c)
            lines.append(_line(f"  + its runner-up races within {GAP:g} ({unsure.mean():.0%} raced)", ev[rows, played],
                               base, "scorer alone"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="measure positions world by world")
    c.add_argument("--first", type=int, default=7_000_000, help="first hand seed (the scorer trains on 0 … 10^6·seed+)")
    c.add_argument("--hands", type=int, default=400)
    c.add_argument("--worlds", type=int, default=24)
    c.add_argument("--jobs", type=int, default=1)
    c.add_argument("--out", default="worlds.npz")
    r = sub.add_parser("report", help="the scorer's decisions measured on held-back worlds")
    r.add_argument("data")
    r.add_argument("--weights", action="append", help="scorer weights (repeatable; the shipped ones by default)")
    r.add_argument("--decide", default="8,12,16", help="worlds a bot rolls out before deciding")
    args = parser.parse_args(argv)
    if args.command == "collect":
        if args.hands < 1 or args.worlds < 4 or args.jobs < 1:
            parser.error("--hands ≥ 1, --worlds ≥ 4, --jobs ≥ 1")
        data = collect(args.first, args.hands, args.worlds, args.jobs)
        np.savez_compressed(args.out, **data)
        print(f"{len(data['m'])} positions from {args.hands} hands, {args.worlds} worlds each: {args.out}")
        return 0
    with np.load(args.data) as f:
        data = {k: f[k] for k in f.files}
    try:
        decide = [int(w) for w in args.decide.split(",")]
    except ValueError:
        parser.error(f"--decide must be whole numbers separated by commas, not {args.decide!r}")
    worlds = data["pay"].shape[1]
    if not all(2 <= w <= worlds - 2 for w in decide):
        parser.error(f"each --decide must leave two or more of the {worlds} worlds to measure with")
    if data["x"].shape[2] != FEATURE_SIZE:
        parser.error(f"{args.data} holds {data['x'].shape[2]} features a candidate, the scorer takes {FEATURE_SIZE}")
    print("\n".join(report(data, args.weights or [str(DEFAULT_SCORER)], decide)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
