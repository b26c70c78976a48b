"""解散房间 (R8.2): a seated player proposes to end the match by agreement; the vote, a part the room holds.

:class:`Dissolution` is an open proposal (it is stored with the match, so it survives a restart);
:class:`DissolutionVotes` proposes, counts the answers, times the proposal out and ends the match. The room
(:class:`~paohuzi.server.room.Room`) holds one and hands it what it works on: the table (:class:`VoteTable`,
the room's public side: its seats, its lock, its match) and the room's
:class:`~paohuzi.server.services.RoomServices` (the delivery port, the database, the settings, the tasks).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from paohuzi.server import frames, store
from paohuzi.server.frames import DissolutionInfo, RoomError
from paohuzi.server.logs import log
from paohuzi.server.rows import DissolutionData

if TYPE_CHECKING:
    from paohuzi.server.game import Game
    from paohuzi.server.services import RoomServices
    from paohuzi.server.turns import SeatState

__all__ = ["Dissolution", "DissolutionData", "DissolutionVotes", "VoteTable"]

INFO = 20


@dataclass
class Dissolution:
    """An open 解散房间 proposal (R8.2): who proposed, until when (wall clock, so that it survives a restart)
    and each seat's answer so far (the proposer and computer seats agree at once).

    >>> Dissolution.from_dict(Dissolution(1, 1767000000.5, {0: True, 1: True}).to_dict())
    Dissolution(proposer=1, deadline=1767000000.5, votes={0: True, 1: True})
    """

    proposer: int
    deadline: float  # seconds since the epoch
    votes: dict[int, bool] = field(default_factory=dict)

    def to_dict(self) -> DissolutionData:
        return {
            "proposer": self.proposer,
            "deadline": self.deadline,
            "votes": {str(k): v for k, v in self.votes.items()},
        }

    @classmethod
    def from_dict(cls, data: DissolutionData) -> Dissolution:
        votes = {int(k): bool(v) for k, v in dict(data.get("votes") or {}).items()}
        return cls(int(data["proposer"]), float(data["deadline"]), votes)

    def info(self, seats: int) -> DissolutionInfo:
        remaining = max(0, int((self.deadline - time.time()) * 1000))
        return {
            "proposer": self.proposer,
            "votes": [self.votes.get(i) for i in range(seats)],
            "deadline": int(self.deadline * 1000),
            "remaining_ms": remaining,
        }


class VoteTable(Protocol):
    """The room, as its 解散 vote sees it: public members only."""

    code: str
    kind: str
    seats: list[SeatState]
    lock: asyncio.Lock  # the room's: every change of the vote holds it
    match: Game | None

    @property
    def playing(self) -> bool:
        """A match is on (not finished)."""

    def broadcast_room(self) -> None:
        """Send every seated player the room's state (which shows the open proposal)."""


