"""``paohuzi verify`` (可验证发牌, issue 32): ✓ for a true record, and for a tampered one exactly what differs —
two cards swapped, a client seed changed, the server seed changed — with its exit status."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from paohuzi.cli import main
from paohuzi.engine import FairSeed, Hand, Match
from paohuzi.rules import find_preset

FAIR = FairSeed(bytes(range(32)), (b"\x01", b"", b"\x02\x03"))


def _record() -> dict[str, Any]:
    hand = Hand(find_preset("qq"), FAIR)
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[0])
    return hand.record()


def _verify(tmp_path: Path, data: Any, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    status = main(["verify", str(path), *extra])
    out = capsys.readouterr()
    return status, out.out + out.err


def test_a_true_record_is_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _verify(tmp_path, _record(), capsys)
    assert status == 0
    assert out == (
        f"✓ verified (rng_version 2): commitment {FAIR.commitment}, server seed {FAIR.server_seed.hex()}, "
        "client seeds ['01', '', '0203']\n"
    )
    # a replay answer ({"hand", "record"}) and the commitment seen before the deal
    status, out = _verify(tmp_path, {"hand": {}, "record": _record()}, capsys, "--commitment", FAIR.commitment)
    assert status == 0 and out.startswith("✓")


def test_two_swapped_cards_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = copy.deepcopy(_record())
    hands = rec["dealt"]["hands"]
    d, other = rec["dealer"], (rec["dealer"] + 1) % 3
    k = next(k for k in range(20) if hands[d][k] != hands[other][k])
    hands[d][k], hands[other][k] = hands[other][k], hands[d][k]
    status, out = _verify(tmp_path, rec, capsys)
    assert status == 1
    assert out == (
        "✗ not verified:\n"
        f"  - cards swapped: seat {d}'s card {k + 1} is {hands[d][k]} and seat {other}'s card {k + 1} is "
        f"{hands[other][k]}; the seeds deal them the other way round\n"
    )


def test_a_changed_client_seed_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = copy.deepcopy(_record())
    rec["fair"]["client_seeds"][2] = "0204"
    status, out = _verify(tmp_path, rec, capsys)
    assert status == 1 and out.startswith("✗ not verified:\n  - a client seed changed: ")


def test_a_changed_server_seed_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = copy.deepcopy(_record())
    rec["fair"]["server_seed"] = "ab" * 32
    status, out = _verify(tmp_path, rec, capsys)
    assert status == 1 and "  - server seed changed: SHA-256(server_seed) is " in out


def test_another_commitment_than_the_one_seen_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _verify(tmp_path, _record(), capsys, "--commitment", "cd" * 32)
    assert status == 1 and "  - commitment changed: the record says" in out


def test_old_hands_are_not_verifiable_and_bad_files_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _verify(tmp_path, Hand(find_preset("qq"), 7).record(), capsys)
    assert status == 3
    assert out == "– not verifiable (rng_version 1): dealt from a seed the server kept, with no commitment\n"
    status, out = _verify(tmp_path, "{not json", capsys)
    assert status == 2 and out.startswith("paohuzi verify: ")
    status, out = _verify(tmp_path, "[1, 2]", capsys)
    assert status == 2 and "a record is a JSON object" in out


def test_a_match_record_is_verified_hand_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = Match(find_preset("qq"), 3, hands=2, fair=FAIR)
    while not match.over:
        while not match.hand.over:
            seat = match.deciding[0]
            match.apply(seat, match.legal_actions(seat)[0])
        if not match.over:
            match.next_hand()  # rng_version 1: the second hand is not verifiable
    status, out = _verify(tmp_path, match.record(), capsys)
    lines = out.splitlines()
    assert status == 3 and lines[0].startswith("hand 1: ✓ verified")
    assert lines[1].startswith("hand 2: – not verifiable")
