"""The shared mode's relay messages (issue 28): every kind round-trips through its wire form (JSON with
short keys), and a dict of no known kind is refused by name. Issue 33: the messages of one publish travel as a
packet (``pack``/``unpack``), an ``Out``'s frame as the owner's bytes, untouched."""

from __future__ import annotations

import orjson
import pytest

from paohuzi.server.relay_messages import (
    Adopted,
    Attach,
    Call,
    Close,
    Detach,
    In,
    Message,
    Out,
    Released,
    Reply,
    Revoked,
    from_wire,
    pack,
    unpack,
)

MESSAGES: list[Message] = [
    In(7, "123456", "host:1:ab", '{"type":"act","action":"discard x7","id":3}'),
    Out(7, "123456", "room", b'{"type":"room","room":null}'),
    Out(7, None, "queue", b'{"type":"queue","queue":null}'),
    Attach(7, "123456", "host:1:ab"),
    Detach(7, "123456", "host:1:ab"),
    Close(7),
    Call(4, "host:2:cd", "join", "123456", 7, 2),
    Call(5, "host:2:cd", "state", "123456"),
    Call(6, "host:2:cd", "leave", None, 7),
    Reply(4, {"code": "123456", "seats": []}),
    Reply(5, None),
    Reply(6, ["123456", 40]),
    Reply(7, error=("moving", "the room is moving", 503)),
    Adopted("123456", "host:2:cd", (7, 8)),
    Released(((1, "123456"), (2, "654321"))),
    Revoked((3, 4)),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_each_message_round_trips_through_the_wire(message: Message) -> None:
    wire = message.to_wire()
    if isinstance(message, Out):  # its frame is bytes: as JSON, embedded as it is
        wire["f"] = orjson.Fragment(message.frame)
    assert from_wire(orjson.loads(orjson.dumps(wire))) == message


def test_every_kind_round_trips_through_one_packet() -> None:
    assert unpack(pack(MESSAGES)) == MESSAGES
    assert [unpack(pack([m])) for m in MESSAGES] == [[m] for m in MESSAGES]


def test_an_out_frame_travels_as_the_owner_encoded_it() -> None:
    # bytes JSON would not give back as they were (spacing, escapes, a newline inside): kept all the same
    frame = b'{"type": "chat",\n "text": "\\u4e03 \xe4\xb8\x83"}'
    packet = pack([Out(7, "123456", "chat", frame), Close(8), Out(9, None, "pong", b"{}")])
    assert packet.count(frame) == 1
    out, close, last = unpack(packet)
    assert out == Out(7, "123456", "chat", frame)
    assert (close, last) == (Close(8), Out(9, None, "pong", b"{}"))


@pytest.mark.parametrize(
    ("packet", "why"),
    [
        (b'{"k":"out","p":7,"c":null,"t":"pong","b":15}\n{"type"', "cut short"),
        (b'{"k":"close","p":7}\nnot json', "line is not JSON"),
        (b'{"k":"hello"}', "unknown relay message kind 'hello'"),
        (b'[1, 2]', "expected an object"),
    ],
)
def test_a_packet_it_did_not_make_is_refused_by_name(packet: bytes, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        unpack(packet)


def test_the_wire_keeps_its_short_keys() -> None:
    assert In(7, "123456", "e", "{}").to_wire() == {"k": "in", "p": 7, "c": "123456", "e": "e", "f": "{}"}
    assert Reply(4, error=("busy", "later", 409)).to_wire() == {"k": "reply", "n": 4, "err": ["busy", "later", 409]}
    assert Out(7, None, "pong", b"{}").to_wire() == {"k": "out", "p": 7, "c": None, "t": "pong", "f": b"{}"}


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown relay message kind 'hello'"):
        from_wire({"k": "hello"})
