"""The server's side of the wire (docs/protocol.md §3.2): one typed builder per server → client frame, the
refusal every request can get (:class:`RoomError`, the codes of §3.3), and the delivery port a room sends
through.

Inbound frames are checked in :mod:`paohuzi.server.protocol`; outbound frames are built here, so that the
shape of every frame the server sends is written down once, as a ``TypedDict``.

>>> pong(7, 1767000000000)
{'type': 'pong', 'server_time': 1767000000000, 'id': 7}
>>> error("not_in_room", "you are in no room")
{'type': 'error', 'code': 'not_in_room', 'message': 'you are in no room'}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict

if TYPE_CHECKING:
    from paohuzi.engine import Observation, Outcome

__all__ = [
    "ClubGoneFrame",
    "ClubTable",
    "ClubTablesFrame",
    "DealCommitFrame",
    "Delivery",
    "ErrorFrame",
    "Frame",
    "GameFrame",
    "HandOverFrame",
    "MatchInfo",
    "MatchOverFrame",
    "MessageId",
    "PlayerCard",
    "PlayerCounts",
    "PlayerProfile",
    "PongFrame",
    "QueueFrame",
    "QueueInfo",
    "RoomError",
    "RoomFrame",
    "RoomOptionsData",
    "RoomState",
    "SeatInfo",
    "TimerInfo",
    "UpdateFrame",
    "WaitInfo",
    "WelcomeFrame",
    "club_gone",
    "club_tables",
    "deal_commit",
    "error",
    "game",
    "hand_over",
    "match_over",
    "pong",
    "queue",
    "room",
    "update",
    "welcome",
]

MessageId = str | int
View = dict[str, Any]  # a seat's observation on the wire: Observation.to_dict() (docs/engine.md §5)


class RoomError(Exception):
    """A refused room or game request: ``code`` (docs/protocol.md §3.3), a message, and the HTTP status."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


# ---- parts of frames --------------------------------------------------------------------------------


class PlayerCard(TypedDict):
    """What a room shows of a seated player."""

    id: int
    nickname: str
    title: str
    points: int


class PlayerCounts(TypedDict):
    """What every view of a player shows: who, and the counts anyone may see (the profiles below extend it)."""

    id: int
    nickname: str
    points: int
    hands_played: int
    hands_won: int
    matches_played: int
    beans: int


class PlayerProfile(PlayerCounts):
    """Profile (docs/protocol.md §2): a player's row and its R7.4 title (``welcome``, ``GET /api/me``)."""

    created_at: str | None
    title: str


class SeatInfo(TypedDict):
    seat: int
    player: PlayerCard | None
    bot: str | None
    ready: bool
    connected: bool
    auto: bool
    ready_deadline: int | None
    ready_remaining_ms: int | None


class MatchInfo(TypedDict):
    id: int
    hand_no: int
    hands: int
    scores: list[int]
    hand_id: int
    dealer: int | None
    finished: bool
    ranking: list[int] | None
    leaver: int | None
    double_cards: list[int]  # seats whose 双倍积分卡 doubles the current hand (R7.3)


class RoomOptionsData(TypedDict):
    """A room's options as stored and sent (docs/protocol.md §2; :class:`paohuzi.server.room_options.RoomOptions`)."""

    preset: str
    four_players: bool
    hands: int
    stake: int
    turn_seconds: float
    claim_seconds: float
    bots_fill: bool
    hints: bool
    bot_level: str | None
    tier: str
    multiplier: int
    minimum: int
    rules: dict[str, Any]  # RuleSet.to_dict() (R8)


class RoomState(TypedDict):
    """RoomState (docs/protocol.md §2)."""

    code: str
    kind: str
    share_path: str | None  # None at a public table (匹配): its code is no key to it
    owner: int | None
    status: str
    options: RoomOptionsData
    seats: list[SeatInfo]
    match: MatchInfo | None
    dissolution: DissolutionInfo | None


