"""The client's frame reducer (web/js/reducer.js) and state selectors (web/js/state.js), without a server:
Chromium loads the modules from ``src/paohuzi/web`` (served by Playwright's ``page.route`` on a made-up
origin) and reduces real frames — built by the server's own frame builders (``paohuzi.server.frames``) around
a real engine position (docs/protocol.md §3.2) — asserting the exact state that results.

Every input is deep-frozen in the page before it is reduced: the reducer changes nothing it is given (a
write to a frozen object throws in a module), and answers the very same object when a frame changes nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from paohuzi.engine import Hand, Outcome, OutcomeKind
from paohuzi.rules import find_preset
from paohuzi.server import frames

from .module_page import module_page

NOW = 50_000.0  # the page's performance.now() as the caller passes it: every local deadline counts from it

_HARNESS = """
window.freeze = (x) => {
  if (x && typeof x === "object" && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) window.freeze(v);
  }
  return x;
};
window.R = await import("/js/reducer.js");
window.S = await import("/js/state.js");
window.fresh = () => window.S.createState();
// reduce a frame; `same`: the answer is the very object given (the frame changed nothing)
window.run = (state, frame, now) => {
  const given = window.freeze(state);
  const out = window.R.reduce(given, window.freeze(frame), now);
  return { state: out.state, effects: out.effects, same: out.state === given };
};
"""


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """A page of the made-up origin with reducer.js and state.js loaded (``R``, ``S``) and ``run``."""
    yield from module_page(browser, "reducer", _HARNESS)


def fresh(page: Any) -> dict[str, Any]:
    """The state of a client just started (state.js createState)."""
    state: dict[str, Any] = page.evaluate("() => window.fresh()")
    return state


def run(page: Any, state: dict[str, Any], frame: dict[str, Any], now: float = NOW) -> dict[str, Any]:
    """Reduce ``frame`` in the page: {state, effects, same}."""
    out: dict[str, Any] = page.evaluate("([s, f, n]) => window.run(s, f, n)", [state, frame, now])
    return out


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``after`` that differ from ``before`` (the reducer never drops a field)."""
    assert set(after) == set(before)
    return {k: v for k, v in after.items() if before[k] != v}


# ---- real frames ----------------------------------------------------------------------------------------

PLAYER = {"id": 7, "nickname": "小明", "title": "贫农", "points": 120, "beans": 1000}


def _seat(seat: int, player: dict[str, Any] | None, bot: str | None = None, ready_ms: int | None = None) -> Any:
    card = {k: player[k] for k in ("id", "nickname", "title", "points")} if player else None
    return {
        "seat": seat,
        "player": card,
        "bot": bot,
        "ready": ready_ms is None,
        "connected": player is not None,
        "auto": False,
        "ready_deadline": 1767000030000 if ready_ms is not None else None,
        "ready_remaining_ms": ready_ms,
    }


def room_state(code: str = "123456", status: str = "playing", match_id: int | None = 3) -> Any:
    match = None
    if match_id is not None:
        match = {
            "id": match_id,
            "hand_no": 1,
            "hands": 8,
            "scores": [0, 0, 0],
            "hand_id": 11,
            "dealer": 0,
            "finished": False,
            "ranking": None,
            "leaver": None,
            "double_cards": [],
        }
    return {
        "code": code,
        "kind": "private",
        "share_path": f"/?room={code}",
        "owner": 7,
        "status": status,
        "options": {"preset": "qq", "hands": 8},
        "seats": [
            _seat(0, PLAYER),
            _seat(1, None, "expert"),
            _seat(2, {**PLAYER, "id": 8, "nickname": "阿强"}, ready_ms=12000),
        ],
        "match": match,
        "dissolution": None,
    }


TIMER = {"seat": 0, "kind": "discard", "remaining_ms": 15000, "deadline": 1767000015000, "auto": False}


