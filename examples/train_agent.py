"""Train the learned agent (``paohuzi.env.learned``, issue #16 item 2) with PyTorch; it plays with numpy alone.

One seeded command trains the shipped weights from scratch (the ``train`` extra: PyTorch; a GPU is used
when one is present, the CPU otherwise):

    PYTHONPATH=src python examples/train_agent.py --seed 0 --jobs 2 --out src/paohuzi/env/weights/agent.npz

1. **Teacher data.** ``--hands`` hands of ``qq`` with ``greedy`` at every seat (hand seeds from ``seed ×
   10^6``); at every decision with a choice it records the seat's observation tensor and action mask (the
   seat's own view only, R5), greedy's action ID, greedy's score of every action it scored (the soft
   target: a softmax over them), and the hand's final points for that seat (the value target).
2. **Network.** A policy-and-value perceptron (606 → ``--hidden`` ReLU layers → 115 logits, and one value)
   trained on masked cross-entropy to greedy's choice plus ``--soft`` × cross-entropy to its scores, plus
   ``--value-weight`` × the squared error of the points, with Adam and weight decay.
3. **DAgger.** ``--dagger`` rounds of ``--dagger-hands`` more hands in which each seat is played by the
   network so far with probability ½ (by the teacher otherwise), every decision labelled by the teacher,
   so that the network learns what to do in the positions its own mistakes lead to; retrain on everything.
4. **Export.** The weights go to ``--out`` as an ``.npz`` for :class:`paohuzi.env.learned.MLP`, with the seed,
   sizes and agreement with greedy on held-out hands, and ``probe_x``/``probe_logits``/``probe_value``: 64
   recorded inputs and PyTorch's outputs for them, which the numpy inference must reproduce
   (``tests/env/test_learned.py``).

Figures and the measured strength are in docs/AI.md §8.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from paohuzi.bots import greedy
from paohuzi.bots.view import read
from paohuzi.engine import Hand
from paohuzi.env import NUM_ACTIONS, OBSERVATION_SIZE, action_mask, decode, encode, featurize
from paohuzi.env.aec import pending
from paohuzi.env.learned import _SCALE, MLP
from paohuzi.rules import find_preset

#: Hand seeds of the held-out hands (never trained on).
HELD_OUT_SEED = 7 * 10**8

Data = dict[str, np.ndarray]


def play_and_record(seed: int, student: MLP | None, rng: np.random.Generator) -> Data:
    """One hand, recorded at every decision with a choice. With a ``student``, each seat is played by it
    with probability ½; greedy labels every decision either way."""
    hand = Hand(find_preset("qq"), seed=seed)
    by_student = {s: student is not None and rng.random() < 0.5 for s in hand.seats}
    rows: list[tuple[np.ndarray, np.ndarray, int, np.ndarray, int]] = []
    while not hand.over:
        seat = hand.deciding[0]
        obs, legal = hand.observation(seat), hand.legal_actions(seat)
        if len(legal) == 1:
            hand.apply(seat, legal[0])
            continue
        choice, scored = greedy.choose(read(obs), legal)
        card = pending(hand)[0]
        x, mask = featurize(obs), action_mask(obs).astype(bool)
        scores = np.full(NUM_ACTIONS, -np.inf, np.float32)
        for value, action in scored:
            scores[encode(action, card)] = value
        target = encode(choice, card)
        rows.append((x, mask, target, scores, seat))
        if by_student[seat] and student is not None:
            hand.apply(seat, decode(student.choose(x, mask), card))
        else:
            hand.apply(seat, choice)
    assert hand.outcome is not None
    points = [hand.outcome.payments[s] / hand.rules.stake for s in range(len(hand.outcome.payments))]
    if not rows:
        return empty()
    x, m, y, s, seats = zip(*rows, strict=True)
    return {"x": np.array(x, np.uint8), "mask": np.array(m, bool), "y": np.array(y, np.int16),
            "scores": np.array(s, np.float32), "value": np.array([points[t] for t in seats], np.float32),
            "hand": np.full(len(rows), seed, np.int64)}


def empty() -> Data:
    return {"x": np.zeros((0, OBSERVATION_SIZE), np.uint8), "mask": np.zeros((0, NUM_ACTIONS), bool),
            "y": np.zeros(0, np.int16), "scores": np.zeros((0, NUM_ACTIONS), np.float32),
            "value": np.zeros(0, np.float32), "hand": np.zeros(0, np.int64)}


def concat(parts: Sequence[Data]) -> Data:
    return {k: np.concatenate([p[k] for p in parts]) for k in empty()}


def _chunk(job: tuple[list[int], MLP | None, int]) -> Data:
    seeds, student, rng_seed = job
    rng = np.random.default_rng(rng_seed)
    return concat([empty(), *(play_and_record(s, student, rng) for s in seeds)])


def collect(seeds: Sequence[int], student: MLP | None = None, jobs: int = 1) -> Data:
    """Record the hands ``seeds`` (in ``jobs`` processes; the result does not depend on ``jobs``: each
    hand's student coin flips are seeded by the hand)."""
    work = [([s], student, s) for s in seeds]
    if jobs <= 1:
        return concat([empty(), *map(_chunk, work)])
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return concat([empty(), *pool.map(_chunk, work, chunksize=16)])


def _torch_model(hidden: Sequence[int]) -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            sizes = [OBSERVATION_SIZE, *hidden]
            self.body = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
            self.policy = nn.Linear(sizes[-1], NUM_ACTIONS)
            self.value = nn.Linear(sizes[-1], 1)
            self.register_buffer("scale", torch.as_tensor(_SCALE))

        def forward(self, x: Any) -> tuple[Any, Any]:
            h = x * self.scale
            for layer in self.body:
                h = torch.relu(layer(h))
            return self.policy(h), self.value(h)[:, 0]

    return Net()


def train(net: Any, data: Data, epochs: int, seed: int, device: Any, lr: float = 1e-3, batch: int = 256,
          soft: float = 0.5, value_weight: float = 0.01, weight_decay: float = 1e-4) -> None:
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(data["x"], dtype=torch.float32)
    mask = torch.as_tensor(data["mask"])
    y = torch.as_tensor(data["y"].astype(np.int64))
    scores = torch.as_tensor(data["scores"])
    value = torch.as_tensor(data["value"])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    n = len(y)
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, mb = x[idx].to(device), mask[idx].to(device)
            logits, v = net(xb)
            logp = torch.log_softmax(logits.masked_fill(~mb, -1e9), dim=1)
            hard = -logp.gather(1, y[idx].to(device)[:, None])[:, 0]
            target = torch.softmax(scores[idx].to(device).masked_fill(~mb, -torch.inf), dim=1)
            target = torch.nan_to_num(target)  # a row with every legal ID unscored: no soft term
            soft_loss = -(target * logp.masked_fill(~mb, 0.0)).sum(1)
            loss = (hard + soft * soft_loss).mean() + value_weight * ((v - value[idx].to(device)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        print(f"  epoch {epoch + 1:3d}: mean loss {total / n:.4f}", flush=True)


def export(net: Any, meta: dict[str, Any], probe: np.ndarray) -> tuple[MLP, dict[str, np.ndarray]]:
    """The numpy network and the probe arrays (PyTorch's outputs on ``probe``)."""
    import torch

    net = net.cpu().eval()
    layers = [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in [*net.body, net.policy]]
    value = (net.value.weight.detach().numpy(), net.value.bias.detach().numpy())
    with torch.no_grad():
        logits, v = net(torch.as_tensor(probe, dtype=torch.float32))
    extra = {"probe_x": probe, "probe_logits": logits.numpy(), "probe_value": v.numpy()}
    return MLP.from_layers(layers, value, meta), extra


def agreement(model: MLP, data: Data) -> float:
    if not len(data["y"]):
        return float("nan")
    logits = np.where(data["mask"], model.logits(data["x"].astype(np.float32)), -np.inf)
    return float((logits.argmax(axis=1) == data["y"]).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=2000, help="greedy self-play hands of teacher data")
    parser.add_argument("--dagger", type=int, default=1, help="DAgger rounds")
    parser.add_argument("--dagger-hands", type=int, default=1000, help="hands per DAgger round")
    parser.add_argument("--epochs", type=int, default=5, help="epochs after each round of data")
    parser.add_argument("--hidden", default="256,128", help="hidden layer sizes")
    parser.add_argument("--batch", type=int, default=256, help="minibatch size")
    parser.add_argument("--held-out", type=int, default=200, help="held-out hands for the agreement figure")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes recording hands")
    parser.add_argument("--out", default="agent.npz")
    args = parser.parse_args(argv)
    import torch

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(min(2, args.jobs))
    hidden = [int(h) for h in args.hidden.split(",")]
    start, cpu = time.time(), time.process_time()
    base = args.seed * 10**6
    data = collect(range(base, base + args.hands), jobs=args.jobs)
    print(f"{len(data['y'])} teacher decisions from {args.hands} greedy hands ({time.time() - start:.0f} s)",
          flush=True)
    net = _torch_model(hidden).to(device)
    print(f"training on {device}", flush=True)
    train(net, data, args.epochs, args.seed, device, batch=args.batch)
    probe = data["x"][:: max(1, len(data["y"]) // 64)][:64].astype(np.float32)
    model, _ = export(net, {}, probe)
    for r in range(1, args.dagger + 1):
        first = base + args.hands + (r - 1) * args.dagger_hands
        more = collect(range(first, first + args.dagger_hands), student=model, jobs=args.jobs)
        data = concat([data, more])
        print(f"DAgger round {r}: {len(more['y'])} more decisions, {len(data['y'])} in all "
              f"({time.time() - start:.0f} s)", flush=True)
        net.to(device).train()
        train(net, data, args.epochs, args.seed + r, device, batch=args.batch)
        model, _ = export(net, {}, probe)
    held = collect(range(HELD_OUT_SEED, HELD_OUT_SEED + args.held_out), jobs=args.jobs)
    meta = {"seed": args.seed, "hands": args.hands, "dagger": args.dagger, "dagger_hands": args.dagger_hands,
            "epochs": args.epochs, "hidden": args.hidden, "batch": args.batch, "decisions": len(data["y"]),
            "agreement_train": agreement(model, data), "agreement_held_out": agreement(model, held),
            "device": device.type, "torch": torch.__version__}
    model, extra = export(net, meta, probe)
    model.save(args.out, **extra)
    print(f"agreement with greedy: training {meta['agreement_train']:.3f}, held-out hands "
          f"{meta['agreement_held_out']:.3f}; {time.time() - start:.0f} s wall, {time.process_time() - cpu:.0f} "
          f"CPU s in this process; saved {args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
