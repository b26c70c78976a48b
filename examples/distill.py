"""Train a two-layer ``learned`` policy (paohuzi.env.learned) by imitating ``greedy``, with numpy only.

The numpy-only path (no PyTorch): the shipped weights come from ``examples/train_agent.py`` instead, which
adds a value head, greedy's scores as soft targets and DAgger (docs/AI.md §8). This script made the first
distilled weights (2,000 hands, 15 epochs: 56.6 % agreement with greedy on held-out hands).

1. Plays ``--hands`` hands of ``qq`` with greedy at every seat (hand seeds ``seed``, ``seed + 1`` …) and
   records, at every decision with a choice, the deciding seat's observation tensor, its action mask and
   greedy's action ID (the seat's own observation only, R5).
2. Trains the two-layer perceptron of ``paohuzi.env.learned.MLP`` by cross-entropy over the legal IDs
   (Adam, minibatches, ``--epochs``), holding out the last 10 % of the hands to report agreement with greedy.
3. Saves the weights (with the seed, hands, epochs and agreement) to ``--out``.

    PYTHONPATH=src .venv/bin/python examples/distill.py --hands 2000 --epochs 15 --seed 0 --out distilled.npz
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from paohuzi.bots import make_bot
from paohuzi.engine import Hand
from paohuzi.env import action_mask, encode, featurize
from paohuzi.env.aec import pending
from paohuzi.env.learned import MLP
from paohuzi.rules import find_preset


def collect(hands: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, greedy's IDs, hand index) at every decision with a choice."""
    rules = find_preset("qq")
    xs, ms, ys, hs = [], [], [], []
    for i in range(hands):
        hand = Hand(rules, seed=seed + i)
        bots = {s: make_bot("greedy", seed=seed + i) for s in hand.seats}
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            action = bots[seat].act(obs, legal)
            if len(legal) > 1:
                xs.append(featurize(obs))
                ms.append(action_mask(obs))
                ys.append(encode(action, pending(hand)[0]))
                hs.append(i)
            hand.apply(seat, action)
    return np.array(xs), np.array(ms, bool), np.array(ys), np.array(hs)


def train(model: MLP, x: np.ndarray, m: np.ndarray, y: np.ndarray, epochs: int, rng: np.random.Generator,
          lr: float = 1e-3, batch: int = 64) -> None:
    """Masked softmax cross-entropy with Adam."""
    params = [model.W1, model.b1, model.W2, model.b2]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    step = 0
    from paohuzi.env.learned import _SCALE

    for epoch in range(epochs):
        order = rng.permutation(len(y))
        total = 0.0
        for start in range(0, len(y), batch):
            idx = order[start : start + batch]
            xb = x[idx] * _SCALE
            h_pre = xb @ model.W1.T + model.b1
            h = np.maximum(h_pre, 0.0)
            logits = h @ model.W2.T + model.b2
            logits = np.where(m[idx], logits, -1e9)
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            total -= float(np.log(p[np.arange(len(idx)), y[idx]] + 1e-12).sum())
            g = p
            g[np.arange(len(idx)), y[idx]] -= 1.0
            g /= len(idx)
            grads = [None, None, g.T @ h, g.sum(axis=0)]
            gh = (g @ model.W2) * (h_pre > 0)
            grads[0], grads[1] = gh.T @ xb, gh.sum(axis=0)
            step += 1
            for k, (param, grad) in enumerate(zip(params, grads, strict=True)):
                first[k] = 0.9 * first[k] + 0.1 * grad
                second[k] = 0.999 * second[k] + 0.001 * grad * grad
                mhat = first[k] / (1 - 0.9**step)
                vhat = second[k] / (1 - 0.999**step)
                param -= (lr * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)
        print(f"  epoch {epoch + 1:3d}: mean loss {total / len(y):.4f}")


def agreement(model: MLP, x: np.ndarray, m: np.ndarray, y: np.ndarray) -> float:
    logits = np.where(m, model.logits(x), -np.inf)
    return float((logits.argmax(axis=1) == y).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="distilled_greedy.npz")
    args = parser.parse_args(argv)
    start = time.process_time()
    x, m, y, h = collect(args.hands, args.seed)
    cut = int(args.hands * 0.9)
    train_rows, test_rows = h < cut, h >= cut
    print(f"{len(y)} decisions from {args.hands} greedy hands ({time.process_time() - start:.1f} CPU s)")
    rng = np.random.default_rng(args.seed)
    model = MLP.init(args.hidden, rng)
    train(model, x[train_rows], m[train_rows], y[train_rows], args.epochs, rng)
    held_out = agreement(model, x[test_rows], m[test_rows], y[test_rows]) if test_rows.any() else float("nan")
    trained = agreement(model, x[train_rows], m[train_rows], y[train_rows])
    model.meta = {"seed": args.seed, "hands": args.hands, "epochs": args.epochs, "hidden": args.hidden,
                  "agreement_train": trained, "agreement_held_out": held_out}
    model.save(args.out)
    print(f"agreement with greedy: training {trained:.3f}, held-out hands {held_out:.3f}; "
          f"{time.process_time() - start:.1f} CPU s; saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