@pytest.fixture(scope="module")
def hand() -> dict[str, Any]:
    """Seat 0's views of a real deal (seed 1: seat 0 deals and discards first) before and after its
    discard, the events it was shown, and that discard."""
    h = Hand(find_preset("qq"), seed=1)
    seen = h.observation(0)
    action = str(h.legal_actions(0)[0])
    events = [d for d in (e.for_seat(0) for e in h.apply(0, action)) if d is not None]
    after = h.observation(0)
    return {
        "before": seen.to_dict(),
        "after": after.to_dict(),
        "seen": seen,  # the Observations the frame builders take; "before"/"after" are their JSON
        "seen_after": after,
        "events": events,
        "action": action,
    }


def game_frame(hand: dict[str, Any], hand_id: int = 11, seq: int = 0) -> Any:
    return frames.game(
        match=3,
        hand=hand_id,
        number=1,
        hands=8,
        seq=seq,
        seat=0,
        view=hand["seen"],
        waits=[],
        timers=[TIMER],
        scores=[0, 0, 0],
        auto=[False, False, False],
        over=False,
    )


def update_frame(hand: dict[str, Any], seq: int = 1, msg_id: int | None = None, hand_id: int = 11) -> Any:
    return frames.update(
        hand=hand_id,
        seq=seq,
        events=hand["events"],
        view=hand["seen_after"],
        waits=[{"card": "x3", "huxi": 15, "points": 1}],
        timers=[{**TIMER, "seat": 1, "kind": "claim", "remaining_ms": 8000}],
        auto=[False, True, False],
        msg_id=msg_id,
    )


def in_game(page: Any, hand: dict[str, Any]) -> dict[str, Any]:
    """A client in room 123456 with hand 11 on the table."""
    state = run(page, fresh(page), {"type": "welcome", "protocol": 1, "player": PLAYER, "server_time": 1})["state"]
    state = run(page, state, frames.room(room_state()))["state"]
    return run(page, state, game_frame(hand))["state"]


# ---- frames ---------------------------------------------------------------------------------------------


def test_welcome_sets_the_player_and_forgets_a_queue_place(page: Any) -> None:
    start = {**fresh(page), "queue": {"tier": "novice", "position": 2}}
    out = run(page, start, frames.welcome(1, PLAYER, 1767000000000))
    assert changed(start, out["state"]) == {"player": PLAYER, "queue": None}
    assert out["effects"] == [] and not out["same"]


def test_room_stamps_ready_clocks_and_remembers_each_seats_name(page: Any) -> None:
    start = fresh(page)
    sent = room_state()
    out = run(page, start, frames.room(sent), now=1000.0)
    room = copy.deepcopy(sent)
    room["seats"][2]["localReadyDeadline"] = 1000.0 + 12000  # the seat that must still say ready
    assert changed(start, out["state"]) == {
        "room": room,
        "names": [
            {"nickname": "小明", "bot": False},
            {"nickname": "", "bot": "expert"},
            {"nickname": "阿强", "bot": False},
        ],
        "namesMatch": 3,
    }
    assert out["effects"] == []


def test_a_seat_a_player_left_keeps_the_name_within_the_match(page: Any) -> None:
    state = run(page, fresh(page), frames.room(room_state()))["state"]
    left = room_state()
    left["seats"][2] = _seat(2, None)  # 阿强 left (逃跑): an empty seat
    out = run(page, state, frames.room(left))["state"]
    assert out["names"][2] == {"nickname": "阿强", "bot": False}
    # the next match starts with the names of its own players
    out = run(page, out, frames.room(room_state(match_id=4) | {"seats": left["seats"]}))["state"]
    assert out["names"] == [{"nickname": "小明", "bot": False}, {"nickname": "", "bot": "expert"}]
    assert out["namesMatch"] == 4


