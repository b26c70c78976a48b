"""The club routes of the lobby API (亲友圈, issue 31; docs/protocol.md §2 "Clubs"): clubs, invites, join requests,
members and roles, templates, tables, 战绩 (with CSV for the owner and the pair table).

Every route but creating a club and looking an invite code up names a club by its number and answers 404
to anyone who is not a member (the same answer as for no such club), 403 ``forbidden`` to a member lacking
the power. Join requests are rate-limited per player and address; unknown invite codes like room codes
(``join_guess_rate``).
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Annotated, Literal, TypedDict

from fastapi import APIRouter, Path, Query, Request, Response

from paohuzi.server import account_store, club_records, club_store
from paohuzi.server import protocol as p
from paohuzi.server.api import AS_JSON, MAX_ID, Player, RoomView, _check_guesses, _guess_keys, _missed, _room
from paohuzi.server.club_stats import PAIR_NOTE, PairRowData, StatsData
from paohuzi.server.club_store import ClubData, MemberData, RequestData, TemplateData
from paohuzi.server.clubs import Period, since
from paohuzi.server.frames import ClubTable, PlayerProfile
from paohuzi.server.hub import Hub
from paohuzi.server.limits import Limits
from paohuzi.server.room import RoomError
from paohuzi.server.rows import MatchSummaryData

__all__ = ["router", "JOIN_LIMITS"]

router = APIRouter(prefix="/api/clubs", tags=["clubs"])

#: Join requests (per second, burst): per player, and per client address (a family behind one router asks more);
#: new invite codes per club.
JOIN_LIMITS = {"player": (1 / 30, 5), "addr": (1 / 6, 30), "invite": (1 / 60, 5)}

Number = Annotated[str, Path(pattern=r"^[0-9]{6}$", description="a club's number")]
TargetId = Annotated[int, Path(ge=1, le=MAX_ID, description="a player id")]
TemplateId = Annotated[int, Path(ge=1, le=MAX_ID, description="a template id")]


class MyClub(ClubData):
    role: str


class ClubsAnswer(TypedDict):
    clubs: list[MyClub]


class ClubView(ClubData):
    role: str
    invite_code: str | None  # admins and the owner only
    invite_path: str | None


class ClubAnswer(TypedDict):
    club: ClubView


class InvitePreview(TypedDict):
    number: str
    name: str
    members: int
    join_mode: str


class InviteAnswer(TypedDict):
    club: InvitePreview


class JoinAnswer(TypedDict):
    status: str  # member | pending


class MembersAnswer(TypedDict):
    members: list[MemberData]
    requests: list[RequestData]  # pending requests (admins and the owner; empty for members)
    bans: list[RequestData]  # (admins and the owner; empty for members)


class Done(TypedDict):
    ok: bool


class TemplatesAnswer(TypedDict):
    templates: list[TemplateData]


class TemplateAnswer(TypedDict):
    template: TemplateData


class TablesAnswer(TypedDict):
    tables: list[ClubTable]
    finished: list[MatchSummaryData]


class RoomAnswer(TypedDict):
    room: RoomView


class RankedStats(StatsData):
    rank: int


class StatsAnswer(TypedDict):
    period: str
    since: str | None
    members: list[RankedStats]  # the ranking: by points


class MatchesAnswer(TypedDict):
    matches: list[MatchSummaryData]


class PairsAnswer(TypedDict):
    pairs: list[PairRowData]
    note: str


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


def _view(club: club_store.ClubRow, role: str) -> ClubView:
    powers = role in ("owner", "admin")
    return {
        **club.to_dict(),
        "role": role,
        "invite_code": club.invite_code if powers else None,
        "invite_path": f"/?club={club.invite_code}" if powers else None,
    }


# ---- clubs --------------------------------------------------------------------------------------------------


@router.post("", status_code=201, response_model=AS_JSON)
async def create_club(request: Request, player: Player, body: p.ClubIn) -> ClubAnswer:
    """A new club you own (a claimed account only: 403 ``not_claimed`` for a guest)."""
    hub = _hub(request)
    account = await hub.db.run(account_store.account(player["id"]))
    club = await hub.clubs.create(player["id"], account is not None and account.username is not None, body.name)
    return {"club": _view(club, "owner")}


@router.get("", response_model=AS_JSON)
async def my_clubs(request: Request, player: Player) -> ClubsAnswer:
    """The clubs you belong to, with your role in each."""
    rows = await _hub(request).db.run(club_store.clubs_of(player["id"]))
    return {"clubs": [{**c.to_dict(), "role": role} for c, role in rows]}


@router.get("/invite/{code}", response_model=AS_JSON)
async def invite_preview(request: Request, code: Annotated[str, Path(max_length=16)], player: Player) -> InviteAnswer:
    """What an invite code shows before joining: the club's number, name, size and join mode."""
    club = await _by_invite(request, player, code)
    return {"club": {"number": club.number, "name": club.name, "members": club.members, "join_mode": club.join_mode}}


