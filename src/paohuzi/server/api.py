"""The lobby HTTP API (docs/protocol.md §2): guests, profiles, rooms, history, leaderboard, replays.

Every error is ``{"error": {"code", "message"}}`` (see :func:`paohuzi.server.app.create_app`). Every answer
is typed by a ``TypedDict`` of its JSON; FastAPI encodes it as any JSON object (``response_model=AS_JSON``:
a ``TypedDict`` as the response model would have FastAPI re-validate the answer and drop what it does not
list).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, NotRequired, TypedDict

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from paohuzi import __version__
from paohuzi.bots import levels
from paohuzi.engine import replay
from paohuzi.rules import RuleSet, family_options, find_preset, preset_names
from paohuzi.server import economy, profile_store, store
from paohuzi.server import protocol as p
from paohuzi.server.frames import (
    PlayerProfile,
    QueueInfo,
    RoomState,
)
from paohuzi.server.hub import Hub
from paohuzi.server.limits import Limits
from paohuzi.server.room import Room, RoomError
from paohuzi.server.rows import MatchSummaryData, PublicProfile, RankedProfile, ReplayHandData

__all__ = ["AS_JSON", "router", "health_router"]

router = APIRouter(prefix="/api")
health_router = APIRouter()
_bearer = HTTPBearer(auto_error=False, description="the guest token from POST /api/guests")

#: The response model of every route: the answer is JSON we built (its ``TypedDict`` says what), encoded as is.
AS_JSON = dict[str, Any]


class RoomView(RoomState):
    """RoomState (docs/protocol.md §2) with the room's ``share_url``."""

    share_url: str | None


class RoomAnswer(TypedDict):
    room: RoomView


class MeAnswer(TypedDict):
    player: PlayerProfile
    room: RoomView | None


class ProfileAnswer(TypedDict):
    player: PlayerProfile


class GuestAnswer(TypedDict):
    token: str
    player: PlayerProfile


class Health(TypedDict):
    status: str
    version: str
    database: str
    rooms: int
    connections: int


class HistoryAnswer(TypedDict):
    matches: list[MatchSummaryData]


class PublicProfileAnswer(TypedDict):
    player: PublicProfile


class LeaderboardAnswer(TypedDict):
    players: list[RankedProfile]


class PresetInfo(TypedDict):
    name: str
    title: str
    family: str  # R9: "classic", "changde", "shihuka" (issue 29)
    # the house options a room of this preset may set, each with its allowed values (R8.1, R9)
    family_options: dict[str, list[bool | int | str]]
    rules: dict[str, Any]  # RuleSet.to_dict() (R8)


class RoomDefaults(TypedDict):
    preset: str
    four_players: bool
    hands: int
    stake: int | None  # None: the preset's
    turn_seconds: float
    claim_seconds: float
    bots_fill: bool
    hints: bool
    bot_level: str


class RoomOptionsInfo(TypedDict):
    defaults: RoomDefaults
    levels: list[dict[str, Any]]  # paohuzi.bots.levels.to_dict()
    bounds: dict[str, list[float]]
    quick_hands: int


class PresetsAnswer(TypedDict):
    presets: list[PresetInfo]
    room_options: RoomOptionsInfo


class LeftAnswer(TypedDict):
    left: str
    penalty: int | None


class TierWaiting(TypedDict):
    name: str
    title: str
    multiplier: int
    minimum: int
    waiting: int  # in every preset's queue of the tier
    by_preset: dict[str, int]  # issue 29: how many wait for each preset of ``presets``


class QueueStatus(TypedDict):
    queue: QueueInfo | None
    tiers: list[TierWaiting]
    presets: list[str]  # the presets with a 匹配 queue (the server's match_presets), the default first
    fill_seconds: float


class QueueAnswer(TypedDict):
    queue: QueueInfo | None


class QueueLeft(TypedDict):
    left: str


class ReplayStep(TypedDict):
    """One step of a replay: the seat and action (None for the deal), every seat's view, the full view."""

    seat: int | None
    action: str | None
    views: list[dict[str, Any]]  # Observation.to_dict() per seat (docs/engine.md §5)
    full: dict[str, Any]  # Hand.referee_view()


