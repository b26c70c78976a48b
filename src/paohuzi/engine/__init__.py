"""The game engine: complete, deterministic hands (一局) and matches (一场). R2, R4, R5, R6.3–R7.3.

>>> from paohuzi.rules import find_preset
>>> from paohuzi.engine import Hand, replay
>>> hand = Hand(find_preset("qq"), seed=42)
>>> while not hand.over:
...     seat = hand.deciding[0]
...     _ = hand.apply(seat, hand.legal_actions(seat)[-1])
>>> sum(hand.outcome.payments)
0
>>> replay(hand.record()).events == hand.events
True

See ``docs/engine.md`` for the action notation, the events, the observation and the record format.
"""

from __future__ import annotations

from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionKind, IllegalActionError
from paohuzi.engine.deck import RNG_VERSION, DeckError, seats_in_play, stack_deck
from paohuzi.engine.events import EVERYONE, Event, for_seats
from paohuzi.engine.fair import (
    FAIR_RNG_VERSION,
    SERVER_SEED_BYTES,
    FairError,
    FairSeed,
    commitment_of,
    fair_shuffled,
    parse_client_seed,
)
from paohuzi.engine.hand import EngineError, Hand, Outcome
from paohuzi.engine.match import HandResult, Match, MatchError, replay_match
from paohuzi.engine.observation import (
    ChouKinds,
    Hidden,
    Observation,
    ObservationError,
    OutcomeKind,
    Pending,
    Phase,
    RowCard,
    WinHow,
)
from paohuzi.engine.record import READABLE_VERSIONS, replay
from paohuzi.engine.records import CLASSIC_FORMAT_VERSION, FORMAT_VERSION, HandRecord, MatchRecord, ReplayError
from paohuzi.engine.verify import Verdict, verify_record

__all__ = [
    "Hand",
    "Match",
    "Action",
    "ActionKind",
    "Event",
    "for_seats",
    "EVERYONE",
    "Outcome",
    "Observation",
    "ObservationError",
    "Hidden",
    "Phase",
    "OutcomeKind",
    "WinHow",
    "Pending",
    "RowCard",
    "ChouKinds",
    "IllegalActionError",
    "EngineError",
    "MatchError",
    "ReplayError",
    "DeckError",
    "replay",
    "replay_match",
    "HandRecord",
    "MatchRecord",
    "HandResult",
    "stack_deck",
    "seats_in_play",
    "RNG_VERSION",
    "FAIR_RNG_VERSION",
    "FairSeed",
    "FairError",
    "commitment_of",
    "fair_shuffled",
    "parse_client_seed",
    "SERVER_SEED_BYTES",
    "Verdict",
    "verify_record",
    "FORMAT_VERSION",
    "CLASSIC_FORMAT_VERSION",
    "READABLE_VERSIONS",
    "HU",
    "PENG",
    "PASS",
]
