"""The shared mode's relay messages (issue 28): every kind round-trips through its wire form (JSON with
short keys), and a dict of no known kind is refused by name."""

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
)

MESSAGES: list[Message] = [
    In(7, "123456", "host:1:ab", '{"type":"act","action":"discard x7","id":3}'),
    Out(7, "123456", {"type": "room", "room": None}),
    Out(7, None, {"type": "queue", "queue": None}),
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
    assert from_wire(orjson.loads(orjson.dumps(message.to_wire()))) == message


def test_the_wire_keeps_its_short_keys() -> None:
    assert In(7, "123456", "e", "{}").to_wire() == {"k": "in", "p": 7, "c": "123456", "e": "e", "f": "{}"}
    assert Reply(4, error=("busy", "later", 409)).to_wire() == {"k": "reply", "n": 4, "err": ["busy", "later", 409]}


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown relay message kind 'hello'"):
        from_wire({"k": "hello"})
