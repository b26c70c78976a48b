"""Rooms (application layer): seats, ready and start, 托管, and the checks on a player's action.

A :class:`Room` owns the match played at it (a :class:`~paohuzi.server.game.Game`, which owns the engine's
:class:`~paohuzi.engine.Match`) and is the only thing that changes it, under its own :attr:`Room.lock`, one
step at a time. A room reaches the rest of the server only through its
:class:`~paohuzi.server.services.RoomServices` (the delivery port, the player cards, the database, …): it
never sees the hub, which keeps the rooms by code and which room each player sits in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from paohuzi.engine import Action, IllegalActionError
from paohuzi.server import fair_deal, frames, store
from paohuzi.server.dissolve import DissolutionVotes
from paohuzi.server.fair_deal import DealSeeds
from paohuzi.server.frames import MessageId, RoomError, RoomState, SeatInfo
from paohuzi.server.game import Game
from paohuzi.server.logs import log
from paohuzi.server.room_options import RoomOptions, RoomOptionsData
from paohuzi.server.services import RoomServices
from paohuzi.server.turns import SeatState

__all__ = ["Room", "RoomError", "SeatState"]

INFO = 20

#: ``take(n)``: up to ``n`` players waiting for a public table, out of the queue (see :meth:`Room.rematch`).
Take = Callable[[int], Awaitable[list[int]]]


#: Quick chat: at most one phrase per player in this many seconds.
CHAT_INTERVAL = 3.0

class Room:
    """A table with 3 (or 4) seats. All changes go through its async methods, which hold :attr:`lock`."""

    def __init__(
        self,
        services: RoomServices,
        room_id: int,
        code: str,
        kind: str,
        owner_id: int | None,
        options: RoomOptions,
        seats: list[SeatState],
        status: str = "waiting",
    ) -> None:
        self.services = services
        self.id = room_id
        self.code = code
        self.kind = kind
        self.owner_id = owner_id
        self.options = options
        self.rules = options.rules
        self.seats = seats
        self.status = status
        self.match: Game | None = None
        self.deal_seeds: DealSeeds | None = None  # 可验证发牌: the deal being prepared (server/fair_deal.py)
        self.lock = asyncio.Lock()
        self.idle_since = time.monotonic()
        self.last_chat: dict[int, float] = {}  # player id → when its last quick-chat phrase went out
        self.votes = DissolutionVotes(self, services)  # 解散房间 (R8.2): the open proposal, its vote
        # The ready timeout runs only before the room's first match (issue 12 item 5; a room rebuilt at
        # start-up does not know whether it played one, and gives nobody a clock: docs/decisions.md).
        self.first_match_pending = status == "waiting" and kind == "private"
        self._ready_timers: dict[int, asyncio.TimerHandle] = {}  # seat → its ready clock
        # RoomState's options, built once for the (frozen) options they are of: each hand's start and end
        # broadcast the room, and the rules' ``dataclasses.asdict`` was most of that (issue 33)
        self._options: tuple[RoomOptions, RoomOptionsData] | None = None

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
        return self.match is not None and not self.match.finished and not self.match.hand.over

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    def state(self) -> RoomState:
        """RoomState (docs/protocol.md §2)."""
        delivery, roster = self.services.delivery, self.services.roster
        now = time.time()
        seats: list[SeatInfo] = [
            {
                "seat": s.index,
                "player": roster.card(s.player_id) if s.player_id is not None else None,
                "bot": s.bot,
                "ready": s.ready or s.bot is not None,
                "connected": s.bot is not None or (s.player_id is not None and delivery.online(s.player_id)),
                "auto": s.auto,
                "ready_deadline": round(s.ready_by * 1000) if s.ready_by is not None else None,
                "ready_remaining_ms": max(0, round((s.ready_by - now) * 1000)) if s.ready_by is not None else None,
            }
            for s in self.seats
        ]
        return {
            "code": self.code,
            "kind": self.kind,
            "share_path": f"/?room={self.code}" if self.kind not in ("public", "club") else None,
            "owner": self.owner_id,
            "status": self.status,
            "options": self._options_data(),
            "seats": seats,
            "match": self.match.info() if self.match is not None else None,
            "dissolution": self.votes.info(),
        }

    def _options_data(self) -> RoomOptionsData:
        cached = self._options
        if cached is None or cached[0] is not self.options:
            cached = self._options = (self.options, self.options.to_dict())
        return cached[1]

    # ---- sending -----------------------------------------------------------------------------------

    def broadcast_room(self) -> None:
        self._ready_clocks()  # every change of seats, ready or owner is broadcast: the clocks follow it
        if not self.playing:  # 可验证发牌: the next match's first deal is committed to before it starts
            fair_deal.announce(self, self.services)
        frame = frames.room(self.state())
        for pid in self.humans():
            self.services.delivery.send(pid, frame)

    def chat(self, player_id: int, phrase: int) -> None:
        """Quick chat: one phrase of the fixed list to everyone seated, at most one per player every
        :data:`CHAT_INTERVAL` seconds (docs/protocol.md §3.1). :raises RoomError: ``chat_too_fast``."""
        seat = self._seated(player_id)
        now = time.monotonic()
        last = self.last_chat.get(player_id)
        if last is not None and now - last < CHAT_INTERVAL:
            wait = CHAT_INTERVAL - (now - last)
            raise RoomError("chat_too_fast", f"one chat message every {CHAT_INTERVAL:g} s; wait {wait:.1f} s")
        self.last_chat[player_id] = now
        frame = frames.chat(seat.index, phrase)
        for pid in self.humans():
            self.services.delivery.send(pid, frame)

    def sync(self, player_id: int) -> None:
        """Send the player the room and, while a match is on, the ``game`` snapshot of the hand."""
        self.services.delivery.send(player_id, frames.room(self.state()))
        self._send_snapshot(player_id)

    def _send_snapshot(self, player_id: int) -> None:
        seat = self.seat_of(player_id)
        if seat is not None and self.match is not None and not self.match.finished:
            self.match.send_snapshot(seat)

    async def _persist_seats(self) -> None:
        seats = [store.RoomSeatRow(s.player_id, s.bot, s.ready) for s in self.seats]
        await self.services.db.run(store.save_room(self.id, self.status, self.owner_id, seats))

    # ---- membership --------------------------------------------------------------------------------

    async def join(self, player_id: int, seat_index: int | None) -> None:
        async with self.lock:
            if self.status == "closed":
                raise RoomError("not_found", f"room {self.code} is closed", 404)
            if self.seat_of(player_id) is not None:
                return
            if self.kind == "public":  # 匹配 seats players; a public table's code is no key to it
                raise RoomError("not_found", f"no open room {self.code!r}", 404)
            if self.playing:
                raise RoomError("room_started", f"room {self.code} is playing a match; join when it ends")
            if self.kind == "quick":
                raise RoomError("room_full", "a quick-play table cannot be joined")
            seat = self._free_seat(seat_index)
            club = self.kind == "club"  # 亲友圈: sitting down is being ready; a full table starts (decisions.md)
            seat.player_id, seat.bot, seat.ready, seat.auto, seat.auto_reason = (player_id, None, club, False, None)
            seat.brain = None
            if self.owner_id is None and not club:
                self.owner_id = player_id
            await self._persist_seats()
            if club:
                await self._maybe_start()
            if not self.playing:
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
        """The player leaves; returns the 逃跑 penalty paid (None if there was none). When the last player
        leaves a room with no match on, the room closes (:attr:`closed`)."""
        async with self.lock:
            seat = self.seat_of(player_id)
            if seat is None:
                return None
            return await self._vacate(seat)

    async def _vacate(self, seat: SeatState) -> int | None:
        """The seat's player goes (the lock is held); the 逃跑 penalty paid, or None."""
        player_id = seat.player_id
        penalty = None
        if self.match is not None and not self.match.finished:
            penalty = await self.match.leave(seat.index)
        seat.player_id, seat.ready, seat.auto, seat.auto_reason, seat.brain = (None, False, False, None, None)
        if self.owner_id == player_id:
            humans = self.humans()
            self.owner_id = humans[0] if humans else None
        if not self.humans() and not self.playing:
            await self._close()
            return penalty
        await self._persist_seats()
        self.broadcast_room()
        return penalty

    # ---- the ready timeout (issue 12 item 5) -----------------------------------------------------------

    def _ready_clocks(self) -> None:
        """Before the room's first match, each seated player but the owner who is not ready has
        ``ready_seconds`` to say so (a clock that starts when it sits down or says not ready); every other
        seat has no clock. A running clock is kept, not restarted."""
        seconds = self.services.settings.ready_seconds
        for seat in self.seats:
            wanted = (
                seconds > 0
                and self.first_match_pending
                and not self.closed
                and seat.player_id is not None
                and seat.player_id != self.owner_id
                and not seat.ready
            )
            if wanted and seat.ready_by is None:
                seat.ready_by = time.time() + seconds
                loop = asyncio.get_running_loop()
                self._ready_timers[seat.index] = loop.call_later(seconds, self._ready_due, seat, seat.ready_by)
            elif not wanted and seat.ready_by is not None:
                seat.ready_by = None
                timer = self._ready_timers.pop(seat.index, None)
                if timer is not None:
                    timer.cancel()

    def _ready_due(self, seat: SeatState, by: float) -> None:
        if seat.ready_by == by:
            self.services.tasks.spawn(self._release_unready(seat, by))

    async def _release_unready(self, seat: SeatState, by: float) -> None:
        """The seat's clock ran out: its player is stood up and told why (``kicked``, ``ready_timeout``)."""
        async with self.lock:
            player_id = seat.player_id
            if seat.ready_by != by or player_id is None or not self.first_match_pending:
                return  # ready meanwhile, or gone, or a match began
            seat.ready_by = None
            self._ready_timers.pop(seat.index, None)
            await self._vacate(seat)
        log(INFO, "seat released: not ready in time", room=self.code, seat=seat.index, player=player_id)
        if self.services.seating is not None:
            self.services.seating.released(self, player_id, self.services.settings.ready_seconds)

    # ---- owner tools (before a match) -----------------------------------------------------------------

    def _owner_seat_check(self, player_id: int, seat: int) -> SeatState:
        """The owner's request about ``seat`` before a match. :raises RoomError: otherwise."""
        self._seated(player_id)
        if self.kind != "private" or self.owner_id != player_id:
            raise RoomError("not_owner", "only the room's owner can do that")
        if self.playing:
            raise RoomError("room_started", "a match is being played")
        if not 0 <= seat < len(self.seats):
            raise RoomError("bad_request", f"no seat {seat} (seats 0–{len(self.seats) - 1})", 400)
        return self.seats[seat]

    async def check_kick(self, player_id: int, seat: int) -> int | None:
        """Kick ``seat``: a computer is removed here (None); a player's id is answered, for the hub to remove."""
        async with self.lock:
            target = self._owner_seat_check(player_id, seat)
            if target.player_id == player_id:
                raise RoomError("bad_request", "that is your own seat: leave the room instead", 400)
            if target.player_id is not None:
                return target.player_id
            if target.bot is None:
                raise RoomError("bad_request", f"seat {seat} is free", 400)
            target.bot, target.ready, target.brain = None, False, None
            await self._persist_seats()
            self.broadcast_room()
            return None

    async def give_owner(self, player_id: int, seat: int) -> None:
        async with self.lock:
            self._seated(player_id)
            if self.kind != "private" or self.owner_id != player_id:
                raise RoomError("not_owner", "only the room's owner can do that")
            if not 0 <= seat < len(self.seats) or self.seats[seat].player_id in (None, player_id):
                raise RoomError("bad_request", f"seat {seat} has no other player", 400)
            self.owner_id = self.seats[seat].player_id
            await self._persist_seats()
            self.broadcast_room()

    async def add_bot(self, player_id: int, seat: int, bot: str) -> None:
        async with self.lock:
            target = self._owner_seat_check(player_id, seat)
            if target.player_id is not None:
                raise RoomError("room_full", f"seat {seat} is taken")
            target.bot, target.ready, target.brain = bot, True, None
            await self._persist_seats()
            self.broadcast_room()

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
            if free and not self.options.bots_fill:
                raise RoomError(
                    "not_ready", f"{len(free)} seats are free and this room does not fill them with bots"
                )
            for s in free:
                s.bot, s.ready = self._bot_level(), True
            await self.start_match()

    async def rematch(self, player_id: int, take: Take | None = None) -> list[int]:
        """Ready for the next match (quick play and public tables fill free seats with computers). At a
        public table, once every player is ready, ``take(n)`` gives up to ``n`` players waiting for a table:
        they take the computers' (and free) seats — a computer leaving between hands is no 逃跑. The
        players seated that way."""
        async with self.lock:
            seat = self._seated(player_id)
            if self.playing:
                raise RoomError("room_started", "a match is being played")
            seat.ready = True
            newcomers: list[int] = []
            if take is not None and all(s.ready for s in self.seats if s.player_id is not None):
                open_seats = [s for s in self.seats if s.player_id is None]
                newcomers = await take(len(open_seats))
                for s, pid in zip(open_seats, newcomers, strict=False):
                    s.player_id, s.bot, s.ready, s.auto, s.auto_reason, s.brain = (pid, None, True, False, None, None)
            if self.kind in ("quick", "public"):
                for s in self.seats:
                    if s.free:
                        s.bot, s.ready = self._bot_level(), True
            await self._maybe_start()
            if not self.playing:
                await self._persist_seats()
                self.broadcast_room()
            return newcomers

    async def _maybe_start(self) -> None:
        if self.playing or any(s.free for s in self.seats):
            return
        if all(s.ready for s in self.seats if s.player_id is not None):
            await self.start_match()

    def _bot_level(self) -> str:
        """The level of the computers this room seats (a room of an older server chose none: the server's)."""
        return self.options.bot_level or self.services.settings.bot_name

    def _seated(self, player_id: int) -> SeatState:
        seat = self.seat_of(player_id)
        if seat is None:
            raise RoomError("not_in_room", f"you have no seat in room {self.code}")
        return seat

    async def _close(self) -> None:
        self.status = "closed"
        self.cancel_decisions()
        self._ready_clocks()  # closed: no clock runs
        await self._persist_seats()
        log(INFO, "room closed", room=self.code)

    async def close_if_idle(self, idle_for: float) -> bool:
        """Close a room nobody is connected to, with no match on, idle for ``idle_for`` seconds."""
        async with self.lock:
            if self.status == "closed" or self.playing:
                return False
            if any(self.services.delivery.online(pid) for pid in self.humans()):
                self.idle_since = time.monotonic()
                return False
            if time.monotonic() - self.idle_since < idle_for:
                return False
            await self._close()
            return True

    # ---- connections and 托管 -----------------------------------------------------------------------

    def connected(self, player_id: int) -> None:
        """The player's websocket is (back) up: 托管 begun by a disconnect or a time-out ends; everyone gets
        the room, and the player the ``game`` snapshot while a match is on."""
        seat = self.seat_of(player_id)
        if seat is None:
            return
        self.idle_since = time.monotonic()
        if seat.auto and seat.auto_reason in ("offline", "timeout"):
            self._auto_off(seat)
        if self.deal_seeds is not None:
            self.deal_seeds.forget_told(seat.index)  # a reload: the new page is told the commitment again
        self.broadcast_room()
        self._send_snapshot(player_id)

    def disconnected(self, player_id: int) -> None:
        """The player's websocket is gone: while a match is on, a bot plays the seat (托管) once
        ``offline_grace`` seconds have passed without the player coming back (a reload keeps its turn)."""
        seat = self.seat_of(player_id)
        if seat is None:
            return
        self.idle_since = time.monotonic()
        if self.playing and not seat.auto:
            grace = self.services.settings.offline_grace
            if grace <= 0:
                self._auto_on(seat, "offline")
            else:
                asyncio.get_running_loop().call_later(grace, self._offline_check, player_id)
        self.broadcast_room()

    def _offline_check(self, player_id: int) -> None:
        seat = self.seat_of(player_id)
        if seat is not None and self.playing and not seat.auto and not self.services.delivery.online(player_id):
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
        if self.match is not None and not self.match.finished:
            self.match.turns.bot_on(seat.index)

    def _auto_off(self, seat: SeatState) -> None:
        seat.auto, seat.auto_reason, seat.missed = False, None, 0
        if self.match is not None:
            self.match.turns.bot_off(seat.index)

    # ---- playing -----------------------------------------------------------------------------------

    async def act(
        self,
        player_id: int,
        action: Action,
        hand_id: int | None,
        seat_index: int | None,
        msg_id: MessageId | None = None,
        seq: int | None = None,
    ) -> None:
        """A player's action, checked: the current hand, the player's seat, its turn, the view it was chosen on
        (``seq``, when given: the seat was sent no newer frame since), then the engine."""
        async with self.lock:
            seat = self._seated(player_id)
            m = self.match
            if m is None or m.finished or m.hand.over:
                raise RoomError("no_hand", "no hand is being played")
            if hand_id is not None and hand_id != m.hand_id:
                raise RoomError("stale_hand", f"hand {hand_id} is not the current hand ({m.hand_id})")
            if seat_index is not None and seat_index != seat.index:
                raise RoomError("wrong_seat", f"seat {seat_index} is not yours (you sit at seat {seat.index})")
            if seat.index not in m.hand.deciding:
                raise RoomError("not_your_turn", f"seat {seat.index} has no decision to make now")
            if seq is not None and seq != m.sent.seq(seat.index):
                # chosen on an older view: a claim window that closed and opened on another card would take
                # a 过 or a 碰 meant for the card before (docs/protocol.md §3.3)
                raise RoomError(
                    "stale_view",
                    f"the action was chosen on frame {seq} of this hand, and frame {m.sent.seq(seat.index)} "
                    "has been sent since: choose again on the newest view",
                )
            was_auto, reason, missed = seat.auto, seat.auto_reason, seat.missed
            seat.auto, seat.auto_reason, seat.missed = False, None, 0  # playing yourself ends 托管
            try:
                await m.apply(seat.index, action, "player", msg_id)
            except IllegalActionError as exc:
                seat.auto, seat.auto_reason, seat.missed = was_auto, reason, missed
                raise RoomError("illegal_action", exc.reason) from None
            if was_auto:
                self.broadcast_room()

    def client_seed(self, player_id: int, commitment: str, seed: str) -> None:
        """``seed`` (issue 32): the player's client seed for the deal being prepared. Not under the lock: the
        deal waits for it holding the lock."""
        seat = self._seated(player_id)
        if self.deal_seeds is None:
            raise RoomError("stale_seed", "no deal is being prepared (the client seed came too late)")
        self.deal_seeds.offer(seat.index, player_id, commitment, seed)

    def cancel_decisions(self) -> None:
        """Stop every turn timer and bot turn (the room closes, or the server stops)."""
        if self.match is not None:
            self.match.turns.cancel()
        for timer in self._ready_timers.values():
            timer.cancel()
        self._ready_timers.clear()

    # ---- 解散房间 (R8.2): the vote is the room's DissolutionVotes --------------------------------------

    async def dissolution_request(self, player_id: int, *, withdraw: bool) -> None:
        """``dissolve`` (propose) or ``dissolve_withdraw`` (撤回 one's own open proposal)."""
        await self.votes.request(player_id, withdraw=withdraw)

    async def vote_dissolution(self, player_id: int, agree: bool) -> None:
        """``dissolve_vote``: a seated player answers the open proposal."""
        await self.votes.vote(player_id, agree)

    # ---- matches -------------------------------------------------------------------------------------

    async def start_match(self) -> None:
        """Start a match with the seats as they are (the lock is held)."""
        self.first_match_pending = False
        self._ready_clocks()
        game = await Game.create(self, self.services)
        self.match = game
        self.status = "playing"
        for s in self.seats:
            s.auto, s.auto_reason, s.missed = False, None, 0  # a player not connected yet gets the normal time
        await self._persist_seats()
        log(INFO, "match started", room=self.code, match=game.id, hands=game.engine.hands)
        await game.begin_hand()

    async def match_over(self) -> None:
        """The match's result is stored and sent: players get ready again, bots stay (the lock is held)."""
        self.status = "waiting"
        self.votes.match_ended()
        for s in self.seats:
            s.ready = s.bot is not None
            s.auto, s.auto_reason, s.missed = False, None, 0
        await self._persist_seats()
        self.broadcast_room()

    async def resume(self, data: store.StoredMatch) -> None:
        """Rebuild the match on from the database (rules, seeds, action log) and carry on playing.

        Every seat starts offline without 托管 and gets its full time again (docs/protocol.md §3.4)."""
        async with self.lock:
            game = Game.restore(self, self.services, data)
            self.match = game
            self.status = "playing"
            self.votes.restore(data.dissolution)
            await game.carry_on(data)
            log(INFO, "match resumed", room=self.code, match=game.id, hand=game.hand_id, seq=game.seq)
