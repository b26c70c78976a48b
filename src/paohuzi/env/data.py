"""Offline data: hand records → transitions (observation, mask, action, reward, done) as numpy arrays (issue 36
part 4b).

A record (:meth:`paohuzi.engine.Hand.record`, docs/engine.md §8) holds the deal and every action; replaying it
gives, before each action, the acting seat's observation (R5: what that seat saw, never more) as the
environment's tensor and mask (:mod:`paohuzi.env.features`), and the action's ID (:mod:`paohuzi.env.actions`).
Records come from ``paohuzi simulate --record DIR`` (one JSON file per hand), from the server's stored hands
(``GET /api/replays/{hand_id}``'s ``record``, or the ``hands.record`` column: ``paohuzi dataset --database``),
or from any program that keeps ``hand.record()``.

Each seat's decisions in a hand form one episode of that seat (the AEC environment's view of it): the rewards
are 0 except at a seat's last decision, which carries the seat's points for the hand (payment ÷ stake, R7.3,
as the environment's reward) with ``done`` True. A seat's next observation is its next transition in the same
``episodes`` and ``seats``. A seat that never decided in a hand has no transition in it. A 逃跑 (``leave``) is
not an action ID: it ends the hand, and the rewards are those of the escape settlement.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=3)
>>> while not hand.over:
...     seat = hand.deciding[0]
...     _ = hand.apply(seat, hand.legal_actions(seat)[0])
>>> data = transitions([hand.record()])
>>> data.observations.shape[1], data.masks.shape[1], len(data) == len(hand.record()["actions"])
(606, 115, True)
>>> float(data.rewards.sum()), int(data.dones.sum()) <= 3
(0.0, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, HandRecord, replay
from paohuzi.env.actions import encode
from paohuzi.env.features import action_mask, featurize
from paohuzi.env.infostate import History, history_capacity, info_state

__all__ = ["DataError", "Transitions", "transitions", "read_records", "FIELDS"]


class DataError(PaohuziError):
    """A record that cannot be turned into transitions, a file that holds no records, a bad ``.npz``."""


#: The arrays of a :class:`Transitions`, in order, with their dtypes.
FIELDS = {
    "observations": np.float32, "masks": np.int8, "actions": np.int64, "rewards": np.float32,
    "dones": np.bool_, "seats": np.int64, "episodes": np.int64,
}


@dataclass(frozen=True)
class Transitions:
    """Transitions of many hands, one row per decision, in the order played.

    :ivar observations: ``float32 (T, 606)`` (752 with four players in the hand) — the acting seat's tensor.
    :ivar masks: ``int8 (T, 115)`` (171 with ``yiwushi``) — its legal IDs then.
    :ivar actions: ``int64 (T,)`` — the ID it played. :ivar rewards: ``float32 (T,)`` — see the module.
    :ivar dones: ``bool (T,)`` — the seat's last decision in the hand.
    :ivar seats: ``int64 (T,)`` — the table seat. :ivar episodes: ``int64 (T,)`` — the record's index in the input.
    """

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    seats: np.ndarray
    episodes: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path: str | Path) -> None:
        """Write the arrays to a compressed ``.npz`` (``numpy.load`` reads them by name; :meth:`load` too)."""
        np.savez_compressed(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: str | Path) -> Transitions:
        """Read a ``.npz`` written by :meth:`save`.

        :raises DataError: for a missing file or one without these arrays.
        """
        try:
            with np.load(path) as data:
                arrays = {name: data[name] for name in FIELDS}
        except (OSError, KeyError, ValueError) as exc:
            raise DataError(f"cannot read transitions from {str(path)!r}: {exc}") from None
        for name, dtype in FIELDS.items():
            if arrays[name].dtype != dtype or len(arrays[name]) != len(arrays["actions"]):
                raise DataError(f"{str(path)!r}: {name} is not {np.dtype(dtype)} of {len(arrays['actions'])} rows")
        return cls(**arrays)


def _episode(record: dict[str, Any], index: int, rows: dict[str, list[Any]], recall: bool = False) -> None:
    """Append the transitions of one record to ``rows``; ``recall``: information states, not snapshots."""
    if not isinstance(record, dict):
        raise DataError(f"record {index}: a record is an object, got {type(record).__name__}")
    if record.get("result") is None:
        raise DataError(f"record {index}: the hand is not finished (no result): transitions need whole hands")
    try:
        hand = replay(record, upto=0)
        stake = max(1, hand.rules.stake)
        last: dict[int, int] = {}
        cap = history_capacity(hand.rules)
        histories = {s: History(s, hand.seats, cap) for s in hand.seats} if recall else {}
        for seat, text in record["actions"]:
            if text == "leave":
                hand.leave(seat)
                continue
            obs = hand.observation(seat)
            pending = obs.pending
            action = Action.parse(text)
            rows["actions"].append(encode(action, None if pending is None else pending.card))
            rows["observations"].append(info_state(obs, hand.events, histories[seat]) if recall else featurize(obs))
            rows["masks"].append(action_mask(obs))
            last[seat] = len(rows["seats"])
            rows["seats"].append(seat)
            rows["episodes"].append(index)
            rows["rewards"].append(0.0)
            rows["dones"].append(False)
            hand.apply(seat, action)
    except PaohuziError as exc:
        raise DataError(f"record {index}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise DataError(f"record {index}: bad actions: {exc}") from None
    outcome = hand.outcome
    if outcome is None or outcome.to_dict() != record["result"]:
        got = None if outcome is None else outcome.to_dict()
        raise DataError(f"record {index}: the recorded result is not the one the actions reach ({got})")
    for seat, row in last.items():
        rows["rewards"][row] = outcome.payments[seat] / stake
        rows["dones"][row] = True


def transitions(records: Iterable[dict[str, Any] | HandRecord], obs_type: str = "snapshot") -> Transitions:
    """The transitions of finished hands' records (see the module docstring); every record is replayed and
    checked (its deal, every action, its result).

    :param obs_type: ``snapshot`` (the observation tensor) or ``info_state`` (the acting seat's information
        state, :mod:`paohuzi.env.infostate`: 16,906 values a transition in the classic presets, 68 kB).

    :raises DataError: naming the record (its index in ``records``) that is not a finished, valid record, or
        records whose tensors differ in shape (a rule set with four players in the hand, or ``yiwushi``, mixed
        with others).
    """
    if obs_type not in ("snapshot", "info_state"):
        raise DataError(f"obs_type must be 'snapshot' or 'info_state', got {obs_type!r}")
    rows: dict[str, list[Any]] = {name: [] for name in FIELDS}
    shape: tuple[int, int, int] | None = None
    for index, record in enumerate(records):
        data = record.to_dict() if isinstance(record, HandRecord) else record
        start = len(rows["actions"])
        _episode(data, index, rows, obs_type == "info_state")
        if len(rows["actions"]) > start:
            here = (len(rows["observations"][-1]), len(rows["masks"][-1]), index)
            if shape is None:
                shape = here
            elif here[:2] != shape[:2]:
                raise DataError(f"record {index}: tensors of {here[0]} values and {here[1]} actions, but record "
                                f"{shape[2]} had {shape[0]} and {shape[1]}: one data set holds one layout")
    size, actions = (shape[0], shape[1]) if shape is not None else (0, 0)
    out: dict[str, np.ndarray] = {}
    for name, dtype in FIELDS.items():
        if name == "observations":
            out[name] = np.stack(rows[name]) if rows[name] else np.zeros((0, size), np.float32)
        elif name == "masks":
            out[name] = np.stack(rows[name]) if rows[name] else np.zeros((0, actions), np.int8)
        else:
            out[name] = np.array(rows[name], dtype)
    return Transitions(**out)


def _records_in(value: Any, where: str) -> Iterator[dict[str, Any]]:
    """The records in one JSON value: a record, the API's ``{"record": …}``, or a list of them."""
    if isinstance(value, list):
        for item in value:
            yield from _records_in(item, where)
    elif isinstance(value, dict) and "actions" not in value and isinstance(value.get("record"), dict):
        yield value["record"]
    elif isinstance(value, dict):
        yield value
    else:
        raise DataError(f"{where}: a record is a JSON object, got {type(value).__name__}")


def read_records(paths: Iterable[str | Path]) -> Iterator[dict[str, Any]]:
    """The records in files and folders: a ``.json`` file (a record — ``paohuzi simulate --record``'s files —,
    a list of records, or ``GET /api/replays/{hand_id}``'s answer), a ``.jsonl`` file (one per line), a folder
    (its ``*.json`` and ``*.jsonl`` files, sorted by name).

    :raises DataError: for a missing path or a file that is not JSON (naming the file and line).
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl"))
            if not files:
                raise DataError(f"{str(path)!r}: no .json or .jsonl files in this folder")
            yield from read_records(files)
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
        if path.suffix == ".jsonl":
            for number, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    yield from _records_in(_parse(line, f"{path}:{number}"), f"{path}:{number}")
        else:
            yield from _records_in(_parse(text, str(path)), str(path))


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{where}: not JSON ({exc})") from None