@router.post("/invite/{code}/join", response_model=AS_JSON)
async def join_by_invite(request: Request, code: Annotated[str, Path(max_length=16)], player: Player) -> JoinAnswer:
    """Ask to join the club of this invite code: ``pending`` until an admin answers, or ``member`` at once
    in an open club. Rate-limited per player and address (429); 403 ``banned``."""
    club = await _by_invite(request, player, code)
    limits = _limits(request)
    client = request.client
    keys = {"player": str(player["id"]), "addr": client.host if client else "?"}
    for kind, key in keys.items():
        rate, burst = JOIN_LIMITS[kind]
        if not await limits.take(f"clubjoin:{kind}:{key}", rate, burst):
            raise RoomError("rate_limited", "too many join requests; wait a minute", 429)
    return {"status": await _hub(request).clubs.request(club, player["id"])}


async def _by_invite(request: Request, player: PlayerProfile, code: str) -> club_store.ClubRow:
    keys = _guess_keys(request, player)
    await _check_guesses(request, keys)
    club = await _hub(request).clubs.by_invite(code)
    if club is None:
        await _missed(request, keys)
        raise RoomError("not_found", "no club has this invite code (it may have been replaced)", 404)
    return club


@router.get("/{number}", response_model=AS_JSON)
async def get_club(request: Request, number: Number, player: Player) -> ClubAnswer:
    """The club (members only), with the invite code for admins and the owner."""
    club, role = await _hub(request).clubs.club(number, player["id"])
    return {"club": _view(club, role)}


@router.patch("/{number}", response_model=AS_JSON)
async def change_club(request: Request, number: Number, player: Player, body: p.ClubSettingsIn) -> ClubAnswer:
    """The owner changes the name, the notice (≤ 200 characters), the join mode or 自动开桌."""
    club = await _hub(request).clubs.settings_change(number, player["id"], body)
    return {"club": _view(club, "owner")}


@router.delete("/{number}", response_model=AS_JSON)
async def dissolve_club(request: Request, number: Number, player: Player) -> Done:
    """The owner dissolves the club (409 ``tables_playing`` while a match is on at one of its tables)."""
    await _hub(request).clubs.dissolve(number, player["id"])
    return {"ok": True}


@router.post("/{number}/invite", response_model=AS_JSON)
async def new_invite(request: Request, number: Number, player: Player) -> ClubAnswer:
    """A new invite code (admins and the owner); the old one stops working. 5 at once, then one a minute
    per club (429)."""
    hub = _hub(request)
    _, role = await hub.clubs.club(number, player["id"], "admin", "make a new invite code")
    rate, burst = JOIN_LIMITS["invite"]
    if not await _limits(request).take(f"clubinvite:{number}", rate, burst):
        raise RoomError("rate_limited", "too many new invite codes; wait a minute", 429)
    club = await hub.clubs.new_invite(number, player["id"])
    return {"club": _view(club, role)}


# ---- members ------------------------------------------------------------------------------------------------


