"""``parse_client_frame``'s way for an ``act`` (issue 33: read and validated by pydantic-core in one pass, the
other frames as before) gives every frame the answer of the general way — the same message with the same fields
set, or the same error code, message and id. A frame as bytes takes the general way, so each text frame is
compared with its own UTF-8 bytes."""

from __future__ import annotations

import pytest

from paohuzi.server.protocol import Act, ProtocolError, parse_client_frame

ACT = '{"type": "act", "action": "pass"'  # a frame of the corpus is this with more fields and its closing brace

CORPUS = [
    '{"type":"act","action":"discard x7","id":17,"hand":3,"seq":12}',
    '{"action": "pass", "type": "act"}',
    '{"type":"act","action":"出 柒","seat":2}',
    '{"type":"act","action":"\\u0070ass"}',
    ACT + "}\n",
    " " + ACT + "} ",
    ACT + "}" + " " * 3000,
    ACT + '} x',
    ACT + ",}",
    "{'type':'act','action':'pass'}",
    '["act"]',
    '"act"',
    '{"type":"act","action":"pass\n"}',
    '{"type":"act","action":"chi x8"}',
    '{"type":"act","action":""}',
    '{"type":"act","action":7}',
    '{"type":"act","action":null}',
    '{"type":"act","action":"' + "discard x7 " * 10 + '"}',
    '{"type":"act"}',
    ACT + ',"x":1}',
    ACT + ',"hand":null,"seat":null,"seq":null,"id":null}',
    ACT + ',"hand":1.0}',
    ACT + ',"hand":1e0}',
    ACT + ',"hand":1E400}',
    ACT + ',"hand":01}',
    ACT + ',"hand":true}',
    ACT + ',"hand":NaN}',
    ACT + ',"hand":4611686018427387904}',
    ACT + ',"hand":4611686018427387905}',
    ACT + ',"hand":46116860184273879040000000000}',
    ACT + ',"seat":-0}',
    ACT + ',"seat":4}',
    ACT + ',"seat":2.5e0}',
    ACT + ',"seq":2147483648}',
    ACT + ',"id":9007199254740992}',
    ACT + ',"id":-9007199254740993}',
    ACT + ',"id":1.5}',
    ACT + ',"id":"' + "x" * 64 + '"}',
    ACT + ',"id":"' + "x" * 65 + '"}',
    ACT + ',"id":"\\ud800"}',
    ACT + ',"id":"\\ud83d\\ude00"}',
    ACT + ',"id":"a\\u0000b"}',
    ACT + ',"hand":"x","hand":1}',
    ACT + ',"hand":1,"hand":"x"}',
    '{"type":"ping","type":"act","action":"pass"}',
    '{"type":"act","type":"ping","action":"pass"}',
    '{"type":"ping","id":"act"}',
]


def _answer(text: str | bytes) -> tuple[object, ...]:
    try:
        msg = parse_client_frame(text)
    except ProtocolError as exc:
        return ("error", exc.code, exc.message, exc.msg_id)
    return ("message", repr(msg), sorted(msg.model_fields_set))


@pytest.mark.parametrize("text", CORPUS)
def test_an_act_frame_gets_the_general_way_s_answer(text: str) -> None:
    assert _answer(text) == _answer(text.encode("utf-8"))


def test_the_corpus_has_good_and_bad_frames() -> None:
    answers = [_answer(text)[0] for text in CORPUS]
    assert (answers.count("message"), answers.count("error")) == (18, 29)
    assert parse_client_frame(CORPUS[0]) == Act.model_validate(
        {"type": "act", "action": "discard x7", "id": 17, "hand": 3, "seq": 12}
    )


def test_a_byte_order_mark_is_not_json_text() -> None:
    """Text with a BOM was never JSON (``json.loads`` refuses it; as bytes it decodes it as UTF-8-SIG)."""
    assert _answer("\ufeff" + ACT + "}") == ("error", "bad_json", "the frame is not valid JSON", None)
