"""亲友圈 (issue 31), persistence: the database jobs of clubs — the club, its members and their roles, join
requests, bans, 玩法 templates, its tables and the matches played at them — each returning typed rows
(frozen dataclasses), never ORM objects. The rules (who may do what, the limits) are
:mod:`paohuzi.server.clubs`'; the matches played at its tables are read by
:mod:`paohuzi.server.club_records`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, TypedDict

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from paohuzi.server.models import (
    Club,
    ClubBan,
    ClubMember,
    ClubRequest,
    ClubTemplate,
    Player,
    Room,
    utcnow,
)
from paohuzi.server.store import Job, iso

__all__ = [
    "ClubData",
    "ClubRow",
    "MemberData",
    "MemberRow",
    "RequestData",
    "RequestRow",
    "TableRow",
    "TemplateData",
    "TemplateRow",
    "INVITE_ALPHABET",
]

INVITE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I: read aloud or typed from a screen
INVITE_LENGTH = 8


def new_invite_code() -> str:
    """A fresh invite code (8 of 32 characters: 40 bits, guessing is rate-limited as well)."""
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


# ---- rows ---------------------------------------------------------------------------------------------


class ClubData(TypedDict):
    """A club as its members see it (docs/protocol.md §2 "Clubs")."""

    number: str
    name: str
    owner: int
    join_mode: str
    auto_open: bool
    notice: str
    created_at: str | None
    members: int


@dataclass(frozen=True, slots=True)
class ClubRow:
    id: int
    number: str
    name: str
    owner_id: int
    join_mode: str
    auto_open: bool
    notice: str
    invite_code: str
    created_at: str | None
    members: int

    def to_dict(self) -> ClubData:
        return {
            "number": self.number,
            "name": self.name,
            "owner": self.owner_id,
            "join_mode": self.join_mode,
            "auto_open": self.auto_open,
            "notice": self.notice,
            "created_at": self.created_at,
            "members": self.members,
        }


class MemberData(TypedDict):
    player: int
    nickname: str
    role: str
    joined_at: str | None


@dataclass(frozen=True, slots=True)
class MemberRow:
    player_id: int
    nickname: str
    role: str
    joined_at: str | None

    def to_dict(self) -> MemberData:
        return {"player": self.player_id, "nickname": self.nickname, "role": self.role, "joined_at": self.joined_at}


class RequestData(TypedDict):
    player: int
    nickname: str
    created_at: str | None


@dataclass(frozen=True, slots=True)
class RequestRow:
    player_id: int
    nickname: str
    created_at: str | None

    def to_dict(self) -> RequestData:
        return {"player": self.player_id, "nickname": self.nickname, "created_at": self.created_at}


class TemplateData(TypedDict):
    id: int
    name: str
    options: dict[str, Any]  # RoomOptions.to_dict() (docs/protocol.md §2 RoomOptions)


@dataclass(frozen=True, slots=True)
class TemplateRow:
    id: int
    name: str
    options: dict[str, Any]

    def to_dict(self) -> TemplateData:
        return {"id": self.id, "name": self.name, "options": self.options}


@dataclass(frozen=True, slots=True)
class TableRow:
    """An open club table: its room's code and template, as stored (the live state is the room's)."""

    room_id: int
    code: str
    template_id: int | None
    status: str


def _club_row(s: Session, c: Club) -> ClubRow:
    count = s.scalar(select(func.count()).select_from(ClubMember).where(ClubMember.club_id == c.id)) or 0
    return ClubRow(
        c.id, c.number, c.name, c.owner_id, c.join_mode, bool(c.auto_open), c.notice, c.invite_code,
        iso(c.created_at), int(count),
    )


# ---- clubs ----------------------------------------------------------------------------------------------


def count_memberships(player_id: int) -> Job[int]:
    """The clubs (not dissolved) the player belongs to."""

    def job(s: Session) -> int:
        q = (
            select(func.count())
            .select_from(ClubMember)
            .join(Club, Club.id == ClubMember.club_id)
            .where(ClubMember.player_id == player_id, Club.dissolved_at.is_(None))
        )
        return int(s.scalar(q) or 0)

    return job


def create_club(owner_id: int, name: str, limit: int) -> Job[ClubRow | None]:
    """A new club owned by ``owner_id`` (its first member), with a fresh 6-digit number and invite code;
    None when the owner already belongs to ``limit`` clubs (checked in the same transaction)."""

    def job(s: Session) -> ClubRow | None:
        if count_memberships(owner_id)(s) >= limit:
            return None
        while True:
            number = str(100000 + secrets.randbelow(900000))
            if s.scalar(select(Club.id).where(Club.number == number)) is None:
                break
        invite = new_invite_code()
        club = Club(number=number, name=name, owner_id=owner_id, join_mode="approval", auto_open=True, notice="")
        club.invite_code = invite
        s.add(club)
        s.flush()
        s.add(ClubMember(club_id=club.id, player_id=owner_id, role="owner"))
        s.flush()
        return _club_row(s, club)

    return job


def club_by_number(number: str) -> Job[ClubRow | None]:
    def job(s: Session) -> ClubRow | None:
        c = s.scalars(select(Club).where(Club.number == number, Club.dissolved_at.is_(None))).first()
        return None if c is None else _club_row(s, c)

    return job


def club_by_invite(code: str) -> Job[ClubRow | None]:
    def job(s: Session) -> ClubRow | None:
        c = s.scalars(select(Club).where(Club.invite_code == code, Club.dissolved_at.is_(None))).first()
        return None if c is None else _club_row(s, c)

    return job


def role_of(club_id: int, player_id: int) -> Job[str | None]:
    """The player's role in the club (owner, admin, member), or None for an outsider."""

    def job(s: Session) -> str | None:
        return s.scalar(
            select(ClubMember.role).where(ClubMember.club_id == club_id, ClubMember.player_id == player_id)
        )

    return job


