"""The server room's parts, each on its own (issue 10 item 5), without a server process: the wire edge
parses an ``act``'s text into an engine ``Action``; the frame builders; the delivery cache; the decisions
and the timers a seat may see (R5)."""

from __future__ import annotations

import asyncio

import pytest

from paohuzi.engine import Action, ActionKind, Hand
from paohuzi.rules import find_preset
from paohuzi.server import frames
from paohuzi.server.protocol import Act, Ping, ProtocolError, parse_client_frame
from paohuzi.server.sent import Sent
from paohuzi.server.turns import Decision, SeatState, Turns

# ---- the wire edge -----------------------------------------------------------------------------------


def test_act_text_becomes_an_engine_action_at_the_edge() -> None:
    msg = parse_client_frame('{"type": "act", "action": "chi x8 x9 | bi x7 x8 x9", "hand": 4, "id": "a"}')
    assert isinstance(msg, Act)
    assert msg.action == Action.parse("chi x8 x9 | bi x7 x8 x9")
    assert msg.action.kind is ActionKind.CHI and (msg.hand, msg.id) == (4, "a")
    assert parse_client_frame('{"type": "act", "action": "出七"}').action == Action.parse("discard x7")


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ('"dance"', "action: unknown action 'dance' in 'dance' (expected discard, hu, peng, chi or pass)"),
        ('"discard"', "action: discard takes exactly one card, like 'discard x7'; got 'discard'"),
        ('"peng x1"', "action: peng takes no cards: 'peng x1'"),
        ('""', "action: an action has 1 to 80 characters, got 0"),
        ('"' + "x" * 81 + '"', "action: an action has 1 to 80 characters, got 81"),
        ("5", "action: an action is text, like 'discard x7', got int"),
        ("null", "action: an action is text, like 'discard x7', got NoneType"),
    ],
)
def test_text_that_is_no_action_is_bad_message_not_illegal_action(action: str, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_frame('{"type": "act", "id": 9, "action": ' + action + "}")
    assert (caught.value.code, caught.value.message, caught.value.msg_id) == ("bad_message", message, 9)


def test_other_frames_are_unchanged() -> None:
    assert parse_client_frame('{"type": "ping", "id": 2}') == Ping(type="ping", id=2)


# ---- outbound frames ----------------------------------------------------------------------------------


def _escaped_hand() -> Hand:
    hand = Hand(find_preset("qq"), seed=7)
    hand.leave(1)  # 逃跑 (R7.3): the hand is over, with its outcome
    return hand


def test_update_carries_the_id_only_for_the_seat_that_acted() -> None:
    view = Hand(find_preset("qq"), seed=7).observation(0)
    parts = {"hand": 3, "seq": 2, "events": [], "view": view, "waits": [], "timers": [], "auto": [False]}
    assert "id" not in frames.update(**parts)
    assert frames.update(**parts, msg_id=0)["id"] == 0
    assert list(frames.update(**parts)) == ["type", "hand", "seq", "events", "view", "waits", "timers", "auto"]
    assert frames.update(**parts)["view"] == view.to_dict()  # the seat's observation, as JSON (R5)


def test_hand_over_names_its_replay() -> None:
    hand = _escaped_hand()
    assert hand.outcome is not None
    frame = frames.hand_over(
        hand=12,
        number=2,
        outcome=hand.outcome,
        scores=[1, -1, 0],
        deltas=[1, -1, 0],
        view=hand.observation(0),
        code="DABCDEF",
    )
    assert frame["replay"] == "/api/replays/12" and frame["type"] == "hand_over"
    assert frame["replay_code"] == "DABCDEF"
    assert frame["outcome"] == hand.outcome.to_dict() and frame["outcome"]["kind"] == "escape"
    assert frame["view"] == hand.observation(0).to_dict()


# ---- the delivery cache ---------------------------------------------------------------------------------


def test_the_delivery_cache_changes_only_when_a_frame_is_sent() -> None:
    hand = Hand(find_preset("qq"), seed=7)
    a, b = hand.observation(0), hand.observation(1)
    sent = Sent()
    assert sent.seq(0) == 0 and not sent.same_view(0, a)
    sent.snapshot(0, a)  # a `game` frame: remembered, not counted
    # an observation computed again is the same view (equal field for field): no frame is worth sending
    assert sent.seq(0) == 0 and sent.same_view(0, hand.observation(0)) and not sent.same_view(0, b)
    assert sent.update(0, b) == 1 and sent.update(0, b) == 2
    assert sent.same_view(0, b) and sent.seq(1) == 0
    sent.clear()
    assert sent.seq(0) == 0 and not sent.same_view(0, b)


# ---- decisions and timers ----------------------------------------------------------------------------


def _claim_window() -> Hand:
    """A hand played by its first legal actions until a claim window is open."""
    for seed in range(200):
        hand = Hand(find_preset("qq"), seed, 0)
        for _ in range(200):
            if hand.over or hand.phase == "claim":
                break
            seat = hand.deciding[0]
            hand.apply(seat, hand.legal_actions(seat)[0])
        if not hand.over and hand.phase == "claim":
            return hand
    raise AssertionError("no claim window in 200 deals")


def test_another_seats_claim_timer_is_never_shown_r5() -> None:
    async def run() -> None:
        hand = _claim_window()
        seats = [SeatState(i, player_id=i + 1) for i in range(3)]
        fired: list[Decision] = []
        turns = Turns(seats, 0.8, fired.append, fired.append)
        turns.schedule(hand, 1, 20.0, 10.0)
        deciding = list(hand.deciding)
        assert deciding and sorted(turns.pending) == sorted(deciding)
        assert all(d.kind == "claim" and d.bot_timer is None for d in turns.pending.values())
        for viewer in range(3):
            shown = [t["seat"] for t in turns.timers(viewer)]
            assert shown == ([viewer] if viewer in deciding else []), (viewer, deciding, shown)
        first = turns.pending[deciding[0]]
        turns.schedule(hand, 1, 20.0, 10.0)  # the same decision keeps its deadline
        assert turns.pending[deciding[0]] is first
        turns.done(deciding[0])
        assert deciding[0] not in turns.pending and first.timer is None
        turns.cancel()
        assert turns.pending == {} and fired == []

    asyncio.run(run())


def test_a_bot_seat_gets_its_bot_timer_and_托管_arms_one() -> None:
    async def run() -> None:
        hand = Hand(find_preset("qq"), 3, 0)
        seat = hand.deciding[0]
        seats = [SeatState(i, player_id=i + 1) for i in range(3)]
        turns = Turns(seats, 0.8, lambda d: None, lambda d: None)
        turns.schedule(hand, 1, 20.0, 10.0)
        d = turns.pending[seat]
        assert d.bot_timer is None and d.timer is not None
        assert turns.timers((seat + 1) % 3)[0]["kind"] == d.kind  # a discard timer is seen by all
        seats[seat].auto = True
        turns.bot_on(seat)
        assert d.bot_timer is not None
        turns.bot_off(seat)
        assert d.bot_timer is None
        turns.cancel()

    asyncio.run(run())
