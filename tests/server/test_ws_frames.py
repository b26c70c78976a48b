"""The game websocket's framing (``paohuzi.server.ws_frames``, issue 33): what :func:`scan` reads of a client's byte
stream and :func:`text_frame` writes, exactly — and the compiled module (``paohuzi._accel_ws``) answering as the
pure functions do for every stream hypothesis makes: frames of every opcode, length encoding and mask, cut
anywhere, with bad bits, bad UTF-8 and oversize payloads among them. tests/server/test_ws_protocol.py checks the
protocol built on them against uvicorn's own answers, byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from paohuzi.server import ws_frames
from paohuzi.server.ws_frames import BINARY, PING, PONG, TEXT, scan_py, text_frame_py

from ..support.accel import check_a_stale_copy_is_refused, check_loaded_when_built

needs_build = pytest.mark.skipif(not ws_frames.ACCELERATED, reason="needs the built compiled framing")
ACCEL = ws_frames._ACCEL  # noqa: SLF001 — the compiled module itself, to compare with the pure functions


def client_frame(head: int, payload: bytes, mask: bytes = b"\x1f\x2e\x3d\x4c", *, masked: bool = True) -> bytes:
    """A frame as a client writes it (RFC 6455 §5.2): ``head`` (FIN, RSV, opcode), the length, the mask, the
    masked payload."""
    n = len(payload)
    if n < 126:
        length = bytes((0x80 * masked | n,))
    elif n < 65536:
        length = bytes((0x80 * masked | 126, n >> 8, n & 0xFF))
    else:
        length = bytes((0x80 * masked | 127,)) + n.to_bytes(8, "big")
    if not masked:
        return bytes((head,)) + length + payload
    return bytes((head,)) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_text_frame_is_read_as_its_text_and_a_binary_frame_as_its_bytes() -> None:
    act = '{"type":"act","action":"discard x7"}'
    stream = client_frame(TEXT, act.encode("utf-8")) + client_frame(BINARY, b"\x00\xff")
    assert scan_py(stream, 0) == ([(TEXT, act), (BINARY, b"\x00\xff")], len(stream), False)


def test_chinese_text_and_a_16_bit_length_are_read() -> None:
    text = "七" * 100  # 300 bytes of UTF-8: the 16-bit length
    frame = client_frame(TEXT, text.encode())
    assert frame[1] == 0x80 | 126
    assert scan_py(frame, 0) == ([(TEXT, text)], len(frame), False)


def test_a_frame_cut_anywhere_waits_for_the_rest() -> None:
    first, second = client_frame(TEXT, b"hello"), client_frame(TEXT, b"x" * 300)
    stream = first + second
    for cut in range(len(stream)):
        frames, at, refused = scan_py(stream[:cut], 0)
        whole = [(TEXT, "hello")] if cut >= len(first) else []
        assert (frames, at, refused) == (whole, len(first) if whole else 0, False), cut


def test_pings_and_pongs_are_read_as_their_payloads() -> None:
    stream = client_frame(PING, b"are you there") + client_frame(PONG, b"")
    assert scan_py(stream, 0) == ([(PING, b"are you there"), (PONG, b"")], len(stream), False)


@pytest.mark.parametrize(
    ("why", "frame"),
    [
        ("a close frame", client_frame(0x88, b"\x03\xe8")),
        ("a fragment (no FIN)", client_frame(0x01, b"part")),
        ("a continuation", client_frame(0x80, b"rest")),
        ("a reserved bit", client_frame(0xC1, b"x")),
        ("a reserved opcode", client_frame(0x83, b"x")),
        ("an unmasked frame", client_frame(TEXT, b"plain", masked=False)),
        ("a 64-bit length", client_frame(BINARY, b"y" * 65536)),
        ("a ping of 126 bytes", client_frame(PING, b"p" * 126)),
        ("invalid UTF-8", client_frame(TEXT, b"\xff\xfe")),
        ("a lone surrogate in UTF-8", client_frame(TEXT, b"\xed\xa0\x80")),
    ],
)
def test_a_frame_the_fast_path_does_not_take_is_refused_where_it_starts(why: str, frame: bytes) -> None:
    before = client_frame(TEXT, b"first")
    assert scan_py(before + frame + before, 0) == ([(TEXT, "first")], len(before), True), why


def test_a_payload_over_the_limit_is_refused_and_one_at_it_is_read() -> None:
    at_limit, over = client_frame(BINARY, b"z" * 200), client_frame(BINARY, b"z" * 201)
    assert scan_py(at_limit, 200) == ([(BINARY, b"z" * 200)], len(at_limit), False)
    assert scan_py(over, 200) == ([], 0, True)
    assert scan_py(over, 0)[2] is False  # 0: no limit


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 300, 65535, 65536, 70000])
def test_text_frame_is_what_websockets_writes(size: int) -> None:
    payload = os.urandom(size)
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame_py(payload) == expected
    assert ws_frames.text_frame(payload) == expected


# ---- the compiled module against the pure functions -------------------------------------------------------------


def test_the_compiled_framing_is_loaded_exactly_when_built() -> None:
    check_loaded_when_built(ws_frames.ACCELERATED, "_accel_ws", "the compiled framing")


_HEADS = st.sampled_from([TEXT, BINARY, PING, PONG, 0x88, 0x01, 0x80, 0xC1, 0x83, 0x89, 0x8A, 0x81])
_PAYLOADS = st.one_of(
    st.text(max_size=60).map(str.encode),
    st.binary(max_size=40),
    st.integers(120, 1100).map(lambda n: ("七" * n).encode()[:n]),  # 16-bit lengths, UTF-8 cut mid-character
    st.sampled_from([b"\xed\xa0\x80", b"\xff", b"\xc3"]),
)
_FRAMES = st.builds(
    lambda head, payload, mask, masked: client_frame(head, payload, mask, masked=masked),
    _HEADS,
    _PAYLOADS,
    st.binary(min_size=4, max_size=4),
    st.booleans().map(lambda unmasked: not unmasked) | st.just(True),
)


@needs_build
@settings(max_examples=400, deadline=None)
@given(frames=st.lists(_FRAMES, max_size=6), cut=st.integers(0, 5000), max_size=st.sampled_from([0, 64, 1000, 2**20]))
def test_the_compiled_scan_reads_every_stream_as_the_pure_one(frames: list[bytes], cut: int, max_size: int) -> None:
    stream = b"".join(frames)
    for buf in (stream, stream[: cut % (len(stream) + 1)]):
        assert ACCEL.scan(buf, max_size) == scan_py(buf, max_size)


@needs_build
@settings(max_examples=200, deadline=None)
@given(payload=st.binary(max_size=70000))
def test_the_compiled_text_frame_writes_what_the_pure_one_does(payload: bytes) -> None:
    assert ACCEL.text_frame(payload) == text_frame_py(payload)


@needs_build
def test_a_stale_copy_of_the_compiled_framing_is_refused(tmp_path: Path) -> None:
    check_a_stale_copy_is_refused(tmp_path, "paohuzi.server.ws_frames", "_accel_ws")