@router.get("/{number}/members", response_model=AS_JSON)
async def members(request: Request, number: Number, player: Player) -> MembersAnswer:
    """The members with their roles; pending requests and bans for admins and the owner."""
    hub = _hub(request)
    club, role = await hub.clubs.club(number, player["id"])
    powers = role in ("owner", "admin")
    return {
        "members": [m.to_dict() for m in await hub.db.run(club_store.members(club.id))],
        "requests": [r.to_dict() for r in await hub.db.run(club_store.pending(club.id))] if powers else [],
        "bans": [r.to_dict() for r in await hub.db.run(club_store.bans(club.id))] if powers else [],
    }


@router.post("/{number}/requests/{target}/{answer}", response_model=AS_JSON)
async def answer_request(
    request: Request, number: Number, target: TargetId, answer: Literal["approve", "refuse"], player: Player
) -> Done:
    """Approve or refuse a pending join request (admins and the owner)."""
    await _hub(request).clubs.decide(number, player["id"], target, answer == "approve")
    return {"ok": True}


@router.delete("/{number}/members/{target}", response_model=AS_JSON)
async def remove_member(
    request: Request, number: Number, target: TargetId, player: Player, ban: bool = False
) -> Done:
    """Remove a member (``ban=true``: and ban it): the owner anyone, an admin plain members. It loses the
    club at once (HTTP and websocket)."""
    await _hub(request).clubs.remove(number, player["id"], target, ban)
    return {"ok": True}


@router.delete("/{number}/bans/{target}", response_model=AS_JSON)
async def unban(request: Request, number: Number, target: TargetId, player: Player) -> Done:
    await _hub(request).clubs.unban(number, player["id"], target)
    return {"ok": True}


@router.put("/{number}/members/{target}/role", response_model=AS_JSON)
async def set_role(request: Request, number: Number, target: TargetId, player: Player, body: p.ClubRoleIn) -> Done:
    """The owner makes a member an admin, or an admin a plain member."""
    await _hub(request).clubs.set_role(number, player["id"], target, body.role)
    return {"ok": True}


@router.post("/{number}/leave", response_model=AS_JSON)
async def leave(request: Request, number: Number, player: Player) -> Done:
    """Leave the club (the owner: 409 ``owner``, hand it over or dissolve it)."""
    await _hub(request).clubs.leave(number, player["id"])
    return {"ok": True}


@router.post("/{number}/transfer", response_model=AS_JSON)
async def transfer(request: Request, number: Number, player: Player, body: p.ClubTransferIn) -> ClubAnswer:
    """The owner hands the club to a member (and stays, as an admin)."""
    club = await _hub(request).clubs.transfer(number, player["id"], body.player)
    return {"club": _view(club, "admin")}


# ---- templates ------------------------------------------------------------------------------------------------


@router.get("/{number}/templates", response_model=AS_JSON)
async def templates(request: Request, number: Number, player: Player) -> TemplatesAnswer:
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"])
    return {"templates": [t.to_dict() for t in await hub.db.run(club_store.templates(club.id))]}


@router.post("/{number}/templates", status_code=201, response_model=AS_JSON)
async def add_template(request: Request, number: Number, player: Player, body: p.ClubTemplateIn) -> TemplateAnswer:
    """A new 玩法 (admins and the owner): a name and room options as ``POST /api/rooms`` takes them;
    points only (tier ``practice``), no computers (422 otherwise); at most 8 per club (409)."""
    return {"template": (await _hub(request).clubs.save_template(number, player["id"], body)).to_dict()}


@router.put("/{number}/templates/{template_id}", response_model=AS_JSON)
async def change_template(
    request: Request, number: Number, template_id: TemplateId, player: Player, body: p.ClubTemplateIn
) -> TemplateAnswer:
    """Change a template (tables open already keep their options)."""
    found = await _hub(request).clubs.save_template(number, player["id"], body, template_id)
    return {"template": found.to_dict()}


@router.delete("/{number}/templates/{template_id}", response_model=AS_JSON)
async def delete_template(request: Request, number: Number, template_id: TemplateId, player: Player) -> Done:
    await _hub(request).clubs.delete_template(number, player["id"], template_id)
    return {"ok": True}


