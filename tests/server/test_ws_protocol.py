"""The game websocket's read path (server/ws_protocol.py, issue 33) against uvicorn's own protocol: every edge
case a client can write is answered with the same bytes, frames keep their order, and a read waiting ends as
soon as the connection does. Real uvicorn servers on real sockets."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.speedups import apply_mask

from paohuzi.commands.serve import uvicorn_config
from paohuzi.server.app import create_app
from paohuzi.server.config import Settings
from paohuzi.server.ws_protocol import GameWebSocketProtocol

_MASK = b"\x01\x02\x03\x04"
_REQUEST = (
    b"GET /ws HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
    b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
)


def _frame(opcode: int, payload: bytes, fin: bool = True, rsv: int = 0, mask: bytes = _MASK) -> bytes:
    head = (0x80 if fin else 0) | rsv | opcode
    n = len(payload)
    header = bytes((head, 0x80 | n)) if n < 126 else bytes((head, 0x80 | 126)) + n.to_bytes(2, "big")
    return header + mask + apply_mask(payload, mask)


CASES: dict[str, list[bytes]] = {  # what a client writes, write by write (a 100-byte frame limit)
    "text": [_frame(1, b'{"a":1}')],
    "two frames in one write": [_frame(1, b"one") + _frame(1, b"two")],
    "a frame in three writes": [_frame(1, b"abcdef")[:1], _frame(1, b"abcdef")[1:4], _frame(1, b"abcdef")[4:]],
    "16-bit length": [_frame(1, b"y" * 100)],
    "non-ASCII text": [_frame(1, "七 十 大".encode())],
    "binary": [_frame(2, b"\x00\x01")],
    "fragmented": [_frame(1, b"frag", fin=False), _frame(0, b"ment")],
    "text then a fragment": [_frame(1, b"a") + _frame(1, b"frag", fin=False), _frame(0, b"ment")],
    "ping": [_frame(9, b"pp")],
    "pong unasked": [_frame(10, b"pp")],
    "close": [_frame(8, (1000).to_bytes(2, "big") + b"bye")],
    "text then close": [_frame(1, b"last") + _frame(8, (1001).to_bytes(2, "big"))],
    "oversize": [_frame(1, b"x" * 101)],
    "bad UTF-8": [_frame(1, b"\xff\xfe")],
    "bad UTF-8 then text": [_frame(1, b"\xff"), _frame(1, b"later")],
    "unmasked": [bytes((0x81, 3)) + b"abc"],
    "reserved bit": [_frame(1, b"abc", rsv=0x40)],
    "reserved opcode": [_frame(3, b"abc")],
}


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    """Answers each frame with its type and repr, read as the game's endpoint reads (ws.py)."""
    await receive()
    await send({"type": "websocket.accept"})
    protocol = send.__self__
    direct = isinstance(protocol, GameWebSocketProtocol)
    if direct:
        protocol.direct()
    while True:
        if direct:
            data = await protocol.read()
        else:
            message = await receive()
            data = message.get("text", message.get("bytes")) if message["type"] == "websocket.receive" else None
        if data is None:
            return
        await send({"type": "websocket.send", "text": f"{type(data).__name__} {data!r}"})


