"""Database tables (SQLAlchemy 2 declarative). The schema is created and changed only by the alembic
migrations in ``migrations/``; ``tests/server/test_db.py`` checks that they match these classes.

- ``players``: guest identities (the token is stored only as its SHA-256), points (积分, R7.3), counts.
- ``rooms`` / ``room_seats``: rooms with their options and who sits where.
- ``matches``: one 一场 of N hands at a room; ``match_seats``: who played it and the result, for history.
- ``hands``: one hand (局): rules, seed and dealer — what the engine needs to deal it again — and, once
  finished, its outcome and record (the replay).
- ``sessions``: server-side log-in sessions (the token only as SHA-256): listed and revoked by their player
  (issue 13). A guest's first token is its first session.
- ``ledger``: every change of a player's 欢乐豆 (beans) or 积分 (points), append-only, with the balance
  after it; written in the transaction of the change (issue 13 §2).
- ``card_activations``: each 双倍积分卡 used, with the hour it is active (issue 13 §3); the cards held are
  ``players.double_cards``, each hand's holders ``hands.double_cards``.
- ``actions``: the append-only log of every accepted action of every hand, in order. A hand is rebuilt from
  (rules, seed, dealer, actions) after a restart.
- ``queue_entries``: the players waiting for a public table (匹配, issue 13 §4), one row each, so that the
  queue survives a restart (a player is queued again when it reconnects).
- ``clubs``, ``club_members``, ``club_requests``, ``club_bans``, ``club_templates`` (亲友圈, issue 31): a club,
  its members with their roles, join requests, bans and saved 玩法; a club table is a room with ``club_id`` and
  ``template_id`` set.
- ``hand_reviews``: a finished hand's 复盘 for one seat (issue 34), computed once and kept
  (:mod:`paohuzi.server.review_api`).
- ``writer_fence``: one row; the fencing token of the server process that may write (see
  :meth:`paohuzi.server.db.Database.take_over`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import JSON, BigInteger, Boolean, Connection, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

__all__ = [
    "Base",
    "Player",
    "Room",
    "RoomSeat",
    "Match",
    "MatchSeat",
    "HandRow",
    "ActionRow",
    "WriterFence",
    "RoomFence",
    "SessionRow",
    "LedgerRow",
    "CardActivation",
    "QueueEntry",
    "Club",
    "ClubMember",
    "ClubRequest",
    "ClubBan",
    "ClubTemplate",
    "core",
    "is_per_hand",
    "per_hand",
    "utcnow",
]

T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


def core(s: Session) -> Connection:
    """The session's connection, for a per-hand job's Core statements built once (issue 33: the ORM's
    statements — bulk update and insert paths, per-call compiles — were most of the database thread's CPU
    per hand, which holds the GIL the event loop needs): the session's pending writes are flushed first,
    as an ORM statement's autoflush would. After Core updates, :meth:`Session.expire_all` the objects."""
    s.flush()
    return s.connection()


_PER_HAND: weakref.WeakSet[Callable[[Session], object]] = weakref.WeakSet()


def per_hand(fn: Callable[[Session], T]) -> Callable[[Session], T]:
    """Mark a per-hand job — a hand dealt or settled: a few statements on a few rows, nothing waited for — that
    on a SQLite file the event loop may commit on its own connection while the database thread is idle
    (issue 33: :meth:`paohuzi.server.db.Database.run`), instead of handing it to that thread and back."""
    _PER_HAND.add(fn)
    return fn


