"""Train the learned scorer (``paohuzi.bots.scorer``, issue #16 item 2) with PyTorch; it plays with numpy alone.

One seeded command trains the shipped weights from scratch (the ``train`` extra: PyTorch; a GPU is used
when one is present, the CPU otherwise):

    PYTHONPATH=src python examples/train_scorer.py --seed 0 --jobs 2 --out src/paohuzi/bots/weights/scorer.npz

(``--hands 3000 --worlds 12 --ensemble 4 --rounds 1`` are the defaults.)

1. **Positions and their values.** ``--hands`` hands of ``qq`` with ``greedy`` at every seat (hand seeds
   from ``seed × 10^6``). At every decision where greedy has two or more candidates (its best ``--candidates``
   within 8 points, as ``search`` picks them) it records each candidate's features
   (:func:`paohuzi.bots.candidates.features`, the seat's own view only, R5) and measures each candidate as
   ``search`` does: ``--worlds`` worlds sampled from the seat's view (:mod:`paohuzi.bots.world`), in each
   the hand played to the end by greedy at every seat after each candidate (common worlds, so the deal's luck
   cancels); the target is each candidate's mean result minus that of greedy's choice, in points.
2. **Networks.** A ReLU perceptron (``--hidden``) scores every candidate with the same weights; trained with
   AdamW on the squared error of (score − score of greedy's choice) against the target. ``--ensemble`` such
   networks are trained on the same positions from different initial weights and batch orders, and the
   scorer plays their mean: one network whose layers are theirs side by side (block-diagonal), so the numpy
   inference does not change. The mean varies less from seed to seed than one network does.
3. **Margin.** The last ``--held-out`` share of the hands are not trained on; on them the script picks the
   ``margin`` (advantage over greedy's choice needed to deviate) with the highest measured gain per
   position, and reports that gain (the targets are unbiased, so this is an honest estimate of the gain
   over greedy per decision).
4. **Rounds** (``--rounds``, default 1). Round ``r > 1`` plays its hands (the next ``--hands``) with round
   ``r − 1``'s scorer at every seat and rolls out with it too, so its targets are that scorer's values: one
   more step of policy improvement; the network goes on training from round ``r − 1``'s weights.
5. **Export.** The weights go to ``--out`` as an ``.npz`` for :class:`paohuzi.bots.scorer.Scorer`, with the
   seed, sizes, margin and held-out gain, and ``probe_x``/``probe_q``: 64 recorded inputs and PyTorch's
   outputs for them, which the numpy inference must reproduce (``tests/bots/test_scorer.py``).

``--data DIR`` keeps each round's measured positions (step 1, the slow part) and reuses them when made with
the same settings and rollout policy. Figures: docs/AI.md §8.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from paohuzi.bots.candidates import FEATURE_SIZE, candidates, features
from paohuzi.bots.scorer import Scorer, ScorerBot
from paohuzi.bots.search import rollout
from paohuzi.bots.view import View, read
from paohuzi.bots.world import build_hand, sample_world
from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, ActionKind, Hand
from paohuzi.rules import find_preset

Data = dict[str, np.ndarray]
#: The most candidates a position can have (the padding of the arrays).
MAX_K = 8
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)


Policy = Callable[[View, Sequence[Action]], Action]


def measure(view: View, actions: Sequence[Action], worlds: int, rng: random.Random,
            policy: Policy | None = None) -> np.ndarray:
    """``(worlds played, len(actions))``: the seat's points after each action, played out by greedy (or
    ``policy``) at every seat in the same sampled worlds (as ``search`` measures its candidates)."""
    seat = view.seat
    out: list[list[float]] = []
    tries = 0
    while len(out) < worlds and tries < 4 * worlds + 20:
        tries += 1
        try:
            base = build_hand(view, sample_world(view, rng))
        except (PaohuziError, KeyError, IndexError, StopIteration):
            continue
        if seat not in base.deciding or not set(actions) <= set(base.legal_actions(seat)):
            continue
        row = []
        for a in actions:
            hand = base.copy()
            hand.apply(seat, a)
            rollout(hand, policy=policy)
            row.append(hand.outcome.payments[seat] / hand.rules.stake if hand.outcome is not None else 0.0)
        out.append(row)
    return np.asarray(out, np.float32).reshape(-1, len(actions))


_POLICIES: dict[str, Policy] = {}


def _policy(weights: str) -> Policy | None:
    """The scorer of ``weights`` as a rollout policy (None: greedy)."""
    if not weights:
        return None
    if weights not in _POLICIES:
        _POLICIES[weights] = ScorerBot(weights=weights).decide
    return _POLICIES[weights]


def positions(seed: int, k: int, policy: Policy | None = None) -> Iterator[tuple[View, list[tuple[float, Action]]]]:
    """One hand of ``qq`` played by greedy at every seat (by ``policy`` if given): each decision where greedy
    has two or more candidates (its best ``k``), as the seat's view and the candidates; the hand goes on when
    the caller asks for the next one."""
    hand = Hand(find_preset("qq"), seed=seed)
    while not hand.over:
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        if len(legal) == 1 or any(a.kind is ActionKind.HU for a in legal):
            hand.apply(seat, next((a for a in legal if a.kind is ActionKind.HU), legal[0]))
            continue
        view = read(hand.observation(seat))
        choice, cands = candidates(view, legal, k)
        if len(cands) >= 2 and view.phase in ("discard", "claim"):
            yield view, cands
        hand.apply(seat, choice if policy is None else policy(view, legal))


def play_and_measure(seed: int, worlds: int, k: int, weights: str = "") -> Data:
    """One hand played by greedy at every seat (by the scorer of ``weights`` if given, which then also plays
    the rollouts); every decision with two or more greedy candidates, its features and measured targets."""
    policy = _policy(weights)
    rng = random.Random(seed * 7919 + 13)
    rows: list[tuple[list[list[float]], np.ndarray]] = []
    for view, cands in positions(seed, k, policy):
        pay = measure(view, [a for _, a in cands], worlds, rng, policy)
        if len(pay) >= 2:
            rows.append((features(view, cands), pay))
    n = len(rows)
    data = empty(n)
    for i, (feats, pay) in enumerate(rows):
        c = len(feats)
        diff = pay - pay[:, :1]
        data["x"][i, :c] = feats
        data["m"][i, :c] = True
        data["t"][i, :c] = diff.mean(axis=0)
        data["se"][i, :c] = diff.std(axis=0, ddof=1) / np.sqrt(len(pay))
        data["n"][i] = len(pay)
    data["hand"][:] = seed
    return data


def empty(n: int = 0) -> Data:
    return {"x": np.zeros((n, MAX_K, FEATURE_SIZE), np.float32), "m": np.zeros((n, MAX_K), bool),
            "t": np.zeros((n, MAX_K), np.float32), "se": np.zeros((n, MAX_K), np.float32),
            "n": np.zeros(n, np.int16), "hand": np.zeros(n, np.int64)}


def concat(parts: Sequence[Data]) -> Data:
    return {k: np.concatenate([p[k] for p in parts]) for k in empty()}


def _job(job: tuple[int, int, int, str]) -> Data:
    return play_and_measure(*job)


def collect(seeds: Sequence[int], worlds: int, k: int, jobs: int = 1, weights: str = "") -> Data:
    """Measure the hands ``seeds`` (in ``jobs`` processes; the result does not depend on ``jobs``)."""
    work = [(s, worlds, k, weights) for s in seeds]
    parts: list[Data] = [empty()]
    start = time.time()
    if jobs <= 1:
        it: Any = map(_job, work)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs)
        it = pool.imap(_job, work, chunksize=2)
    try:
        for i, part in enumerate(it, 1):
            parts.append(part)
            if i % 50 == 0 or i == len(work):
                n = sum(len(p["n"]) for p in parts)
                print(f"  {i}/{len(work)} hands, {n} positions ({time.time() - start:.0f} s)", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return concat(parts)


def _torch_model(hidden: Sequence[int]) -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            sizes = [FEATURE_SIZE, *hidden, 1]
            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))

        def forward(self, x: Any) -> Any:
            h = x
            for layer in self.layers[:-1]:
                h = torch.relu(layer(h))
            return self.layers[-1](h)[..., 0]

    return Net()


def train(net: Any, data: Data, epochs: int, seed: int, device: Any, lr: float = 1e-3, batch: int = 256,
          weight_decay: float = 1e-4) -> None:
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(data["x"])
    m = torch.as_tensor(data["m"])
    t = torch.as_tensor(data["t"])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, epochs))
    n = len(t)
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, mb, tb = x[idx].to(device), m[idx].to(device), t[idx].to(device)
            q = net(xb)
            adv = q - q[:, :1]
            err = ((adv - tb) ** 2) * mb
            loss = err[:, 1:].sum() / mb[:, 1:].sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        sched.step()
        if epoch == epochs - 1 or (epoch + 1) % max(1, epochs // 5) == 0:
            print(f"  epoch {epoch + 1:3d}: mean squared error {total / max(n, 1):.4f}", flush=True)


def combine(nets: Sequence[Any]) -> list[np.ndarray]:
    """The mean of same-shaped networks as one network's ``(W, b)`` arrays: the first layer's units stacked,
    each hidden layer's weights block-diagonal (no unit sees another network's), and the output layer's
    weights and bias divided by their number — so it computes exactly the mean of their outputs."""
    per = [[(layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()) for layer in net.layers]
           for net in nets]
    k, depth = len(per), len(per[0])
    arrays: list[np.ndarray] = []
    for i in range(depth):
        Ws, bs = [p[i][0] for p in per], [p[i][1] for p in per]
        if i == depth - 1:
            W, b = np.concatenate(Ws, axis=1) / k, np.sum(bs, axis=0) / k
        elif i == 0:
            W, b = np.concatenate(Ws, axis=0), np.concatenate(bs)
        else:
            W = np.zeros((sum(w.shape[0] for w in Ws), sum(w.shape[1] for w in Ws)), np.float32)
            r = c = 0
            for w in Ws:
                W[r : r + w.shape[0], c : c + w.shape[1]] = w
                r, c = r + w.shape[0], c + w.shape[1]
            b = np.concatenate(bs)
        arrays += [W.astype(np.float32), b.astype(np.float32)]
    return arrays


def export(nets: Sequence[Any], meta: dict[str, Any], probe: np.ndarray) -> tuple[Scorer, dict[str, np.ndarray]]:
    """The numpy scorer (the networks' mean, :func:`combine`) and the probe arrays: the mean of PyTorch's
    outputs on ``probe``, each network run on its own."""
    import torch

    nets = [net.cpu().eval() for net in nets]
    with torch.no_grad():
        q = torch.stack([net(torch.as_tensor(probe)) for net in nets]).mean(dim=0).numpy()
    return Scorer(*combine(nets), meta=meta), {"probe_x": probe, "probe_q": q}


def gains(model: Scorer, data: Data) -> dict[float, float]:
    """Per margin: the mean measured gain over greedy's choice of the candidate the scorer plays, per position."""
    if not len(data["n"]):
        return {mg: float("nan") for mg in MARGINS}
    n, k, f = data["x"].shape
    q = model(data["x"].reshape(-1, f)).reshape(n, k)
    adv = np.where(data["m"], q - q[:, :1], -np.inf)
    best = adv.argmax(axis=1)
    top = adv[np.arange(n), best]
    got = data["t"][np.arange(n), best]
    return {mg: float(np.where(top > mg, got, 0.0).mean()) for mg in MARGINS}


def _weights_id(path: str) -> str:
    """A short digest of a weights file (which rollout policy measured a cached round)."""
    if not path:
        return "greedy"
    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]


