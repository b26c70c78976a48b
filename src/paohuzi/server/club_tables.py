"""亲友圈 tables (issue 31 §2): a club's tables — rooms of kind ``club`` opened from a 玩法 template — their
list as members see it, opening one, sitting down, 自动开桌, and following the list live over the websocket
(``club_watch`` → ``club_tables`` frames).

A club table is a room like a friend room (解散 vote, 托管, summary, replays, chat, hints as its template
says) with three differences kept in the room itself: sitting down is being ready, so the match starts when
the table is full (docs/decisions.md); nobody owns it (no kick, no computers); its code is no key to it —
only the club's members reach it, through the club's routes.

The live list is polled: every :data:`TICK` seconds, each club watched by a websocket of this process is
read (its members, its open tables' states — here, or asked of the process that holds a room in the shared
mode) and sent to the watchers whose list changed. The same read drops a watcher who is no member any more.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from paohuzi.server import club_records, club_store, frames, store
from paohuzi.server.club_store import ClubRow, TemplateRow
from paohuzi.server.frames import ClubSeat, ClubTable, RoomError, RoomState
from paohuzi.server.logs import log
from paohuzi.server.room import Room, SeatState
from paohuzi.server.room_options import RoomOptions, RoomOptionsError

if TYPE_CHECKING:
    from paohuzi.server.db import Database
    from paohuzi.server.ports import HubPorts
    from paohuzi.server.services import RoomServices

__all__ = ["Addresses", "ClubTables", "Gone", "TICK", "start_of_day"]

ERROR, INFO = 40, 20
TICK = 1.0  # seconds between two reads of the watched clubs' tables

#: The addresses of the players whose websockets are in this process (for 同IP): player id → address.
Addresses = Callable[[int], str | None]
Gone = Literal["removed", "left", "dissolved"]  # why a member's live list ended (``club_gone``)


def start_of_day(now: datetime) -> datetime:
    """Midnight UTC of ``now``'s day (战绩's "today", and the tables finished today)."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


