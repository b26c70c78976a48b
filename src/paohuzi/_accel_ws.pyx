# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The game websocket's framing, compiled (issue 33; docs/decisions.md "The game websocket's framing, compiled"):
:func:`scan` reads the whole client frames at the start of a buffer, :func:`text_frame` makes a server's text
frame. The same contracts, byte for byte, as the pure functions of ``paohuzi.server.ws_frames``, which load this
module and fall back to themselves when it is not built, stale or ``PAOHUZI_PURE=1``;
``tests/server/test_ws_frames.py`` holds both to the same answers on random byte streams.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport memcpy

SOURCES = ("_accel_ws.pyx", "_accel_guard.pxi")

include "_accel_guard.pxi"

DEF TEXT = 0x81  # FIN, no reserved bits, and the opcode
DEF BINARY = 0x82
DEF PING = 0x89
DEF PONG = 0x8A
DEF STACK = 1024  # a text frame's payload up to this size is unmasked on the stack (most: an ``act`` is ~80 bytes)


def scan(bytes buf, Py_ssize_t max_size):
    """``paohuzi.server.ws_frames.scan``: ``(frames, offset, refused)``."""
    cdef const unsigned char *p = <const unsigned char *> PyBytes_AS_STRING(buf)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(buf)
    cdef Py_ssize_t at = 0, n, start, end, i
    cdef unsigned char head, second
    cdef const unsigned char *key
    cdef unsigned char small[STACK]
    cdef unsigned char *q
    cdef bytes payload
    cdef list frames = []
    while size - at >= 2:
        head = p[at]
        second = p[at + 1]
        n = second & 0x7F
        start = at + 6
        if n == 126:
            if size - at < 4:
                break
            n = (p[at + 2] << 8) | p[at + 3]
            start = at + 8
        if (
            not (second & 0x80)
            or n == 127
            or (max_size and n > max_size)
            or not (head == TEXT or head == BINARY or (n < 126 and (head == PING or head == PONG)))
        ):
            return frames, at, True
        end = start + n
        if end > size:
            break
        key = p + start - 4
        payload = None
        if head == TEXT and n <= STACK:
            q = small  # a text frame is decoded from the stack; only its str is kept
        else:
            payload = PyBytes_FromStringAndSize(NULL, n)
            q = <unsigned char *> PyBytes_AS_STRING(payload)
        for i in range(n):
            q[i] = p[start + i] ^ key[i & 3]
        if head == TEXT:
            try:
                frames.append((head, PyUnicode_DecodeUTF8(<char *> q, n, NULL)))
            except UnicodeDecodeError:
                return frames, at, True
        else:
            frames.append((head, payload))
        at = end
    return frames, at, False


def text_frame(bytes payload):
    """``paohuzi.server.ws_frames.text_frame``: a whole, unmasked text frame of ``payload``."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(payload)
    cdef Py_ssize_t h = 2 if n < 126 else (4 if n < 65536 else 10)
    cdef Py_ssize_t k
    cdef bytes out = PyBytes_FromStringAndSize(NULL, n + h)
    cdef unsigned char *q = <unsigned char *> PyBytes_AS_STRING(out)
    q[0] = TEXT
    if n < 126:
        q[1] = <unsigned char> n
    elif n < 65536:
        q[1] = 126
        q[2] = <unsigned char> (n >> 8)
        q[3] = <unsigned char> (n & 0xFF)
    else:
        q[1] = 127
        for k in range(8):
            q[2 + k] = <unsigned char> ((<unsigned long long> n >> (8 * (7 - k))) & 0xFF)
    memcpy(q + h, PyBytes_AS_STRING(payload), n)
    return out
