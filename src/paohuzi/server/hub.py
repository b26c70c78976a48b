"""The hub: every room, which room each player sits in, every player's websocket, and the player cards the
rooms show. It routes lobby requests (HTTP) and game frames (websocket) to the right
:class:`~paohuzi.server.room.Room`, rebuilds the unfinished matches at start-up, and closes idle rooms.

Rooms never see the hub: each gets :class:`~paohuzi.server.services.RoomServices` (the connections as its
delivery port, the player cards, the database, background tasks, the bot pool). Membership — which room a
player sits in, which rooms are open — is the hub's alone (its :class:`~paohuzi.server.directory.RoomDirectory`),
updated after each room call. Every request that seats a player holds the player's claim
(:mod:`paohuzi.server.seating`): one room per player.

There is one hub class for both deployments: what differs between one process and the shared mode is in the
ports it is given (:class:`~paohuzi.server.ports.HubPorts`, chosen in app.py). Where a room is not this
process's, the hub asks :class:`~paohuzi.server.ports.RoomsElsewhere` (nobody, with one process).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Coroutine
from typing import Any

from paohuzi.scoring import level_title
from paohuzi.server import account_store, accounts, economy, frames, ledger_store, store
from paohuzi.server import protocol as p
from paohuzi.server.account_store import AccountData
from paohuzi.server.bots import BotPool
from paohuzi.server.clubs import Clubs
from paohuzi.server.config import Settings
from paohuzi.server.connection import Connection
from paohuzi.server.db import Database
from paohuzi.server.frames import PlayerProfile
from paohuzi.server.hints import send_hint
from paohuzi.server.ledger_store import ReliefGranted
from paohuzi.server.logs import log
from paohuzi.server.ports import HubPorts, left, room_state
from paohuzi.server.public import PublicTables, check_beans
from paohuzi.server.registry import PlayerCards
from paohuzi.server.room import Room, RoomError, SeatState
from paohuzi.server.room_options import RoomOptions, room_options
from paohuzi.server.seating import same_room
from paohuzi.server.services import RoomServices

__all__ = ["Hub", "level_title", "random_nickname"]

ERROR, WARNING, INFO = 40, 30, 20
SESSION_RECHECK = 30.0  # seconds a session found live is believed without asking the database again

_ADJECTIVES = ("快乐的", "勇敢的", "安静的", "机灵的", "淡定的", "幸运的", "认真的", "悠闲的", "聪明的", "豪爽的")
_NOUNS = ("渔夫", "猎人", "掌柜", "书生", "茶客", "船家", "货郎", "樵夫", "牧童", "秀才")


def random_nickname() -> str:
    """A random guest nickname such as ``幸运的船家42`` (from ``secrets``)."""
    return secrets.choice(_ADJECTIVES) + secrets.choice(_NOUNS) + str(secrets.randbelow(100))


class Hub:
    """Rooms by code, which room each player sits in, each player's one websocket, and 匹配 (:attr:`tables`)."""

    def __init__(self, settings: Settings, db: Database, ports: HubPorts) -> None:
        self.settings = settings
        self.db = db
        self.directory = ports.directory
        self.rooms: dict[str, Room] = ports.directory.rooms  # code -> open room of this process
        self.claims = ports.claims  # one seating request of a player's at a time (seating.py)
        self.conns = ports.sockets  # this process's websockets
        self.delivery = ports.delivery  # a player's websocket wherever it is
        self.home = ports.home
        self.elsewhere = ports.elsewhere
        self.players = PlayerCards()
        self.cards = self.players.profiles  # player id -> profile (cache of the players table)
        # token hash -> (player id, session id, when last checked in the database): a revoked session is
        # refused at once by this process, and by any other within SESSION_RECHECK seconds.
        self.tokens: dict[str, tuple[int, int, float]] = {}
        self.conn_sessions: dict[int, int] = {}  # connection id -> its session id
        self.tasks = ports.tasks
        self.bots = BotPool(settings.bot_workers)
        self.services = RoomServices(settings, db, self.delivery, self.players, self.tasks, self.bots, self)
        self.queue = ports.queue
        self.tables = PublicTables(
            settings, db, ports, self.services, seated=self.player_room_state, leave_waiting=self._leave_waiting_room
        )
        self.clubs = Clubs(  # 亲友圈 (issue 31), with the room calls it needs
            settings, db, ports, self.services, room_state=self.room_state, join_room=self.join_room,
            player_room=self.player_room_state, leave_room=self.leave_room, addresses=self.address,
        )
        self._next_conn = 0
        self._housekeeper: asyncio.Task[Any] | None = None

    # ---- tasks -------------------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coro`` in the background; its errors are logged, never lost."""
        return self.tasks.spawn(coro)

    def address(self, player_id: int) -> str | None:
        """The address of the player's websocket in this process (for 同IP, never shown), or None."""
        conn = self.conns.get(player_id)
        client = conn.websocket.client if conn is not None else None
        return client.host if client is not None else None

    def next_conn_id(self) -> int:
        self._next_conn += 1
        return self._next_conn

    # ---- players -----------------------------------------------------------------------------------

    def _remember(self, player: store.PlayerRow) -> PlayerProfile:
        self.players.remember(player)
        return self.profile(player.id)

    def profile(self, player_id: int) -> PlayerProfile:
        """Profile (docs/protocol.md §2) from the cache."""
        return self.players.profile(player_id)

    async def create_guest(self, nickname: str | None, user_agent: str = "") -> tuple[str, PlayerProfile]:
        token = secrets.token_urlsafe(32)
        digest = store.hash_token(token)
        player, session_id = await self.db.run(
            account_store.create_guest(digest, nickname or random_nickname(), user_agent)
        )
        self.tokens[digest] = (player.id, session_id, time.monotonic())
        log(INFO, "guest created", player=player.id)
        return token, self._remember(player)

    async def session(self, token: str | None) -> tuple[PlayerProfile, int] | None:
        """The profile of the token's player and the session id, or None (unknown, revoked, deleted)."""
        if not token or len(token) > 200:
            return None
        digest = store.hash_token(token)
        cached = self.tokens.get(digest)
        if cached is not None and cached[0] in self.cards and time.monotonic() - cached[2] < SESSION_RECHECK:
            return self.profile(cached[0]), cached[1]
        found = await self.db.run(account_store.session_by_token(digest))
        if found is None:
            self.tokens.pop(digest, None)
            return None
        player, session_id = found
        if len(self.tokens) > 100_000:
            self.tokens.clear()
        self.tokens[digest] = (player.id, session_id, time.monotonic())
        if player.id in self.cards:  # the cache is fresher while a hand is being settled
            return self.profile(player.id), session_id
        return self._remember(player), session_id

    async def authenticate(self, token: str | None) -> PlayerProfile | None:
        """The profile of the token's player, or None."""
        found = await self.session(token)
        return None if found is None else found[0]

    # ---- accounts (issue 13) -----------------------------------------------------------------------

    async def claim(self, player_id: int, username: str, password: str) -> AccountData:
        """Give a guest a username and password. :raises RoomError: 422 for a bad username or password,
        409 ``username_taken`` / ``already_claimed``."""
        try:
            name = accounts.normalize_username(username)
            accounts.check_password(password, name)
        except accounts.AccountError as exc:
            raise RoomError(exc.code, exc.message, 422) from None
        digest = await asyncio.to_thread(accounts.hash_password, password, self.settings.test_cheap_passwords)
        failed = await self.db.run(account_store.claim(player_id, name, accounts.username_key(name), digest))
        if failed == "username_taken":
            raise RoomError(failed, f"username {name!r} is taken (or looks too much like one that is)", 409)
        if failed == "already_claimed":
            raise RoomError(failed, "this account already has a username", 409)
        if failed is not None:
            raise RoomError("not_found", f"no player {player_id}", 404)
        log(INFO, "account claimed", player=player_id)
        return await self.account(player_id)

    async def account(self, player_id: int) -> AccountData:
        acct = await self.db.run(account_store.account(player_id))
        if acct is None:
            raise RoomError("not_found", f"no player {player_id}", 404)
        return acct.to_dict()

    async def _verify(self, username: str, password: str) -> int | None:
        """The player id of the account if the password is right, else None (both cost the same)."""
        try:
            key = accounts.username_key(accounts.normalize_username(username))
        except accounts.AccountError:
            key = None
        creds = None if key is None else await self.db.run(account_store.credentials(key))
        stored = creds.password_hash if creds else accounts.dummy_hash(self.settings.test_cheap_passwords)
        ok = await asyncio.to_thread(accounts.verify_password, stored, password)
        return creds.player_id if creds is not None and ok else None

    async def login_check(self, player_id: int, username: str, password: str) -> bool:
        """Whether ``password`` is the password of ``player_id``'s account ``username``."""
        return await self._verify(username, password) == player_id

    async def login(self, username: str, password: str, user_agent: str) -> tuple[str, PlayerProfile] | None:
        """A new session for the account, or None for a wrong username or password (both cost the same)."""
        player_id = await self._verify(username, password)
        if player_id is None:
            return None
        token = secrets.token_urlsafe(32)
        digest = store.hash_token(token)
        session_id = await self.db.run(account_store.new_session(player_id, digest, "login", user_agent))
        player = await self.db.run(store.player_by_id(player_id))
        assert player is not None
        self.tokens[digest] = (player.id, session_id, time.monotonic())
        log(INFO, "logged in", player=player.id)
        profile = self.profile(player.id) if player.id in self.cards else self._remember(player)
        return token, profile

    async def revoke(self, player_id: int, session_id: int | None) -> list[int]:
        """Revoke one session of the player (or all): refused at once on HTTP, and a websocket that logged
        in with it is closed (4001). The ids revoked."""
        revoked = await self.db.run(account_store.revoke_sessions(player_id, session_id))
        self._forget_sessions(set(revoked))
        return revoked

    def _forget_sessions(self, ids: set[int]) -> None:
        if ids:
            self.forget_sessions_here(ids)
            self.elsewhere.revoked(ids)  # the shared mode: every other process closes its websockets too

    def forget_sessions_here(self, ids: set[int]) -> None:
        """Forget the sessions ``ids`` in this process, and close the websockets here that logged in with one."""
        for digest in [d for d, v in self.tokens.items() if v[1] in ids]:
            del self.tokens[digest]
        for conn in self.conns.values():
            if self.conn_sessions.get(conn.id) in ids:
                conn.close(4001, "session revoked")

    async def delete_account(self, player_id: int) -> None:
        """Delete the player (anonymised in every record): leaves a waiting room first; refused mid-match.

        :raises RoomError: 409 ``in_game``."""
        room = self.directory.room_of(player_id)
        if room is not None:
            if room.playing:
                raise RoomError("in_game", f"you are playing in room {room.code}; leave it first", 409)
            await self._remove(room, player_id)
        else:
            await self._leave_waiting_room(player_id)  # a room of another process (the shared mode)
        await self.queue.leave(player_id)
        revoked = await self.db.run(account_store.delete_player(player_id))
        self._forget_sessions(set(revoked))
        self.cards.pop(player_id, None)
        log(INFO, "account deleted", player=player_id)

    async def set_nickname(self, player_id: int, nickname: str) -> PlayerProfile:
        player = await self.db.run(store.set_nickname(player_id, nickname))
        if player is None:
            raise RoomError("not_found", f"no player {player_id}", 404)
        profile = self._remember(player)
        room = self.directory.room_of(player_id)
        if room is not None:
            room.broadcast_room()
        return profile

    async def ensure_cards(self, ids: list[int]) -> None:
        missing = [i for i in ids if i not in self.cards]
        if missing:
            for pid, player in (await self.db.run(store.players_by_ids(missing))).items():
                self.cards[pid] = player

    # ---- rooms -------------------------------------------------------------------------------------

    def room_options(self, body: p.RoomOptionsIn | p.QuickPlayIn, quick: bool) -> RoomOptions:
        """Resolve a room's options (:func:`paohuzi.server.room_options.room_options`)."""
        return room_options(self.settings, body, quick)

    async def _leave_waiting_room(self, player_id: int) -> None:
        """The player leaves the room it waits in (here, or asked of its owner). :raises RoomError: ``in_game``."""
        if player_id in self.directory:
            await self.leave_waiting_here(player_id)
            return
        found = await self.elsewhere.seat_of(player_id)
        if found is not None:
            await self.elsewhere.call(found[1], "leave_waiting", player=player_id)

    async def leave_waiting_here(self, player_id: int) -> None:
        """The player leaves its room of this process, if any, unless a match is on there."""
        room = self.directory.room_of(player_id)
        if room is None:
            return
        if room.playing:
            raise RoomError("in_game", f"you are playing in room {room.code}; leave it first")
        await self._remove(room, player_id)

    async def _remove(self, room: Room, player_id: int) -> int | None:
        """The player leaves ``room``: the 逃跑 penalty paid, or None."""
        penalty = await room.remove(player_id)
        self.directory.unseat(player_id)
        if room.closed:
            self.forget_room(room)
        return penalty

    async def kick(self, room: Room, owner_id: int, seat: int) -> None:
        """The owner releases ``seat`` before a match: a computer leaves it, or a player is sent out of the
        room (told by a ``kicked`` frame and ``room: null``)."""
        target = await room.check_kick(owner_id, seat)
        if target is None:
            return  # a computer's seat: freed by check_kick
        await self._remove(room, target)
        self.delivery.send(target, frames.kicked(room.code))
        self.delivery.send(target, frames.room(None))

    def released(self, room: Room, player_id: int, seconds: float) -> None:
        """``room`` stood the player up for not saying ``ready`` within ``seconds`` (the ready timeout,
        issue 12 item 5): it is in no room now, and is told why (``kicked``, then ``room: null``)."""
        self.directory.unseat(player_id, room)
        if room.closed:
            self.forget_room(room)
        self.delivery.send(player_id, frames.kicked(room.code, "ready_timeout", seconds))
        self.delivery.send(player_id, frames.room(None))

    async def _join(self, room: Room, player_id: int, seat: int | None) -> None:
        await room.join(player_id, seat)
        self.directory.seat(player_id, room)

    async def relief(self, player_id: int) -> ReliefGranted:
        """The daily relief (救济) for a broke player. :raises RoomError: 409 ``not_broke`` / ``relief_used``."""
        failed, beans = await self.db.run(ledger_store.grant_relief(player_id))
        if failed == "not_broke":
            raise RoomError(failed, f"relief is for players holding under {economy.RELIEF_BELOW} 欢乐豆", 409)
        if failed is not None:
            times = economy.RELIEF_PER_DAY
            raise RoomError(failed, f"relief is given {times} times a day (UTC); come back tomorrow", 409)
        row = self.players.profiles.get(player_id)
        if row is not None:
            row.beans = beans
        return {"granted": economy.RELIEF_AMOUNT, "beans": beans}

    async def create_room(self, player_id: int, body: p.RoomOptionsIn) -> tuple[frames.RoomState, bool]:
        """A private room the player owns, and True; a repeated request (the player owns a room of these
        options with no match on yet) gets that room, and False (seating.py)."""
        options = self.room_options(body, quick=False)
        async with self.claims.hold(player_id):
            found = await self.player_room_state(player_id)
            if found is not None and same_room(found, player_id, "private", options):
                return found, False
            await self.not_queued(player_id)
            await check_beans(self.db, player_id, options.minimum)
            await self._leave_waiting_room(player_id)
            n = options.rules.players_at_table  # 3; 4 for 守醒 (R8.1) and 六胡抢 (R9.3, option players)
            code = await self.home.new_code(self.rooms)
            room_id = await self.db.run(store.create_room(code, "private", player_id, options, n))
            seats = [SeatState(i) for i in range(n)]
            services = await self.home.services_for(self.services, room_id, code)
            room = Room(services, room_id, code, "private", player_id, options, seats)
            self.directory.add(room)
            await self._join(room, player_id, 0)
            log(INFO, "room created", room=code, player=player_id)
            return room.state(), True

    async def quick_play(self, player_id: int, body: p.QuickPlayIn) -> tuple[frames.RoomState, bool]:
        """A quick-play room (the player, a computer in each other seat; the match on), and True; a repeated
        request (the player plays a quick match of these options) gets that room, and False (seating.py)."""
        options = self.room_options(body, quick=True)
        async with self.claims.hold(player_id):
            found = await self.player_room_state(player_id)
            if found is not None and same_room(found, player_id, "quick", options):
                return found, False
            await self.not_queued(player_id)
            await check_beans(self.db, player_id, options.minimum)
            await self._leave_waiting_room(player_id)
            code = await self.home.new_code(self.rooms)
            n = options.rules.players_at_table
            room_id = await self.db.run(store.create_room(code, "quick", player_id, options, n))
            bot = options.bot_level
            seats = [SeatState(0, player_id, None, True)] + [SeatState(i, None, bot, True) for i in range(1, n)]
            services = await self.home.services_for(self.services, room_id, code)
            room = Room(services, room_id, code, "quick", player_id, options, seats)
            self.directory.add(room)
            self.directory.seat(player_id, room)
            async with room.lock:
                await room.start_match()
            log(INFO, "quick play", room=code, player=player_id)
            return room.state(), True

    async def join(self, player_id: int, code: str, seat: int | None) -> Room:
        """The player sits down in room ``code`` of this process (leaving a waiting room first)."""
        room = self.rooms.get(code)
        if room is None:
            raise RoomError("not_found", f"no open room {code!r}", 404)
        if self.directory.room_of(player_id) is room:
            return room
        await self.not_queued(player_id)
        await check_beans(self.db, player_id, room.options.minimum)
        await self._leave_waiting_room(player_id)
        await self._join(room, player_id, seat)
        return room

    async def leave(self, player_id: int) -> tuple[str, int | None]:
        """The player leaves its room of this process: (code, the 逃跑 penalty paid or None)."""
        room = self.directory.room_of(player_id)
        if room is None:
            raise RoomError("not_in_room", "you are in no room")
        penalty = await self._remove(room, player_id)
        self.delivery.send(player_id, frames.room(None))
        return room.code, penalty

    async def room_state(self, code: str) -> frames.RoomState | None:
        """The open room of ``code`` (``GET /api/rooms/{code}``), here or at its owner, or None."""
        room = self.rooms.get(code)
        if room is not None:
            return room.state()
        owner = await self.elsewhere.owner(code)
        return None if owner is None else room_state(await self.elsewhere.call(owner, "state", code=code))

    async def player_room_state(self, player_id: int) -> frames.RoomState | None:
        """The room the player sits in (``GET /api/me``), here or at its owner, or None."""
        room = self.directory.room_of(player_id)
        if room is not None:
            return room.state()
        found = await self.elsewhere.seat_of(player_id)
        return None if found is None else room_state(await self.elsewhere.call(found[1], "state", code=found[0]))

    async def join_room(self, player_id: int, code: str, seat: int | None) -> frames.RoomState:
        """Join the room of ``code`` (the player's seating claim held), answering its state."""
        async with self.claims.hold(player_id):
            if code in self.rooms:
                return (await self.join(player_id, code, seat)).state()
            owner = await self.elsewhere.owner(code)
            if owner is None:
                raise RoomError("not_found", f"no open room {code!r}", 404)
            if self.directory.code_of(player_id) != code:
                await self._leave_waiting_room(player_id)
            state = room_state(await self.elsewhere.call(owner, "join", code=code, player=player_id, seat=seat))
            assert state is not None
            return state

    async def leave_room(self, player_id: int) -> tuple[str, int | None]:
        """:meth:`leave`, here or at the owner of the player's room (the HTTP route)."""
        if player_id in self.directory:
            return await self.leave(player_id)
        found = await self.elsewhere.seat_of(player_id)
        if found is None:
            raise RoomError("not_in_room", "you are in no room")
        return left(await self.elsewhere.call(found[1], "leave", player=player_id))

    def forget_room(self, room: Room) -> None:
        """A closed room goes, and nobody sits in it any more."""
        self.directory.forget(room)
        self.home.closed(room)

    # ---- 匹配 (public tables: public.py) -------------------------------------------------------------

    async def queue_join(self, player_id: int, tier_name: str, preset: str | None = None) -> frames.QueueInfo | None:
        """:meth:`PublicTables.queue_join <paohuzi.server.public.PublicTables.queue_join>`."""
        return await self.tables.queue_join(player_id, tier_name, preset)

    async def queue_leave(self, player_id: int) -> str:
        """:meth:`PublicTables.queue_leave <paohuzi.server.public.PublicTables.queue_leave>`."""
        return await self.tables.queue_leave(player_id)

    async def not_queued(self, player_id: int) -> None:
        """:raises RoomError: ``queued`` (409) for a player waiting for a public table."""
        await self.tables.not_queued(player_id)

    # ---- websocket ---------------------------------------------------------------------------------

    def attach(self, conn: Connection, player: PlayerProfile, token: str | None = None) -> None:
        """A websocket said a good ``hello``: it becomes the player's one connection (an older one is
        closed with 4000), and the player gets ``welcome``, ``room`` and ``game``. Revoking the session
        of ``token`` closes it."""
        player_id = player["id"]
        conn.player_id = player_id
        cached = self.tokens.get(store.hash_token(token)) if token else None
        if cached is not None:
            self.conn_sessions[conn.id] = cached[1]
        old = self.conns.put(player_id, conn)
        if old is not None and old is not conn:
            old.close(4000, "replaced by a newer connection")
        self.conns.send(player_id, frames.welcome(p.PROTOCOL_VERSION, player, _now_ms()))
        if not self.elsewhere.attached(player_id):  # the shared mode finds the player's room first
            self._room_on_attach(player_id)
        self.queue.connected(player_id)  # waiting for a public table: waits online again, told its place
        log(INFO, "player connected", player=player_id, conn=conn.id)

    def _room_on_attach(self, player_id: int) -> None:
        room = self.directory.room_of(player_id)
        if room is not None:
            room.connected(player_id)  # sends everyone (this connection too) the room, and it the game
        else:
            self.conns.send(player_id, frames.room(None))

    def detach(self, conn: Connection) -> None:
        self.conn_sessions.pop(conn.id, None)
        player_id = conn.player_id
        if player_id is None or not self.conns.remove(player_id, conn):
            return
        self.queue.disconnected(player_id)
        self.clubs.detached(player_id)
        room = self.directory.room_of(player_id)
        if room is not None:
            room.disconnected(player_id)
        log(INFO, "player disconnected", player=player_id, conn=conn.id)
        self.elsewhere.detached(player_id)

    async def handle(self, conn: Connection, msg: p.ClientMessage, text: str | None = None) -> None:
        """One validated frame (``text``: as received) of an attached connection. :raises RoomError: sent."""
        assert conn.player_id is not None
        player_id = conn.player_id
        if (
            player_id not in self.directory
            and not isinstance(msg, (p.Ping, p.Hello, p.ClubWatch))  # a club's list is watched where the socket is
            and await self.elsewhere.forward(player_id, msg, text)
        ):
            return  # relayed to the owner of the player's room (the shared mode)
        await self.handle_player(player_id, msg)

    async def handle_player(self, player_id: int, msg: p.ClientMessage) -> None:
        """A validated frame of the player's for this process (its websocket here, or relayed by the edge)."""
        match msg:
            case p.Act():  # most frames: first, without the class checks of the cases below (issue 33)
                await self._room_of(player_id).act(player_id, msg.action, msg.hand, msg.seat, msg.id, msg.seq)
            case p.Ping():
                self.delivery.send(player_id, frames.pong(msg.id, _now_ms()))
            case p.Hello():
                raise RoomError("bad_message", "already said hello")
            case p.Sync():
                room = self.directory.room_of(player_id)
                if room is not None:
                    room.sync(player_id)
                else:
                    self.delivery.send(player_id, frames.room(None))
                self.queue.resend(player_id)
            case p.QueueJoin() | p.QueueLeave():
                await self.tables.queue_message(player_id, msg)
            case p.ClubWatch():
                await self.clubs.watch(player_id, msg.club)
            case p.Rematch() | p.Start() | p.Ready(ready=True) if self._room_of(player_id).kind == "public":
                await self.tables.public_rematch(self._room_of(player_id), player_id)  # 继续 (docs/protocol.md §3.8)
            case p.Leave():
                await self.leave(player_id)
            case p.Kick():
                await self.kick(self._room_of(player_id), player_id, msg.seat)
            case _:
                await self._in_room(self._room_of(player_id), player_id, msg)

    def _room_of(self, player_id: int) -> Room:
        room = self.directory.room_of(player_id)
        if room is None:
            raise RoomError("not_in_room", "you are in no room")
        return room

    @staticmethod
    async def _in_room(room: Room, player_id: int, msg: p.ClientMessage) -> None:
        match msg:
            case p.Ready():
                await room.set_ready(player_id, msg.ready)
            case p.Start():
                await room.start(player_id)
            case p.Auto():
                await room.set_auto(player_id, msg.on)
            case p.Rematch():
                await room.rematch(player_id)
            case p.Chat():
                room.chat(player_id, msg.phrase)
            case p.GiveOwner():
                await room.give_owner(player_id, msg.seat)
            case p.AddBot():
                await room.add_bot(player_id, msg.seat, msg.level)
            case p.Dissolve() | p.DissolveWithdraw():  # 解散 / 撤回 (R8.2)
                await room.dissolution_request(player_id, withdraw=isinstance(msg, p.DissolveWithdraw))
            case p.DissolveVote():
                await room.vote_dissolution(player_id, msg.agree)
            case p.Hint():
                await send_hint(room, player_id, msg.id)
            case p.Seed():  # 可验证发牌 (issue 32): taken without the room's lock, which the deal holds
                room.client_seed(player_id, msg.commitment, msg.seed)

    # ---- life cycle --------------------------------------------------------------------------------

    def start_housekeeping(self) -> None:
        self._housekeeper = self.spawn(self._housekeeping())
        self.spawn(self.tables.run())
        self.spawn(self.clubs.tables.run())

    async def _housekeeping(self) -> None:
        period = max(0.5, min(60.0, self.settings.room_idle / 4))
        while True:
            await asyncio.sleep(period)
            for room in list(self.rooms.values()):
                try:
                    if await room.close_if_idle(self.settings.room_idle):
                        self.forget_room(room)
                except Exception:
                    log(ERROR, "housekeeping failed", room=room.code, exc_info=True)

    async def shutdown(self) -> None:
        for conn in self.conns.values():
            conn.close(1012, "server restarting")
        for room in self.rooms.values():
            room.cancel_decisions()
        self.tasks.cancel()
        await asyncio.sleep(0.05)
        self.bots.shutdown()


def _now_ms() -> int:
    return int(time.time() * 1000)