class DissolutionInfo(TypedDict):
    """An open 解散房间 proposal (R8.2, docs/protocol.md §2)."""

    proposer: int  # seat
    votes: list[bool | None]  # per seat: agreed, refused, or not answered yet
    deadline: int  # server clock, ms since the epoch
    remaining_ms: int


class TimerInfo(TypedDict):
    seat: int
    kind: str  # discard | claim
    remaining_ms: int
    deadline: int
    auto: bool


class WaitInfo(TypedDict):
    card: str
    huxi: int
    points: int


# ---- frames -----------------------------------------------------------------------------------------


class WelcomeFrame(TypedDict):
    type: Literal["welcome"]
    protocol: int
    player: PlayerProfile
    server_time: int


class RoomFrame(TypedDict):
    type: Literal["room"]
    room: RoomState | None


class GameFrame(TypedDict):
    type: Literal["game"]
    match: int
    hand: int
    number: int
    hands: int
    seq: int
    seat: int
    view: View
    waits: list[WaitInfo]
    timers: list[TimerInfo]
    scores: list[int]
    auto: list[bool]
    over: bool
    deal: NotRequired[dict[str, object]]  # 可验证发牌 (issue 32): rng_version, commitment, no_seed


class DealCommitFrame(TypedDict):
    type: Literal["deal_commit"]
    number: int
    commitment: str
    seconds: float


class UpdateFrame(TypedDict):
    type: Literal["update"]
    hand: int
    seq: int
    events: list[dict[str, Any]]
    view: View
    waits: list[WaitInfo]
    timers: list[TimerInfo]
    auto: list[bool]
    id: NotRequired[MessageId]


class HandOverFrame(TypedDict):
    type: Literal["hand_over"]
    hand: int
    number: int
    outcome: dict[str, Any]
    scores: list[int]
    deltas: list[int]
    beans: list[int]  # each seat's change of 欢乐豆 (issue 13 §2; 0 at multiplier-0 tables)
    double_cards: list[int]  # seats whose 双倍积分卡 was active in this hand (R7.3: own gain × 2)
    view: View
    replay: str
    replay_code: str
    deal: NotRequired[dict[str, object]]  # 可验证发牌 (issue 32): the seeds revealed and the dealt cards


class MatchOverFrame(TypedDict):
    type: Literal["match_over"]
    match: int
    status: str
    scores: list[int]
    ranking: list[int]
    standings: list[dict[str, int]]
    leaver: int | None
    penalty: int | None
    void_hand: int | None  # 解散 (R8.2): the hand in play, voided; null when no hand was on


DissolutionResult = Literal["agreed", "refused", "expired", "withdrawn"]


class DissolutionFrame(TypedDict):
    type: Literal["dissolution"]
    result: DissolutionResult
    proposer: int
    by: int | None  # the seat that refused (or the proposer, withdrawn)


class ChatFrame(TypedDict):
    type: Literal["chat"]
    seat: int
    phrase: int


class KickedFrame(TypedDict):
    type: Literal["kicked"]
    room: str
    reason: Literal["owner", "ready_timeout"]
    seconds: NotRequired[int]


class QueueInfo(TypedDict):
    """Your place in a tier's queue for a public table (匹配, docs/protocol.md §3.8)."""

    tier: str
    preset: str  # the rule set the table will play (issue 29: one queue per preset and tier)
    multiplier: int
    minimum: int
    position: int  # 1: next to be seated
    waiting: int  # players waiting in this tier, you included
    waited_ms: int  # how long you have waited, when this was sent
    fill_ms: int  # after this long a computer takes each seat still free
    online: bool  # false: you are offline and keep your place until ``drop_ms`` passes
    drop_ms: int | None


class QueueFrame(TypedDict):
    type: Literal["queue"]
    queue: QueueInfo | None


class ClubSeat(TypedDict):
    seat: int
    player: int | None
    nickname: str | None
    connected: bool


class ClubTable(TypedDict):
    """One open table of a club (亲友圈, issue 31), as its members see it in the club's list."""

    code: str
    template: int | None
    name: str  # the template's name ("" for one since deleted)
    status: str  # waiting | playing
    seats: list[ClubSeat]
    hand_no: int | None  # while a match is on: hand n of N
    hands: int
    same_ip: list[int]  # 同IP: seats whose websockets share an address (never the address itself)


