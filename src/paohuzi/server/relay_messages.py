"""The messages between server processes in the shared mode (issue 14), one frozen dataclass per kind, each
with :meth:`to_wire` (a JSON-ready dict with short keys, as published on Redis) and :func:`from_wire` (the
one place a received dict is read by key).

The edge (the process holding a player's websocket) and the owner (the process holding the room's lease):

- :class:`In` — edge → owner: a frame of the player's, as the client sent it (its text; the owner parses
  it once, the edge checked it already);
- :class:`Out` — owner → edge: a frame for the player (``code``: the room it comes from, None for none), as the
  owner encoded it (its UTF-8 JSON bytes, written to the player's websocket untouched: issue 33);
- :class:`Attach` / :class:`Detach` — edge → owner: the player's websocket came or went;
- :class:`Close` — to the edge holding an older websocket of the player's: close it (4000);
- :class:`Call` / :class:`Reply` — a lobby request about a room of another process, and its answer;
- :class:`Adopted`, :class:`Released`, :class:`Revoked` — broadcasts: a room taken over, the rooms of a
  stopping process, sessions revoked.

On Redis the messages of one publish travel together (:func:`pack`, :func:`unpack`: a *packet*, one per
receiving process and loop turn, issue 33): each message is its wire dict as one line of JSON, and an
:class:`Out`'s frame follows its line as a body of the length the line gives (``"b"``), never parsed on the way.

>>> from_wire(In(7, "123456", "edge-1", '{"type":"ping"}').to_wire())
In(player=7, code='123456', edge='edge-1', text='{"type":"ping"}')
>>> from_wire({"k": "nonsense"})
Traceback (most recent call last):
...
ValueError: unknown relay message kind 'nonsense'
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

__all__ = [
    "Adopted",
    "Attach",
    "Call",
    "Close",
    "Detach",
    "In",
    "Message",
    "Out",
    "Released",
    "Reply",
    "Revoked",
    "from_wire",
    "pack",
    "unpack",
]

Wire = dict[str, object]  # a message as JSON: what enters and leaves through Redis (an Out's frame: bytes)


@dataclass(frozen=True, slots=True)
class In:
    """A frame of ``player``'s (its JSON text) for the room ``code``, from the process ``edge``."""

    player: int
    code: str
    edge: str
    text: str

    def to_wire(self) -> Wire:
        return {"k": "in", "p": self.player, "c": self.code, "e": self.edge, "f": self.text}


@dataclass(frozen=True, slots=True)
class Out:
    """A frame for ``player`` (at the edge), from the room ``code`` (None: from no room, e.g. the queue):
    ``frame`` is its UTF-8 JSON as the owner encoded it (frames.py, ``connection.encode``), ``kind`` its
    ``type`` (the edge reads that, never the frame)."""

    player: int
    code: str | None
    kind: str
    frame: bytes

    def to_wire(self) -> Wire:
        """The frame stays bytes (:func:`pack` sends it as a body; ``orjson.Fragment`` embeds it as JSON)."""
        return {"k": "out", "p": self.player, "c": self.code, "t": self.kind, "f": self.frame}


@dataclass(frozen=True, slots=True)
class Attach:
    """``player``'s websocket is at ``edge``: send it the room's snapshot and frames."""

    player: int
    code: str
    edge: str

    def to_wire(self) -> Wire:
        return {"k": "attach", "p": self.player, "c": self.code, "e": self.edge}


@dataclass(frozen=True, slots=True)
class Detach:
    """``player``'s websocket at ``edge`` is gone."""

    player: int
    code: str
    edge: str

    def to_wire(self) -> Wire:
        return {"k": "detach", "p": self.player, "c": self.code, "e": self.edge}


@dataclass(frozen=True, slots=True)
class Close:
    """Close ``player``'s websocket here: a newer one is open elsewhere."""

    player: int

    def to_wire(self) -> Wire:
        return {"k": "close", "p": self.player}