def clubs_of(player_id: int) -> Job[list[tuple[ClubRow, str]]]:
    """The clubs the player belongs to (not dissolved), with its role, oldest membership first."""

    def job(s: Session) -> list[tuple[ClubRow, str]]:
        rows = s.execute(
            select(Club, ClubMember.role)
            .join(ClubMember, ClubMember.club_id == Club.id)
            .where(ClubMember.player_id == player_id, Club.dissolved_at.is_(None))
            .order_by(ClubMember.joined_at, Club.id)
        ).all()
        return [(_club_row(s, c), role) for c, role in rows]

    return job


def update_club(club_id: int, **values: Any) -> Job[ClubRow]:
    """Change the club's name, notice, join mode, 自动开桌 or invite code."""

    def job(s: Session) -> ClubRow:
        s.execute(update(Club).where(Club.id == club_id).values(**values))
        club = s.get(Club, club_id)
        assert club is not None
        s.refresh(club)
        return _club_row(s, club)

    return job


def dissolve(club_id: int) -> Job[None]:
    """The club is dissolved: nobody sees it any more; its matches stay in their players' history."""

    def job(s: Session) -> None:
        s.execute(update(Club).where(Club.id == club_id).values(dissolved_at=utcnow()))
        s.execute(delete(ClubRequest).where(ClubRequest.club_id == club_id, ClubRequest.status == "pending"))

    return job


# ---- members, requests, bans ----------------------------------------------------------------------------


def members(club_id: int) -> Job[list[MemberRow]]:
    """The members: owner first, then admins, then by when they joined."""

    def job(s: Session) -> list[MemberRow]:
        rows = s.execute(
            select(ClubMember, Player)
            .join(Player, Player.id == ClubMember.player_id)
            .where(ClubMember.club_id == club_id)
            .order_by(ClubMember.joined_at, ClubMember.player_id)
        ).all()
        order = {"owner": 0, "admin": 1, "member": 2}
        out = [MemberRow(p.id, p.nickname, m.role, iso(m.joined_at)) for m, p in rows]
        return sorted(out, key=lambda m: order.get(m.role, 3))

    return job


