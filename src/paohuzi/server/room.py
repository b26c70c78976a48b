"""Rooms (application layer): seats, ready and start, matches and hands, turn timers, bots and 托管.

A :class:`Room` owns its match (an engine :class:`~paohuzi.engine.Match`) and is the only thing that
changes it, under its own lock, one step at a time. Every step that plays an action follows the same
order (issue #5 §6):

1. the engine applies the action (it refuses anything not legal: state unchanged);
2. the action is appended to the ``actions`` log and committed;
3. only then are the events sent — each seat gets its own view and the events it may see (R5).

If step 2 fails the engine is rolled back by replaying the record without the action.

The server decides who sees what only through the engine (``Hand.observation(seat)``,
``Event.for_seat(seat)``); it never looks into the cards itself.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paohuzi.engine import Action, ActionKind, IllegalActionError, Match
from paohuzi.engine.hand import FORMAT_VERSION
from paohuzi.engine.match import replay_match
from paohuzi.rules import RuleSet
from paohuzi.scoring import scored_waits, waits_to_dicts
from paohuzi.server import store
from paohuzi.server.bots import SeatBot, choose, make_seat_bot
from paohuzi.server.connection import dumps
from paohuzi.server.logs import log

if TYPE_CHECKING:
    from paohuzi.server.hub import Hub

__all__ = ["Room", "RoomError", "SeatState"]

ERROR, WARNING, INFO, DEBUG = 40, 30, 20, 10


class RoomError(Exception):
    """A refused room or game request: ``code`` (docs/protocol.md), a message, and the HTTP status."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(slots=True)
class SeatState:
    """One seat of a room. ``auto`` is 托管; ``auto_reason`` is ``manual``, ``timeout`` or ``offline``;
    ``missed`` counts the deadlines the seat's player let pass in a row (two turn 托管 on)."""

    index: int
    player_id: int | None = None
    bot: str | None = None
    ready: bool = False
    auto: bool = False
    auto_reason: str | None = None
    missed: int = 0
    brain: SeatBot | None = None

    @property
    def free(self) -> bool:
        return self.player_id is None and self.bot is None


class Decision:
    """A seat's pending decision: its legal actions, its deadline and the timers that act on it."""

    __slots__ = ("seat", "key", "kind", "deadline", "timer", "bot_timer", "thinking", "timed_out")

    def __init__(self, seat: int, key: tuple[Any, ...], kind: str, deadline: float) -> None:
        self.seat = seat
        self.key = key
        self.kind = kind
        self.deadline = deadline
        self.timer: asyncio.TimerHandle | None = None
        self.bot_timer: asyncio.TimerHandle | None = None
        self.thinking = False  # a bot is deciding for this seat right now
        self.timed_out = False  # the deadline passed: a bot plays this one decision

    def cancel(self) -> None:
        for handle in (self.timer, self.bot_timer):
            if handle is not None:
                handle.cancel()
        self.timer = self.bot_timer = None


class MatchRun:
    """The match being played at a room, with the database ids and the pending decisions."""

    __slots__ = (
        "id",
        "engine",
        "seats",
        "number",
        "hand_id",
        "seq",
        "decisions",
        "finished",
        "penalty",
        "status",
        "waits",
        "frames",
        "views",
    )

    def __init__(self, match_id: int, engine: Match, seats: list[tuple[int | None, str | None, str]]) -> None:
        self.id = match_id
        self.engine = engine
        self.seats = seats  # (player id, bot, nickname) per seat, as the match began
        self.number = 1
        self.hand_id = 0
        self.seq = 0
        self.decisions: dict[int, Decision] = {}
        self.finished = False
        self.penalty: int | None = None
        self.status = "playing"
        self.waits: dict[int, tuple[Any, list[dict[str, Any]]]] = {}  # seat -> (hand state, 听牌 hint)
        self.frames: dict[int, int] = {}  # seat -> frames about this hand sent to it (its `seq`)
        self.views: dict[int, dict[str, Any]] = {}  # seat -> the last view it was sent