@contextmanager
def _server(app: Any, ws: Any, ping: float | None = None) -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=ws,
        ws_max_size=100,
        ws_ping_interval=ping,
        ws_ping_timeout=ping,
        ws_per_message_deflate=False,
        log_level="critical",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def _upgraded(port: int) -> Iterator[tuple[socket.socket, bytes]]:
    """A websocket to the server, as raw bytes: the socket, and what it read after the 101."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_REQUEST)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += s.recv(4096)
        yield s, answer.split(b"\r\n\r\n", 1)[1]


def _ask(port: int, writes: list[bytes], wait: float = 1.0) -> bytes:
    """What the server writes back after the 101 until it is silent for ``wait`` s, and whether it closed the
    socket (a close ends it at once; an open socket costs the whole wait)."""
    with _upgraded(port) as (s, answer):
        for data in writes:
            s.sendall(data)
            time.sleep(0.03)
        s.settimeout(wait)
        try:
            while chunk := s.recv(65536):
                answer += chunk
            return answer + b" <closed>"
        except TimeoutError:
            return answer + b" <open>"


@pytest.fixture(scope="module")
def ports() -> Iterator[tuple[int, int]]:
    with _server(_echo, "websockets-sansio") as stock, _server(_echo, GameWebSocketProtocol) as game:
        yield stock, game


def test_paohuzi_serve_gives_uvicorn_the_game_protocol_and_its_keepalive() -> None:
    settings = Settings()
    config = uvicorn_config(create_app(settings), settings, None)
    config.load()
    assert config.ws_protocol_class is GameWebSocketProtocol
    assert (config.ws_ping_interval, config.ws_ping_timeout, config.ws_max_size) == (20.0, 20.0, settings.max_frame)


@pytest.mark.parametrize("case", list(CASES))
def test_every_frame_a_client_writes_is_answered_as_uvicorn_answers_it(ports: tuple[int, int], case: str) -> None:
    stock, game = ports
    with ThreadPoolExecutor(2) as both:  # at once: an open socket costs _ask's whole wait
        expected, got = both.map(lambda port: _ask(port, CASES[case]), (stock, game))
    assert got == expected
    closes = case in ("close", "text then close", "oversize", "unmasked") or case.startswith(("bad", "reserved"))
    assert expected.endswith(b" <closed>" if closes else b" <open>")


def test_frames_that_came_before_the_endpoint_read_directly_are_read_first_and_in_order() -> None:
    """Frames uvicorn queued before the endpoint called ``direct()`` are older than any parsed afterwards."""
    got: list[str] = []

    async def late(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.sleep(0.1)  # the first frames arrive meanwhile: uvicorn queues one and pauses reading
        protocol = send.__self__
        protocol.direct()
        while (data := await protocol.read()) is not None:
            got.append(data)

    with _server(late, GameWebSocketProtocol) as port:
        _ask(port, [_frame(1, str(i).encode()) for i in range(8)])
    assert got == [str(i) for i in range(8)]


async def _accepted_direct(receive: Any, send: Any) -> Any:
    """A test app's start: the connect read, the websocket accepted, its frames read directly from then on."""
    await receive()
    await send({"type": "websocket.accept"})
    protocol = send.__self__
    protocol.direct()
    return protocol


def test_many_frames_in_one_write_read_slowly_arrive_all_in_order() -> None:
    """Reading pauses while frames wait unread (a flooding client is held back by TCP, not buffered here)."""
    got: list[str] = []
    paused: list[bool] = []

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        protocol = await _accepted_direct(receive, send)
        while (data := await protocol.read()) is not None:
            paused.append(protocol.read_paused)
            got.append(data)
            await asyncio.sleep(0.001)

    with _server(slow, GameWebSocketProtocol) as port:
        _ask(port, [b"".join(_frame(1, str(i).encode()) for i in range(300))], wait=2.0)
    assert got == [str(i) for i in range(300)]
    assert any(paused)  # it did pause: 300 frames came in one write


def test_a_read_waiting_ends_when_the_server_closes_the_socket() -> None:
    """The game closes a socket from elsewhere (a second login, a flood): the endpoint's read waiting returns
    None at once, as uvicorn's receive gets its disconnect, not after the peer answered the close."""
    ended: list[float] = []

    async def closer(scope: Any, receive: Any, send: Any) -> None:
        protocol = await _accepted_direct(receive, send)
        reading = asyncio.ensure_future(protocol.read())
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await send({"type": "websocket.close", "code": 4000})
        assert await asyncio.wait_for(reading, 5) is None
        ended.append(time.monotonic() - started)

    with _server(closer, GameWebSocketProtocol) as port:
        answer = _ask(port, [], wait=1.0)  # the client never answers the close
    assert answer.startswith(b"\x88\x02\x0f\xa0")  # the close frame, 4000
    assert ended and ended[0] < 0.5


def _frames_back(port: int, talk_every: float | None, seconds: float, answer_pings: bool = True) -> tuple[int, bool]:
    """Keep a websocket open for ``seconds``, sending a text frame every ``talk_every`` seconds (None: silent);
    the pings the server sent, and whether it closed the socket."""
    pings, closed = 0, False
    with _upgraded(port) as (s, buf):
        s.settimeout(0.01)
        end, next_talk = time.monotonic() + seconds, time.monotonic()
        while time.monotonic() < end and not closed:
            if talk_every is not None and time.monotonic() >= next_talk:
                s.sendall(_frame(1, b"hi"))
                next_talk += talk_every
            try:
                chunk = s.recv(4096)
                closed = not chunk
                buf += chunk
            except TimeoutError:
                pass
            while len(buf) >= 2 and len(buf) >= 2 + (buf[1] & 0x7F):  # the server's frames: unmasked, short
                head, n = buf[0], buf[1] & 0x7F
                payload, buf = buf[2 : 2 + n], buf[2 + n :]
                if head == 0x89:
                    pings += 1
                    if answer_pings:
                        s.sendall(_frame(10, payload))
                elif head == 0x88:
                    closed = True
    return pings, closed


