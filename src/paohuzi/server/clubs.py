"""亲友圈 (issue 31): clubs, a collaborator of the hub. Who may do what in a club, the limits, and the steps
of every club request — create, invite, join by request (or at once in an open club), approve / refuse,
remove / ban, leave, hand over, dissolve, roles, the notice and settings, 玩法 templates, 战绩 — with the
club's tables (:class:`~paohuzi.server.club_tables.ClubTables`).

Powers: the owner may do everything; an admin approves and refuses requests, removes and bans plain members,
makes new invite codes and manages templates; a member sees the club (tables, members, 战绩, notice), opens
and sits at tables, and leaves. An outsider sees nothing of a club but what an invite code shows (its name
and size): every other answer is 404, exactly as for a club that does not exist; a member lacking a power
gets 403 ``forbidden`` naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from paohuzi.server import club_records, club_stats, club_store
from paohuzi.server import protocol as p
from paohuzi.server.club_store import ClubRow, MemberRow, TemplateRow
from paohuzi.server.club_tables import Addresses, ClubTables, Gone, start_of_day
from paohuzi.server.config import Settings
from paohuzi.server.frames import RoomError, RoomState
from paohuzi.server.logs import log
from paohuzi.server.room_options import room_options

if TYPE_CHECKING:
    from paohuzi.server.db import Database
    from paohuzi.server.ports import HubPorts
    from paohuzi.server.services import RoomServices

__all__ = ["Clubs", "ClubLimits", "Period", "RANKS", "since"]

INFO = 20
Role = Literal["owner", "admin", "member"]
RANKS: dict[str, int] = {"member": 0, "admin": 1, "owner": 2}
Period = Literal["today", "week", "month", "all"]


@dataclasses.dataclass(frozen=True, slots=True)
class ClubLimits:
    """How big clubs get (docs/decisions.md): clubs a player belongs to, members of a club, templates."""

    clubs_per_player: int = 10
    members_per_club: int = 200
    templates_per_club: int = 8


def since(period: Period, now: datetime) -> datetime | None:
    """The start of a 战绩 period, UTC: today from midnight, the week from Monday, the month from the 1st.

    >>> since("week", datetime(2026, 12, 5, 21, 0, tzinfo=UTC)).isoformat()
    '2026-11-30T00:00:00+00:00'
    """
    day = start_of_day(now)
    if period == "today":
        return day
    if period == "week":
        return day - timedelta(days=day.weekday())
    if period == "month":
        return day.replace(day=1)
    return None


class Clubs:
    """The clubs' requests for the hub: each checks the caller's role in the club first."""

    def __init__(  # noqa: PLR0913 (the ports, and the hub's lobby calls)
        self,
        settings: Settings,
        db: Database,
        ports: HubPorts,
        services: RoomServices,
        *,
        room_state: Callable[[str], Awaitable[RoomState | None]],
        join_room: Callable[[int, str, int | None], Awaitable[RoomState]],
        player_room: Callable[[int], Awaitable[RoomState | None]],
        leave_room: Callable[[int], Awaitable[Any]],
        addresses: Addresses,
        limits: ClubLimits | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.limits = limits or ClubLimits()
        self.player_room = player_room  # Hub.player_room_state
        self.leave_room = leave_room  # Hub.leave_room
        self.tables = ClubTables(db, ports, services, room_state=room_state, join_room=join_room, addresses=addresses)

    # ---- who is asking -------------------------------------------------------------------------------

    async def club(self, number: str, player_id: int, power: Role = "member", what: str = "") -> tuple[ClubRow, str]:
        """The club ``number`` and the caller's role, which must be at least ``power``.

        :raises RoomError: 404 ``not_found`` for an outsider (or no such club: alike), 403 ``forbidden``
            for a member without the power (``what`` names the request)."""
        club = await self.db.run(club_store.club_by_number(number)) if len(number) <= 8 else None
        role = None if club is None else await self.db.run(club_store.role_of(club.id, player_id))
        if club is None or role is None:
            raise RoomError("not_found", f"no club {number[:8]!r} of yours", 404)
        if RANKS[role] < RANKS[power]:
            raise RoomError("forbidden", f"only the club's {power}{' or owner' if power == 'admin' else ''} "
                            f"may {what or 'do that'}", 403)
        return club, role

    async def _member(self, club: ClubRow, player_id: int) -> MemberRow:
        found = next((m for m in await self.db.run(club_store.members(club.id)) if m.player_id == player_id), None)
        if found is None:
            raise RoomError("not_found", f"player {player_id} is no member of club {club.number}", 404)
        return found

    # ---- the club --------------------------------------------------------------------------------------

    async def create(self, player_id: int, claimed: bool, name: str) -> ClubRow:
        """A club owned by the player. :raises RoomError: 403 ``not_claimed`` (a guest: claim the account
        first, a club outlives a browser), 409 ``too_many_clubs``."""
        if not claimed:
            raise RoomError("not_claimed", "claim your account (a username and password) to create a club", 403)
        club = await self.db.run(club_store.create_club(player_id, name, self.limits.clubs_per_player))
        if club is None:
            raise RoomError("too_many_clubs", f"you belong to {self.limits.clubs_per_player} clubs already", 409)
        log(INFO, "club created", club=club.number, player=player_id)
        return club

    async def settings_change(self, number: str, player_id: int, body: p.ClubSettingsIn) -> ClubRow:
        """The owner changes the name, the notice, the join mode or 自动开桌."""
        club, _ = await self.club(number, player_id, "owner", "change the club's settings")
        values = {k: v for k, v in body.model_dump().items() if v is not None}
        return await self.db.run(club_store.update_club(club.id, **values)) if values else club

    async def new_invite(self, number: str, player_id: int) -> ClubRow:
        """A new invite code (the old one stops working)."""
        club, _ = await self.club(number, player_id, "admin", "make a new invite code")
        return await self.db.run(club_store.update_club(club.id, invite_code=club_store.new_invite_code()))

    async def dissolve(self, number: str, player_id: int) -> None:
        """The owner dissolves the club: refused while a match is on at one of its tables (409); players
        waiting at its tables are stood up; every member's live list ends (``club_gone``)."""
        club, _ = await self.club(number, player_id, "owner", "dissolve the club")
        for row in await self.db.run(club_store.open_tables(club.id)):
            if row.status == "playing":
                raise RoomError("tables_playing", f"a match is on at table {row.code}; dissolve when it ends", 409)
        for member in await self.db.run(club_store.members(club.id)):
            await self._stand_up(club, member.player_id)
        await self.db.run(club_store.dissolve(club.id))
        for pid in list(self.tables.watching):
            self.tables.forget(pid, club.number, "dissolved")
        log(INFO, "club dissolved", club=club.number, player=player_id)

    # ---- joining -----------------------------------------------------------------------------------------

    async def by_invite(self, code: str) -> ClubRow | None:
        return await self.db.run(club_store.club_by_invite(code.upper()[:16]))

    async def request(self, club: ClubRow, player_id: int) -> str:
        """Ask to join ``club`` (found by its invite code): ``member`` at once in an open club, else
        ``pending``. :raises RoomError: 403 ``banned``, 409 ``club_full`` / ``too_many_clubs``."""
        if club.join_mode == "open":
            return await self._admit(club, player_id, None)
        found = await self.db.run(club_store.request_join(club.id, player_id))
        if found == "banned":
            raise RoomError("banned", "you are banned from this club", 403)
        if found == "member":
            return "member"
        log(INFO, "club request", club=club.number, player=player_id)
        return "pending"

    async def _admit(self, club: ClubRow, player_id: int, by: int | None) -> str:
        lim = self.limits
        result = await self.db.run(
            club_store.add_member(club.id, player_id, by, lim.members_per_club, lim.clubs_per_player)
        )
        if result == "banned":
            raise RoomError("banned", "that player is banned from this club", 403)
        if result == "club_full":
            raise RoomError("club_full", f"the club has {lim.members_per_club} members already", 409)
        if result == "too_many_clubs":
            raise RoomError("too_many_clubs", f"the player belongs to {lim.clubs_per_player} clubs already", 409)
        return "member"

    async def decide(self, number: str, player_id: int, target: int, approve: bool) -> None:
        """An admin or the owner approves or refuses ``target``'s pending request (404 when none is pending)."""
        club, _ = await self.club(number, player_id, "admin", "answer join requests")
        if not await self.db.run(club_store.has_request(club.id, target)):
            raise RoomError("not_found", f"no pending request of player {target}", 404)
        if approve:
            await self._admit(club, target, player_id)
        else:
            await self.db.run(club_store.refuse(club.id, target, player_id))
        log(INFO, "club request answered", club=club.number, player=target, approved=approve, by=player_id)

    # ---- members -----------------------------------------------------------------------------------------

    async def remove(self, number: str, player_id: int, target: int, ban: bool) -> None:
        """Remove (and ban) a member — or ban a former member or requester: the owner anyone but itself,
        an admin only plain members. The member loses the club at once: its live list ends
        (``club_gone``), and it is stood up from a club table that is waiting (a match on is played out)."""
        club, role = await self.club(number, player_id, "admin", "remove members")
        if target == player_id:
            raise RoomError("bad_request", "you cannot remove yourself: leave the club instead", 400)
        target_role = await self.db.run(club_store.role_of(club.id, target))
        if target_role is not None and RANKS[target_role] >= RANKS[role]:
            raise RoomError("forbidden", f"an {role} cannot remove the club's {target_role}", 403)
        if target_role is None and not ban:
            raise RoomError("not_found", f"player {target} is no member of club {club.number}", 404)
        await self.db.run(club_store.remove_member(club.id, target, player_id if ban else None))
        await self._gone(club, target, "removed")
        log(INFO, "club member removed", club=club.number, player=target, ban=ban, by=player_id)

    async def unban(self, number: str, player_id: int, target: int) -> None:
        club, _ = await self.club(number, player_id, "admin", "lift bans")
        if not await self.db.run(club_store.unban(club.id, target)):
            raise RoomError("not_found", f"player {target} is not banned", 404)

    async def leave(self, number: str, player_id: int) -> None:
        """Leave the club (its owner must hand it over or dissolve it first: 409 ``owner``)."""
        club, role = await self.club(number, player_id)
        if role == "owner":
            raise RoomError("owner", "the owner cannot leave: hand the club to a member, or dissolve it", 409)
        await self.db.run(club_store.remove_member(club.id, player_id, None))
        await self._gone(club, player_id, "left")

    async def _gone(self, club: ClubRow, player_id: int, reason: Gone) -> None:
        self.tables.forget(player_id, club.number, reason)
        await self._stand_up(club, player_id)

    async def _stand_up(self, club: ClubRow, player_id: int) -> None:
        """The player leaves a waiting table of ``club`` (a match on there is played out)."""
        state = await self.player_room(player_id)
        if state is None or state["kind"] != "club" or (state["match"] and not state["match"]["finished"]):
            return
        if await self.db.run(club_store.table_club(state["code"])) == club.id:
            await self.leave_room(player_id)

    async def set_role(self, number: str, player_id: int, target: int, role: str) -> None:
        club, _ = await self.club(number, player_id, "owner", "change roles")
        member = await self._member(club, target)
        if member.role == "owner":
            raise RoomError("bad_request", "the owner's role changes only by handing the club over", 400)
        await self.db.run(club_store.set_role(club.id, target, role))

    async def transfer(self, number: str, player_id: int, target: int) -> ClubRow:
        """The owner hands the club to another member (the old owner stays, as an admin)."""
        club, _ = await self.club(number, player_id, "owner", "hand the club over")
        if target == player_id:
            raise RoomError("bad_request", "you own the club already", 400)
        await self._member(club, target)
        await self.db.run(club_store.transfer(club.id, player_id, target))
        log(INFO, "club handed over", club=club.number, to=target, by=player_id)
        found = await self.db.run(club_store.club_by_number(club.number))
        assert found is not None
        return found

    # ---- templates ---------------------------------------------------------------------------------------

    def template_options(self, body: p.ClubTemplateIn) -> dict[str, Any]:
        """The room options of a template, checked as a room's are (:func:`room_options`): points only
        (the practice tier: no 欢乐豆), no computers. :raises RoomError: 422 ``invalid`` naming the option."""
        if body.options.tier != "practice":
            raise RoomError("invalid", "club tables play for points only: tier must be 'practice' (no 欢乐豆)", 422)
        options = room_options(self.settings, body.options, quick=False)
        return dict(dataclasses.replace(options, bots_fill=False).to_dict())

    async def save_template(
        self, number: str, player_id: int, body: p.ClubTemplateIn, template_id: int | None = None
    ) -> TemplateRow:
        club, _ = await self.club(number, player_id, "admin", "manage templates")
        options = self.template_options(body)
        found = await self.db.run(
            club_store.save_template(club.id, template_id, body.name, options, self.limits.templates_per_club)
        )
        if found == "too_many_templates":
            raise RoomError(found, f"a club keeps at most {self.limits.templates_per_club} templates", 409)
        if isinstance(found, str):
            raise RoomError("not_found", f"no template {template_id} in club {club.number}", 404)
        return found

    async def delete_template(self, number: str, player_id: int, template_id: int) -> None:
        club, _ = await self.club(number, player_id, "admin", "manage templates")
        if not await self.db.run(club_store.delete_template(club.id, template_id)):
            raise RoomError("not_found", f"no template {template_id} in club {club.number}", 404)

    # ---- tables --------------------------------------------------------------------------------------------

    async def open_table(self, number: str, player_id: int, template_id: int) -> RoomState:
        """A member opens a table of a template and sits down at it."""
        club, _ = await self.club(number, player_id)
        template = next((t for t in await self.db.run(club_store.templates(club.id)) if t.id == template_id), None)
        if template is None:
            raise RoomError("not_found", f"no template {template_id} in club {club.number}", 404)
        code = await self.tables.open_table(club, template)
        return await self.tables.sit(club, player_id, code, None)

    async def sit(self, number: str, player_id: int, code: str, seat: int | None) -> RoomState:
        club, _ = await self.club(number, player_id)
        return await self.tables.sit(club, player_id, code, seat)

    async def watch(self, player_id: int, number: str | None) -> None:
        """``club_watch``: follow a club's tables (a member only: else ``not_found``); None stops."""
        if number is None:
            await self.tables.watch(player_id, None)
            return
        club, _ = await self.club(number, player_id)
        await self.tables.watch(player_id, club)

    def detached(self, player_id: int) -> None:
        """The player's websocket here closed: its live list stops."""
        self.tables.forget(player_id)

    # ---- 战绩 ---------------------------------------------------------------------------------------------

    async def stats(self, club: ClubRow, period: Period) -> list[club_stats.MemberStats]:
        """The members' 战绩 over ``period``, ranked (by points)."""
        names = {m.player_id: m.nickname for m in await self.db.run(club_store.members(club.id))}
        start = since(period, datetime.now(UTC))
        matches = await self.db.run(club_records.stat_matches(club.id, start))
        return club_stats.ranking(club_stats.member_stats(matches, names))

    async def pairs(self, club: ClubRow) -> list[club_stats.PairRowData]:
        names = {m.player_id: m.nickname for m in await self.db.run(club_store.members(club.id))}
        matches = await self.db.run(club_records.stat_matches(club.id, None, with_records=True))
        return club_stats.pair_table(matches, names)