@dataclass(frozen=True, slots=True)
class Call:
    """A lobby request for the owner of room ``code`` (``op``: ``state``, ``join``, ``leave``,
    ``leave_waiting``), answered to ``reply_to`` with :class:`Reply` ``number``."""

    number: int
    reply_to: str
    op: str
    code: str | None = None
    player: int | None = None
    seat: int | None = None

    def to_wire(self) -> Wire:
        args = {"c": self.code, "p": self.player, "s": self.seat}
        return {"k": "call", "n": self.number, "r": self.reply_to, "op": self.op, "a": args}


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to :class:`Call` ``number``: its JSON ``result``, or ``error`` (code, message, status)."""

    number: int
    result: object = None  # JSON
    error: tuple[str, str, int] | None = None

    def to_wire(self) -> Wire:
        if self.error is not None:
            return {"k": "reply", "n": self.number, "err": list(self.error)}
        return {"k": "reply", "n": self.number, "ok": self.result}


@dataclass(frozen=True, slots=True)
class Adopted:
    """Process ``owner`` took room ``code`` over; its ``players`` are to be attached to it."""

    code: str
    owner: str
    players: tuple[int, ...]

    def to_wire(self) -> Wire:
        return {"k": "adopted", "c": self.code, "o": self.owner, "p": list(self.players)}


@dataclass(frozen=True, slots=True)
class Released:
    """A stopping process gave these rooms up (room id, code): take them over at once."""

    rooms: tuple[tuple[int, str], ...]

    def to_wire(self) -> Wire:
        return {"k": "released", "r": [list(r) for r in self.rooms]}


@dataclass(frozen=True, slots=True)
class Revoked:
    """These sessions were revoked: close their websockets here too."""

    sessions: tuple[int, ...]

    def to_wire(self) -> Wire:
        return {"k": "revoked", "s": list(self.sessions)}


Message = In | Out | Attach | Detach | Close | Call | Reply | Adopted | Released | Revoked


def _str(value: object) -> str:
    if isinstance(value, str):
        return value
    raise ValueError(f"expected text, got {value!r}")


def _int(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"expected a number, got {value!r}")


def _list(value: object) -> list[object]:
    if isinstance(value, list):
        return value
    raise ValueError(f"expected a list, got {value!r}")


def _dict(value: object) -> Wire:
    if isinstance(value, dict):
        return value
    raise ValueError(f"expected an object, got {value!r}")


def _bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, dict):  # the frame parsed (a wire dict read as plain JSON): its JSON again
        return orjson.dumps(value)
    raise ValueError(f"expected a frame, got {value!r}")


def _code(value: object) -> str | None:
    return None if value is None else _str(value)


def _number(value: object) -> int | None:
    return None if value is None else _int(value)


def from_wire(data: Wire) -> Message:  # noqa: PLR0911 (one return per kind)
    """The message of a received dict. :raises ValueError: an unknown kind or a field of the wrong type;
    :raises KeyError: a field missing."""
    kind = data.get("k")
    if kind == "in":
        return In(_int(data["p"]), _str(data["c"]), _str(data["e"]), _str(data["f"]))
    if kind == "out":
        return Out(_int(data["p"]), _code(data.get("c")), _str(data["t"]), _bytes(data["f"]))
    if kind == "attach":
        return Attach(_int(data["p"]), _str(data["c"]), _str(data["e"]))
    if kind == "detach":
        return Detach(_int(data["p"]), _str(data["c"]), _str(data["e"]))
    if kind == "close":
        return Close(_int(data["p"]))
    if kind == "call":
        args = _dict(data["a"])
        code, player, seat = _code(args.get("c")), _number(args.get("p")), _number(args.get("s"))
        return Call(_int(data["n"]), _str(data["r"]), _str(data["op"]), code, player, seat)
    if kind == "reply":
        err = data.get("err")
        error = None if err is None else _error(_list(err))
        return Reply(_int(data["n"]), data.get("ok"), error)
    if kind == "adopted":
        return Adopted(_str(data["c"]), _str(data["o"]), tuple(_int(x) for x in _list(data["p"])))
    if kind == "released":
        rooms = [_list(r) for r in _list(data["r"])]
        return Released(tuple((_int(r[0]), _str(r[1])) for r in rooms))
    if kind == "revoked":
        return Revoked(tuple(_int(x) for x in _list(data["s"])))
    raise ValueError(f"unknown relay message kind {kind!r}")


def _error(err: list[object]) -> tuple[str, str, int]:
    return _str(err[0]), _str(err[1]), _int(err[2])


def pack(messages: list[Message]) -> bytes:
    """The messages for one process, as one Redis payload: each its wire dict as a line of JSON; an ``Out``'s
    frame is left out of its line (``"b"``: its length) and follows it as is.

    >>> pack([Close(7), Out(7, None, "pong", b'{"type":"pong"}')])
    b'{"k":"close","p":7}\\n{"k":"out","p":7,"c":null,"t":"pong","b":15}\\n{"type":"pong"}'
    """
    records: list[bytes] = []
    for message in messages:
        wire = message.to_wire()
        body = wire.pop("f") if isinstance(message, Out) else None
        if isinstance(body, bytes):
            wire["b"] = len(body)
            records.append(orjson.dumps(wire) + b"\n" + body)
        else:
            records.append(orjson.dumps(wire))
    return b"\n".join(records)


def unpack(data: bytes) -> list[Message]:
    """The messages of a payload made by :func:`pack`. :raises ValueError: a payload it did not make (a line
    that is not JSON, an unknown kind, a body shorter than its line says)."""
    messages: list[Message] = []
    pos, size = 0, len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        try:
            wire = _dict(orjson.loads(data[pos:end]))
        except orjson.JSONDecodeError as exc:
            raise ValueError(f"a relay message's line is not JSON ({exc})") from None
        pos = end + 1
        length = wire.pop("b", None) if wire.get("k") == "out" else None
        if length is not None:
            n = _int(length)
            if pos + n > size:
                raise ValueError(f"a relay message's body is cut short ({size - pos} of {n} bytes)")
            wire["f"] = data[pos : pos + n]
            pos += n + 1
        messages.append(from_wire(wire))
    return messages