class ClubTablesFrame(TypedDict):
    type: Literal["club_tables"]
    club: str
    tables: list[ClubTable]
    finished: list[dict[str, Any]]  # MatchSummary (docs/protocol.md §2) of today's matches, newest first


class ClubGoneFrame(TypedDict):
    type: Literal["club_gone"]
    club: str
    reason: Literal["removed", "left", "dissolved"]


class PongFrame(TypedDict):
    type: Literal["pong"]
    server_time: int
    id: NotRequired[MessageId]


class ErrorFrame(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    id: NotRequired[MessageId]


Frame = (
    WelcomeFrame
    | RoomFrame
    | DealCommitFrame
    | GameFrame
    | UpdateFrame
    | HandOverFrame
    | MatchOverFrame
    | PongFrame
    | ErrorFrame
    | ChatFrame
    | KickedFrame
    | DissolutionFrame
    | QueueFrame
    | ClubTablesFrame
    | ClubGoneFrame
)


def welcome(protocol: int, player: PlayerProfile, server_time: int) -> WelcomeFrame:
    return {"type": "welcome", "protocol": protocol, "player": player, "server_time": server_time}


def room(state: RoomState | None) -> RoomFrame:
    """``room``: the room's state, or None once the player is in no room."""
    return {"type": "room", "room": state}


def game(  # noqa: PLR0913 (keyword-only builder, one parameter per field of the frame)
    *,
    match: int,
    hand: int,
    number: int,
    hands: int,
    seq: int,
    seat: int,
    view: Observation,
    waits: list[WaitInfo],
    timers: list[TimerInfo],
    scores: list[int],
    auto: list[bool],
    over: bool,
    deal: dict[str, object] | None = None,
) -> GameFrame:
    """``game``: the full snapshot of the hand for one seat."""
    frame: GameFrame = {
        "type": "game",
        "match": match,
        "hand": hand,
        "number": number,
        "hands": hands,
        "seq": seq,
        "seat": seat,
        "view": view.to_dict(),
        "waits": waits,
        "timers": timers,
        "scores": scores,
        "auto": auto,
        "over": over,
    }
    if deal is not None:
        frame["deal"] = deal
    return frame


def deal_commit(number: int, commitment: str, seconds: float) -> DealCommitFrame:
    """``deal_commit`` (issue 32): SHA-256 of hand ``number``'s server seed, before its deal; answer ``seed``."""
    return {"type": "deal_commit", "number": number, "commitment": commitment, "seconds": seconds}


def update(
    *,
    hand: int,
    seq: int,
    events: list[dict[str, Any]],
    view: Observation,
    waits: list[WaitInfo],
    timers: list[TimerInfo],
    auto: list[bool],
    msg_id: MessageId | None = None,
) -> UpdateFrame:
    """``update``; ``msg_id`` only in the frame for the seat whose own ``act`` caused it."""
    frame: UpdateFrame = {
        "type": "update",
        "hand": hand,
        "seq": seq,
        "events": events,
        "view": view.to_dict(),
        "waits": waits,
        "timers": timers,
        "auto": auto,
    }
    if msg_id is not None:
        frame["id"] = msg_id
    return frame


def hand_over(  # noqa: PLR0913 (keyword-only builder, one parameter per field of the frame)
    *,
    hand: int,
    number: int,
    outcome: Outcome,
    scores: list[int],
    deltas: list[int],
    view: Observation,
    code: str,
    beans: list[int] | None = None,
    double_cards: list[int] | None = None,
    deal: dict[str, object] | None = None,
) -> HandOverFrame:
    frame: HandOverFrame = {
        "type": "hand_over",
        "hand": hand,
        "number": number,
        "outcome": outcome.to_dict(),
        "scores": scores,
        "deltas": deltas,
        "beans": beans if beans is not None else [0] * len(deltas),
        "double_cards": double_cards or [],
        "view": view.to_dict(),
        "replay": f"/api/replays/{hand}",
        "replay_code": code,  # the hand's replay code (issue 12 item 4): anyone holding it may watch
    }
    if deal is not None:
        frame["deal"] = deal
    return frame


def match_over(
    *,
    match: int,
    status: str,
    scores: list[int],
    ranking: list[int],
    standings: list[dict[str, int]],
    leaver: int | None,
    penalty: int | None,
    void_hand: int | None = None,
) -> MatchOverFrame:
    return {
        "type": "match_over",
        "match": match,
        "status": status,
        "scores": scores,
        "ranking": ranking,
        "standings": standings,
        "leaver": leaver,
        "penalty": penalty,
        "void_hand": void_hand,
    }


def kicked(code: str, reason: Literal["owner", "ready_timeout"] = "owner", seconds: float = 0) -> KickedFrame:
    """Your seat in room ``code`` was released: by the ``owner``, or for not saying ``ready`` within
    ``seconds`` (``ready_timeout``, issue 12 item 5)."""
    frame: KickedFrame = {"type": "kicked", "room": code, "reason": reason}
    if reason == "ready_timeout":
        frame["seconds"] = round(seconds)
    return frame


def dissolution(result: DissolutionResult, proposer: int, by: int | None) -> DissolutionFrame:
    """How a 解散房间 proposal ended (R8.2): ``agreed`` (``match_over`` follows), ``refused`` by seat
    ``by``, ``expired`` (a connected player did not answer in time) or ``withdrawn`` (撤回) by its proposer."""
    return {"type": "dissolution", "result": result, "proposer": proposer, "by": by}


def chat(seat: int, phrase: int) -> ChatFrame:
    return {"type": "chat", "seat": seat, "phrase": phrase}


def queue(info: QueueInfo | None) -> QueueFrame:
    """``queue``: your place in a public tables' queue, or None once you are out of it (seated or left)."""
    return {"type": "queue", "queue": info}


def club_tables(club: str, tables: list[ClubTable], finished: list[dict[str, Any]]) -> ClubTablesFrame:
    """A watched club's tables (``club_watch``), sent at once and whenever they change."""
    return {"type": "club_tables", "club": club, "tables": tables, "finished": finished}


def club_gone(club: str, reason: Literal["removed", "left", "dissolved"]) -> ClubGoneFrame:
    """You are no member of ``club`` any more: nothing of it is sent to you from now on."""
    return {"type": "club_gone", "club": club, "reason": reason}


def pong(msg_id: MessageId | None, server_time: int) -> PongFrame:
    frame: PongFrame = {"type": "pong", "server_time": server_time}
    if msg_id is not None:
        frame["id"] = msg_id
    return frame


def error(code: str, message: str, msg_id: MessageId | None = None) -> ErrorFrame:
    """``error`` (docs/protocol.md §3.3): the one builder of error frames — the websocket's, the shared
    mode's relayed ones and a room's. ``msg_id``: the id of the frame refused; an id that cannot go out (a
    JSON ``\\ud800`` escape decodes to a lone surrogate, which UTF-8 cannot encode) is left out.

    >>> error("bad_message", "no", "\\ud800"), error("bad_message", "no", 0)["id"]
    ({'type': 'error', 'code': 'bad_message', 'message': 'no'}, 0)
    """
    frame: ErrorFrame = {"type": "error", "code": code, "message": message}
    if msg_id is not None and (not isinstance(msg_id, str) or _encodable(msg_id)):
        frame["id"] = msg_id
    return frame


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ---- the delivery port ------------------------------------------------------------------------------


class Delivery(Protocol):
    """How a room reaches its players: all it may know of the connections (the hub's
    :class:`~paohuzi.server.registry.Connections` is the implementation)."""

    def send(self, player: int, frame: Frame) -> None:
        """Queue ``frame`` for ``player``'s websocket; nothing if the player is offline."""

    def online(self, player: int) -> bool:
        """Whether ``player`` has a websocket open now."""
