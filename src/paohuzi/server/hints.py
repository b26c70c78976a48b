"""提示 on the wire (issue #16, docs/protocol.md §3.1 ``hint``): who may ask, how often, and the ``hint`` frame.

The hint itself is :func:`paohuzi.bots.hints.hint`, computed from the asking seat's own observation only
(``Hand.observation(seat)``, R5) — the same view the seat's player already has — off the event loop.

Hints are offered in quick play (practice) and in friend rooms whose owner left the room option ``hints``
on; any other kind of room (public ranked tables) never offers them.

>>> hints_allowed("quick", False), hints_allowed("private", False), hints_allowed("public", True)
(True, False, False)
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, cast

from paohuzi.bots.hints import hint
from paohuzi.server.frames import MessageId, RoomError, WaitInfo

if TYPE_CHECKING:
    from paohuzi.server.room import Room

__all__ = ["HINT_INTERVAL", "HintFrame", "hints_allowed", "send_hint"]

#: At most one hint per player every this many seconds (else ``hint_too_fast``).
HINT_INTERVAL = 1.0

_LAST: weakref.WeakKeyDictionary[Room, dict[int, float]] = weakref.WeakKeyDictionary()


class DiscardHint(TypedDict):
    card: str
    waits: list[WaitInfo]


class HintFrame(TypedDict):
    type: Literal["hint"]
    hand: int
    seat: int
    suggest: str | None
    discards: list[DiscardHint]
    id: NotRequired[MessageId]


def hints_allowed(kind: str, hints: bool) -> bool:
    """Whether a room of this ``kind`` whose ``hints`` option (:class:`~paohuzi.server.room_options.RoomOptions`)
    is as given offers hints: quick play always, a friend (``private``) room when the option is on (the
    default), a club table (issue 31) as its template says, nothing else ever."""
    if kind == "quick":
        return True
    return kind in ("private", "club") and hints


async def send_hint(room: Room, player_id: int, msg_id: MessageId | None) -> None:
    """Answer a ``hint`` frame with a ``hint`` frame for the player's seat.

    :raises RoomError: ``hints_off`` (not offered in this room), ``no_hand``, ``hint_too_fast``.
    """
    if not hints_allowed(room.kind, room.options.hints):
        raise RoomError("hints_off", "hints are not offered at this table")
    seat = room.seat_of(player_id)
    m = room.match
    if seat is None or m is None or m.finished or m.hand.over or seat.index not in m.hand.seats:
        raise RoomError("no_hand", "no hand is being played")
    now = time.monotonic()
    last = _LAST.setdefault(room, {})
    before = last.get(player_id)
    if before is not None and now - before < HINT_INTERVAL:
        wait = HINT_INTERVAL - (now - before)
        raise RoomError("hint_too_fast", f"one hint every {HINT_INTERVAL:g} s; wait {wait:.1f} s")
    last[player_id] = now
    hand_id = m.hand_id
    observation = m.hand.observation(seat.index)  # R5: the seat's own view, nothing more
    found = await asyncio.to_thread(hint, observation)
    frame: HintFrame = {
        "type": "hint",
        "hand": hand_id,
        "seat": seat.index,
        "suggest": found["suggest"],
        "discards": cast(list[DiscardHint], found["discards"]),
    }
    if msg_id is not None:
        frame["id"] = msg_id
    room.services.delivery.send(player_id, frame)  # type: ignore[arg-type]