def member_ids(club_id: int) -> Job[set[int]]:
    def job(s: Session) -> set[int]:
        return set(s.scalars(select(ClubMember.player_id).where(ClubMember.club_id == club_id)))

    return job


def is_banned(club_id: int, player_id: int) -> Job[bool]:
    def job(s: Session) -> bool:
        return s.get(ClubBan, (club_id, player_id)) is not None

    return job


def request_join(club_id: int, player_id: int) -> Job[str]:
    """Ask to join: ``pending`` (a new request, or the one already open), ``banned`` or ``member``."""

    def job(s: Session) -> str:
        if s.get(ClubMember, (club_id, player_id)) is not None:
            return "member"
        if s.get(ClubBan, (club_id, player_id)) is not None:
            return "banned"
        open_one = s.scalar(
            select(ClubRequest.id).where(
                ClubRequest.club_id == club_id, ClubRequest.player_id == player_id, ClubRequest.status == "pending"
            )
        )
        if open_one is None:
            s.add(ClubRequest(club_id=club_id, player_id=player_id, status="pending"))
        return "pending"

    return job


def pending(club_id: int) -> Job[list[RequestRow]]:
    def job(s: Session) -> list[RequestRow]:
        rows = s.execute(
            select(ClubRequest, Player)
            .join(Player, Player.id == ClubRequest.player_id)
            .where(ClubRequest.club_id == club_id, ClubRequest.status == "pending")
            .order_by(ClubRequest.id)
        ).all()
        return [RequestRow(p.id, p.nickname, iso(r.created_at)) for r, p in rows]

    return job


def add_member(club_id: int, player_id: int, by: int | None, member_limit: int, club_limit: int) -> Job[str]:
    """Make the player a member (an approved request, or an open club): ``joined``; ``member`` (already
    one), ``banned``, ``club_full`` (``member_limit`` members), ``too_many_clubs`` (the player belongs to
    ``club_limit``). Its pending request is closed as approved."""

    def job(s: Session) -> str:
        if s.get(ClubMember, (club_id, player_id)) is not None:
            return "member"
        if s.get(ClubBan, (club_id, player_id)) is not None:
            return "banned"
        count = s.scalar(select(func.count()).select_from(ClubMember).where(ClubMember.club_id == club_id)) or 0
        if count >= member_limit:
            return "club_full"
        if count_memberships(player_id)(s) >= club_limit:
            return "too_many_clubs"
        s.add(ClubMember(club_id=club_id, player_id=player_id, role="member"))
        _close_requests(s, club_id, player_id, "approved", by)
        return "joined"

    return job


def refuse(club_id: int, player_id: int, by: int) -> Job[bool]:
    """Refuse the player's pending request; False when there is none."""

    def job(s: Session) -> bool:
        return _close_requests(s, club_id, player_id, "refused", by) > 0

    return job


def has_request(club_id: int, player_id: int) -> Job[bool]:
    def job(s: Session) -> bool:
        q = select(ClubRequest.id).where(
            ClubRequest.club_id == club_id, ClubRequest.player_id == player_id, ClubRequest.status == "pending"
        )
        return s.scalar(q) is not None

    return job


def _close_requests(s: Session, club_id: int, player_id: int, status: str, by: int | None) -> int:
    result = s.execute(
        update(ClubRequest)
        .where(ClubRequest.club_id == club_id, ClubRequest.player_id == player_id, ClubRequest.status == "pending")
        .values(status=status, decided_by=by, decided_at=utcnow())
    )
    return int(getattr(result, "rowcount", 0) or 0)


def remove_member(club_id: int, player_id: int, ban_by: int | None) -> Job[bool]:
    """The player is no member any more (removed, or left); banned too when ``ban_by`` is given. False when
    it was no member."""

    def job(s: Session) -> bool:
        found = s.get(ClubMember, (club_id, player_id))
        if found is not None:
            s.delete(found)
        if ban_by is not None and s.get(ClubBan, (club_id, player_id)) is None:
            s.add(ClubBan(club_id=club_id, player_id=player_id, banned_by=ban_by))
            _close_requests(s, club_id, player_id, "refused", ban_by)
        return found is not None

    return job


