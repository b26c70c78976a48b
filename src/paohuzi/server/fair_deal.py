"""Commit and reveal of a hand's deal at the server (可验证发牌, issue 32; docs/protocol.md §3.10).

Before a hand is dealt the room draws a secret server seed (:mod:`secrets`) and sends every seated player
``deal_commit`` with ``commitment`` = SHA-256(server seed). Each client answers ``seed`` with a random client
seed of its own (the web client does it by itself). A match's first deal is announced while the room waits
for its players (every room broadcast tells the players not told yet) and dealt at once when the match
starts; a later deal is announced when the hand before it is over, and waits for the players online at most
``settings.seed_wait`` seconds. A seat that sent none in time — a computer seat never sends one — is dealt
with the empty seed, which the ``game`` frame (``deal.no_seed``) and ``hand_over`` say. The deck then
comes from the server seed and every client seed together (:func:`paohuzi.engine.fair.fair_shuffled`), so
neither the server nor a player alone chooses it. The server seed is kept with the hand (``hands.fair``, so
another process or a restart finishes it) and revealed, with the client seeds, only in ``hand_over``, the
replay and the record. A client seed is never shown to another seat before the hand is over.

A later deal waits with the room's lock held (nothing else of the room happens between the commitment and
the deal); ``seed`` frames are taken without the lock (:meth:`DealSeeds.offer`).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Protocol

from paohuzi.engine import (
    FAIR_RNG_VERSION,
    RNG_VERSION,
    SERVER_SEED_BYTES,
    FairError,
    FairSeed,
    Hand,
    commitment_of,
    parse_client_seed,
)
from paohuzi.server import frames
from paohuzi.server.config import Settings
from paohuzi.server.frames import RoomError
from paohuzi.server.services import RoomServices
from paohuzi.server.turns import SeatState

__all__ = ["DealSeeds", "announce", "collect", "deal_info", "enabled", "first_deal", "reveal"]


class _Table(Protocol):
    seats: list[SeatState]
    deal_seeds: DealSeeds | None


def enabled(settings: Settings) -> bool:
    """Hands are dealt verifiably, except on a test server told to deal every match from one seed
    (``PAOHUZI_TEST_MATCH_SEED``: scripted deals, rng_version 1)."""
    return not (settings.testing and settings.test_match_seed >= 0)


class DealSeeds:
    """One deal's commitment, who was told it, and the client seeds sent for it."""

    def __init__(self, seats: int, number: int) -> None:
        self.server_seed = secrets.token_bytes(SERVER_SEED_BYTES)
        self.commitment = commitment_of(self.server_seed)
        self.number = number  # the hand's number in its match
        self.client: list[bytes] = [b""] * seats
        self.told: dict[int, int] = {}  # seat → the player sent ``deal_commit`` there
        self.sender: dict[int, int] = {}  # seat → the player whose seed it holds
        self._waiting: set[int] = set()  # told, no seed yet
        self._all_in = asyncio.Event()
        self.closed = False

    def tell(self, table: _Table, services: RoomServices) -> None:
        """Send ``deal_commit`` to every seated player online who was not sent it yet."""
        delivery = services.delivery
        for seat in table.seats:
            pid = seat.player_id
            if pid is None or self.told.get(seat.index) == pid or not delivery.online(pid):
                continue
            if self.sender.get(seat.index, pid) != pid:  # another player sits there now: its seed, not the last's
                self.client[seat.index] = b""
                del self.sender[seat.index]
            delivery.send(pid, frames.deal_commit(self.number, self.commitment, services.settings.seed_wait))
            self.told[seat.index] = pid
            if not self.client[seat.index]:
                self._waiting.add(seat.index)

    def forget_told(self, seat: int) -> None:
        """The seat's player is back (a reload): told again at the next :meth:`tell` if it sent no seed yet."""
        if not self.client[seat]:
            self.told.pop(seat, None)

    def offer(self, seat: int, player_id: int, commitment: str, text: str) -> None:
        """The ``seed`` frame of ``player_id``, at seat ``seat``.

        :raises RoomError: for a seed not for this deal, not hex, or a second one."""
        if self.closed or commitment != self.commitment:
            raise RoomError("stale_seed", "this client seed is not for the deal being prepared (it was dealt already)")
        try:
            seed = parse_client_seed(text)
        except FairError as exc:
            raise RoomError("bad_seed", str(exc)) from None
        if not seed:
            raise RoomError(
                "bad_seed", "a client seed has 1–32 bytes (the empty one is the server's for a seat that sends none)"
            )
        if self.client[seat]:
            raise RoomError("bad_seed", "this seat's client seed for the deal was already received")
        self.client[seat] = seed
        self.sender[seat] = player_id
        self._waiting.discard(seat)
        if not self._waiting:
            self._all_in.set()

    async def wait(self, seconds: float) -> None:
        """Until every seat told has sent its seed, at most ``seconds``."""
        if not self._waiting:
            return
        try:
            await asyncio.wait_for(self._all_in.wait(), seconds)
        except TimeoutError:
            pass

    def close(self) -> FairSeed:
        """No more seeds: the seeds the hand is dealt from."""
        self.closed = True
        return FairSeed(self.server_seed, tuple(self.client))