def test_a_closed_room_is_no_room_and_another_room_forgets_the_match_over(page: Any) -> None:
    over = {**fresh(page), "matchOver": {"type": "match_over", "match": 3}}
    state = {**over, "room": room_state(status="waiting")}
    assert run(page, state, frames.room(room_state(status="closed")))["state"]["room"] is None
    same_room = run(page, state, frames.room(room_state(status="waiting")))["state"]
    assert same_room["matchOver"] == {"type": "match_over", "match": 3}  # the waiting room shows the result
    assert run(page, state, frames.room(room_state(code="654321", status="waiting")))["state"]["matchOver"] is None
    assert run(page, state, frames.room(None))["state"]["room"] is None


def test_game_puts_a_new_hand_on_the_table(page: Any, hand: dict[str, Any]) -> None:
    start = run(page, fresh(page), frames.room(room_state()))["state"]
    start |= {"selected": {"hand": 10, "card": "x1", "col": 0, "idx": 0}, "chiOptions": [["chi x1"]], "busy": True}
    start |= {"pendingAct": {"id": 4, "hand": 10}, "matchOver": {"type": "match_over"}, "wantLobby": True}
    frame = game_frame(hand)
    out = run(page, start, frame)
    assert changed(start, out["state"]) == {
        "game": {
            "hand": 11,
            "seq": 0,
            "seat": 0,
            "view": hand["before"],
            "timers": [{**TIMER, "localDeadline": NOW + 15000}],
            "scores": [0, 0, 0],
            "auto": [False, False, False],
            "number": 1,
            "hands": 8,
            "match": 3,
            "waits": [],
        },
        "dealStart": {"hand": 11, "at": NOW},  # the dealing animation starts now
        "selected": None,
        "chiOptions": None,
        "pendingAct": None,  # a full snapshot: whatever we sent is in it
        "matchOver": None,
        "busy": False,
        "wantLobby": False,
    }
    assert out["effects"] == [{"kind": "record", "frame": frame}]


def test_a_snapshot_of_the_same_hand_keeps_the_lifted_card_and_the_deal(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand)
    state |= {"selected": {"hand": 11, "card": "x1", "col": 0, "idx": 0}}
    out = run(page, state, game_frame(hand, seq=0), now=NOW + 5000)["state"]
    assert out["selected"] == {"hand": 11, "card": "x1", "col": 0, "idx": 0}
    assert out["dealStart"] == {"hand": 11, "at": NOW}
    assert out["prevGame"] == state["game"]
    assert out["game"]["timers"][0]["localDeadline"] == NOW + 5000 + 15000


def test_update_moves_the_hand_on_and_answers_our_act(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand) | {"pendingAct": {"id": 9, "hand": 11}, "chiOptions": [["chi x1"]]}
    frame = update_frame(hand, msg_id=9)
    out = run(page, state, frame, now=NOW + 1000)
    assert hand["after"]["legal"] == []  # seat 0 discarded: nothing to decide until the others have
    assert changed(state, out["state"]) == {
        "prevGame": state["game"],
        "game": state["game"]
        | {
            "seq": 1,
            "view": hand["after"],
            "timers": [{**TIMER, "seat": 1, "kind": "claim", "remaining_ms": 8000, "localDeadline": NOW + 1000 + 8000}],
            "auto": [False, True, False],
            "waits": [{"card": "x3", "huxi": 15, "points": 1}],
        },
        "pendingAct": None,
        "chiOptions": None,
    }
    assert [e["kind"] for e in out["effects"]] == ["record", "animate", "sound"]
    assert out["effects"][1] == {"kind": "animate", "events": hand["events"]}
    assert hand["events"][0]["type"] == "discard" and hand["action"] == f"discard {hand['events'][0]['card']}"


def test_an_update_for_another_act_leaves_ours_pending(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand) | {"pendingAct": {"id": 9, "hand": 11}}
    assert run(page, state, update_frame(hand, msg_id=8))["state"]["pendingAct"] == {"id": 9, "hand": 11}
    assert run(page, state, update_frame(hand))["state"]["pendingAct"] == {"id": 9, "hand": 11}