# ---- tables ---------------------------------------------------------------------------------------------------


@router.get("/{number}/tables", response_model=AS_JSON)
async def tables(request: Request, number: Number, player: Player) -> TablesAnswer:
    """The open tables (waiting with who sits, playing with hand n/N, 同IP seats) and today's finished
    matches with their summaries and replay codes (the ``club_tables`` frame has the same)."""
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"])
    found, finished = await hub.clubs.tables.tables(club)
    return {"tables": found, "finished": finished}  # type: ignore[typeddict-item]


@router.post("/{number}/tables", status_code=201, response_model=AS_JSON)
async def open_table(request: Request, number: Number, player: Player, body: p.ClubTableIn) -> RoomAnswer:
    """Open a table of a template and sit down at it (connect the websocket to play)."""
    room = await _hub(request).clubs.open_table(number, player["id"], body.template)
    return {"room": _room(request, room)}


@router.post("/{number}/tables/{code}/sit", response_model=AS_JSON)
async def sit(
    request: Request, number: Number, code: Annotated[str, Path(max_length=12)], player: Player,
    body: p.JoinIn | None = None,
) -> RoomAnswer:
    """Sit at a waiting table of the club (being seated is being ready: a full table starts)."""
    room = await _hub(request).clubs.sit(number, player["id"], code, body.seat if body else None)
    return {"room": _room(request, room)}


# ---- 战绩 -------------------------------------------------------------------------------------------------------


@router.get("/{number}/stats", response_model=AS_JSON)
async def stats(request: Request, number: Number, player: Player, period: Period = "all") -> StatsAnswer:
    """Every member's 战绩 over today / this week / this month / all time (UTC), ranked by points."""
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"])
    rows = await hub.clubs.stats(club, period)
    start = since(period, datetime.now(UTC))
    return {
        "period": period,
        "since": start.isoformat().replace("+00:00", "Z") if start is not None else None,
        "members": [{**r.to_dict(), "rank": i + 1} for i, r in enumerate(rows)],
    }


@router.get("/{number}/matches", response_model=AS_JSON)
async def matches(
    request: Request,
    number: Number,
    player: Player,
    period: Period = "all",
    member: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> MatchesAnswer:
    """The club's matches, newest first, with summaries and replay codes (``member``: that member's only)."""
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"])
    start = since(period, datetime.now(UTC))
    rows = await hub.db.run(club_records.club_matches(club.id, start, 1000 if member else limit))
    if member is not None:
        rows = [m for m in rows if any(s.player_id == member for s in m.seats)][:limit]
    return {"matches": [m.to_dict() for m in rows]}


_CSV_HEAD = ["match", "finished_at", "status", "preset", "seat", "player", "nickname", "score", "rank", "replay_codes"]


@router.get("/{number}/matches.csv", response_class=Response)
async def matches_csv(request: Request, number: Number, player: Player, period: Period = "all") -> Response:
    """The club's matches as CSV, one row per seat (the owner only)."""
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"], "owner", "download the records")
    rows = await hub.db.run(club_records.club_matches(club.id, since(period, datetime.now(UTC)), 100_000))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_CSV_HEAD)
    for m in rows:
        codes = " ".join(h.code for h in m.hands if h.code)
        for s in m.seats:
            writer.writerow(
                [m.id, m.finished_at, m.status, m.preset, s.seat, s.player_id or "", _cell(s.nickname), s.score,
                 s.rank or "", codes]
            )
    name = f"club-{club.number}-{period}.csv"
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _cell(text: str) -> str:
    """A nickname as a CSV cell that a spreadsheet shows and never runs (a leading = + - @ is a formula)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@router.get("/{number}/pairs", response_model=AS_JSON)
async def pairs(request: Request, number: Number, player: Player) -> PairsAnswer:
    """The pair table (the owner only): hands together, fed wins against chance, and what it can show."""
    hub = _hub(request)
    club, _ = await hub.clubs.club(number, player["id"], "owner", "see the pair table")
    return {"pairs": await hub.clubs.pairs(club), "note": PAIR_NOTE}
