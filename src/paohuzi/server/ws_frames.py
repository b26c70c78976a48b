"""The game websocket's framing (RFC 6455 §5.2) on its hot path (issue 33): :func:`scan` reads the whole client
frames a buffer starts with, :func:`text_frame` makes the text frame of a server frame's UTF-8 JSON.

Both are compiled when the package was built with Cython (``paohuzi._accel_ws``, the same contracts byte for
byte; tests/server/test_ws_frames.py holds both to the same answers on random byte streams); these pure
versions run otherwise (not built, stale, or ``PAOHUZI_PURE=1``). ``ACCELERATED`` says which.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from types import ModuleType

from websockets.speedups import apply_mask

__all__ = ["ACCELERATED", "BINARY", "PING", "PONG", "TEXT", "scan", "scan_py", "text_frame", "text_frame_py"]

TEXT, BINARY, PING, PONG = 0x81, 0x82, 0x89, 0x8A  # a frame's first byte: FIN, no reserved bits, the opcode

#: What :func:`scan` returns: the frames read — ``(head, data)``, ``data`` the text of a text frame and the
#: unmasked payload of the others —, the offset after them, and whether the frame there is refused.
Scanned = tuple[list[tuple[int, str | bytes]], int, bool]


def scan_py(buf: bytes, max_size: int) -> Scanned:
    """The whole frames at the start of ``buf`` that a client may send on the fast path: unfragmented, masked
    text, binary, ping and pong frames (a ping or pong under 126 bytes), no reserved bit, no payload over
    ``max_size`` (0: no limit), a text frame valid UTF-8. Reading stops at the first frame not wholly in
    ``buf`` (``refused`` False: wait for more) or at the first frame not taken (``refused`` True: the caller
    hands the rest, from ``offset``, to websockets' parser, which answers it as the protocol says).

    >>> frame = bytes((0x81, 0x82, 0, 0, 0, 0)) + b"hi"           # a masked text frame "hi" (a zero mask)
    >>> scan_py(frame + frame[:3], 0)
    ([(129, 'hi')], 8, False)
    >>> scan_py(bytes((0x81, 0x02)) + b"hi", 0)                   # unmasked: refused
    ([], 0, True)
    """
    frames: list[tuple[int, str | bytes]] = []
    size, at = len(buf), 0
    while size - at >= 2:
        head, second = buf[at], buf[at + 1]
        n, start = second & 0x7F, at + 6
        if n == 126:
            if size - at < 4:
                break
            n, start = (buf[at + 2] << 8) | buf[at + 3], at + 8
        if (
            not second & 0x80  # unmasked: websockets fails it (1002)
            or n == 127
            or (max_size and n > max_size)  # websockets fails it (1009)
            or not (head == TEXT or head == BINARY or (n < 126 and (head == PING or head == PONG)))
        ):
            return frames, at, True
        end = start + n
        if end > size:
            break
        payload = apply_mask(buf[start:end], buf[start - 4 : start])
        if head == TEXT:
            try:
                frames.append((head, payload.decode()))
            except UnicodeDecodeError:  # websockets closes with 1007: let it
                return frames, at, True
        else:
            frames.append((head, payload))
        at = end
    return frames, at, False


def text_frame_py(payload: bytes) -> bytes:
    """A whole, unmasked websocket text frame (FIN and opcode 1, the length in 7, 16 or 64 bits) of
    ``payload`` (UTF-8 text): what a server sends, byte for byte as the ``websockets`` library writes it
    without extensions.

    >>> text_frame_py(b"hi")
    b'\\x81\\x02hi'
    >>> text_frame_py(b"x" * 200)[:4], text_frame_py(b"x" * 70000)[:10]
    (b'\\x81~\\x00\\xc8', b'\\x81\\x7f\\x00\\x00\\x00\\x00\\x00\\x01\\x11p')
    """
    n = len(payload)
    if n < 126:
        return bytes((TEXT, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", TEXT, 126, n) + payload
    return struct.pack("!BBQ", TEXT, 127, n) + payload


def _load_accelerator() -> ModuleType | None:
    try:
        from paohuzi import _accel_ws  # type: ignore[attr-defined]  # compiled; absent without a C compiler
    except ImportError:
        return None
    return _accel_ws if _accel_ws.usable() else None


_ACCEL = _load_accelerator()
ACCELERATED = _ACCEL is not None
scan: Callable[[bytes, int], Scanned] = _ACCEL.scan if _ACCEL is not None else scan_py
text_frame: Callable[[bytes], bytes] = _ACCEL.text_frame if _ACCEL is not None else text_frame_py