def test_an_older_update_is_ignored_and_one_of_an_unknown_hand_asks_for_a_snapshot(
    page: Any, hand: dict[str, Any]
) -> None:
    state = in_game(page, hand)
    state = run(page, state, update_frame(hand, seq=5))["state"]
    older = run(page, state, update_frame(hand, seq=4))
    assert older["same"] and older["effects"] == []
    unknown = run(page, state, update_frame(hand, hand_id=12))
    assert unknown["same"] and unknown["effects"] == [{"kind": "sync"}]
    assert run(page, fresh(page), update_frame(hand))["effects"] == [{"kind": "sync"}]


def _hand_over(hand: dict[str, Any], kind: str = "hu") -> Any:
    hu = kind == "hu"
    outcome = Outcome(
        kind=OutcomeKind(kind),
        winner=0 if hu else None,
        card=None,
        source=None,
        zimo=False,
        tianhu=False,
        haidi=False,
        arrangement=None,
        score=None,
        huxi=0,
        points=0,
        payments=(24, -12, -12) if hu else (0, 0, 0),
    )
    return frames.hand_over(
        hand=11,
        number=1,
        outcome=outcome,
        scores=[24, -12, -12],
        deltas=[24, -12, -12],
        view=hand["seen_after"],
        code="ABCDEFG",
        beans=[240, -120, -120],
    )


def test_hand_over_opens_the_settlement_and_plays_the_win(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand) | {"pendingAct": {"id": 9, "hand": 11}, "chiOptions": [["chi x1"]]}
    frame = _hand_over(hand)
    out = run(page, state, frame)
    assert changed(state, out["state"]) == {
        "handOver": frame,
        "settleOpen": True,
        "pendingAct": None,
        "chiOptions": None,
        "prevGame": state["game"],
        "game": state["game"] | {"view": hand["after"], "timers": [], "scores": [24, -12, -12]},
    }
    assert out["effects"] == [{"kind": "play", "sound": "win"}, {"kind": "record", "frame": frame}]
    assert frame["replay"] == "/api/replays/11"
    # a draw (荒庄) plays nothing; a hand_over of another hand leaves the table as it is
    assert run(page, state, _hand_over(hand, "draw"))["effects"] == [
        {"kind": "record", "frame": _hand_over(hand, "draw")}
    ]
    other = run(page, fresh(page), frame)["state"]
    assert other["game"] is None and other["settleOpen"] is True


def _match_over(status: str = "finished") -> Any:
    return frames.match_over(
        match=3,
        status=status,
        scores=[24, -12, -12],
        ranking=[0, 1, 2],
        standings=[{"seat": 0, "score": 24}],
        leaver=None,
        penalty=None,
        void_hand=11 if status == "dissolved" else None,
    )


def test_match_over_asks_for_the_summary_and_keeps_an_open_settlement(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand)
    settled = run(page, state, _hand_over(hand))["state"] | {"summary": {"old": True}}
    frame = _match_over()
    out = run(page, settled, frame)
    assert changed(settled, out["state"]) == {"matchOver": frame, "summary": None}
    assert out["effects"] == [{"kind": "summary", "frame": frame}]
    # dissolved (R8.2): the settlement gives way to the dissolved match's summary; without a hand_over too
    assert run(page, settled, _match_over("dissolved"))["state"]["settleOpen"] is False
    assert run(page, state | {"settleOpen": True}, frame)["state"]["settleOpen"] is False


def test_the_summary_is_kept_only_for_the_match_still_over(page: Any) -> None:
    kept, dropped = page.evaluate(
        """(frame) => {
          const state = window.freeze({ ...window.fresh(), matchOver: frame });
          const kept = window.R.summaryLoaded(state, frame, { hands: [1] });
          const dropped = window.R.summaryLoaded(state, { ...frame }, { hands: [1] });
          return [kept.summary, dropped === state];
        }""",
        _match_over(),
    )
    assert kept == {"hands": [1]} and dropped is True


