"""Server settings: one frozen value, built from defaults, ``PAOHUZI_*`` environment variables and the
command line (in that order of precedence, lowest first).

>>> s = Settings.from_env({"PAOHUZI_TURN_SECONDS": "1.5", "PAOHUZI_ALLOW_ORIGINS": "http://a.test, http://b.test"})
>>> s.turn_seconds, s.allow_origins
(1.5, ('http://a.test', 'http://b.test'))
>>> Settings().database_url
'sqlite:///data/paohuzi.sqlite3'
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paohuzi.rules import preset_names

__all__ = ["Settings", "DEFAULT_DATABASE_URL"]

DEFAULT_DATABASE_URL = "sqlite:///data/paohuzi.sqlite3"


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told. Time-outs are seconds (floats, so tests can use short ones).

    :ivar database_url: SQLAlchemy URL; SQLite by default, PostgreSQL with ``postgresql+psycopg://…``.
    :ivar allow_origins: browser origins allowed on the websocket besides the server's own.
    :ivar turn_seconds: default time for a discard decision (rooms may choose their own).
    :ivar claim_seconds: default time for a claim decision (胡/碰/吃/过).
    :ivar bot_delay: how long a bot (or 托管) waits before it plays, so people can follow the game.
    :ivar offline_grace: a disconnected player's seat goes to 托管 after this (a reload keeps the turn).
    :ivar between_hands: pause between the hands of a match.
    :ivar dissolve_seconds: time the others have to answer a 解散房间 proposal (R8.2: 60 s);
        ``dissolve_again``: a player may propose again this long after its last proposal ended (R8.2: 30 s).
    :ivar ready_seconds: before a friend room's first match, a seated player (not the owner) who has not said
        ``ready`` within this is stood up and sent back to the lobby (``kicked`` with ``reason``
        ``ready_timeout``; issue 12 item 5); 0 turns it off.
    :ivar hello_timeout: a websocket must send ``hello`` within this.
    :ivar max_frame: the largest websocket frame accepted, in bytes.
    :ivar rate: frames per second a connection may send on average; ``burst``: how many at once.
    :ivar max_dropped: frames dropped for the rate limit before the connection is closed.
    :ivar max_strikes: undecodable/invalid frames before the connection is closed.
    :ivar http_rate: lobby-API requests per second per client address; ``http_burst``: how many at once.
    :ivar quick_hands: hands in a quick-play match; ``room_hands``: default for private rooms.
    :ivar room_idle: seconds a room with nobody connected and no match on is kept.
    :ivar bot_name: the bot for bot seats whose room chose no level, and for 托管 (a ``paohuzi.bots.make_bot``
        name): the ``normal`` level (普通), ``paohuzi.bots.levels.AUTOPLAY``.
    :ivar bot_workers: 0: bots think on one thread of the server process; N: on N worker processes.
    :ivar review_workers: 复盘 (issue 34): worker processes reviews are computed on (0: one thread of the server
        process); ``review_worlds``: sampled worlds a decision (docs/AI.md §10); ``review_rate``: reviews per
        second a player may start (one kept already is free), ``review_burst``: how many at once.
    :ivar log_level: logging level name; ``log_json``: structured (JSON lines) logs.
    :ivar forwarded_allow_ips: proxies whose ``X-Forwarded-For``/``-Proto`` are believed (addresses or
        networks, ``*`` for any). Empty (the default): trust nobody — the client address is the TCP peer's,
        so a same-host proxy cannot be used to mint new rate-limit identities.
    :ivar docs: serve the Swagger UI at ``/docs`` (it loads its assets from a CDN, so it is off by default;
        ``/openapi.json`` is always served).
    :ivar send_queue_bytes: the most bytes of frames waiting for one websocket client; a client that lets
        more pile up (a slow or non-reading peer) is disconnected and its queue dropped.
    :ivar join_guess_rate: failed room-code look-ups (unknown code on ``GET /api/rooms/{code}`` or
        ``POST …/join``) per second per client address and per player; ``join_guess_burst``: how many at once.
    :ivar recv_buffer_bytes: the kernel receive buffer of each client socket (``SO_RCVBUF``; 0: the
        system's default, which grows to megabytes). The server reads a socket a buffer at a time and the
        websocket layer turns all of it into messages at once, so this bounds the memory one flooding
        client can make it hold (issue 14); game traffic needs a few KiB.
    :ivar login_rate: log-ins, claims and account deletions per second per client address;
        ``login_burst``: how many at once (issue 13).
    :ivar login_fail_rate: failed log-ins per second per account (and claims per player);
        ``login_fail_burst``: how many at once.
    :ivar match_fill_seconds: 匹配 (issue 13 §4): when the first player waiting in a tier's queue has waited
        this long, it is seated with whoever else waits there and a computer takes each seat still free.
    :ivar match_presets: the presets that have a 匹配 queue (issue 29: one queue per preset and tier, a
        public table plays its queue's preset); ``PAOHUZI_MATCH_PRESETS=qq,changde,shihuka``. The first is
        the one a ``queue_join`` without a preset waits for. Friend rooms and quick play offer every preset.
    :ivar queue_resume_seconds: after a restart, how long a player who was waiting keeps its place in the
        queue without reconnecting (an offline player otherwise keeps it for ``offline_grace``).
    :ivar seat_wait: how long a seating request (quick play, join, 匹配) waits for the same player's other
        seating request to end before it answers 409 ``busy`` (server/seating.py).
    :ivar access_log: a log line per HTTP request (uvicorn's access log; nginx keeps its own too).
    :ivar db_connections: PostgreSQL: the database connections (worker threads) of a process, each with a
        transaction in flight; a hand's actions always on the same one (issue 33). SQLite: always one.
    :ivar db_loop_appends: the action log's appends (and on SQLite a hand's per-hand jobs) from the event loop
        itself — SQLite's committed on a connection of the loop's while the worker is idle, PostgreSQL's sent on
        a connection of the loop's own (issue 33); off: every job on the database workers, as before.
    :ivar redis_url: empty: one process (the embedded default); ``redis://…``: the shared mode (docs/server.md).
    :ivar redis_prefix: the prefix of every Redis key and channel of the shared mode (one per deployment).
    :ivar redis_connections: the shared mode's Redis connections per process (a blocking pool: a command
        waits for a free one rather than failing under load).
    :ivar lease_ms: a room lease's time to live in the shared mode: a process that dies (``kill -9``) has
        its rooms taken over by the others after this (renewed every third of it).
    :ivar double_card_seconds: how long an activated 双倍积分卡 lasts (wall-clock; R7.3, issue 13 §3).
    :ivar seed_wait: 可验证发牌 (issue 32): how long a deal waits, after ``deal_commit``, for the client seeds
        of the players online; a seat that sent none by then is dealt with the empty seed.
    :ivar testing: TESTING ONLY (``PAOHUZI_TESTING=1``): allows ``test_match_seed``; never set it in production.
    :ivar test_match_seed: TESTING ONLY: every match is dealt from this seed (the same deal every time), so a
        browser test can script a known win (docs/server.md). -1 (the default): a secret random seed per
        match. Refused (the server does not start) unless ``testing`` is on.
    :ivar test_cheap_passwords: TESTING ONLY: new password hashes at argon2id's least cost instead of the
        production one (server/accounts.py), for the test servers' hundreds of accounts. Refused unless
        ``testing`` is on.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = DEFAULT_DATABASE_URL
    allow_origins: tuple[str, ...] = ()
    turn_seconds: float = 20.0
    claim_seconds: float = 10.0
    bot_delay: float = 0.8
    offline_grace: float = 5.0
    between_hands: float = 4.0
    dissolve_seconds: float = 60.0
    dissolve_again: float = 30.0
    ready_seconds: float = 60.0
    hello_timeout: float = 10.0
    max_frame: int = 4096
    rate: float = 20.0
    burst: int = 40
    max_dropped: int = 200
    max_strikes: int = 20
    http_rate: float = 20.0
    http_burst: int = 100
    quick_hands: int = 4
    room_hands: int = 8
    room_idle: float = 1800.0
    bot_name: str = "normal"
    bot_workers: int = 0
    review_workers: int = 1
    review_worlds: int = 32
    review_rate: float = 1 / 30
    review_burst: int = 5
    log_level: str = "INFO"
    log_json: bool = True
    forwarded_allow_ips: tuple[str, ...] = ()
    docs: bool = False
    send_queue_bytes: int = 256 * 1024
    join_guess_rate: float = 0.2
    join_guess_burst: int = 10
    recv_buffer_bytes: int = 8 * 1024
    access_log: bool = False
    db_connections: int = 4
    db_loop_appends: bool = True
    redis_url: str = ""
    redis_prefix: str = "paohuzi"
    redis_connections: int = 64
    lease_ms: int = 3000
    match_fill_seconds: float = 10.0
    match_presets: tuple[str, ...] = ("qq",)
    seat_wait: float = 15.0
    queue_resume_seconds: float = 60.0
    login_rate: float = 0.2
    login_burst: int = 10
    login_fail_rate: float = 1 / 60
    login_fail_burst: int = 5
    double_card_seconds: float = 3600.0
    seed_wait: float = 1.5
    testing: bool = False
    test_match_seed: int = -1
    test_cheap_passwords: bool = False

    def __post_init__(self) -> None:
        _check_match_presets(self.match_presets)
        if not 2 <= self.review_worlds <= 256:
            raise ValueError(f"PAOHUZI_REVIEW_WORLDS={self.review_worlds}: from 2 to 256 worlds a decision")
        if not 1 <= self.db_connections <= 64:
            raise ValueError(f"PAOHUZI_DB_CONNECTIONS={self.db_connections}: from 1 to 64 connections")
        if self.redis_url and self.database_url.startswith("sqlite"):
            raise ValueError(
                "PAOHUZI_REDIS_URL is set (the shared mode) but the database is SQLite: the shared mode needs "
                "PostgreSQL (PAOHUZI_DATABASE_URL=postgresql://…), or unset PAOHUZI_REDIS_URL for one process"
            )
        if self.test_match_seed >= 0 and not self.testing:
            raise ValueError(
                "PAOHUZI_TEST_MATCH_SEED deals every match the same cards and is for tests only: "
                "it needs PAOHUZI_TESTING=1 (never in production)"
            )
        if self.test_cheap_passwords and not self.testing:
            raise ValueError(
                "PAOHUZI_TEST_CHEAP_PASSWORDS hashes passwords at a cost any guesser can pay and is for tests "
                "only: it needs PAOHUZI_TESTING=1 (never in production)"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Defaults, then ``PAOHUZI_<FIELD>`` variables of ``env`` (default ``os.environ``), then
        ``overrides`` that are not None.

        :raises ValueError: naming a variable whose value does not fit its field.
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            key = f"PAOHUZI_{f.name.upper()}"
            if key in env:
                values[f.name] = _convert(key, env[key], f.default)
        for name, value in overrides.items():
            if value is not None:
                values[name] = value
        return cls(**values)


def _check_match_presets(names: tuple[str, ...]) -> None:
    """:raises ValueError: naming ``PAOHUZI_MATCH_PRESETS`` when it is empty, repeats a preset or names one
    that does not exist."""
    known = preset_names()
    unknown = [n for n in names if n not in known]
    if not names or unknown or len(set(names)) != len(names):
        raise ValueError(
            f"PAOHUZI_MATCH_PRESETS={','.join(names)!r}: list one or more presets, each once "
            f"(unknown: {', '.join(unknown) or 'none'}; presets: {', '.join(known)})"
        )


def _convert(key: str, text: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if text.strip().lower() in ("1", "true", "yes", "on"):
                return True
            if text.strip().lower() in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(text)
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if isinstance(default, tuple):
            return tuple(part.strip() for part in text.split(",") if part.strip())
        return text
    except ValueError:
        raise ValueError(f"{key}={text!r} is not a valid {type(default).__name__}") from None