class DissolutionVotes:
    """The room's 解散房间 vote (R8.2): the open proposal (:attr:`proposal`) and when each player's last one
    ended. Every public method holds the table's lock; the room calls :meth:`match_ended` and
    :meth:`restore` with it held."""

    def __init__(self, table: VoteTable, services: RoomServices) -> None:
        self.table = table
        self.services = services
        self.proposal: Dissolution | None = None  # the open proposal
        self.proposal_ended: dict[int, float] = {}  # player id → when its last proposal ended (monotonic)

    def info(self) -> DissolutionInfo | None:
        """The open proposal as the room's state shows it (docs/protocol.md §2), or None."""
        return self.proposal.info(len(self.table.seats)) if self.proposal is not None else None

    def match_ended(self) -> None:
        """The match ended otherwise (its last hand, or 逃跑): no vote is left open."""
        if self.proposal is not None:
            self._end_proposal()

    def restore(self, data: DissolutionData | None) -> None:
        """The proposal stored with a match resumed after a restart (if any): open again, its clock on."""
        if data is not None:
            self.proposal = Dissolution.from_dict(data)
            self._dissolution_timer(self.proposal)

    async def request(self, player_id: int, *, withdraw: bool) -> None:
        """``dissolve`` (propose) or ``dissolve_withdraw`` (撤回 one's own open proposal)."""
        await (self.withdraw(player_id) if withdraw else self.propose(player_id))

    async def withdraw(self, player_id: int) -> None:
        """撤回: the proposer takes back its open proposal. It ends like a refusal (R8.2: the match goes on,
        and the proposer may propose again only after 30 s); everybody is told (``withdrawn``)."""
        async with self.table.lock:
            seat = self._seated(player_id)
            proposal = self.proposal
            if proposal is None:
                raise RoomError("no_dissolution", "there is no proposal to dissolve the match")
            if proposal.proposer != seat.index:
                raise RoomError("not_proposer", "only the player who proposed to dissolve the match may withdraw it")
            self._end_proposal()
            await self._save_proposal()
            self._send_all(frames.dissolution("withdrawn", proposal.proposer, seat.index))
            log(INFO, "dissolution withdrawn", room=self.table.code, seat=seat.index)
            self.table.broadcast_room()

    async def propose(self, player_id: int) -> None:
        """A seated player proposes to end the match by agreement (R8.2): every other seated player is
        asked; computer seats agree at once. Alone with computers, the match ends at once."""
        async with self.table.lock:
            seat = self._seated(player_id)
            if self.table.kind == "public":  # strangers at a tier's table: leaving a hand is 逃跑 (docs/decisions.md)
                raise RoomError("dissolve_off", "a public table cannot be dissolved; leaving a hand is 逃跑 (R7.3)")
            if not self.table.playing:
                raise RoomError("no_match", "no match is being played")
            if self.proposal is not None:
                raise RoomError("dissolve_open", "a proposal to dissolve the match is already open")
            ended = self.proposal_ended.get(player_id)
            again = self.services.settings.dissolve_again  # R8.2: 30 s
            if ended is not None and time.monotonic() - ended < again:
                wait = again - (time.monotonic() - ended)
                raise RoomError(
                    "dissolve_too_soon",
                    f"you may propose again {again:g} s after your last proposal; wait {wait:.0f} s",
                )
            votes = {s.index: True for s in self.table.seats if s.index == seat.index or s.player_id is None}
            proposal = Dissolution(seat.index, time.time() + self.services.settings.dissolve_seconds, votes)
            self.proposal = proposal
            log(INFO, "dissolution proposed", room=self.table.code, seat=seat.index)
            if len(votes) == len(self.table.seats):
                await self._dissolve(proposal)
                return
            await self._save_proposal()
            self._dissolution_timer(proposal)
            self.table.broadcast_room()

    async def vote(self, player_id: int, agree: bool) -> None:
        """A seated player answers the open proposal: one refusal cancels it; the last agreement ends the
        match (R8.2)."""
        async with self.table.lock:
            seat = self._seated(player_id)
            proposal = self.proposal
            if proposal is None:
                raise RoomError("no_dissolution", "there is no proposal to dissolve the match")
            if seat.index in proposal.votes:
                raise RoomError("already_voted", "you have already answered this proposal")
            if not agree:
                self._end_proposal()
                await self._save_proposal()
                self._send_all(frames.dissolution("refused", proposal.proposer, seat.index))
                log(INFO, "dissolution refused", room=self.table.code, seat=seat.index)
                self.table.broadcast_room()
                return
            proposal.votes[seat.index] = True
            if len(proposal.votes) == len(self.table.seats):
                await self._dissolve(proposal)
                return
            await self._save_proposal()
            self.table.broadcast_room()

    def _dissolution_timer(self, proposal: Dissolution) -> None:
        delay = max(0.0, proposal.deadline - time.time())
        asyncio.get_running_loop().call_later(
            delay, lambda: self.services.tasks.spawn(self._dissolution_timeout(proposal))
        )

    async def _dissolution_timeout(self, proposal: Dissolution) -> None:
        """The proposal's 60 s are up: a seat offline or under 托管 that did not answer agrees (R8.2); if a
        connected player did not answer, the proposal lapses (``expired``)."""
        async with self.table.lock:
            if self.proposal is not proposal or not self.table.playing:
                return
            delivery = self.services.delivery
            for s in self.table.seats:
                if s.index not in proposal.votes and s.player_id is not None:
                    if s.auto or not delivery.online(s.player_id):
                        proposal.votes[s.index] = True
            if len(proposal.votes) == len(self.table.seats):
                await self._dissolve(proposal)
                return
            self._end_proposal()
            await self._save_proposal()
            self._send_all(frames.dissolution("expired", proposal.proposer, None))
            log(INFO, "dissolution expired", room=self.table.code)
            self.table.broadcast_room()

    async def _dissolve(self, proposal: Dissolution) -> None:
        """Everyone agreed: the hand in play is void and the match ends with its summary; nobody pays 逃跑
        (R8.2). The lock is held."""
        self._end_proposal()
        self._send_all(frames.dissolution("agreed", proposal.proposer, None))
        log(INFO, "match dissolved", room=self.table.code)
        assert self.table.match is not None
        await self.table.match.dissolve()

    def _end_proposal(self) -> None:
        proposal = self.proposal
        self.proposal = None
        if proposal is not None:
            proposer = self.table.seats[proposal.proposer].player_id
            if proposer is not None:
                self.proposal_ended[proposer] = time.monotonic()

    async def _save_proposal(self) -> None:
        if self.table.match is not None:
            data = self.proposal.to_dict() if self.proposal is not None else None
            await self.services.db.run(store.save_dissolution(self.table.match.id, data))

    def _seated(self, player_id: int) -> SeatState:
        for seat in self.table.seats:
            if seat.player_id == player_id:
                return seat
        raise RoomError("not_in_room", f"you have no seat in room {self.table.code}")

    def _send_all(self, frame: frames.Frame) -> None:
        for seat in self.table.seats:
            if seat.player_id is not None:
                self.services.delivery.send(seat.player_id, frame)