class ReplayAnswer(TypedDict):
    hand: ReplayHandData
    record: dict[str, Any]  # the engine's record (docs/record.schema.json)
    steps: NotRequired[list[ReplayStep]]


class MatchAnswer(TypedDict):
    match: MatchSummaryData


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def current_player(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> PlayerProfile:
    """The player of the ``Authorization: Bearer`` token. :raises RoomError: 401 ``unauthorized``."""
    if credentials is None:
        raise RoomError("unauthorized", "send your token as 'Authorization: Bearer <token>'", 401)
    player = await _hub(request).authenticate(credentials.credentials)
    if player is None:
        raise RoomError("unauthorized", "unknown token", 401)
    return player


Player = Annotated[PlayerProfile, Depends(current_player)]


async def optional_player(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> PlayerProfile | None:
    """The player of the bearer token if one is sent and known; None for anyone else."""
    if credentials is None:
        return None
    return await _hub(request).authenticate(credentials.credentials)


Viewer = Annotated[PlayerProfile | None, Depends(optional_player)]

# Ids in paths are bounded to what every database can hold (PostgreSQL INTEGER): a larger one is a 422
# with a clear message, not a database error (issue 14).
MAX_ID = 2**31 - 1
PlayerId = Annotated[int, Path(ge=1, le=MAX_ID, description="a player id")]
MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="a match id")]
HandId = Annotated[int, Path(ge=1, le=MAX_ID, description="a hand id")]


def _private_codes(matches: list[store.MatchSummary], viewer: PlayerProfile | None) -> list[MatchSummaryData]:
    """A room code is the key to the room, a replay code the key to a hand: only the match's own players see
    them (issue 14, issue 12 item 4)."""
    viewer_id = viewer["id"] if viewer is not None else None
    return [
        (m.private() if viewer_id is None or all(seat.player_id != viewer_id for seat in m.seats) else m).to_dict()
        for m in matches
    ]


def _guess_keys(request: Request, player: PlayerProfile | None) -> list[str]:
    """The failed-room-code-look-up buckets of this caller: its address, and its player if known (shared by
    every process in the shared mode: :class:`~paohuzi.server.limits.Limits`)."""
    client = request.client
    keys = ["guess:addr:" + (client.host if client else "?")]
    if player is not None:
        keys.append(f"guess:player:{player['id']}")
    return keys


async def _check_guesses(request: Request, keys: list[str]) -> None:
    """Checked before the look-up, so that a caller out of tries learns nothing (found or not alike).

    :raises RoomError: 429 ``rate_limited``."""
    s, limits = _hub(request).settings, _limits(request)
    for key in keys:
        if not await limits.peek(key, s.join_guess_rate, s.join_guess_burst):
            raise RoomError("rate_limited", "too many unknown room codes tried; wait a minute", 429)


async def _missed(request: Request, keys: list[str]) -> None:
    s, limits = _hub(request).settings, _limits(request)
    for key in keys:
        await limits.take(key, s.join_guess_rate, s.join_guess_burst)


def _limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


def _room(request: Request, room: Room | RoomState) -> RoomView:
    state = room.state() if isinstance(room, Room) else room
    path = state["share_path"]
    return {**state, "share_url": None if path is None else str(request.base_url).rstrip("/") + path}


def _hidden(state: RoomState | None, viewer: PlayerProfile | None) -> RoomState | None:
    """A public table's code is no key to it (匹配), nor a club table's (issue 31: members sit through the
    club's routes): its state only for its own players, else None."""
    if state is None or state["kind"] not in ("public", "club"):
        return state
    seated = viewer is not None and any(s["player"] and s["player"]["id"] == viewer["id"] for s in state["seats"])
    return state if seated else None


@health_router.get("/healthz", tags=["health"], response_model=AS_JSON)
async def healthz(request: Request) -> Health:
    """Liveness: the process and its event loop answer (nothing else is checked: a database outage must
    not get every process restarted; that is what ``/readyz`` tells a load balancer)."""
    hub = _hub(request)
    return {
        "status": "ok",
        "version": __version__,
        "database": hub.db.backend,
        "rooms": len(hub.rooms),
        "connections": len(hub.conns),
    }


