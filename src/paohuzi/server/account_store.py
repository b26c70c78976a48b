"""Database jobs for accounts (issue 13 §1): sessions, claiming, logging in, export and deletion. Like
:mod:`paohuzi.server.store`, each is a function of a session returning plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import String, cast, literal, select, update
from sqlalchemy.orm import Session

from paohuzi.server import ledger_store, wallet
from paohuzi.server.db import alone
from paohuzi.server.economy import START_BEANS
from paohuzi.server.models import LedgerRow, MatchSeat, Player, RoomSeat, SessionRow, utcnow
from paohuzi.server.rows import MatchSummaryData, PlayerData, PlayerRow
from paohuzi.server.store import Job, history, iso, player_by_id, player_row

__all__ = [
    "DELETED_NICKNAME",
    "AccountData",
    "AccountRow",
    "ExportData",
    "SessionData",
    "SessionInfo",
    "Credentials",
    "create_guest",
    "session_by_token",
    "new_session",
    "list_sessions",
    "revoke_sessions",
    "account",
    "claim",
    "credentials",
    "export",
    "delete_player",
]

DELETED_NICKNAME = "已注销玩家"  # what others' records show of a deleted player


class SessionData(TypedDict):
    """A session as JSON (``GET /api/me/account``)."""

    id: int
    kind: str
    user_agent: str
    created_at: str | None


class AccountData(TypedDict):
    """An account as JSON (docs/protocol.md §2 "Accounts")."""

    username: str | None
    claimed: bool
    claimed_at: str | None


class ExportData(TypedDict):
    """``GET /api/me/export``: everything kept about a player."""

    player: PlayerData
    account: AccountData
    sessions: list[SessionData]
    matches: list[MatchSummaryData]
    exported_at: str | None


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session as its player may see it (never the token, nor its hash)."""

    id: int
    kind: str
    user_agent: str
    created_at: str | None

    def to_dict(self) -> SessionData:
        return {"id": self.id, "kind": self.kind, "user_agent": self.user_agent, "created_at": self.created_at}


@dataclass(frozen=True, slots=True)
class AccountRow:
    """A player's account: the username (None for a guest that never claimed) and when it was claimed."""

    player_id: int
    username: str | None
    claimed_at: str | None

    def to_dict(self) -> AccountData:
        return {"username": self.username, "claimed": self.username is not None, "claimed_at": self.claimed_at}


@dataclass(frozen=True, slots=True)
class Credentials:
    """What a log-in is checked against."""

    player_id: int
    password_hash: str


def create_guest(token_hash: str, nickname: str, user_agent: str) -> Job[tuple[PlayerRow, int]]:
    """A new guest and its first session: the player and the session id."""

    def job(s: Session) -> tuple[PlayerRow, int]:
        p = Player(
            token_hash=token_hash,
            nickname=nickname,
            points=0,
            hands_played=0,
            hands_won=0,
            matches_played=0,
            beans=START_BEANS,
        )
        s.add(p)
        s.flush()
        s.add(
            LedgerRow(
                player_id=p.id, currency="beans", reason="start", amount=START_BEANS, balance_after=START_BEANS
            )
        )
        row = SessionRow(player_id=p.id, token_hash=token_hash, kind="guest", user_agent=user_agent[:120])
        s.add(row)
        s.flush()
        return player_row(p), row.id

    return job


def session_by_token(token_hash: str) -> Job[tuple[PlayerRow, int] | None]:
    """The player and session id of a live session's token; None for unknown or revoked tokens."""

    def job(s: Session) -> tuple[PlayerRow, int] | None:
        found = s.execute(
            select(SessionRow, Player)
            .join(Player, Player.id == SessionRow.player_id)
            .where(SessionRow.token_hash == token_hash)
        ).first()
        if found is None:
            return None
        row, p = found
        if row.revoked_at is not None or p.deleted_at is not None:
            return None
        return player_row(p), row.id

    return job


def new_session(player_id: int, token_hash: str, kind: str, user_agent: str) -> Job[int]:
    def job(s: Session) -> int:
        row = SessionRow(player_id=player_id, token_hash=token_hash, kind=kind, user_agent=user_agent[:120])
        s.add(row)
        s.flush()
        return row.id

    return job


def list_sessions(player_id: int) -> Job[list[SessionInfo]]:
    """The player's live sessions, oldest first."""

    def job(s: Session) -> list[SessionInfo]:
        rows = s.scalars(
            select(SessionRow)
            .where(SessionRow.player_id == player_id, SessionRow.revoked_at.is_(None))
            .order_by(SessionRow.id)
        )
        return [SessionInfo(r.id, r.kind, r.user_agent, iso(r.created_at)) for r in rows]

    return job