def test_dissolution_and_error_are_told_and_an_error_answers_our_act(page: Any) -> None:
    state = fresh(page) | {"pendingAct": {"id": 9, "hand": 11}}
    ended = frames.dissolution("refused", 0, 2)
    out = run(page, state, ended)
    assert out["same"] and out["effects"] == [{"kind": "dissolution", "frame": ended}]
    refused = run(page, state, frames.error("not_your_turn", "wait", 9))
    assert changed(state, refused["state"]) == {"pendingAct": None}
    assert refused["effects"] == [{"kind": "error", "code": "not_your_turn", "message": "wait"}]
    assert run(page, state, frames.error("rate_limited", "slow down"))["state"]["pendingAct"] is None  # no id: ours
    other = run(page, state, frames.error("stale_hand", "old", 8))
    assert other["same"] and other["effects"][0]["code"] == "stale_hand"


def test_kicked_leaves_the_room_with_a_notice(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand)
    out = run(page, state, frames.kicked("123456", "ready_timeout", 30))
    assert changed(state, out["state"]) == {
        "notice": {"kicked": "123456", "reason": "ready_timeout", "seconds": 30},
        "room": None,
        "game": None,
    }


def test_chat_shows_a_bubble_for_a_while_unless_the_table_is_muted(page: Any, hand: dict[str, Any]) -> None:
    state = in_game(page, hand) | {"chatRoom": "123456"}
    out = run(page, state, frames.chat(1, 12))
    bubble = {"phrase": 12, "until": NOW + 4000}
    assert changed(state, out["state"]) == {"bubbles": {"1": bubble}}
    assert out["effects"] == [{"kind": "expire", "seat": 1, "bubble": bubble, "after": 4000}]
    muted = run(page, state | {"chatMuted": True}, frames.chat(1, 12))
    assert muted["state"]["bubbles"] == {} and muted["effects"] == []
    # the mute is this table's: at another table the bubbles show again
    elsewhere = run(page, state | {"chatMuted": True, "chatRoom": "999999"}, frames.chat(2, 0))["state"]
    assert (elsewhere["chatRoom"], elsewhere["chatMuted"], elsewhere["bubbles"]) == (
        "123456",
        False,
        {"2": {"phrase": 0, "until": NOW + 4000}},
    )


def test_a_bubble_expires_unless_a_newer_one_took_its_place(page: Any) -> None:
    gone, kept = page.evaluate(
        """() => {
          const first = { phrase: 1, until: 10 }, newer = { phrase: 2, until: 20 };
          const state = window.freeze({ ...window.fresh(), bubbles: { 1: first, 2: newer } });
          const gone = window.R.bubbleExpired(state, 1, first);
          return [gone.bubbles, window.R.bubbleExpired(state, 2, first) === state];
        }"""
    )
    assert gone == {"2": {"phrase": 2, "until": 20}} and kept is True


def test_a_hint_is_kept_for_the_position_it_was_asked_in(page: Any, hand: dict[str, Any]) -> None:
    """提示 (docs/protocol.md §3.1): the answer shows while the position asked about is on the table."""
    state = in_game(page, hand)
    answer = {"type": "hint", "hand": 11, "suggest": hand["action"], "discards": []}
    out = run(page, state | {"hintAsked": {"hand": 11, "seq": 0}}, answer)
    assert changed(state | {"hintAsked": {"hand": 11, "seq": 0}}, out["state"]) == {
        "hint": {"hand": 11, "seq": 0, "frame": answer},
        "hintAsked": None,
    }
    assert out["effects"] == []
    # unasked, or asked in a position no longer on the table: dropped
    assert run(page, state, answer)["same"]
    assert run(page, state | {"hintAsked": {"hand": 11, "seq": 1}}, answer)["same"]
    assert run(page, state | {"hintAsked": {"hand": 11, "seq": 0}}, answer | {"hand": 10})["same"]