@router.post("/guests", status_code=201, tags=["players"], response_model=AS_JSON)
async def create_guest(request: Request, body: p.GuestIn | None = None) -> GuestAnswer:
    """A new guest identity: a random nickname (unless given) and a long random token to keep."""
    user_agent = request.headers.get("user-agent", "")[:120]
    token, player = await _hub(request).create_guest(body.nickname if body else None, user_agent)
    return {"token": token, "player": player}


@router.get("/me", tags=["players"], response_model=AS_JSON)
async def me(request: Request, player: Player) -> MeAnswer:
    """Your profile, and your room if you sit in one."""
    hub = _hub(request)
    fresh = await hub.db.run(store.player_by_id(player["id"]))
    if fresh is not None:
        hub.cards[player["id"]] = fresh
    room = await hub.player_room_state(player["id"])
    return {"player": hub.profile(player["id"]), "room": _room(request, room) if room is not None else None}


@router.patch("/me", tags=["players"], response_model=AS_JSON)
async def change_nickname(request: Request, body: p.NicknameIn, player: Player) -> ProfileAnswer:
    """Change your nickname (1–16 characters)."""
    return {"player": await _hub(request).set_nickname(player["id"], body.nickname)}


@router.get("/me/history", tags=["players"], response_model=AS_JSON)
async def my_history(
    request: Request, player: Player, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> HistoryAnswer:
    """Your matches, newest first (with their room codes: you sat in them)."""
    return {"matches": [m.to_dict() for m in await _hub(request).db.run(store.history(player["id"], limit))]}


async def _known_player(request: Request, player_id: int) -> None:
    """:raises RoomError: 404 ``not_found`` for no such player, or a deleted one (its profile page, its
    card and its history answer alike; its matches stay in others' records, as 已注销玩家)."""
    if await _hub(request).db.run(profile_store.is_deleted(player_id)) is not False:
        raise RoomError("not_found", f"no player {player_id}", 404)


@router.get("/players/{player_id}", tags=["players"], response_model=AS_JSON)
async def player_profile(request: Request, player_id: PlayerId) -> PublicProfileAnswer:
    """A player's public profile (404 for a deleted account)."""
    await _known_player(request, player_id)
    data = await _hub(request).db.run(store.player_by_id(player_id))
    if data is None:
        raise RoomError("not_found", f"no player {player_id}", 404)
    return {"player": data.public()}


@router.get("/players/{player_id}/history", tags=["players"], response_model=AS_JSON)
async def player_history(
    request: Request, player_id: PlayerId, viewer: Viewer, limit: Annotated[int, Query(ge=1, le=100)] = 20
) -> HistoryAnswer:
    """A player's matches, newest first. ``room_code`` is null except for matches the caller (bearer
    token) sat in. 404 for a deleted account."""
    await _known_player(request, player_id)
    matches = await _hub(request).db.run(store.history(player_id, limit))
    return {"matches": _private_codes(matches, viewer)}


@router.get("/leaderboard", tags=["players"], response_model=AS_JSON)
async def leaderboard(request: Request, limit: Annotated[int, Query(ge=1, le=200)] = 50) -> LeaderboardAnswer:
    """Players by points (积分), with their R7.4 titles."""
    rows = await _hub(request).db.run(store.leaderboard(limit))
    return {"players": [{**r.public(), "rank": i + 1} for i, r in enumerate(rows)]}


@router.get("/presets", tags=["rooms"], response_model=AS_JSON)
async def presets(request: Request) -> PresetsAnswer:
    """The rule presets (R8, R9: each with its family and the house options a room of it may set, with
    their allowed values) and the room options with their defaults and bounds."""
    s = _hub(request).settings
    return {
        "presets": [_preset_info(find_preset(n)) for n in preset_names()],
        "room_options": {
            "defaults": {
                "preset": "qq",
                "four_players": False,
                "hands": s.room_hands,
                "stake": None,
                "turn_seconds": s.turn_seconds,
                "claim_seconds": s.claim_seconds,
                "bots_fill": True,
                "hints": True,
                "bot_level": s.bot_name,
            },
            "levels": levels.to_dict(),  # 入门 普通 高手 大师 (issue #16), weakest first
            "bounds": {k: list(v) for k, v in p.ROOM_BOUNDS.items()},
            "quick_hands": s.quick_hands,
        },
    }


def _preset_info(rules: RuleSet) -> PresetInfo:
    """One preset as ``/api/presets`` lists it (docs/protocol.md §2)."""
    offered: dict[str, list[bool | int | str]] = {
        name: [v for v in values if isinstance(v, bool | int | str)]  # every value is one of these (R8.1, R9)
        for name, values in family_options(rules).items()
    }
    return {
        "name": rules.name,
        "title": rules.title,
        "family": rules.family,
        "family_options": offered,
        "rules": rules.to_dict(),
    }


@router.post("/rooms", status_code=201, tags=["rooms"], response_model=AS_JSON)
async def create_room(
    request: Request, response: Response, player: Player, body: p.RoomOptionsIn | None = None
) -> RoomAnswer:
    """A private room with a 6-digit code and a share link; you sit in seat 0 and own it. Asked again while
    you own such a room of the same options, not started: that room, 200."""
    room, new = await _hub(request).create_room(player["id"], body or p.RoomOptionsIn())
    response.status_code = 201 if new else 200
    return {"room": _room(request, room)}


@router.post("/rooms/quick", status_code=201, tags=["rooms"], response_model=AS_JSON)
async def quick_play(
    request: Request, response: Response, player: Player, body: p.QuickPlayIn | None = None
) -> RoomAnswer:
    """Quick play: you and two bots; the match starts at once (connect the websocket to play). Asked again
    while your quick match of the same options is on (a double click, two tabs): that room, 200."""
    room, new = await _hub(request).quick_play(player["id"], body or p.QuickPlayIn())
    response.status_code = 201 if new else 200
    return {"room": _room(request, room)}


@router.post("/rooms/leave", tags=["rooms"], response_model=AS_JSON)
async def leave_room(request: Request, player: Player) -> LeftAnswer:
    """Leave your room. Mid-hand that is 逃跑: you pay the penalty (R7.3) and the match ends."""
    code, penalty = await _hub(request).leave_room(player["id"])
    return {"left": code, "penalty": penalty}


@router.get("/queue", tags=["public tables"], response_model=AS_JSON)
async def queue_status(request: Request, player: Player) -> QueueStatus:
    """匹配 (issue 13 §4): your place in a queue (or null), and how many wait in each tier, for each preset
    that has a queue (issue 29)."""
    hub = _hub(request)
    counts = await hub.queue.counts()
    listed = list(hub.settings.match_presets)
    tiers: list[TierWaiting] = []
    for t in economy.TIERS:
        by_preset = {pr: counts[t.name, pr] for pr in listed}
        tiers.append({**t.to_dict(), "waiting": sum(by_preset.values()), "by_preset": by_preset})
    return {
        "queue": await hub.queue.place(player["id"]),
        "tiers": tiers,
        "presets": listed,
        "fill_seconds": hub.settings.match_fill_seconds,
    }


@router.post("/queue", status_code=201, tags=["public tables"], response_model=AS_JSON)
async def queue_join(request: Request, player: Player, body: p.QueueIn) -> QueueAnswer:
    """Wait for a public table of a tier (you must hold its minimum of 欢乐豆), playing ``preset`` (one of
    the server's ``match_presets``; unset: the first). Three waiting are seated at once; after
    ``fill_seconds`` computers fill the seats still free. ``queue`` is null when you were seated at once
    (the ``room`` frame on the websocket follows). A room without a match on is left first."""
    return {"queue": await _hub(request).queue_join(player["id"], body.tier, body.preset)}


@router.delete("/queue", tags=["public tables"], response_model=AS_JSON)
async def queue_leave(request: Request, player: Player) -> QueueLeft:
    """Leave the queue (cancel the 匹配)."""
    return {"left": await _hub(request).queue_leave(player["id"])}


@router.get("/rooms/{code}", tags=["rooms"], response_model=AS_JSON)
async def get_room(request: Request, code: str, viewer: Viewer) -> RoomAnswer:
    """A room's state, for whoever has its code. Unknown codes are limited per address and player
    (``join_guess_rate``): beyond that, 429 for any code."""
    keys = _guess_keys(request, viewer)
    await _check_guesses(request, keys)
    room = _hidden(await _hub(request).room_state(code), viewer)
    if room is None:
        await _missed(request, keys)
        raise RoomError("not_found", f"no open room {code[:12]!r}", 404)
    return {"room": _room(request, room)}


@router.post("/rooms/{code}/join", tags=["rooms"], response_model=AS_JSON)
async def join_room(
    request: Request, code: str, player: Player, body: p.JoinIn | None = None
) -> RoomAnswer:
    """Take a free seat (or the one asked for) in a room that is not playing. Unknown codes are limited
    per address and player (``join_guess_rate``): beyond that, 429 for any code."""
    keys = _guess_keys(request, player)
    await _check_guesses(request, keys)
    if _hidden(await _hub(request).room_state(code), player) is None:
        await _missed(request, keys)
        raise RoomError("not_found", f"no open room {code[:12]!r}", 404)
    room = await _hub(request).join_room(player["id"], code, body.seat if body else None)
    return {"room": _room(request, room)}


@router.get("/replays/code/{code}", tags=["replays"], response_model=AS_JSON)
async def get_replay_by_code(
    request: Request, code: Annotated[str, Path(max_length=32)], viewer: Viewer, steps: bool = True
) -> ReplayAnswer:
    """A finished hand opened by its replay code (issue 12 item 4): the code is the capability, so anyone
    holding it may watch, private room or not. Unknown codes are limited like room codes (429 beyond)."""
    keys = _guess_keys(request, viewer)
    await _check_guesses(request, keys)
    found = await _hub(request).db.run(store.replay_by_code(code))
    if found is None:
        await _missed(request, keys)
        raise RoomError("not_found", "no finished hand has this replay code", 404)
    return await _replay_data(found, steps)


@router.get("/replays/{hand_id}", tags=["replays"], response_model=AS_JSON)
async def get_replay(request: Request, hand_id: HandId, viewer: Viewer, steps: bool = True) -> ReplayAnswer:
    """A finished hand's record (``paohuzi.engine.replay(record)`` plays it again) and, unless
    ``steps=false``, every step of it: ``[{"seat", "action", "views": [observation per seat], "full":
    referee view}]``, the first entry being the deal (seat and action null). A private room's hand only
    for its players (bearer token); anyone else needs its replay code."""
    hub = _hub(request)
    found = await hub.db.run(store.replay(hand_id))
    access = await hub.db.run(store.replay_access(hand_id))
    private = access is not None and access[0] != "quick"
    if found is None or (private and (viewer is None or access is None or viewer["id"] not in access[1])):
        raise RoomError("not_found", f"no finished hand {hand_id}", 404)
    return await _replay_data(found, steps)


async def _replay_data(found: store.Replay, steps: bool) -> ReplayAnswer:
    data = found.to_dict()
    if not steps:
        return {"hand": data["hand"], "record": data["record"]}
    found_steps = await asyncio.to_thread(replay_steps, data["record"])
    return {"hand": data["hand"], "record": data["record"], "steps": found_steps}


def replay_steps(record: dict[str, Any]) -> list[ReplayStep]:
    """Each step of a finished hand, with every seat's view and the full view (the hand is over, so
    nothing is hidden any more, R5)."""
    hand = replay(record, upto=0)  # dealt as recorded: from its seed, or its fair seeds (issue 32)
    seats = range(hand.table_size)

    def step(seat: int | None, action: str | None) -> ReplayStep:
        return {
            "seat": seat,
            "action": action,
            "views": [hand.observation(s).to_dict() for s in seats],
            "full": hand.referee_view(),
        }

    out = [step(None, None)]
    for seat, action in record["actions"]:
        if action == "leave":
            hand.leave(seat)
        else:
            hand.apply(seat, action)
        out.append(step(seat, action))
    return out


@router.get("/matches/{match_id}", tags=["replays"], response_model=AS_JSON)
async def get_match(request: Request, match_id: MatchId, viewer: Viewer) -> MatchAnswer:
    """A match's summary: seats, scores, ranks and hands. ``room_code`` is null unless the caller (bearer
    token) sat in it."""
    data = await _hub(request).db.run(store.match_summary(match_id))
    if data is None:
        raise RoomError("not_found", f"no match {match_id}", 404)
    return {"match": _private_codes([data], viewer)[0]}
