"""The profile routes (issue 13 §5, docs/protocol.md §2 "Profiles"): one's own profile — the R7.4 title with
the way to the next, hands, wins, win rate, 名堂 counts, the best hand, and the 欢乐豆 history from the
ledger — and another player's public profile, which has the public numbers only (never the bean history,
sessions, username or a private room's hand).
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from fastapi import APIRouter, Path, Query, Request

from paohuzi.scoring import LEVELS, level_number
from paohuzi.server import economy, profile_store, store
from paohuzi.server.account_api import Current
from paohuzi.server.api import AS_JSON
from paohuzi.server.frames import PlayerProfile
from paohuzi.server.hub import Hub
from paohuzi.server.room import RoomError
from paohuzi.server.rows import PublicProfile

__all__ = ["router", "level_progress"]

router = APIRouter(prefix="/api")

PlayerId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a player id")]


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


class NextLevel(TypedDict):
    title: str
    at: int  # the points it starts at


class LevelProgress(TypedDict):
    """The R7.4 level of a points total and the way to the next title."""

    number: int
    title: str
    points: int
    floor: int
    next: NextLevel | None  # None at 帝王
    progress: float


class BestView(TypedDict):
    """The best won hand as a profile shows it: its id only when the viewer may open its replay."""

    hand_id: int | None
    points: int
    huxi: int
    fan: int
    names: list[str]
    finished_at: str | None
    replay: bool


class StatsView(TypedDict):
    hands: int
    wins: int
    mingtang: dict[str, int]  # 名堂 → hands won with it
    best: BestView | None
    win_rate: float | None


class ReliefLeft(TypedDict):
    amount: int
    below: int
    left_today: int
    available: bool


class BeansView(TypedDict):
    balance: int
    history: list[profile_store.BeanPointData]
    relief: ReliefLeft


class MyProfile(TypedDict):
    player: PlayerProfile
    level: LevelProgress
    stats: StatsView
    beans: BeansView


class PublicProfilePage(TypedDict):
    player: PublicProfile
    level: LevelProgress
    stats: StatsView


def level_progress(points: int) -> LevelProgress:
    """The R7.4 level of a points total and the way to the next title: ``floor`` is where this title
    starts, ``next`` the next title and the points it starts at (None at 帝王), ``progress`` the share of
    the way from ``floor`` to it (0 below 0 points, 1 at 帝王).

    >>> level_progress(45)
    {'number': 2, 'title': '短工', 'points': 45, 'floor': 30, 'next': {'title': '长工', 'at': 60}, 'progress': 0.5}
    >>> level_progress(-7)["progress"], level_progress(80000)["next"], level_progress(80000)["progress"]
    (0.0, None, 1.0)
    """
    number = level_number(points)
    floor, title = LEVELS[number - 1]
    if number == len(LEVELS):
        return {"number": number, "title": title, "points": points, "floor": floor, "next": None, "progress": 1.0}
    at, next_title = LEVELS[number]
    progress = min(1.0, max(0.0, (points - floor) / (at - floor)))
    return {
        "number": number,
        "title": title,
        "points": points,
        "floor": floor,
        "next": {"title": next_title, "at": at},
        "progress": round(progress, 4),
    }


def _stats(stats: profile_store.HandStats, public: bool) -> StatsView:
    best, shown = stats.best, None
    if best is not None:
        # a private room's hand opens by id only for its players: an outsider is not given it
        replay = not (public and best.room_kind == "private")
        shown = BestView(
            hand_id=best.hand_id if replay else None,
            points=best.points,
            huxi=best.huxi,
            fan=best.fan,
            names=list(best.names),
            finished_at=best.finished_at,
            replay=replay,
        )
    return {
        "hands": stats.hands,
        "wins": stats.wins,
        "mingtang": dict(stats.mingtang),
        "best": shown,
        "win_rate": round(stats.wins / stats.hands, 4) if stats.hands else None,
    }


@router.get("/me/profile", tags=["players"], response_model=AS_JSON)
async def my_profile(
    request: Request, current: Current, history: Annotated[int, Query(ge=1, le=500)] = 100
) -> MyProfile:
    """Your profile page: the title and the way to the next (R7.4), hands, wins, win rate, 名堂 counts, your
    best hand (its replay is yours to open), and your 欢乐豆: balance, the last ``history`` changes (oldest
    first) and the relief you may still claim today."""
    player, _session = current
    hub = _hub(request)
    row = await hub.db.run(store.player_by_id(player["id"]))
    if row is None:
        raise RoomError("not_found", "no such player", 404)
    stats = await hub.db.run(profile_store.hand_stats(row.id))
    beans = await hub.db.run(profile_store.bean_history(row.id, history))
    left = await hub.db.run(profile_store.relief_left(row.id))
    return {
        "player": row.profile(),
        "level": level_progress(row.points),
        "stats": _stats(stats, public=False),
        "beans": {
            "balance": row.beans,
            "history": [b.to_dict() for b in beans],
            "relief": {
                "amount": economy.RELIEF_AMOUNT,
                "below": economy.RELIEF_BELOW,
                "left_today": left,
                "available": row.beans < economy.RELIEF_BELOW and left > 0,
            },
        },
    }


@router.get("/players/{player_id}/profile", tags=["players"], response_model=AS_JSON)
async def public_profile(request: Request, player_id: PlayerId) -> PublicProfilePage:
    """Another player's profile page: title and level, hands, wins, win rate, 名堂 counts, the best hand
    (its id only when its replay is open to anyone: not from a private room), beans balance. Never the
    bean history, sessions or username. 404 for a deleted account."""
    hub = _hub(request)
    row = await hub.db.run(store.player_by_id(player_id))
    deleted: bool | None = await hub.db.run(profile_store.is_deleted(player_id))
    if row is None or deleted:
        raise RoomError("not_found", f"no player {player_id}", 404)
    stats = await hub.db.run(profile_store.hand_stats(row.id))
    return {"player": row.public(), "level": level_progress(row.points), "stats": _stats(stats, public=True)}
