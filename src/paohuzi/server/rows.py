"""The store's typed rows: what the database jobs (:mod:`paohuzi.server.store`) return and take — frozen
dataclasses of plain data, never ORM objects, so that they cross from the database thread to the event
loop safely. The API turns them into JSON with ``to_dict()``, typed by the ``TypedDict`` of that JSON
(docs/protocol.md §2).
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypedDict, cast

from paohuzi.scoring import level_title
from paohuzi.server.frames import PlayerCounts, PlayerProfile
from paohuzi.server.models import utcnow
from paohuzi.server.room_options import RoomOptions

__all__ = [
    "ActionLogRow",
    "ActionLogValues",
    "HandSummaryData",
    "MatchSeatSummaryData",
    "MatchSummaryData",
    "PlayerData",
    "PlayerProfile",
    "PublicProfile",
    "RankedProfile",
    "ReplayData",
    "ReplayHandData",
    "DissolutionData",
    "HandSummary",
    "MatchSeatRow",
    "MatchSeatSummary",
    "MatchSummary",
    "PlayerRow",
    "Replay",
    "ReplayHand",
    "RoomSeatRow",
    "StoredHand",
    "StoredMatch",
    "StoredRoom",
]


class PlayerData(PlayerCounts):
    """A player's row as JSON (the export's ``player``)."""

    created_at: str | None


class PublicProfile(PlayerCounts):
    """A profile as anyone may see it (``GET /api/players/{id}``): no ``created_at``."""

    title: str


class RankedProfile(PublicProfile):
    """A leaderboard's row (``GET /api/leaderboard``): the public profile and its rank."""

    rank: int


@dataclass(slots=True)
class PlayerRow:
    """A player as the server keeps it in memory (:class:`~paohuzi.server.registry.PlayerCards` updates the
    counts as hands end, like the database does)."""

    id: int
    nickname: str
    points: int
    hands_played: int
    hands_won: int
    matches_played: int
    created_at: str | None
    beans: int = 1000  # 欢乐豆 (issue 13 §2)

    def to_dict(self) -> PlayerData:
        """Profile (docs/protocol.md §2) without its ``title``."""
        return cast(PlayerData, asdict(self))

    def profile(self) -> PlayerProfile:
        """Profile (docs/protocol.md §2), with the R7.4 title of the player's points."""
        return {**self.to_dict(), "title": level_title(self.points)}

    def public(self) -> PublicProfile:
        """The profile anyone may see: without ``created_at``."""
        return {
            "id": self.id,
            "nickname": self.nickname,
            "points": self.points,
            "hands_played": self.hands_played,
            "hands_won": self.hands_won,
            "matches_played": self.matches_played,
            "beans": self.beans,
            "title": level_title(self.points),
        }


@dataclass(frozen=True, slots=True)
class RoomSeatRow:
    """Who sits in a room's seat between matches: a player or a bot (or nobody), and whether ready."""

    player_id: int | None
    bot: str | None
    ready: bool


@dataclass(frozen=True, slots=True)
class MatchSeatRow:
    """Who played a seat of a match, as it began: a player or a bot, and the name shown."""

    player_id: int | None
    bot: str | None
    nickname: str