def is_per_hand(fn: Callable[[Session], object]) -> bool:
    return fn in _PER_HAND


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    nickname: Mapped[str] = mapped_column(String(32))
    points: Mapped[int] = mapped_column(BigInteger, default=0)
    hands_played: Mapped[int] = mapped_column(Integer, default=0)
    hands_won: Mapped[int] = mapped_column(Integer, default=0)
    matches_played: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Accounts (issue 13): a claimed guest has a username (NFKC), its skeleton (unique, see
    # paohuzi.server.accounts.username_key) and an argon2id password hash; a deleted one has deleted_at.
    username: Mapped[str | None] = mapped_column(String(32), nullable=True)
    username_key: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    beans: Mapped[int] = mapped_column(BigInteger, default=1000)  # 欢乐豆 (R7.3); every change is in ledger
    # 双倍积分卡 (R7.3, issue 13 §3): unused cards held (every change is a ``cards`` ledger row), and the
    # highest level (R7.4) a level-up card was given for (None: none yet)
    double_cards: Mapped[int] = mapped_column(BigInteger, default=0)
    card_level: Mapped[int | None] = mapped_column(Integer, nullable=True)

    __table_args__ = (Index("ix_players_points", "points"),)


class SessionRow(Base):
    """One log-in: a token (stored as SHA-256) of a player, until revoked."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # guest | login | claim
    user_agent: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_sessions_player", "player_id"),)


class Room(Base):
    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(6))
    kind: Mapped[str] = mapped_column(String(16))  # quick | private | public | club
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="waiting")  # waiting | playing | closed
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # a club table (issue 31): its club and the 玩法 template it was opened from
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), nullable=True)
    template_id: Mapped[int | None] = mapped_column(ForeignKey("club_templates.id"), nullable=True)

    __table_args__ = (
        Index("ix_rooms_code", "code"),
        Index("ix_rooms_status", "status"),
        Index("ix_rooms_club", "club_id", "status"),
    )


class RoomSeat(Base):
    __tablename__ = "room_seats"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    ready: Mapped[bool] = mapped_column(Boolean, default=False)


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"))
    seed: Mapped[int] = mapped_column(BigInteger)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    hands_total: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="playing")  # playing | finished | aborted
    scores: Mapped[list[Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_matches_room", "room_id"), Index("ix_matches_status", "status"))


class MatchSeat(Base):
    __tablename__ = "match_seats"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    nickname: Mapped[str] = mapped_column(String(32))
    score: Mapped[int] = mapped_column(BigInteger, default=0)
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)

    __table_args__ = (Index("ix_match_seats_player", "player_id"),)


class HandRow(Base):
    __tablename__ = "hands"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    number: Mapped[int] = mapped_column(Integer)  # 1-based within the match
    seed: Mapped[int] = mapped_column(BigInteger)  # rng_version 1: deals it; with ``fair``: keys its replay code
    dealer: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    # 可验证发牌 (issue 32): the seeds of a verifiable deal (FairSeed.to_dict: the server seed is secret
    # until the hand is over); None for a hand dealt from ``seed``
    fair: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="playing")  # playing | finished | aborted
    double_cards: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)  # seats with an active card
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_hands_match", "match_id"), Index("ix_hands_status", "status"))


class ActionRow(Base):
    """One accepted action: append-only, written before its events are sent."""

    __tablename__ = "actions"

    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1-based order within the hand
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(64))
    by: Mapped[str] = mapped_column(String(16))  # player | bot | auto (托管)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class WriterFence(Base):
    """The writer's fencing token: bumped by each server process that takes the database over at start-up;
    every transaction of a process checks that the token is still its own (issue 14)."""

    __tablename__ = "writer_fence"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)  # always 1
    token: Mapped[int] = mapped_column(BigInteger)
    holder: Mapped[str] = mapped_column(String(128))
    taken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RoomFence(Base):
    """A room's fencing token in the shared mode (issue 14): the token of the process whose Redis lease
    holds the room, set when it takes the room over (only ever upwards); every transaction that writes
    for the room first checks that it is still the writer's own."""

    __tablename__ = "room_fences"

    room_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    token: Mapped[int] = mapped_column(BigInteger)
    holder: Mapped[str] = mapped_column(String(128))
    taken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LedgerRow(Base):
    """One change of a player's beans or points: append-only (never updated or deleted)."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    hand_id: Mapped[int | None] = mapped_column(ForeignKey("hands.id"), nullable=True)
    currency: Mapped[str] = mapped_column(String(8))  # beans | points | cards (双倍积分卡 held)
    # start | opening | hand | relief | daily | level | activate | deleted (the account's wallet emptied)
    reason: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (Index("ix_ledger_player", "player_id", "id"),)


class CardActivation(Base):
    """One 双倍积分卡 used (R7.3, issue 13 §3): its holder's own 积分 gains double in every hand that starts
    from ``started_at`` until ``expires_at``."""

    __tablename__ = "card_activations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_card_activations_player", "player_id", "expires_at"),)


class QueueEntry(Base):
    """A player waiting in a tier's queue for a public table (匹配): one row per player, deleted when it is
    seated, leaves the queue or is dropped."""

    __tablename__ = "queue_entries"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    tier: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(32), default="qq", server_default="qq")  # issue 29
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Club(Base):
    """A 亲友圈 (issue 31): a short number, a name, its owner, how players join, 自动开桌, the notice (the
    only free text), the current invite code; ``dissolved_at`` once dissolved (its records stay)."""

    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    number: Mapped[str] = mapped_column(String(8), unique=True)
    name: Mapped[str] = mapped_column(String(32))
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    join_mode: Mapped[str] = mapped_column(String(16), default="approval")  # approval | open
    auto_open: Mapped[bool] = mapped_column(Boolean, default=True)  # 自动开桌
    notice: Mapped[str] = mapped_column(String(400), default="")
    invite_code: Mapped[str] = mapped_column(String(16), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    dissolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ClubMember(Base):
    """A member of a club, with its role: owner, admin or member (one owner per club)."""

    __tablename__ = "club_members"

    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    role: Mapped[str] = mapped_column(String(8))  # owner | admin | member
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (Index("ix_club_members_player", "player_id"),)


class ClubRequest(Base):
    """A player's request to join a club: pending until an owner or admin approves or refuses it."""

    __tablename__ = "club_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending | approved | refused
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_club_requests_club", "club_id", "status"),)


class ClubBan(Base):
    """A player banned from a club: it may not ask to join again until unbanned."""

    __tablename__ = "club_bans"

    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    banned_by: Mapped[int] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClubTemplate(Base):
    """A club's saved 玩法: a name and the room options (RoomOptions.to_dict(): preset, house options, 局数,
    底分) its tables play; ``deleted_at`` once removed (the tables opened from it keep their options)."""

    __tablename__ = "club_templates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"))
    name: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_club_templates_club", "club_id"),)


class HandReview(Base):
    """复盘 (issue 34): the review of a finished hand for one seat (:meth:`paohuzi.bots.review.Review.to_dict`),
    kept once computed; recomputed only when the server's review settings differ from ``review["settings"]``."""

    __tablename__ = "hand_reviews"

    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    review: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