def test_keepalive_pings_only_a_client_silent_for_the_whole_interval() -> None:
    """A client that talks (the web client pings the game every 15 s) is not pinged; a silent one is, every
    interval while it answers; one that does not answer is closed ``ws_ping_timeout`` later (uvicorn's 1011)."""
    with _server(_echo, GameWebSocketProtocol, ping=0.3) as port:
        assert _frames_back(port, talk_every=0.1, seconds=1.5) == (0, False)
        pings, closed = _frames_back(port, talk_every=None, seconds=1.5)
        assert 3 <= pings <= 5 and not closed  # at ~0.3 s, then 0.3 s after each pong
        started = time.monotonic()
        assert _frames_back(port, talk_every=None, seconds=3.0, answer_pings=False) == (1, True)
        assert time.monotonic() - started < 1.5  # pinged at ~0.3 s, closed at ~0.6 s


def test_uvicorns_keepalive_pings_a_talking_client_too() -> None:
    """What the game's keepalive saves (the same client against uvicorn's own protocol)."""
    with _server(_echo, "websockets-sansio", ping=0.3) as port:
        pings, closed = _frames_back(port, talk_every=0.1, seconds=1.5)
    assert pings >= 3 and not closed


_TEXTS = st.text(st.characters(codec="utf-8"), max_size=30).filter(lambda t: len(t.encode()) <= 100)
_FRAMES = st.lists(
    st.one_of(
        st.tuples(st.just(1), _TEXTS.map(str.encode)),  # text
        st.tuples(st.just(2), st.binary(max_size=100)),  # binary
        st.tuples(st.just(9), st.binary(max_size=20)),  # ping
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frames=_FRAMES, masks=st.lists(st.binary(min_size=4, max_size=4), min_size=12, max_size=12), cuts=st.data())
def test_any_stream_of_good_frames_cut_anywhere_reads_back_the_same(
    ports: tuple[int, int], frames: list[tuple[int, bytes]], masks: list[bytes], cuts: st.DataObject
) -> None:
    """The frames a client sends, in any mix and cut into writes at any bytes, come back as uvicorn's own
    protocol gives them: each echoed, in order, and each ping answered, in order. (A pong is written as the ping
    is read, an echo when the app gets to it, by both protocols: how the two interleave is timing.)"""
    stream = b"".join(_frame(op, data, mask=masks[i]) for i, (op, data) in enumerate(frames))
    points = sorted(cuts.draw(st.sets(st.integers(1, len(stream) - 1), max_size=6)) if len(stream) > 1 else [])
    writes = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    stock, game = ports
    expected = _answers(stock, writes, len(frames))
    got = _answers(game, writes, len(frames))
    pongs = [f for f in expected if f[0] == 0x8A]
    assert len(pongs) == sum(op == 9 for op, _ in frames)
    assert [f for f in got if f[0] == 0x8A] == pongs
    assert [f for f in got if f[0] != 0x8A] == [f for f in expected if f[0] != 0x8A]


def _answers(port: int, writes: list[bytes], count: int) -> list[bytes]:
    """The first ``count`` frames the server writes back after the 101 (read until they are all there)."""
    with _upgraded(port) as (s, buf):
        for data in writes:
            s.sendall(data)
        s.settimeout(10)
        frames: list[bytes] = []
        while len(frames) < count:
            n = buf[1] & 0x7F if len(buf) >= 2 else None
            start = 4 if n == 126 else 2
            if n is not None and n == 126 and len(buf) >= 4:
                n = int.from_bytes(buf[2:4], "big")
            if n is None or len(buf) < start + n or (start == 4 and len(buf) < 4):
                chunk = s.recv(65536)
                assert chunk, f"closed after {len(frames)} of {count} frames"
                buf += chunk
                continue
            frames.append(buf[: start + n])
            buf = buf[start + n :]
        return frames
