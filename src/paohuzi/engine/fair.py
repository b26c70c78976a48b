"""Verifiable deals (可验证发牌, RNG version 2; issue 32, ``docs/engine.md`` §8 "The verifiable shuffle").

A hand dealt from a :class:`FairSeed` gets its dealer draw and its deck from a secret **server seed** and
one **client seed** per seat at the table, so neither the server alone nor any player alone chooses it.
The server commits to its seed before the deal (``commitment`` = SHA-256 of the server seed) and reveals
it with the client seeds when the hand is over; anyone can then recompute the deck (this module, or
``web/js/fair.js`` in a browser with Web Crypto) and check the commitment.

The derivation, byte for byte (the specification is ``docs/engine.md``; this is its reference):

- ``key`` = the server seed (32 bytes);
- ``prefix`` = ASCII ``paohuzi-deal-v2``, one byte: the number of seats at the table, then per seat in
  seat order one byte: the length of its client seed (0–32), then the client seed's bytes;
- block ``c`` (c = 0, 1, 2, …) = HMAC-SHA-256(key, prefix ‖ c as 4 bytes big-endian); the blocks one after
  the other are a stream of 32-bit big-endian words;
- ``uniform(n)``: read words until one is below ``2**32 - 2**32 % n`` (rejection sampling), then that word
  mod ``n``;
- the dealer is ``uniform(table size)`` (the first draw, always made; used only when no dealer is given,
  as with RNG version 1);
- then Fisher–Yates over the full deck in kind order: for ``i`` from the last index down to 1,
  ``j = uniform(i + 1)``, swap places ``i`` and ``j``. The result is the deck in deal order (R2).

The engine stays pure: the seeds come in, the deck comes out; drawing the server seed (``secrets``) and
collecting the client seeds are the server's.

>>> fair = FairSeed(bytes(32), (b"", bytes.fromhex("01ff"), b""))
>>> fair.commitment
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> fair_shuffled(fair, 3, None, tuple(range(8)))
(1, (3, 7, 0, 1, 6, 2, 4, 5))
>>> FairSeed.from_dict(fair.to_dict()) == fair
True
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from paohuzi.cards import PaohuziError

__all__ = [
    "FAIR_RNG_VERSION",
    "SERVER_SEED_BYTES",
    "CLIENT_SEED_MAX_BYTES",
    "FairError",
    "FairSeed",
    "commitment_of",
    "fair_shuffled",
    "parse_client_seed",
]

#: The record's ``rng_version`` of a hand dealt from a :class:`FairSeed`.
FAIR_RNG_VERSION = 2
SERVER_SEED_BYTES = 32
CLIENT_SEED_MAX_BYTES = 32
_DOMAIN = b"paohuzi-deal-v2"
_BLOCK_WORDS = struct.Struct(">8I")  # a SHA-256 block: eight 32-bit words, big-endian
_SPAN = 1 << 32
_HEX = frozenset("0123456789abcdefABCDEF")

T = TypeVar("T")


class FairError(PaohuziError):
    """A server seed, client seed or fair-deal record field that is not what the derivation takes."""


def commitment_of(server_seed: bytes) -> str:
    """``SHA-256(server seed)`` in lowercase hex: what every seat is sent before the deal."""
    return hashlib.sha256(server_seed).hexdigest()


def parse_client_seed(text: object, what: str = "client seed") -> bytes:
    """A client seed as sent and recorded: lowercase or uppercase hex, an even number of digits, at most
    32 bytes (64 digits); ``""`` is the empty seed (a computer seat, or a seat that sent none in time).

    :raises FairError: naming what is wrong.
    """
    if not isinstance(text, str):
        raise FairError(f"{what} must be a hex string, got {type(text).__name__}")
    if len(text) > 2 * CLIENT_SEED_MAX_BYTES:
        raise FairError(f"{what} is at most {CLIENT_SEED_MAX_BYTES} bytes ({2 * CLIENT_SEED_MAX_BYTES} hex digits)")
    if len(text) % 2 or any(ch not in _HEX for ch in text):
        raise FairError(f"{what} must be hex digits (two per byte), got {text[:70]!r}")
    return bytes.fromhex(text)


@dataclass(frozen=True, slots=True)
class FairSeed:
    """What a verifiable deal (RNG version 2) is drawn from: the server seed and each seat's client seed.

    :ivar server_seed: 32 secret bytes drawn by the server (revealed once the hand is over).
    :ivar client_seeds: per seat at the table, in seat order, 0–32 bytes (empty: a computer seat or a seat
        that sent none in time).
    """

    server_seed: bytes
    client_seeds: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.server_seed, bytes) or len(self.server_seed) != SERVER_SEED_BYTES:
            raise FairError(f"the server seed is {SERVER_SEED_BYTES} bytes")
        if not 1 <= len(self.client_seeds) <= 255:
            raise FairError("one client seed per seat at the table")
        for s, seed in enumerate(self.client_seeds):
            if not isinstance(seed, bytes) or len(seed) > CLIENT_SEED_MAX_BYTES:
                raise FairError(f"seat {s}'s client seed is at most {CLIENT_SEED_MAX_BYTES} bytes")

    @property
    def commitment(self) -> str:
        """``SHA-256(server seed)``, hex (:func:`commitment_of`)."""
        return commitment_of(self.server_seed)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``fair`` field: ``{"commitment", "server_seed", "client_seeds"}`` (hex strings)."""
        return {
            "commitment": self.commitment,
            "server_seed": self.server_seed.hex(),
            "client_seeds": [c.hex() for c in self.client_seeds],
        }

    @classmethod
    def from_dict(cls, data: object) -> FairSeed:
        """Read a record's ``fair`` field. The commitment is not checked here (:func:`check_commitment`).

        :raises FairError: naming the field that is missing or malformed.
        """
        if not isinstance(data, Mapping):
            raise FairError(f"record fair must be an object, got {type(data).__name__}")
        server = data.get("server_seed")
        if not isinstance(server, str) or len(server) != 2 * SERVER_SEED_BYTES:
            raise FairError(f"record fair.server_seed must be {2 * SERVER_SEED_BYTES} hex digits")
        clients = data.get("client_seeds")
        if not isinstance(clients, list):
            raise FairError("record fair.client_seeds must be a list (one hex string per seat)")
        return cls(
            parse_client_seed(server, "record fair.server_seed"),
            tuple(parse_client_seed(c, f"record fair.client_seeds[{s}]") for s, c in enumerate(clients)),
        )