class ClubTables:
    """A club's tables for the hub: the list, opening, sitting, 自动开桌, the live list's watchers."""

    def __init__(  # noqa: PLR0913 (the ports, and the hub's lobby calls)
        self,
        db: Database,
        ports: HubPorts,
        services: RoomServices,
        *,
        room_state: Callable[[str], Awaitable[RoomState | None]],
        join_room: Callable[[int, str, int | None], Awaitable[RoomState]],
        addresses: Addresses,
    ) -> None:
        self.db = db
        self.directory = ports.directory
        self.home = ports.home
        self.sockets = ports.sockets  # the websockets of this process: the watchers are here
        self.services = services
        self.room_state = room_state  # Hub.room_state: a room here or elsewhere
        self.join_room = join_room  # Hub.join_room: the seating claim held
        self.addresses = addresses
        self.elsewhere = ports.elsewhere  # the addresses of websockets at other processes (the shared mode)
        self.watching: dict[int, str] = {}  # player id → the club number it follows
        self.last: dict[int, Any] = {}  # player id → the last list sent (sent again only when it changed)

    # ---- the list ----------------------------------------------------------------------------------

    async def tables(self, club: ClubRow) -> tuple[list[ClubTable], list[dict[str, Any]]]:
        """The club's open tables and today's finished matches (summaries with their replay codes)."""
        names = {t.id: t.name for t in await self.db.run(club_store.templates(club.id))}
        out: list[ClubTable] = []
        for row in await self.db.run(club_store.open_tables(club.id)):
            state = await self.room_state(row.code)
            if state is None or state["status"] == "closed":
                continue
            table = self._table(row.template_id, names.get(row.template_id or 0, ""), state)
            table["same_ip"] = await self.same_ip(
                [s["player"] if s["connected"] else None for s in table["seats"]]
            )
            out.append(table)
        today = start_of_day(datetime.now(UTC))
        finished = [m.to_dict() for m in await self.db.run(club_records.club_matches(club.id, today, 20))]
        return out, [dict(m) for m in finished]

    def _table(self, template: int | None, name: str, state: RoomState) -> ClubTable:
        match = state["match"]
        on = match is not None and not match["finished"]
        seats: list[ClubSeat] = [
            {
                "seat": s["seat"],
                "player": s["player"]["id"] if s["player"] else None,
                "nickname": s["player"]["nickname"] if s["player"] else None,
                "connected": s["connected"],
            }
            for s in state["seats"]
        ]
        return {
            "code": state["code"],
            "template": template,
            "name": name,
            "status": "playing" if on else "waiting",
            "seats": seats,
            "hand_no": match["hand_no"] if on and match is not None else None,
            "hands": state["options"]["hands"],
            "same_ip": [],  # filled by tables()
        }

    async def same_ip(self, players: list[int | None]) -> list[int]:
        """同IP (issue 31 §4): the seats whose players' websockets share an address with another seat's —
        this process's, then (the shared mode) those at the others. Only the seats are told, never the
        address. ``players``: by seat, None for a free or disconnected seat."""
        here = {pid: a for pid in players if pid is not None and (a := self.addresses(pid)) is not None}
        rest = [pid for pid in players if pid is not None and pid not in here]
        found = here | (await self.elsewhere.addresses(rest) if rest else {})
        seen: dict[str, list[int]] = {}
        for seat, pid in enumerate(players):
            addr = found.get(pid) if pid is not None else None
            if addr is not None:
                seen.setdefault(addr, []).append(seat)
        return sorted(s for seats in seen.values() if len(seats) > 1 for s in seats)

    # ---- opening and sitting -------------------------------------------------------------------------

    async def open_table(self, club: ClubRow, template: TemplateRow) -> str:
        """A new empty table of ``template``: its code."""
        try:
            options = RoomOptions.from_dict(template.options)
        except RoomOptionsError as exc:
            raise RoomError("invalid", f"template {template.name!r} cannot be played: {exc}", 422) from None
        options = dataclasses.replace(options, bots_fill=False)
        n = options.rules.players_at_table  # 3; 4 for 守醒 (R8.1) and 六胡抢 (R9.3, option players)
        code = await self.home.new_code(self.directory.rooms)
        room_id = await self.db.run(store.create_room(code, "club", None, options, n, club=(club.id, template.id)))
        services = await self.home.services_for(self.services, room_id, code)
        room = Room(services, room_id, code, "club", None, options, [SeatState(i) for i in range(n)])
        self.directory.add(room)
        log(INFO, "club table opened", room=code, club=club.number, template=template.id)
        return code

    async def sit(self, club: ClubRow, player_id: int, code: str, seat: int | None) -> RoomState:
        """The member sits at the club's table ``code`` (a waiting room left first). When that fills the
        table and its match starts, and the club opens tables by itself (自动开桌), a fresh table of the same
        template opens unless one with a free seat is there."""
        tables = {t.code: t for t in await self.db.run(club_store.open_tables(club.id))}
        row = tables.get(code)
        if row is None:
            raise RoomError("not_found", f"no open table {code[:12]!r} in club {club.number}", 404)
        state = await self.join_room(player_id, code, seat)
        if state["match"] is not None and not state["match"]["finished"] and club.auto_open:
            await self.keep_a_seat(club, row.template_id)
        return state

    async def keep_a_seat(self, club: ClubRow, template_id: int | None) -> str | None:
        """自动开桌: a table of the template with a free seat, opened if there is none (its code, or None)."""
        if template_id is None:
            return None
        for row in await self.db.run(club_store.open_tables(club.id)):
            if row.template_id != template_id:
                continue
            state = await self.room_state(row.code)
            if state is None or (state["match"] is not None and not state["match"]["finished"]):
                continue
            if any(s["player"] is None for s in state["seats"]):
                return None  # a waiting table with a free seat
        template = next((t for t in await self.db.run(club_store.templates(club.id)) if t.id == template_id), None)
        if template is None:
            return None  # deleted meanwhile: no new table of it
        return await self.open_table(club, template)

    # ---- following the list (club_watch) ---------------------------------------------------------------

    async def watch(self, player_id: int, club: ClubRow | None) -> None:
        """The player's websocket follows ``club``'s tables (None: stops); the list is sent at once."""
        self.last.pop(player_id, None)
        if club is None:
            self.watching.pop(player_id, None)
            return
        self.watching[player_id] = club.number
        tables, finished = await self.tables(club)
        self._send(player_id, club.number, tables, finished)

    def forget(self, player_id: int, number: str | None = None, reason: Gone | None = None) -> None:
        """Stop sending the player ``number``'s tables (any club's, with None); told why (``club_gone``)."""
        if number is not None and self.watching.get(player_id) != number:
            return
        self.watching.pop(player_id, None)
        self.last.pop(player_id, None)
        if number is not None and reason is not None:
            self.sockets.send(player_id, frames.club_gone(number, reason))

    def _send(self, player_id: int, number: str, tables: list[ClubTable], finished: list[dict[str, Any]]) -> None:
        key = (tables, [m["id"] for m in finished])
        if self.last.get(player_id) == key:
            return
        self.last[player_id] = key
        self.sockets.send(player_id, frames.club_tables(number, tables, finished))

    async def run(self) -> None:
        """The watchers' loop: every :data:`TICK` seconds, each watched club read once and sent on."""
        while True:
            await asyncio.sleep(TICK)
            try:
                await self.tick()
            except Exception:
                log(ERROR, "club tables could not be sent", exc_info=True)

    async def tick(self) -> None:
        by_club: dict[str, list[int]] = {}
        for pid, number in list(self.watching.items()):
            if pid not in self.sockets:
                self.forget(pid)
                continue
            by_club.setdefault(number, []).append(pid)
        for number, watchers in by_club.items():
            club = await self.db.run(club_store.club_by_number(number))
            if club is None:
                for pid in watchers:
                    self.forget(pid, number, "dissolved")
                continue
            members = await self.db.run(club_store.member_ids(club.id))
            for pid in [w for w in watchers if w not in members]:
                self.forget(pid, number, "removed")
            watchers = [w for w in watchers if w in members and self.watching.get(w) == number]
            if not watchers:
                continue
            tables, finished = await self.tables(club)
            for pid in watchers:
                self._send(pid, number, tables, finished)