def revoke_sessions(player_id: int, session_id: int | None) -> Job[list[int]]:
    """Revoke one of the player's live sessions (or all of them when ``session_id`` is None): the ids
    revoked (empty: no such live session of this player)."""

    def job(s: Session) -> list[int]:
        q = select(SessionRow).where(SessionRow.player_id == player_id, SessionRow.revoked_at.is_(None))
        if session_id is not None:
            q = q.where(SessionRow.id == session_id)
        rows = list(s.scalars(q))
        now = utcnow()
        for r in rows:
            r.revoked_at = now
        return [r.id for r in rows]

    return job


def account(player_id: int) -> Job[AccountRow | None]:
    def job(s: Session) -> AccountRow | None:
        p = s.get(Player, player_id)
        if p is None or p.deleted_at is not None:
            return None
        return AccountRow(p.id, p.username, iso(p.claimed_at))

    return job


def claim(player_id: int, username: str, key: str, password_hash: str) -> Job[str | None]:
    """Give the guest a username and password. None when done; else the reason: ``already_claimed`` or
    ``username_taken``."""

    def job(s: Session) -> str | None:
        p = s.get(Player, player_id)
        if p is None or p.deleted_at is not None:
            return "not_found"
        if p.username is not None:
            return "already_claimed"
        if s.scalars(select(Player.id).where(Player.username_key == key)).first() is not None:
            return "username_taken"
        p.username, p.username_key, p.password_hash, p.claimed_at = username, key, password_hash, utcnow()
        return None

    return job


def credentials(key: str) -> Job[Credentials | None]:
    """The password hash of the account with this username skeleton, or None."""

    def job(s: Session) -> Credentials | None:
        p = s.scalars(select(Player).where(Player.username_key == key, Player.deleted_at.is_(None))).first()
        if p is None or p.password_hash is None:
            return None
        return Credentials(p.id, p.password_hash)

    return job


def export(player_id: int) -> Job[ExportData | None]:
    """Everything kept about the player, as JSON data: profile, account, sessions (no tokens), and every
    match played with its hands (issue 13 §1, data export)."""

    def job(s: Session) -> ExportData | None:
        acct = account(player_id)(s)
        profile = player_by_id(player_id)(s)
        if acct is None or profile is None:
            return None
        return {
            "player": profile.to_dict(),
            "account": acct.to_dict(),
            "sessions": [x.to_dict() for x in list_sessions(player_id)(s)],
            "matches": [m.to_dict() for m in history(player_id, 1_000_000)(s)],
            "exported_at": iso(utcnow()),
        }

    return job


def delete_player(player_id: int) -> Job[list[int]]:
    """Delete an account: the username, password and nickname go, every session is revoked and scrubbed
    (its token hash and user agent), the player's own token hash becomes ``deleted:<id>`` (no token
    hashes to that) and ``claimed_at`` goes; the 欢乐豆 and 双倍积分卡 held are taken out of the game, each
    with a ledger row (reason ``deleted``), so the ledger still replays to every balance. The player's
    name in every match record (others' history too) becomes :data:`DELETED_NICKNAME`. 积分 and results
    stay in the matches (others' scores depend on them) but belong to nobody known. Returns the sessions
    revoked.
    """

    def job(s: Session) -> list[int]:
        wallet.lock(s, [player_id])  # the balances emptied below are the ones read (issue 27)
        p = s.get(Player, player_id)
        if p is None or p.deleted_at is not None:
            return []
        revoked = revoke_sessions(player_id, None)(s)
        s.execute(
            update(SessionRow)
            .where(SessionRow.player_id == player_id)
            .values(token_hash=literal("deleted:s") + cast(SessionRow.id, String), user_agent="")
        )
        p.nickname = DELETED_NICKNAME
        p.username = p.username_key = p.password_hash = p.claimed_at = None
        p.token_hash = f"deleted:{player_id}"
        p.deleted_at = utcnow()
        s.flush()
        for column, currency in (("beans", "beans"), ("double_cards", "cards")):
            held = int(s.execute(select(getattr(Player, column)).where(Player.id == player_id)).scalar_one())
            if held:
                after = wallet.add(s, player_id, column, -held)
                ledger_store.record(s, player_id, currency, "deleted", -held, after, None)
        s.execute(update(MatchSeat).where(MatchSeat.player_id == player_id).values(nickname=DELETED_NICKNAME))
        s.execute(update(RoomSeat).where(RoomSeat.player_id == player_id).values(player_id=None, ready=False))
        return revoked

    return alone(job)  # a wallet change: its own transaction, like every row lock (server/db.py)
