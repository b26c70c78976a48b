"""Commit and reveal of a hand's deal at the server (可验证发牌, issue 32; docs/protocol.md §3.10).

Before a hand is dealt the room draws a secret server seed (:mod:`secrets`) and sends every seated player
``deal_commit`` with ``commitment`` = SHA-256(server seed). Each client answers ``seed`` with a random client
seed of its own (the web client does it by itself); the room waits for the players online at most
``settings.seed_wait`` seconds, and a seat that sent none in time — a computer seat never sends one — is
dealt with the empty seed, which the ``game`` frame (``deal.no_seed``) and ``hand_over`` say. The deck then
comes from the server seed and every client seed together (:func:`paohuzi.engine.fair.fair_shuffled`), so
neither the server nor a player alone chooses it. The server seed is kept with the hand (``hands.fair``, so
another process or a restart finishes it) and revealed, with the client seeds, only in ``hand_over``, the
replay and the record. A client seed is never shown to another seat before the hand is over.

The room waits with its lock held (nothing else of the room may happen between the commitment and the
deal); ``seed`` frames are taken without the lock (:meth:`DealSeeds.offer`).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any, Protocol

from paohuzi.engine import FAIR_RNG_VERSION, RNG_VERSION, FairError, FairSeed, Hand, commitment_of
from paohuzi.engine.fair import SERVER_SEED_BYTES, parse_client_seed
from paohuzi.server.config import Settings
from paohuzi.server import frames
from paohuzi.server.frames import RoomError
from paohuzi.server.services import RoomServices
from paohuzi.server.turns import SeatState

__all__ = ["DealSeeds", "collect", "deal_info", "enabled", "reveal"]


class _Table(Protocol):
    seats: list[SeatState]
    deal_seeds: DealSeeds | None


def enabled(settings: Settings) -> bool:
    """Hands are dealt verifiably, except on a test server told to deal every match from one seed
    (``PAOHUZI_TEST_MATCH_SEED``: scripted deals, rng_version 1)."""
    return not (settings.testing and settings.test_match_seed >= 0)


class DealSeeds:
    """One hand's commitment and the client seeds sent for it."""

    def __init__(self, seats: int, waiting: set[int], number: int) -> None:
        self.server_seed = secrets.token_bytes(SERVER_SEED_BYTES)
        self.commitment = commitment_of(self.server_seed)
        self.number = number  # the hand's number in its match
        self.client: list[bytes] = [b""] * seats
        self._waiting = set(waiting)
        self._all_in = asyncio.Event()
        self.closed = False
        if not self._waiting:
            self._all_in.set()

    def offer(self, seat: int, commitment: str, text: str) -> None:
        """Seat ``seat``'s ``seed`` frame. :raises RoomError: for a seed not for this deal or not hex."""
        if self.closed or commitment != self.commitment:
            raise RoomError("stale_seed", "this client seed is not for the deal being prepared (it was dealt already)")
        try:
            seed = parse_client_seed(text)
        except FairError as exc:
            raise RoomError("bad_seed", str(exc)) from None
        if not seed:
            raise RoomError("bad_seed", "a client seed has 1–32 bytes (the empty one is the server's for a seat that sends none)")
        if self.client[seat]:
            raise RoomError("bad_seed", "this seat's client seed for the deal was already received")
        self.client[seat] = seed
        self._waiting.discard(seat)
        if not self._waiting:
            self._all_in.set()

    async def wait(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._all_in.wait(), seconds)
        except TimeoutError:
            pass

    def close(self) -> FairSeed:
        """No more seeds: the seeds the hand is dealt from."""
        self.closed = True
        return FairSeed(self.server_seed, tuple(self.client))


async def collect(table: _Table, services: RoomServices, number: int) -> FairSeed | None:
    """Commit, wait for the client seeds, and give the seeds of the next deal (None: not verifiable here,
    see :func:`enabled`). The room's lock is held."""
    if not enabled(services.settings):
        return None
    delivery = services.delivery
    online = {s.index for s in table.seats if s.player_id is not None and delivery.online(s.player_id)}
    pending = DealSeeds(len(table.seats), online, number)
    table.deal_seeds = pending
    seconds = services.settings.seed_wait
    try:
        for seat in table.seats:
            if seat.player_id is not None:
                delivery.send(seat.player_id, frames.deal_commit(number, pending.commitment, seconds))
        await pending.wait(seconds)
    finally:
        table.deal_seeds = None
    return pending.close()


def _no_seed(hand: Hand, humans: list[bool]) -> list[int]:
    fair = hand.fair
    assert fair is not None
    return [s for s, seed in enumerate(fair.client_seeds) if humans[s] and not seed]


def deal_info(hand: Hand, humans: list[bool]) -> dict[str, Any]:
    """What every seat is told of the deal during the hand (``game.deal``): the RNG version, and for a
    verifiable deal the commitment and the players' seats dealt with the empty seed (none in time).
    Nothing of the seeds themselves."""
    if hand.fair is None:
        return {"rng_version": RNG_VERSION}
    return {"rng_version": FAIR_RNG_VERSION, "commitment": hand.fair.commitment, "no_seed": _no_seed(hand, humans)}


def reveal(hand: Hand, humans: list[bool]) -> dict[str, Any]:
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