class Room:
    """A table with 3 (or 4) seats. All changes go through its async methods, which hold :attr:`lock`."""

    def __init__(
        self,
        hub: Hub,
        room_id: int,
        code: str,
        kind: str,
        owner_id: int | None,
        options: dict[str, Any],
        seats: list[SeatState],
        status: str = "waiting",
    ) -> None:
        self.hub = hub
        self.id = room_id
        self.code = code
        self.kind = kind
        self.owner_id = owner_id
        self.options = options
        self.rules = RuleSet.from_dict(options["rules"])
        self.seats = seats
        self.status = status
        self.match: MatchRun | None = None
        self.lock = asyncio.Lock()
        self.idle_since = time.monotonic()

    # ---- queries -----------------------------------------------------------------------------------

    def seat_of(self, player_id: int) -> SeatState | None:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat
        return None

    def humans(self) -> list[int]:
        return [s.player_id for s in self.seats if s.player_id is not None]

    @property
    def playing(self) -> bool:
        return self.match is not None and not self.match.finished

    @property
    def hand_on(self) -> bool:
        return self.playing and self.match is not None and not self.match.engine.hand.over

    def state(self) -> dict[str, Any]:
        """RoomState (docs/protocol.md §2)."""
        conns = self.hub.conns
        seats = []
        for s in self.seats:
            seats.append(
                {
                    "seat": s.index,
                    "player": self.hub.player_card(s.player_id) if s.player_id is not None else None,
                    "bot": s.bot,
                    "ready": s.ready or s.bot is not None,
                    "connected": s.bot is not None or (s.player_id is not None and s.player_id in conns),
                    "auto": s.auto,
                }
            )
        match = None
        m = self.match
        if m is not None:
            match = {
                "id": m.id,
                "hand_no": m.number,
                "hands": m.engine.hands,
                "scores": list(m.engine.totals),
                "hand_id": m.hand_id,
                "dealer": m.engine.hand.dealer,
                "finished": m.finished,
                "ranking": m.engine.ranking() if m.finished else None,
                "leaver": m.engine.leaver,
            }
        return {
            "code": self.code,
            "kind": self.kind,
            "share_path": f"/?room={self.code}",
            "owner": self.owner_id,
            "status": self.status,
            "options": self.options,
            "seats": seats,
            "match": match,
        }

    def game_frame(self, seat: int) -> dict[str, Any] | None:
        """The full snapshot of the hand for ``seat`` (``game``), or None when no match is on."""
        m = self.match
        if m is None or m.finished:
            return None
        hand = m.engine.hand
        view = hand.observation(seat)
        m.views[seat] = view
        return {
            "type": "game",
            "match": m.id,
            "hand": m.hand_id,
            "number": m.number,
            "hands": m.engine.hands,
            "seq": m.frames.get(seat, 0),
            "seat": seat,
            "view": view,
            "waits": self._waits(seat),
            "timers": self._timers(seat),
            "scores": list(m.engine.totals),
            "auto": [s.auto for s in self.seats],
            "over": hand.over,
        }

    def frames_for(self, player_id: int) -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = [{"type": "room", "room": self.state()}]
        seat = self.seat_of(player_id)
        if seat is not None:
            game = self.game_frame(seat.index)
            if game is not None:
                frames.append(game)
        return frames

    # ---- sending -----------------------------------------------------------------------------------

    def _send(self, player_id: int | None, message: dict[str, Any]) -> None:
        if player_id is None:
            return
        conn = self.hub.conns.get(player_id)
        if conn is not None:
            conn.send(message)

    def broadcast_room(self) -> None:
        text = dumps({"type": "room", "room": self.state()})
        for pid in self.humans():
            conn = self.hub.conns.get(pid)
            if conn is not None:
                conn.send_text(text)

    def _send_updates(self, events: list[Any], actor: int | None = None, msg_id: Any = None) -> None:
        """Each seat gets an ``update`` only when something it may see changed: another seat's 过 in a claim
        window, which changes nothing the others see, is not even told by an empty frame (R5: that the
        seat had a choice would tell what it holds). ``seq`` counts the frames a seat got, not actions."""
        m = self.match
        assert m is not None
        hand = m.engine.hand
        auto = [s.auto for s in self.seats]
        for seat in self.seats:
            conn = self.hub.conns.get(seat.player_id) if seat.player_id is not None else None
            if conn is None:
                continue
            i = seat.index
            seen = [d for d in (e.for_seat(i) for e in events) if d is not None]
            view = hand.observation(i)
            if not seen and view == m.views.get(i) and not (msg_id is not None and i == actor):
                continue
            m.views[i] = view
            m.frames[i] = m.frames.get(i, 0) + 1
            frame = {
                "type": "update",
                "hand": m.hand_id,
                "seq": m.frames[i],
                "events": seen,
                "view": view,
                "waits": self._waits(i),
                "timers": self._timers(i),
                "auto": auto,
            }
            if msg_id is not None and i == actor:
                frame["id"] = msg_id  # the update caused by this seat's own `act`
            conn.send(frame)

    def _send_game_frames(self) -> None:
        for seat in self.seats:
            if seat.player_id is not None and seat.player_id in self.hub.conns:
                frame = self.game_frame(seat.index)
                if frame is not None:
                    self._send(seat.player_id, frame)

    async def _persist_seats(self) -> None:
        seats = [(s.player_id, s.bot, s.ready) for s in self.seats]
        await self.hub.db.run(store.save_room(self.id, self.status, self.owner_id, seats))

    # ---- membership --------------------------------------------------------------------------------

    async def join(self, player_id: int, seat_index: int | None) -> None:
        async with self.lock:
            if self.status == "closed":
                raise RoomError("not_found", f"room {self.code} is closed", 404)
            if self.seat_of(player_id) is not None:
                return
            if self.playing:
                raise RoomError("room_started", f"room {self.code} is playing a match; join when it ends")
            if self.kind == "quick":
                raise RoomError("room_full", "a quick-play table cannot be joined")
            seat = self._free_seat(seat_index)
            seat.player_id, seat.bot, seat.ready, seat.auto, seat.auto_reason = (
                player_id,
                None,
                False,
                False,
                None,
            )
            seat.brain = None
            if self.owner_id is None:
                self.owner_id = player_id
            self.hub.room_of[player_id] = self
            await self._persist_seats()
            self.broadcast_room()

    def _free_seat(self, wanted: int | None) -> SeatState:
        if wanted is not None:
            if not 0 <= wanted < len(self.seats):
                raise RoomError("bad_request", f"no seat {wanted} (seats 0–{len(self.seats) - 1})", 400)
            seat = self.seats[wanted]
            if seat.player_id is None:
                return seat  # a free seat, or a bot's between matches
            raise RoomError("room_full", f"seat {wanted} is taken")
        for seat in self.seats:
            if seat.free:
                return seat
        for seat in self.seats:
            if seat.player_id is None:
                return seat  # take over a bot's seat
        raise RoomError("room_full", f"room {self.code} is full")

    async def remove(self, player_id: int) -> int | None:
        """The player leaves; returns the 逃跑 penalty paid (None if there was none)."""
        async with self.lock:
            seat = self.seat_of(player_id)
            if seat is None:
                return None
            penalty = None
            m = self.match
            if m is not None and not m.finished:
                hand = m.engine.hand
                if not hand.over and seat.index in hand.seats:
                    events = m.engine.leave(seat.index)
                    m.seq += 1
                    await self.hub.db.append_action(
                        store.action_row(m.hand_id, m.seq, seat.index, "leave", "player")
                    )
                    self._cancel_decisions()
                    assert hand.outcome is not None
                    penalty = -hand.outcome.payments[seat.index]
                    m.penalty = penalty
                    self._send_updates(events)
                    await self._finish_hand()
                else:
                    m.engine.leave(seat.index)
                    if m.engine.over:
                        await self._finish_match()
            seat.player_id, seat.ready, seat.auto, seat.auto_reason, seat.brain = (
                None,
                False,
                False,
                None,
                None,
            )
            self.hub.room_of.pop(player_id, None)
            if self.owner_id == player_id:
                humans = self.humans()
                self.owner_id = humans[0] if humans else None
            if not self.humans() and not self.playing:
                await self._close()
                return penalty
            await self._persist_seats()
            self.broadcast_room()
            return penalty

    async def set_ready(self, player_id: int, ready: bool) -> None:
        async with self.lock:
            seat = self._seated(player_id)
            if self.playing:
                raise RoomError("room_started", "a match is being played")
            seat.ready = ready
            await self._maybe_start()
            if not self.playing:
                await self._persist_seats()
                self.broadcast_room()

    async def start(self, player_id: int) -> None:
        async with self.lock:
            seat = self._seated(player_id)
            if self.playing:
                raise RoomError("room_started", "a match is being played")
            if self.kind == "private" and self.owner_id != player_id:
                raise RoomError("not_owner", "only the room's owner can start")
            seat.ready = True
            waiting = [s.index for s in self.seats if s.player_id is not None and not s.ready]
            if waiting:
                raise RoomError("not_ready", f"seats {waiting} are not ready")
            free = [s for s in self.seats if s.free]
            if free and not self.options.get("bots_fill", True):
                raise RoomError(
                    "not_ready", f"{len(free)} seats are free and this room does not fill them with bots"
                )
            for s in free:
                s.bot, s.ready = self.hub.settings.bot_name, True
            await self._start_match()

    async def rematch(self, player_id: int) -> None:
        async with self.lock:
            seat = self._seated(player_id)
            if self.playing:
                raise RoomError("room_started", "a match is being played")
            seat.ready = True
            if self.kind == "quick":
                for s in self.seats:
                    if s.free:
                        s.bot, s.ready = self.hub.settings.bot_name, True
            await self._maybe_start()
            if not self.playing:
                await self._persist_seats()
                self.broadcast_room()

    async def _maybe_start(self) -> None:
        if self.playing or any(s.free for s in self.seats):
            return
        if all(s.ready for s in self.seats if s.player_id is not None):
            await self._start_match()

    def _seated(self, player_id: int) -> SeatState:
        seat = self.seat_of(player_id)
        if seat is None:
            raise RoomError("not_in_room", f"you have no seat in room {self.code}")
        return seat

    async def _close(self) -> None:
        self.status = "closed"
        self._cancel_decisions()
        for pid in self.humans():
            self.hub.room_of.pop(pid, None)
        await self._persist_seats()
        self.hub.forget_room(self)
        log(INFO, "room closed", room=self.code)

    async def close_if_idle(self, idle_for: float) -> bool:
        """Close a room nobody is connected to, with no match on, idle for ``idle_for`` seconds."""
        async with self.lock:
            if self.status == "closed" or self.playing:
                return False
            if any(pid in self.hub.conns for pid in self.humans()):
                self.idle_since = time.monotonic()
                return False
            if time.monotonic() - self.idle_since < idle_for:
                return False
            await self._close()
            return True

    # ---- connections and 托管 -----------------------------------------------------------------------

    def connected(self, player_id: int) -> None:
        """The player's websocket is (back) up: 托管 begun by a disconnect or a time-out ends."""
        seat = self.seat_of(player_id)
        if seat is None:
            return
        self.idle_since = time.monotonic()
        if seat.auto and seat.auto_reason in ("offline", "timeout"):
            self._auto_off(seat)
        self.broadcast_room()

    def disconnected(self, player_id: int) -> None:
        """The player's websocket is gone: while a match is on, a bot plays the seat (托管) once
        ``offline_grace`` seconds have passed without the player coming back (a reload keeps its turn)."""
        seat = self.seat_of(player_id)
        if seat is None:
            return
        self.idle_since = time.monotonic()
        if self.playing and not seat.auto:
            grace = self.hub.settings.offline_grace
            if grace <= 0:
                self._auto_on(seat, "offline")
            else:
                asyncio.get_running_loop().call_later(grace, self._offline_check, player_id)
        self.broadcast_room()

    def _offline_check(self, player_id: int) -> None:
        seat = self.seat_of(player_id)
        if seat is not None and self.playing and not seat.auto and player_id not in self.hub.conns:
            self._auto_on(seat, "offline")
            self.broadcast_room()

    async def set_auto(self, player_id: int, on: bool) -> None:
        async with self.lock:
            seat = self._seated(player_id)
            if on and not seat.auto:
                self._auto_on(seat, "manual")
            elif not on and seat.auto:
                self._auto_off(seat)
            self.broadcast_room()

    def _auto_on(self, seat: SeatState, reason: str) -> None:
        seat.auto, seat.auto_reason = True, reason
        m = self.match
        if m is not None and not m.finished:
            d = m.decisions.get(seat.index)
            if d is not None and d.bot_timer is None:
                d.bot_timer = asyncio.get_running_loop().call_later(
                    self.hub.settings.bot_delay, self._on_bot, d
                )

    def _auto_off(self, seat: SeatState) -> None:
        seat.auto, seat.auto_reason, seat.missed = False, None, 0
        m = self.match
        if m is not None:
            d = m.decisions.get(seat.index)
            if d is not None and d.bot_timer is not None:
                d.bot_timer.cancel()
                d.bot_timer = None

    def _bot_plays(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.bot is not None or s.auto

    # ---- playing -----------------------------------------------------------------------------------

    async def act(
        self, player_id: int, action: str, hand_id: int | None, seat_index: int | None, msg_id: Any = None
    ) -> None:
        """A player's action, checked: the current hand, the player's seat, its turn, then the engine."""
        async with self.lock:
            seat = self._seated(player_id)
            m = self.match
            if m is None or m.finished or m.engine.hand.over:
                raise RoomError("no_hand", "no hand is being played")
            if hand_id is not None and hand_id != m.hand_id:
                raise RoomError("stale_hand", f"hand {hand_id} is not the current hand ({m.hand_id})")
            if seat_index is not None and seat_index != seat.index:
                raise RoomError(
                    "wrong_seat", f"seat {seat_index} is not yours (you sit at seat {seat.index})"
                )
            if seat.index not in m.engine.hand.deciding:
                raise RoomError("not_your_turn", f"seat {seat.index} has no decision to make now")
            was_auto, reason, missed = seat.auto, seat.auto_reason, seat.missed
            seat.auto, seat.auto_reason, seat.missed = False, None, 0  # playing yourself ends 托管
            try:
                await self._apply(seat.index, action, "player", msg_id)
            except IllegalActionError as exc:
                seat.auto, seat.auto_reason, seat.missed = was_auto, reason, missed
                raise RoomError("illegal_action", exc.reason) from None
            if was_auto:
                self.broadcast_room()

    async def _apply(self, seat: int, action: Action | str, by: str, msg_id: Any = None) -> None:
        """Apply, log, then send (the lock is held). :raises IllegalActionError: state unchanged."""
        m = self.match
        assert m is not None
        engine = m.engine
        events = engine.apply(seat, action)
        text = engine.hand.actions[-1][1]
        m.seq += 1
        old = m.decisions.pop(seat, None)
        if old is not None:
            old.cancel()
        try:
            await self.hub.db.append_action(store.action_row(m.hand_id, m.seq, seat, text, by))
        except Exception:
            log(
                ERROR,
                "action not stored; rolled back",
                room=self.code,
                hand=m.hand_id,
                seq=m.seq,
                exc_info=True,
            )
            self._roll_back()
            raise RoomError(
                "internal", "the server could not store the action; nothing changed", 500
            ) from None
        log(DEBUG, "action", room=self.code, hand=m.hand_id, seq=m.seq, seat=seat, by=by)
        hand = engine.hand
        if hand.over:
            self._cancel_decisions()
        else:
            self._schedule()
        self._send_updates(events, seat, msg_id)
        if hand.over:
            await self._finish_hand()

    def _roll_back(self) -> None:
        m = self.match
        assert m is not None
        record = m.engine.record()
        record["records"][-1]["actions"].pop()
        m.engine = replay_match(record)
        m.seq -= 1
        self._cancel_decisions()
        self._schedule()

    def _cancel_decisions(self) -> None:
        m = self.match
        if m is None:
            return
        for d in m.decisions.values():
            d.cancel()
        m.decisions.clear()

    def _schedule(self) -> None:
        """Give each deciding seat a deadline (kept while its decision is unchanged) and its bot timer."""
        m = self.match
        assert m is not None
        hand = m.engine.hand
        loop = asyncio.get_running_loop()
        deciding = hand.deciding
        for seat in [s for s in m.decisions if s not in deciding]:
            m.decisions.pop(seat).cancel()
        settings = self.hub.settings
        for seat in deciding:
            legal = hand.legal_actions(seat)
            key = (m.hand_id, hand.phase, tuple(legal))
            d = m.decisions.get(seat)
            if d is not None and d.key == key:
                continue
            if d is not None:
                d.cancel()
            kind = "discard" if any(a.kind is ActionKind.DISCARD for a in legal) else "claim"
            timeout = float(self.options["turn_seconds" if kind == "discard" else "claim_seconds"])
            d = Decision(seat, key, kind, loop.time() + timeout)
            m.decisions[seat] = d
            d.timer = loop.call_later(timeout, self._on_timer, d)
            if self._bot_plays(seat):
                d.bot_timer = loop.call_later(settings.bot_delay, self._on_bot, d)

    def _timers(self, viewer: int) -> list[dict[str, Any]]:
        """The deadlines ``viewer`` may see: its own, and the other seats' discard decisions. Another
        seat's claim timer is never shown: it would tell that the seat may 碰/吃 the card (R5)."""
        m = self.match
        if m is None:
            return []
        now = asyncio.get_running_loop().time()
        wall = time.time()
        out = []
        for seat in sorted(m.decisions):
            d = m.decisions[seat]
            if seat != viewer and d.kind != "discard":
                continue
            left = max(0.0, d.deadline - now)
            out.append(
                {
                    "seat": seat,
                    "kind": d.kind,
                    "remaining_ms": int(left * 1000),
                    "deadline": int((wall + left) * 1000),
                    "auto": self._bot_plays(seat),
                }
            )
        return out

    def _waits(self, seat: int) -> list[dict[str, Any]]:
        """听牌 hint for ``seat``: each card whose own draw would complete its hand, with 胡息 and points
        (:func:`paohuzi.scoring.scored_waits`; only the seat's own cards are used). Cached per hand state."""
        m = self.match
        if m is None:
            return []
        hand = m.engine.hand
        if hand.over or seat not in hand.seats:
            return []
        cards, table = hand.hand_of(seat), hand.table_of(seat)
        key = (m.hand_id, cards, table)
        cached = m.waits.get(seat)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            found = waits_to_dicts(scored_waits(cards, table, self.rules))
        except Exception:  # noqa: BLE001 — a hint must never break a table
            log(ERROR, "waits failed", room=self.code, seat=seat, exc_info=True)
            found = []
        m.waits[seat] = (key, found)
        return found

    def _current(self, d: Decision) -> bool:
        m = self.match
        return m is not None and not m.finished and m.decisions.get(d.seat) is d

    def _on_timer(self, d: Decision) -> None:
        self.hub.spawn(self._timed_out(d))

    def _on_bot(self, d: Decision) -> None:
        self.hub.spawn(self._bot_turn(d))

    async def _timed_out(self, d: Decision) -> None:
        async with self.lock:
            if not self._current(d):
                return
            seat = self.seats[d.seat]
            d.timed_out = True  # a bot plays this decision (docs/protocol.md §3.4) …
            if seat.bot is None and not seat.auto:
                seat.missed += 1
                if seat.missed >= 2:  # … and 托管 begins at the second missed deadline in a row
                    seat.auto, seat.auto_reason = True, "timeout"
                    self.broadcast_room()
            await self._bot_move(d)

    async def _bot_turn(self, d: Decision) -> None:
        async with self.lock:
            if not self._current(d) or not self._bot_plays(d.seat):
                return
            await self._bot_move(d)

    async def _bot_move(self, d: Decision) -> None:
        """The bot decides for seat ``d.seat`` (the lock is held). It thinks on a worker thread with the
        lock released, so that the event loop and the other tables go on meanwhile; its answer is played
        only if the decision is still the same one."""
        m = self.match
        assert m is not None
        if d.thinking:
            return
        seat = self.seats[d.seat]
        hand = m.engine.hand
        if seat.brain is None:
            seat.brain = make_seat_bot(seat.bot or self.hub.settings.bot_name, secrets.randbits(32))
        legal = hand.legal_actions(d.seat)
        observation = hand.observation(d.seat)
        brain = seat.brain
        d.thinking = True
        self.lock.release()
        try:
            action = await self.hub.think(choose, brain, observation, legal)
        finally:
            await self.lock.acquire()
            d.thinking = False
        if not self._current(d) or not (self._bot_plays(d.seat) or d.timed_out):
            return
        try:
            await self._apply(d.seat, action, "bot" if seat.bot is not None else "auto")
        except (RoomError, IllegalActionError) as exc:
            log(ERROR, "bot move failed", room=self.code, seat=d.seat, error=str(exc))

    # ---- matches and hands ---------------------------------------------------------------------------

    async def _start_match(self) -> None:
        seats = [(s.player_id, s.bot, self._name(s)) for s in self.seats]
        seed = secrets.randbits(62)
        engine = Match(self.rules, seed, players=len(self.seats), hands=int(self.options["hands"]))
        match_id = await self.hub.db.run(
            store.create_match(self.id, seed, self.rules.to_dict(), engine.hands, seats)
        )
        self.match = MatchRun(match_id, engine, seats)
        self.status = "playing"
        for s in self.seats:
            s.auto, s.auto_reason, s.missed = False, None, 0  # a player not connected yet gets the normal time
        await self._persist_seats()
        log(INFO, "match started", room=self.code, match=match_id, hands=engine.hands)
        await self._begin_hand()

    def _name(self, s: SeatState) -> str:
        if s.player_id is not None:
            return str(self.hub.player_card(s.player_id)["nickname"])
        return f"{s.bot} bot"

    async def _begin_hand(self) -> None:
        m = self.match
        assert m is not None
        hand = m.engine.hand
        m.hand_id = await self.hub.db.run(
            store.create_hand(m.id, m.number, hand.seed, hand.dealer, self.rules.to_dict())
        )
        m.seq = len(hand.actions)
        m.frames.clear()
        m.views.clear()
        self._cancel_decisions()
        if not hand.over:
            self._schedule()
        self.broadcast_room()
        self._send_game_frames()
        if hand.over:  # a dealt 天胡 ends the hand before anyone plays (R6.4)
            await self._finish_hand()

    async def _finish_hand(self) -> None:
        m = self.match
        assert m is not None
        hand = m.engine.hand
        outcome = hand.outcome
        assert outcome is not None
        data = outcome.to_dict()
        payments = list(outcome.payments)
        scores = list(m.engine.totals)
        results = [
            (pid, payments[s], outcome.winner == s)
            for s, (pid, _bot, _n) in enumerate(m.seats)
            if pid is not None and s in hand.seats
        ]
        await self.hub.db.run(store.finish_hand(m.hand_id, data, hand.record(), m.id, scores, results))
        for pid, delta, won in results:
            self.hub.player_won(pid, delta, won)
        log(
            INFO,
            "hand over",
            room=self.code,
            hand=m.hand_id,
            kind=outcome.kind,
            winner=outcome.winner,
            points=outcome.points,
        )
        for seat in self.seats:
            self._send(
                seat.player_id,
                {
                    "type": "hand_over",
                    "hand": m.hand_id,
                    "number": m.number,
                    "outcome": data,
                    "scores": scores,
                    "deltas": payments,
                    "view": hand.observation(seat.index),
                    "replay": f"/api/replays/{m.hand_id}",
                },
            )
        if m.engine.over:
            await self._finish_match()
        else:
            self.broadcast_room()
            self.hub.spawn(self._next_hand_later(m.id))

    async def _next_hand_later(self, match_id: int) -> None:
        await asyncio.sleep(self.hub.settings.between_hands)
        async with self.lock:
            m = self.match
            if m is None or m.id != match_id or m.finished or not m.engine.hand.over or m.engine.over:
                return
            m.engine.next_hand()
            m.number += 1
            await self._begin_hand()

    async def _finish_match(self) -> None:
        m = self.match
        assert m is not None
        engine = m.engine
        m.finished = True
        m.status = "aborted" if engine.leaver is not None else "finished"
        self._cancel_decisions()
        standings = engine.standings()
        ranks = [0] * engine.players
        for row in standings:
            ranks[row["seat"]] = row["rank"]
        humans = [pid for pid, _bot, _n in m.seats if pid is not None]
        result = {"standings": standings, "leaver": engine.leaver, "penalty": m.penalty}
        await self.hub.db.run(
            store.finish_match(m.id, self.id, m.status, engine.totals, ranks, result, humans)
        )
        for pid in humans:
            self.hub.player_matches(pid)
        self.status = "waiting"
        for s in self.seats:
            s.ready = s.bot is not None
            s.auto, s.auto_reason, s.missed = False, None, 0
        frame = {
            "type": "match_over",
            "match": m.id,
            "status": m.status,
            "scores": list(engine.totals),
            "ranking": engine.ranking(),
            "standings": standings,
            "leaver": engine.leaver,
            "penalty": m.penalty,
        }
        for pid in self.humans():
            self._send(pid, frame)
        log(INFO, "match over", room=self.code, match=m.id, status=m.status)
        await self._persist_seats()
        self.broadcast_room()

    # ---- recovery ------------------------------------------------------------------------------------

    async def resume(self, data: dict[str, Any]) -> None:
        """Rebuild the match on from the database (rules, seeds, action log) and carry on playing.

        Every seat starts offline without 托管 and gets its full time again (docs/protocol.md §3.4)."""
        async with self.lock:
            record = {
                "format_version": FORMAT_VERSION,
                "kind": "match",
                "rules": data["rules"],
                "seed": data["seed"],
                "players": len(self.seats),
                "hands": data["hands_total"],
                "double_cards": [],
                "leaver": None,
                "records": [
                    {"seed": h["seed"], "dealer": h["dealer"], "actions": h["actions"]} for h in data["hands"]
                ],
            }
            engine = replay_match(record)
            m = MatchRun(data["id"], engine, [tuple(x) for x in data["seats"]])
            self.match = m
            self.status = "playing"
            hands = data["hands"]
            if not hands:  # stopped before the first hand was stored
                await self._begin_hand()
                return
            last = hands[-1]
            m.number, m.hand_id, m.seq = last["number"], last["id"], len(last["actions"])
            if last["status"] == "playing":
                if engine.hand.over:  # the last action was stored, its hand not yet closed
                    await self._finish_hand()
                else:
                    self._schedule()
            elif engine.over:
                await self._finish_match()
            else:
                engine.next_hand()
                m.number += 1
                await self._begin_hand()
            log(INFO, "match resumed", room=self.code, match=m.id, hand=m.hand_id, seq=m.seq)