def test_queue_counts_the_wait_on_our_clock(page: Any) -> None:
    info = {
        "tier": "novice",
        "multiplier": 1,
        "minimum": 0,
        "position": 1,
        "waiting": 2,
        "waited_ms": 3000,
        "fill_ms": 20000,
        "online": True,
        "drop_ms": None,
    }
    out = run(page, fresh(page), frames.queue(info))  # type: ignore[arg-type]
    assert out["state"]["queue"] == info | {"since": NOW - 3000}
    assert run(page, out["state"], frames.queue(None))["state"]["queue"] is None


def test_pong_and_an_unknown_frame_change_nothing(page: Any) -> None:
    for frame in (frames.pong(3, 1767000000000), {"type": "surprise"}, {"type": "constructor"}):
        out = run(page, fresh(page), json.loads(json.dumps(frame)))
        assert out["same"] and out["effects"] == [], frame


# ---- transitions that are not frames, and the selectors ---------------------------------------------------


def test_the_connection_status_and_our_act(page: Any) -> None:
    statuses = page.evaluate(
        """() => {
          const state = window.freeze({ ...window.fresh(), pendingAct: { id: 1, hand: 11 } });
          const pick = (s) => [s.conn, s.loggedOut, s.pendingAct];
          const pending = { id: 2, hand: 11 };
          const sent = window.freeze(window.R.actSent(state, pending));
          return {
            online: pick(window.R.connection(state, "online")),
            offline: pick(window.R.connection(state, "offline")),
            unauthorized: pick(window.R.connection(state, "unauthorized")),
            sent: [sent.pendingAct, sent.selected, sent.chiOptions],
            unanswered: window.R.actUnanswered(sent, pending).pendingAct,
            answeredAlready: window.R.actUnanswered(state, pending) === state,
          };
        }"""
    )
    assert statuses == {
        "online": ["online", False, {"id": 1, "hand": 11}],
        "offline": ["offline", False, None],  # the new connection's snapshot answers everything
        "unauthorized": ["unauthorized", True, None],
        "sent": [{"id": 2, "hand": 11}, None, None],
        "unanswered": None,
        "answeredAlready": True,
    }


def test_entering_and_leaving_a_room(page: Any) -> None:
    entered, left = page.evaluate(
        """(room) => {
          const old = { wantLobby: true, settleOpen: true, handOver: {}, matchOver: {} };
          const state = window.freeze({ ...window.fresh(), ...old });
          return [window.R.roomEntered(state, room, 100), window.R.roomLeft(state, 30)];
        }""",
        room_state(status="waiting"),
    )
    assert entered["room"]["seats"][2]["localReadyDeadline"] == 100 + 12000
    assert [entered[k] for k in ("wantLobby", "matchOver", "handOver", "settleOpen")] == [False, None, None, False]
    assert left["notice"] == {"penalty": 30}
    assert [left[k] for k in ("room", "game", "handOver", "matchOver", "settleOpen")] == [None, None, None, None, False]


def test_the_screen_and_our_seat_follow_the_state(page: Any, hand: dict[str, Any]) -> None:
    def screen(state: dict[str, Any]) -> str:
        out: str = page.evaluate("(s) => window.S.currentScreen(s)", state)
        return out

    start = fresh(page)
    waiting = start | {"player": PLAYER, "room": room_state(status="waiting", match_id=None)}
    playing = in_game(page, hand)
    assert screen(start) == "lobby"
    assert screen(waiting) == "room"
    assert screen(waiting | {"wantLobby": True}) == "lobby"
    assert screen(playing) == "table"
    assert screen(playing | {"replay": {"handId": 1}}) == "replay"
    assert screen(start | {"queue": {"tier": "novice"}}) == "queue"
    assert screen(waiting | {"room": waiting["room"] | {"kind": "public"}}) == "table"  # between hands
    seats = page.evaluate(
        "(states) => states.map((s) => [window.S.mySeat(s), window.S.myAuto(s)])",
        [
            waiting,
            playing | {"room": playing["room"] | {"seats": [s | {"auto": True} for s in playing["room"]["seats"]]}},
        ],
    )
    assert seats == [[0, False], [0, True]]