def _prefix(fair: FairSeed) -> bytes:
    parts = [_DOMAIN, bytes([len(fair.client_seeds)])]
    for seed in fair.client_seeds:
        parts += [bytes([len(seed)]), seed]
    return b"".join(parts)


class _Words:
    """The stream of 32-bit words: HMAC-SHA-256 in counter mode. The HMAC of the prefix is computed once and
    copied for each block (HMAC is a running hash: copy + counter = HMAC(key, prefix ‖ counter))."""

    __slots__ = ("_mac", "_counter", "_block", "_pos")

    def __init__(self, fair: FairSeed) -> None:
        self._mac = hmac.new(fair.server_seed, _prefix(fair), hashlib.sha256)  # HMAC(key, prefix ‖ …)
        self._counter = 0
        self._block: tuple[int, ...] = ()  # the block's words, big-endian (all eight read at once: issue 33)
        self._pos = 0

    def next(self) -> int:
        if self._pos == len(self._block):
            mac = self._mac.copy()
            mac.update(self._counter.to_bytes(4, "big"))
            self._block = _BLOCK_WORDS.unpack(mac.digest())
            self._counter += 1
            self._pos = 0
        word = self._block[self._pos]
        self._pos += 1
        return word

    def uniform(self, n: int) -> int:
        """A number in ``0 … n-1``, every one equally likely (rejection sampling)."""
        limit = _SPAN - _SPAN % n
        word = self.next()
        while word >= limit:
            word = self.next()
        return word % n


def fair_shuffled(fair: FairSeed, table_size: int, dealer: int | None, cards: Sequence[T]) -> tuple[int, tuple[T, ...]]:
    """The dealer and the deck (``cards`` shuffled, in deal order) of a verifiable deal (RNG version 2).

    :param table_size: the seats at the table (``rules.players_at_table``): the dealer draw is over them.
    :param dealer: a dealer given (a match's later hands, R2); None: the one drawn here.
    :param cards: the full deck in kind order (:func:`paohuzi.cards.full_deck`).
    :raises FairError: when the client seeds are not one per seat at the table.
    """
    if len(fair.client_seeds) != table_size:
        raise FairError(f"one client seed per seat: {table_size} seats, {len(fair.client_seeds)} client seeds")
    words = _Words(fair)
    drawn = words.uniform(table_size)
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = words.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return (drawn if dealer is None else dealer), tuple(deck)