class ActionLogValues(TypedDict):
    """An action log row's columns, for an insert."""

    hand_id: int
    seq: int
    seat: int
    action: str
    by: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ActionLogRow:
    """A row of the append-only action log (see :meth:`paohuzi.server.db.Database.append_action`)."""

    hand_id: int
    seq: int
    seat: int
    action: str
    by: str  # player | bot | auto (托管)
    created_at: datetime = field(default_factory=utcnow)

    def values(self) -> ActionLogValues:
        """The row's columns, for an insert.

        >>> ActionLogRow(7, 1, 0, "pass", "player").values()["action"]
        'pass'
        """
        return {
            "hand_id": self.hand_id,
            "seq": self.seq,
            "seat": self.seat,
            "action": self.action,
            "by": self.by,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class StoredHand:
    """A hand of a match on: what the engine needs to deal and play it again."""

    id: int
    number: int
    seed: int
    dealer: int | None
    status: str
    actions: list[tuple[int, str]]
    double_cards: list[int] = field(default_factory=list)  # seats whose 双倍积分卡 was active (R7.3)
    fair: dict[str, Any] | None = None  # 可验证发牌 (issue 32): the deal's seeds; None: dealt from ``seed``


class DissolutionData(TypedDict):
    """An open R8.2 解散房间 proposal as stored (:meth:`paohuzi.server.dissolve.Dissolution.to_dict`)."""

    proposer: int  # seat
    deadline: float  # seconds since the epoch
    votes: dict[str, bool]  # seat (as a JSON key) → agreed


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A match on, with its hands so far: what :meth:`paohuzi.server.game.Game.restore` rebuilds."""

    id: int
    seed: int
    rules: dict[str, Any]
    hands_total: int
    scores: list[int]
    seats: list[MatchSeatRow]
    hands: list[StoredHand]
    #: An open R8.2 解散房间 proposal (``Dissolution.to_dict``), kept in ``matches.result`` while playing.
    dissolution: DissolutionData | None = None


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """An open room with its seats and its match on (if any): what the hub rebuilds at start-up."""

    id: int
    code: str
    kind: str
    owner_id: int | None
    options: RoomOptions
    status: str
    seats: list[RoomSeatRow]
    match: StoredMatch | None


class MatchSeatSummaryData(TypedDict):
    seat: int
    player_id: int | None
    nickname: str
    bot: str | None
    score: int
    rank: int | None


class HandSummaryData(TypedDict):
    id: int
    number: int
    status: str
    winner: int | None
    points: int | None
    kind: str | None
    leaver: int | None
    payments: list[int] | None
    huxi: int | None
    names: list[dict[str, Any]] | None
    code: str | None
    zimo: bool | None


class MatchSummaryData(TypedDict):
    """MatchSummary (docs/protocol.md §2)."""

    id: int
    room_code: str | None
    preset: str | None
    started_at: str | None
    finished_at: str | None
    status: str
    seats: list[MatchSeatSummaryData]
    hands: list[HandSummaryData]


class ReplayHandData(TypedDict):
    id: int
    match_id: int
    number: int
    status: str
    started_at: str | None
    finished_at: str | None
    outcome: dict[str, Any] | None
    code: str | None


class ReplayData(TypedDict):
    """A finished hand (docs/protocol.md §2, Replays): ``hand`` and the engine's ``record``."""

    hand: ReplayHandData
    record: dict[str, Any]  # the engine's record (docs/record.schema.json)


@dataclass(frozen=True, slots=True)
class MatchSeatSummary:
    seat: int
    player_id: int | None
    nickname: str
    bot: str | None
    score: int
    rank: int | None


@dataclass(frozen=True, slots=True)
class HandSummary:
    id: int
    number: int
    status: str
    winner: int | None
    points: int | None
    kind: str | None = None  # hu / draw / escape; None while the hand is played
    leaver: int | None = None
    payments: list[int] | None = None
    huxi: int | None = None  # the win's 胡息
    names: list[dict[str, Any]] | None = None  # the win's 名堂: [{"name", "fan"}]
    code: str | None = None  # the replay code of a finished hand (only for the match's players)
    zimo: bool | None = None  # 自摸 (R6.3): the win was self-drawn; None unless a win


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """MatchSummary (docs/protocol.md §2)."""

    id: int
    room_code: str | None
    preset: str | None
    started_at: str | None
    finished_at: str | None
    status: str
    seats: list[MatchSeatSummary]
    hands: list[HandSummary]

    def to_dict(self) -> MatchSummaryData:
        return cast(MatchSummaryData, asdict(self))

    def private(self) -> MatchSummary:
        """The summary without its keys (the room code, each hand's replay code): for anyone who did not
        play the match (issue 14, issue 12 item 4)."""
        hands = [dataclasses.replace(h, code=None) for h in self.hands]
        return dataclasses.replace(self, room_code=None, hands=hands)


@dataclass(frozen=True, slots=True)
class ReplayHand:
    id: int
    match_id: int
    number: int
    status: str
    started_at: str | None
    finished_at: str | None
    outcome: dict[str, Any] | None
    code: str | None = None  # the replay code


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished hand (docs/protocol.md §2, Replays): ``hand`` and the engine's ``record``."""

    hand: ReplayHand
    record: dict[str, Any]

    def to_dict(self) -> ReplayData:
        return cast(ReplayData, asdict(self))
