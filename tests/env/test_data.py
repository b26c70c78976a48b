"""Offline data (issue 36 part 4b): records → transitions equal to what the players saw in the batched
environment, ``paohuzi simulate --record`` → ``paohuzi dataset`` → ``.npz`` round trip, the server's stored
hands (a real SQLite and PostgreSQL database written by the server's own store), and clear errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy.orm import Session

from paohuzi.cli import main
from paohuzi.engine import Hand
from paohuzi.env.batch import BatchEnv
from paohuzi.env.data import FIELDS, DataError, Transitions, read_records, transitions
from paohuzi.rules import find_preset

from ..support.databases import postgres_available, postgres_schema


def batch_hands(rules: Any, seed: int, steps: int) -> tuple[list[dict[str, Any]], list[list[Any]], list[Any]]:
    """Random play on a batch: the records of the hands that ended, each with its steps (observation, mask,
    action, seat) and the rewards of its last step."""
    batch = BatchEnv(2, rules)
    rng = np.random.default_rng(seed)
    observations, masks, seats = batch.reset(seed=seed)
    current: list[list[Any]] = [[], []]
    records, steps_of, rewards_of = [], [], []
    for _ in range(steps):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        hands = list(batch.hands)
        for i in range(2):
            current[i].append((observations[i], masks[i], int(actions[i]), int(seats[i])))
        observations, masks, seats, rewards, dones = batch.step(actions)
        for i in np.flatnonzero(dones):
            records.append(hands[i].record())
            steps_of.append(current[i])
            rewards_of.append(rewards[i])
            current[i] = []
    return records, steps_of, rewards_of


@pytest.mark.parametrize("rules", ["qq", "liuhuqiang", {"name": "liuhuqiang", "players": 3, "yiwushi": True}], ids=str)
def test_transitions_are_what_the_players_saw(rules: Any) -> None:
    records, steps_of, rewards_of = batch_hands(rules, seed=21, steps=120)
    assert len(records) >= 4
    data = transitions(records)
    flat = [s for steps in steps_of for s in steps]
    assert len(data) == len(flat)
    np.testing.assert_array_equal(data.observations, np.stack([s[0] for s in flat]))
    np.testing.assert_array_equal(data.masks, np.stack([s[1] for s in flat]))
    assert data.actions.tolist() == [s[2] for s in flat]
    assert data.seats.tolist() == [s[3] for s in flat]
    assert data.episodes.tolist() == [k for k, steps in enumerate(steps_of) for _ in steps]
    for k, steps in enumerate(steps_of):
        rows = np.flatnonzero(data.episodes == k)
        seats = [s[3] for s in steps]
        last = {seat: rows[j] for j, seat in enumerate(seats)}  # each seat's last decision
        assert sorted(np.flatnonzero(data.dones[rows]) + rows[0]) == sorted(last.values())
        for seat, row in last.items():
            assert data.rewards[row] == rewards_of[k][seat]
        assert data.rewards[rows].sum() == sum(rewards_of[k][s] for s in last)
    for name, dtype in FIELDS.items():
        assert getattr(data, name).dtype == dtype


def test_simulate_record_to_dataset_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games, out = tmp_path / "games", tmp_path / "games.npz"
    assert main(["simulate", "--bots", "greedy,random,random", "--hands", "2", "--seed", "5", "--record",
                 str(games), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["dataset", str(games), "--out", str(out)]) == 0
    expected = transitions(read_records([games]))
    hands = len(list(games.iterdir()))
    assert hands == 6
    assert capsys.readouterr().out == (f"{len(expected)} transitions from 6 hands (606 values per observation, "
                                       f"115 actions) written to {out}\n")
    loaded = Transitions.load(out)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(expected, name))
    actions = sum(len(json.loads(p.read_text())["actions"]) for p in games.iterdir())
    assert len(loaded) == actions


def test_records_in_every_file_form(tmp_path: Path) -> None:
    records, _, _ = batch_hands("qq", seed=3, steps=60)
    one, two = records[0], records[1]
    (tmp_path / "a.json").write_text(json.dumps(one))
    (tmp_path / "b.json").write_text(json.dumps({"hand": {"id": 1}, "record": two}))  # the replay API's answer
    (tmp_path / "c.jsonl").write_text(json.dumps(one) + "\n\n" + json.dumps([two]) + "\n")
    assert list(read_records([tmp_path])) == [one, two, one, two]


def test_an_escape_ends_the_hand_with_its_settlement() -> None:
    hand = Hand(find_preset("qq"), seed=4)
    for _ in range(5):
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[0])
    hand.leave(1)
    record = hand.record()
    data = transitions([record])
    assert len(data) == 5
    outcome = hand.outcome
    assert outcome is not None
    for seat in set(data.seats.tolist()):
        row = max(np.flatnonzero(data.seats == seat))
        assert data.dones[row] and data.rewards[row] == outcome.payments[seat] / hand.rules.stake


def _stored_hands(url: str, records: list[dict[str, Any]]) -> None:
    """Store finished hands as the server does: its migrations, then its store's jobs."""
    from paohuzi.server import store
    from paohuzi.server.db import make_engine
    from paohuzi.server.room_options import RoomOptions
    from paohuzi.server.rows import MatchSeatRow
    from paohuzi.server.schema import migrate

    options = RoomOptions.from_dict({"preset": "qq", "four_players": False, "hands": 8, "stake": 3,
                                     "turn_seconds": 20.0, "claim_seconds": 10.0, "bots_fill": True,
                                     "rules": {"name": "qq"}})
    engine = make_engine(url)
    migrate(engine)
    rules = find_preset("qq")
    with Session(engine) as s, s.begin():
        room = store.create_room("ABCDEF", "private", None, options, 3)(s)
        seats = [MatchSeatRow(None, "random", f"bot{i}") for i in range(3)]
        match = store.create_match(room, 1, rules, len(records), seats)(s)
        for number, record in enumerate(records, 1):
            hand = store.create_hand(match, number, record["seed"], record["dealer"], rules)(s)
            store.finish_hand(hand, record["result"], record, match, [0, 0, 0], [])(s)
        store.create_hand(match, len(records) + 1, 99, 0, rules)(s)  # a hand still being played: left out
    engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_server_s_stored_hands(backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if backend == "postgresql" and not postgres_available():
        pytest.skip("no PostgreSQL at 127.0.0.1:5432")
    records, _, _ = batch_hands("qq", seed=8, steps=80)
    out = tmp_path / "played.npz"

    def check(url: str) -> None:
        _stored_hands(url, records)
        assert main(["dataset", "--database", url, "--out", str(out)]) == 0
        loaded, expected = Transitions.load(out), transitions(records)
        np.testing.assert_array_equal(loaded.observations, expected.observations)
        assert loaded.actions.tolist() == expected.actions.tolist()
        assert f"from {len(records)} hands" in capsys.readouterr().out
        assert main(["dataset", "--database", url, "--limit", "1", "--out", str(out)]) == 0
        assert set(Transitions.load(out).episodes.tolist()) == {0}

    if backend == "sqlite":
        check(f"sqlite:///{tmp_path / 'paohuzi.db'}")
    else:
        with postgres_schema() as url:
            check(url)


def _tampered(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    out.update(changes)
    return out


def test_bad_records_are_named() -> None:
    records, _, _ = batch_hands("qq", seed=3, steps=60)
    good = records[0]
    unfinished = _tampered(good, actions=good["actions"][:3])
    del unfinished["result"]
    bad_action = _tampered(good, actions=[[good["actions"][0][0], "hu"], *good["actions"][1:]])
    wrong_result = _tampered(good, result={**good["result"], "kind": "win"})
    for bad, message in (
        ("text", "record 1: a record is an object, got str"),
        (unfinished, r"record 1: the hand is not finished \(no result\): transitions need whole hands"),
        (bad_action, "record 1: .*hu"),
        (wrong_result, "record 1: the recorded result is not the one the actions reach"),
    ):
        with pytest.raises(DataError, match=message):
            transitions([good, bad])
    lhq, _, _ = batch_hands("liuhuqiang", seed=3, steps=40)
    with pytest.raises(DataError, match="record 1: tensors of 752 values and 115 actions, but record 0 had 606 "
                                        "and 115: one data set holds one layout"):
        transitions([good, lhq[0]])


def test_bad_files_and_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "junk.json").write_text("{not json")
    (tmp_path / "empty").mkdir()
    out = str(tmp_path / "x.npz")
    for argv, message in (
        (["dataset", "--out", out], "give record files or folders, or --database URL (one of them)"),
        (["dataset", str(tmp_path / "junk.json"), "--out", out], "junk.json: not JSON"),
        (["dataset", str(tmp_path / "nowhere.json"), "--out", out], "cannot read"),
        (["dataset", str(tmp_path / "empty"), "--out", out], "no .json or .jsonl files in this folder"),
        (["dataset", "--database", f"sqlite:///{tmp_path / 'none.db'}", "--out", out], "no database file"),
        (["dataset", str(tmp_path), "--limit", "2", "--out", out], "--limit N needs --database and N ≥ 1"),
    ):
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists() and not Path(out).exists()
    (tmp_path / "other.npz").write_bytes(b"not an npz")
    with pytest.raises(DataError, match="cannot read transitions from"):
        Transitions.load(tmp_path / "other.npz")