def unban(club_id: int, player_id: int) -> Job[bool]:
    def job(s: Session) -> bool:
        result = s.execute(delete(ClubBan).where(ClubBan.club_id == club_id, ClubBan.player_id == player_id))
        return int(getattr(result, "rowcount", 0) or 0) > 0

    return job


def bans(club_id: int) -> Job[list[RequestRow]]:
    def job(s: Session) -> list[RequestRow]:
        rows = s.execute(
            select(ClubBan, Player).join(Player, Player.id == ClubBan.player_id).where(ClubBan.club_id == club_id)
        ).all()
        return [RequestRow(p.id, p.nickname, iso(b.created_at)) for b, p in rows]

    return job


def set_role(club_id: int, player_id: int, role: str) -> Job[None]:
    def job(s: Session) -> None:
        s.execute(
            update(ClubMember)
            .where(ClubMember.club_id == club_id, ClubMember.player_id == player_id)
            .values(role=role)
        )

    return job


def transfer(club_id: int, old_owner: int, new_owner: int) -> Job[None]:
    """The club changes hands: the new owner's role is ``owner``, the old one's ``admin``."""

    def job(s: Session) -> None:
        s.execute(update(Club).where(Club.id == club_id).values(owner_id=new_owner))
        set_role(club_id, new_owner, "owner")(s)
        set_role(club_id, old_owner, "admin")(s)

    return job


# ---- templates ------------------------------------------------------------------------------------------


def templates(club_id: int) -> Job[list[TemplateRow]]:
    def job(s: Session) -> list[TemplateRow]:
        rows = s.scalars(
            select(ClubTemplate)
            .where(ClubTemplate.club_id == club_id, ClubTemplate.deleted_at.is_(None))
            .order_by(ClubTemplate.id)
        )
        return [TemplateRow(t.id, t.name, dict(t.options)) for t in rows]

    return job


def save_template(
    club_id: int, template_id: int | None, name: str, options: dict[str, Any], limit: int
) -> Job[TemplateRow | str]:
    """Add a template (``template_id`` None) or change one; ``too_many_templates`` or ``not_found``."""

    def job(s: Session) -> TemplateRow | str:
        if template_id is None:
            count = s.scalar(
                select(func.count())
                .select_from(ClubTemplate)
                .where(ClubTemplate.club_id == club_id, ClubTemplate.deleted_at.is_(None))
            )
            if (count or 0) >= limit:
                return "too_many_templates"
            t = ClubTemplate(club_id=club_id, name=name, options=options)
            s.add(t)
            s.flush()
            return TemplateRow(t.id, t.name, dict(t.options))
        found = s.get(ClubTemplate, template_id)
        if found is None or found.club_id != club_id or found.deleted_at is not None:
            return "not_found"
        found.name, found.options = name, options
        return TemplateRow(found.id, name, options)

    return job


def delete_template(club_id: int, template_id: int) -> Job[bool]:
    def job(s: Session) -> bool:
        result = s.execute(
            update(ClubTemplate)
            .where(
                ClubTemplate.id == template_id, ClubTemplate.club_id == club_id, ClubTemplate.deleted_at.is_(None)
            )
            .values(deleted_at=utcnow())
        )
        return int(getattr(result, "rowcount", 0) or 0) > 0

    return job


# ---- tables and matches ---------------------------------------------------------------------------------


def open_tables(club_id: int) -> Job[list[TableRow]]:
    """The club's rooms not closed, oldest first."""

    def job(s: Session) -> list[TableRow]:
        rows = s.execute(
            select(Room.id, Room.code, Room.template_id, Room.status)
            .where(Room.club_id == club_id, Room.status != "closed")
            .order_by(Room.id)
        ).all()
        return [TableRow(int(i), str(c), t, str(st)) for i, c, t, st in rows]

    return job


def table_club(code: str) -> Job[int | None]:
    """The club of the open room ``code``, or None (not a club table, or closed)."""

    def job(s: Session) -> int | None:
        return s.scalar(select(Room.club_id).where(Room.code == code, Room.status != "closed"))

    return job