def announce(table: _Table, services: RoomServices) -> None:
    """While no match is on (room broadcasts): the commitment to the next match's first deal, drawn once and
    told to every seated player online not told yet, who answers it long before the match starts."""
    if not enabled(services.settings):
        return
    if table.deal_seeds is None:
        table.deal_seeds = DealSeeds(len(table.seats), 1)
    table.deal_seeds.tell(table, services)


async def first_deal(table: _Table, services: RoomServices) -> FairSeed | None:
    """The seeds of a match's first deal: the announced ones, at once — the message that starts a match (a
    ``ready``, ``start``, ``rematch``) holds its sender's websocket until it is answered, so no seed of that
    sender could arrive while it waited —, or, when nothing was announced, fresh ones collected."""
    if not enabled(services.settings):
        return None
    pending = table.deal_seeds
    if pending is not None and pending.number == 1 and not pending.closed and len(pending.client) == len(table.seats):
        table.deal_seeds = None
        pending.tell(table, services)  # a player seated at the last moment is told (its seed is empty)
        return pending.close()
    return await collect(table, services, 1)


async def collect(table: _Table, services: RoomServices, number: int) -> FairSeed | None:
    """Commit, wait for the client seeds, and give the seeds of deal ``number`` (None: not verifiable here,
    see :func:`enabled`). The room's lock is held; the hand before it is over."""
    if not enabled(services.settings):
        return None
    pending = DealSeeds(len(table.seats), number)
    table.deal_seeds = pending
    try:
        pending.tell(table, services)
        await pending.wait(services.settings.seed_wait)
    finally:
        table.deal_seeds = None
    return pending.close()


def _no_seed(hand: Hand, humans: list[bool]) -> list[int]:
    fair = hand.fair
    assert fair is not None
    return [s for s, seed in enumerate(fair.client_seeds) if humans[s] and not seed]


def deal_info(hand: Hand, humans: list[bool]) -> dict[str, object]:
    """What every seat is told of the deal during the hand (``game.deal``): the RNG version, and for a
    verifiable deal the commitment and the players' seats dealt with the empty seed (none in time).
    Nothing of the seeds themselves."""
    if hand.fair is None:
        return {"rng_version": RNG_VERSION}
    return {"rng_version": FAIR_RNG_VERSION, "commitment": hand.fair.commitment, "no_seed": _no_seed(hand, humans)}


def reveal(hand: Hand, humans: list[bool]) -> dict[str, object]:
    """``hand_over.deal``: once the hand is over, the seeds and the dealt cards, so that a client checks the
    deal itself (``web/js/fair.js``); a hand dealt from a seed says only ``rng_version`` 1."""
    if hand.fair is None:
        return {"rng_version": RNG_VERSION}
    return {
        **deal_info(hand, humans),
        **hand.fair.to_dict(),
        "table": hand.rules.players_at_table,
        "dealer": hand.dealer,
        "dealt": hand.dealt(),
    }