def measured_round(args: argparse.Namespace, r: int, weights: str) -> Data:
    """Round ``r``'s measured positions: from the cache in ``--data`` when made with the same settings and
    rollout policy, measured (and cached) otherwise. Round ``r`` plays its ``--hands`` after the earlier
    rounds' (from hand seed ``seed × 10^6``)."""
    hands = args.round_hands[r - 1]
    settings = f"{args.seed},{hands},{args.worlds},{args.candidates},{r},{_weights_id(weights)}"
    path = os.path.join(args.data, f"positions-r{r}.npz") if args.data else ""
    if path and os.path.exists(path):
        with np.load(path) as cached:
            if str(cached["settings"]) == settings:
                print(f"round {r}: {len(cached['n'])} measured positions from {path}", flush=True)
                return {k: cached[k] for k in empty()}
    first = _first_hand(args, r)
    data = collect(range(first, first + hands), args.worlds, args.candidates, jobs=args.jobs, weights=weights)
    if path:
        os.makedirs(args.data, exist_ok=True)
        np.savez_compressed(path, settings=np.array(settings), **data)
    return data


def _first_hand(args: argparse.Namespace, r: int) -> int:
    return int(args.seed * 10**6 + sum(args.round_hands[: r - 1]))


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915 (one step after another)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", default="3000",
                        help="hands whose positions are measured, per round (one number, or one per round: 3000,1500)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds of policy improvement (round r > 1 plays and rolls out with round r − 1's net)")
    parser.add_argument("--worlds", type=int, default=12, help="sampled worlds per position")
    parser.add_argument("--candidates", type=int, default=4, help="greedy's best actions measured per position")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--hidden", default="64,64", help="hidden layer sizes (of each network)")
    parser.add_argument("--ensemble", type=int, default=4,
                        help="networks trained from different initial weights; the scorer plays their mean")
    parser.add_argument("--batch", type=int, default=256, help="minibatch size")
    parser.add_argument("--held-out", type=float, default=0.15, help="share of the hands kept out of training")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes measuring positions")
    parser.add_argument("--data", default="", help="folder caching the measured positions of each round")
    parser.add_argument("--out", default="scorer.npz")
    args = parser.parse_args(argv)
    if not 1 <= args.candidates <= MAX_K:
        parser.error(f"--candidates must be 1 … {MAX_K}")
    if args.ensemble < 1:
        parser.error("--ensemble must be ≥ 1")
    if not 0.0 < args.held_out < 1.0:
        parser.error("--held-out must be a share between 0 and 1")
    try:
        args.round_hands = [int(h) for h in str(args.hands).split(",")]
    except ValueError:
        parser.error(f"--hands must be whole numbers separated by commas, not {args.hands!r}")
    if len(args.round_hands) == 1:
        args.round_hands *= args.rounds
    if args.rounds < 1 or len(args.round_hands) != args.rounds or min(args.round_hands) < 1 or args.worlds < 2:
        parser.error("--rounds ≥ 1, one --hands number ≥ 1 (or one per round), --worlds ≥ 2")
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(max(1, min(2, args.jobs)))
    torch.use_deterministic_algorithms(True, warn_only=True)
    hidden = [int(h) for h in args.hidden.split(",")]
    start, cpu = time.time(), time.process_time()
    weights = ""
    torch.manual_seed(args.seed)  # one stream for all the initial weights: --ensemble 1 is the single network
    nets = [_torch_model(hidden).to(device) for _ in range(args.ensemble)]
    for r in range(1, args.rounds + 1):
        data = measured_round(args, r, weights)
        print(f"round {r}: {len(data['n'])} positions from {args.round_hands[r - 1]} hands, "
              f"{int(data['n'].sum())} worlds ({time.time() - start:.0f} s)", flush=True)
        cut = _first_hand(args, r) + int(round(args.round_hands[r - 1] * (1 - args.held_out)))
        fit = {k: v[data["hand"] < cut] for k, v in data.items()}
        held = {k: v[data["hand"] >= cut] for k, v in data.items()}
        print(f"round {r}: training {len(nets)} network(s) on {device}: {len(fit['n'])} positions, "
              f"{len(held['n'])} held out", flush=True)
        for j, net in enumerate(nets):
            net.to(device).train()  # a later round goes on from the earlier round's weights
            train(net, fit, args.epochs, args.seed * 100 + r + 7919 * j, device, batch=args.batch)
        flat = fit["x"][fit["m"]]
        probe = flat[:: max(1, len(flat) // 64)][:64].copy()
        model, extra = export(nets, {}, probe)
        by_margin = gains(model, held)
        margin = max(MARGINS, key=lambda mg: (by_margin[mg], -mg))
        oracle = float(np.where(held["m"], held["t"], -np.inf).max(axis=1).mean()) if len(held["n"]) else float("nan")
        per_hand = len(held["n"]) / max(1, len(set(held["hand"].tolist())))
        meta = {"seed": args.seed, "hands": args.hands, "rounds": args.rounds, "round": r, "worlds": args.worlds,
                "candidates": args.candidates, "epochs": args.epochs, "hidden": args.hidden, "ensemble": args.ensemble,
                "batch": args.batch,
                "positions": len(data["n"]), "held_out_positions": len(held["n"]), "margin": margin,
                "held_out_gain": by_margin[margin], "held_out_gain_at_0": by_margin[0.0],
                "held_out_positions_per_hand": per_hand, "device": device.type, "torch": torch.__version__}
        model.meta.update(meta)
        out = args.out if r == args.rounds else f"{os.path.splitext(args.out)[0]}.round{r}.npz"
        model.save(out, **extra)
        weights = out
        print(f"round {r}: held-out gain per position by margin: "
              + ", ".join(f"{mg:g}: {g:+.4f}" for mg, g in by_margin.items())
              + f"; best measured (optimistic) {oracle:+.4f}; {per_hand:.1f} positions per hand", flush=True)
        print(f"round {r}: margin {margin:g}: held-out gain {by_margin[margin]:+.4f} points per position "
              f"(≈ {by_margin[margin] * per_hand / 3:+.3f} per seat and hand) over greedy's choice, the round's "
              f"rollout policy playing on; "
              f"{time.time() - start:.0f} s wall, {time.process_time() - cpu:.0f} CPU s in this process; "
              f"saved {out} ({os.path.getsize(out) / 1e6:.3f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
