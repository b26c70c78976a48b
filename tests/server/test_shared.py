"""The shared mode (issue 14, docs/server.md "From one process to many machines"): several real server
processes on one PostgreSQL and one Redis, real websockets. A room is run by the process holding its lease;
any process accepts any websocket and relays; a process that dies (kill -9) or stops (SIGTERM) has its rooms
taken over from the action log by the others; a paused owner is refused by the room's fencing token."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from paohuzi.engine import verify_record

from ..support.clients import Client, never_hu
from ..support.server import ServerProcess
from .play import RecordingClient, check_replay, in_parallel, seated_table

# Several server processes per test, kill -9 and rolling restarts (~90 s in all): the soak runs.
pytestmark = pytest.mark.soak

# Long decision times: every action of a test's hands is a player's own, even on a busy machine.
SLOW = {"PAOHUZI_TURN_SECONDS": "300", "PAOHUZI_CLAIM_SECONDS": "300", "PAOHUZI_OFFLINE_GRACE": "300"}


@pytest.fixture
def shared(shared_deployment: dict[str, str]) -> dict[str, str]:
    """The environment of one shared deployment: a fresh PostgreSQL schema, Redis with its own prefix."""
    return {**shared_deployment, "PAOHUZI_LEASE_MS": "1500"}


def _variables(shared: dict[str, str], env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in shared.items() if k.startswith("PAOHUZI_")} | SLOW | env


def start(tmp_path: Path, shared: dict[str, str], **env: str) -> ServerProcess:
    return ServerProcess(tmp_path, shared["database_url"], _variables(shared, env)).start()


def start_many(n: int, tmp_path: Path, shared: dict[str, str], **env: str) -> list[ServerProcess]:
    """``n`` processes of the deployment, started side by side (each start waits for its port); if one
    fails to start, the others are stopped before the error is raised."""
    servers = [ServerProcess(tmp_path, shared["database_url"], _variables(shared, env)) for _ in range(n)]
    try:
        in_parallel([s.start for s in servers])
    except BaseException:
        for s in servers:
            s.stop()
        raise
    return servers


class Player(RecordingClient):
    """A player that remembers its ``act`` frames, plays on through failovers, and reconnects (to another
    live process) when its websocket goes."""

    def __init__(self, server: ServerProcess, **kw: Any) -> None:
        super().__init__(server, **kw)
        self.reconnects = 0
        self.first_server = server

    def play_on(
        self,
        servers: Callable[[], list[ServerProcess]],
        until: str = "hand_over",
        stop_when: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 120.0,
        think: float = 0.0,
    ) -> dict[str, Any] | None:
        """Play (never taking a 胡, so that the deal does not end the hand early) until a frame of type
        ``until`` (returned) or until a game/update frame satisfies ``stop_when`` (None). A ``game`` snapshot
        (a reconnect, a take-over) answers any action in flight; an error answers it too."""
        deadline = time.monotonic() + timeout
        views = [f for f in self.frames if f["type"] in ("game", "update")]
        latest = views[-1] if views else None
        waiting: int | None = None
        while time.monotonic() < deadline:
            try:
                if waiting is None and latest is not None:
                    if stop_when is not None and stop_when(latest):
                        return None
                    if latest["view"]["legal"]:
                        time.sleep(think)  # a player's thinking time (0: as fast as the server answers)
                        waiting = self.next_id()
                        action = never_hu(latest["view"]["legal"])
                        self.send({"type": "act", "action": action, "hand": latest["hand"], "id": waiting})
                        latest = None
                frame = self.recv(max(0.1, deadline - time.monotonic()))
            except (ConnectionClosed, OSError):
                self._reconnect(servers)
                waiting, latest = None, None
                continue
            kind = frame["type"]
            if kind == until:
                return frame
            if kind == "match_over" and until == "hand_over":  # away when the hand ended: nobody resends it
                return {"type": "hand_over", "missed": True}
            match = (frame.get("room") or {}).get("match") if kind == "room" else None
            if match and match.get("finished") and until in ("hand_over", "match_over"):  # the same, later
                return {"type": until, "missed": True}
            if kind == "error" and frame.get("id") == waiting:
                waiting = None
                latest = latest or next((f for f in reversed(self.frames) if f["type"] in ("game", "update")), None)
            elif kind == "game":
                waiting, latest = None, frame
            elif kind == "update":
                if frame.get("id") is not None and frame.get("id") == waiting:
                    waiting = None
                latest = frame
        raise TimeoutError(f"player {self.id}: no {until!r} within {timeout} s; last {self.frames[-3:]}")

    def _reconnect(self, servers: Callable[[], list[ServerProcess]]) -> None:
        self.ws = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            live = [s for s in servers() if s.proc is not None and s.proc.poll() is None and s is not self.server]
            live = live or [s for s in servers() if s.proc is not None and s.proc.poll() is None]
            for server in live[self.id % max(1, len(live)) :] + live[: self.id % max(1, len(live))]:
                try:
                    self.server = server
                    self.connect()
                    self.reconnects += 1
                    return
                except (OSError, ConnectionClosed, TimeoutError):
                    continue
            time.sleep(0.1)
        raise TimeoutError(f"player {self.id} could not reconnect")


def table(owner: ServerProcess, edges: list[ServerProcess], hands: int = 1) -> list[Player]:
    """Three players at a new private room (of ``hands`` hands) made on ``owner``; player i joins and
    connects through ``edges[i]`` (so most rooms are looked at, joined and played from another process)."""
    players = seated_table(owner, edges, Player, hands)
    code = room_code(players)
    assert players[0].api("GET", f"/api/rooms/{code}")["room"]["code"] == code  # from any process
    return players


def check_hand(
    players: list[Player], hand_over: dict[str, Any], spare: int = 0, via: ServerProcess | None = None
) -> None:
    """The stored record equals an uninterrupted replay of its actions from the seed, and holds every
    action a player saw accepted, once, in order (``spare``: actions in flight at a crash may be there
    without their player having seen them answered)."""
    server = via or players[0].server
    record = server.api("GET", f"/api/replays/{hand_over['hand']}?steps=false", players[0].token)["record"]
    check_replay(record, hand_over["outcome"])
    # 可验证发牌 (issue 32): dealt from the seeds kept with the hand, so whichever process finished it reveals
    # the commitment every seat was sent with the deal
    hand = hand_over["hand"]
    told = {f["deal"]["commitment"] for p in players for f in p.frames if f["type"] == "game" and f["hand"] == hand}
    assert record["rng_version"] == 2 and verify_record(record).ok and told == {record["fair"]["commitment"]}
    acked = 0
    for p in players:
        seat = next(f for f in p.frames if f["type"] == "game")["view"]["seat"]
        mine = [a for s, a in record["actions"] if s == seat]
        got = p.acked(hand_over["hand"])
        acked += len(got)
        it = iter(mine)
        assert all(a in it for a in got), f"player {p.id}: acknowledged {got} not in order in {mine}"
    assert acked <= len(record["actions"]) <= acked + spare


def test_any_process_serves_any_player_of_a_room_on_another(shared: dict[str, str], tmp_path: Path) -> None:
    a, b = start_many(2, tmp_path, shared)
    try:
        players = table(a, [b, a, b])  # the room is made on a, which owns it; the seats connect anywhere
        overs = in_parallel([lambda p=p: p.play_on(lambda: [a, b]) for p in players])
        assert all(o is not None and o["hand"] == overs[0]["hand"] for o in overs)
        check_hand(players, overs[0])
        assert all(p.reconnects == 0 for p in players)
        owner = [s for s in (a, b) if any(x.get("msg") == "room taken over" for x in s.log_lines())]
        assert owner == []  # nobody took anything over: the maker owns its room for good
        quick = Player(a)
        room = quick.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)["room"]
        assert quick.server.api("GET", "/api/me", quick.token)["room"]["code"] == room["code"]
        quick.server = b  # the websocket through b, the room on a
        quick.connect()
        over = quick.play_on(lambda: [a, b], until="match_over")
        assert over is not None
        for p in [*players, quick]:
            p.close()
    finally:
        a.stop()
        b.stop()


def action_log(database_url: str) -> list[tuple[int, int, int, str]]:
    from sqlalchemy import create_engine, text

    from paohuzi.server.db import normalize_url

    engine = create_engine(normalize_url(database_url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT hand_id, seq, seat, action FROM actions ORDER BY hand_id, seq"))
            return [(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]
    finally:
        engine.dispose()


def check_log(database_url: str) -> None:
    """Every hand's log runs 1, 2, 3, … — nothing twice, nothing missing."""
    rows = action_log(database_url)
    for hand in {r[0] for r in rows}:
        assert [r[1] for r in rows if r[0] == hand] == list(range(1, 1 + sum(1 for r in rows if r[0] == hand)))


def taken_over(server: ServerProcess) -> list[dict[str, Any]]:
    return [x for x in server.log_lines() if x.get("msg") == "room taken over"]


def room_code(players: list[Player]) -> str:
    return str(next(f for f in players[0].frames if f["type"] == "room" and f["room"])["room"]["code"])


@pytest.mark.parametrize("moment", ["between_actions", "while_playing", "between_hands"])
def test_kill_9_an_owner_mid_hand_its_hands_finish_on_the_others(
    shared: dict[str, str], tmp_path: Path, moment: str
) -> None:
    servers = start_many(3, tmp_path, shared, PAOHUZI_BETWEEN_HANDS="5")
    victim = servers[0]
    try:
        # three tables, one made on each process; each table has a player connected through each process
        hands = 2 if moment == "between_hands" else 1
        tables = [table(servers[k], [servers[(k + i) % 3] for i in range(3)], hands) for k in range(3)]
        players = [p for t in tables for p in t]
        if moment == "between_hands":  # the victim's table has finished its first hand, not dealt the next
            _kill_between_hands(tables, victim, servers)
            return
        if moment == "between_actions":  # everyone has had an answer: nothing is in flight at the kill
            low = lambda f: f["view"]["stock"] <= 14  # noqa: E731
            in_parallel([lambda p=p: p.play_on(lambda: servers, stop_when=low) for p in players])
            for p in players:
                p.drain(0.2)
            victim.kill()
            overs = in_parallel([lambda p=p: p.play_on(lambda: servers) for p in players])
        else:  # the kill lands among actions in flight, of every table
            threads = [lambda p=p: p.play_on(lambda: servers) for p in players]
            killer_done = threading.Event()

            def killer() -> None:
                deadline = time.monotonic() + 60
                hand = next(f for f in tables[0][0].frames if f["type"] == "game")["hand"]
                while time.monotonic() < deadline:  # the victim's own hand well under way (not over)
                    if sum(1 for r in action_log(shared["database_url"]) if r[0] == hand) >= 12:
                        break
                    time.sleep(0.02)
                victim.kill()
                killer_done.set()

            overs = in_parallel([*threads, killer])[:-1]
            assert killer_done.is_set()
        assert victim.proc is not None and victim.proc.returncode == -9
        for t, k in zip(tables, range(3), strict=True):
            hand_overs = [o for o in overs[3 * k : 3 * k + 3] if not o.get("missed")]
            assert hand_overs and all(o["hand"] == hand_overs[0]["hand"] for o in hand_overs)
            check_hand(t, hand_overs[0], spare=3 if moment == "while_playing" else 0, via=servers[1])
        check_log(shared["database_url"])
        # the victim's table went to one of the others; the others' tables stayed where they were
        adopted = [x["room"] for s in servers[1:] for x in taken_over(s)]
        assert adopted == [room_code(tables[0])]
        # only players whose websocket was on the victim reconnected (those at tables still playing, at least
        # the victim's own); the others kept theirs, relayed to the new owner
        assert [p.reconnects for p in players if p.first_server is not victim] == [0] * 6
        assert tables[0][0].reconnects == 1 and all(p.reconnects <= 1 for p in players)
        for p in players:
            p.close()
    finally:
        for s in servers:
            s.stop()


def _actions_counted(server: ServerProcess) -> float:
    import httpx

    text = httpx.get(server.url + "/metrics", timeout=10).text
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("paohuzi_actions_total{"))


def _waiting_on_a_lock(database_url: str) -> bool:
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'UPDATE players%'"
        ).fetchone()
        return rows is not None and int(rows[0]) > 0


def _kill_between_hands(tables: list[list[Player]], victim: ServerProcess, servers: list[ServerProcess]) -> None:
    """Every table plays a two-hand match; the victim is killed in the pause after its table's first hand
    (the next owner deals the second, R2.3: the match goes on); every hand checked."""
    players = [p for t in tables for p in t]
    killed = threading.Event()

    def killer() -> None:
        deadline = time.monotonic() + 120
        while not all(any(f["type"] == "hand_over" for f in list(p.frames)) for p in tables[0]):
            assert time.monotonic() < deadline, "the victim's table did not finish its first hand"
            time.sleep(0.01)
        victim.kill()
        killed.set()

    results = in_parallel([*[lambda p=p: p.play_on(lambda: servers, "match_over") for p in players], killer])
    assert killed.is_set() and all(r is not None and r["type"] == "match_over" for r in results[:-1])
    for t in tables:
        overs = {f["hand"]: f for p in t for f in p.frames if f["type"] == "hand_over"}
        assert len(overs) == 2
        for over in overs.values():
            check_hand(t, over, spare=3, via=servers[1])
    check_log(servers[1].database_url)
    adopted = [x for s in servers[1:] for x in taken_over(s)]
    assert [x["room"] for x in adopted] == [room_code(tables[0])]
    for p in players:
        p.close()


def test_a_paused_owner_is_refused_by_the_room_fence(shared: dict[str, str], tmp_path: Path) -> None:
    """The owner is frozen (SIGSTOP) with a player's action on its way to the database; its lease runs out,
    another process takes the room over (a newer token in the room's fence) and plays on; the old owner
    wakes up (SIGCONT) and its write is refused by the fence check — the action log never holds it."""
    import psycopg

    # a fixed deal (testing only), so that the computers cannot end the hand before the test gets going; one
    # database worker, so that the action's append queues behind the job held on a row lock below (with
    # several, a hand's appends have workers of their own and it would be committed at once)
    fixed = {"PAOHUZI_LEASE_MS": "1000", "PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": "7"}
    fixed["PAOHUZI_DB_CONNECTIONS"] = "1"
    # and the appends on that worker too: from the event loop's own connection (issue 33) the append would be
    # in PostgreSQL before the freeze, judged then, while a still owned the room (tests/server/test_db_pg_loop.py
    # pins that path's room fence)
    fixed["PAOHUZI_DB_LOOP_APPENDS"] = "0"
    a, b = start_many(2, tmp_path, shared, **fixed)
    try:
        me = Player(a)
        me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
        me.connect()
        # on to a discard turn of mine (nobody else decides then: nothing else gets written)
        while True:
            me.play_on(lambda: [a, b], stop_when=lambda f: bool(f["view"]["legal"]))
            last = next(f for f in reversed(me.frames) if f["type"] in ("game", "update"))
            legal = last["view"]["legal"]
            discards = bool(legal) and all(x.startswith("discard ") for x in legal)
            if discards and len(action_log(shared["database_url"])) >= 3:
                break
            me.play_on(lambda: [a, b], stop_when=lambda f: not f["view"]["legal"])
        before = action_log(shared["database_url"])
        code = me.api("GET", "/api/me")["room"]["code"]

        # a's database thread is kept busy (another player's nickname waits on a row lock of ours), so the
        # action below is applied in a's memory and queued for the database, not yet checked
        other = Client(a)
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test") as lock:
            schema = shared["database_url"].split("%3D")[-1]
            lock.execute(f'SELECT id FROM "{schema}".players WHERE id = %s FOR UPDATE', (other.id,))
            rename = {"nickname": "等一下"}
            renamer = threading.Thread(target=lambda: other.api("PATCH", "/api/me", rename, expect=None))
            renamer.start()
            while not _waiting_on_a_lock(shared["database_url"]):
                time.sleep(0.02)
            counted = _actions_counted(a)
            sent_at = len(me.frames)
            me.send({"type": "act", "action": last["view"]["legal"][0], "hand": last["hand"], "id": 999})
            while _actions_counted(a) == counted:  # a has applied it and queued its append
                time.sleep(0.02)
            os.kill(a.pid, signal.SIGSTOP)
            lock.rollback()  # a's database thread could go on now, but a is frozen
        try:
            deadline = time.monotonic() + 30
            while not any(x["room"] == code for x in taken_over(b)):  # a's lease ran out: b has the room
                assert time.monotonic() < deadline, "b did not take the room over"
                time.sleep(0.05)
        finally:
            os.kill(a.pid, signal.SIGCONT)
        renamer.join(30)
        refused = me.expect("error", where=lambda f: f.get("id") == 999)
        assert refused["code"] == "internal"  # "the server could not store the action; nothing changed"
        deadline = time.monotonic() + 30
        while not any(x.get("msg", "").startswith("room fenced") for x in a.log_lines()):
            assert time.monotonic() < deadline, "a did not log its refused write"
            time.sleep(0.05)
        fenced = next(x for x in a.log_lines() if x.get("msg", "").startswith("room fenced"))
        adopted = next(x for x in taken_over(b) if x["room"] == code)
        assert fenced["current"] == adopted["token"] > fenced["token"]
        assert action_log(shared["database_url"]) == before  # nothing of a's after the take-over
        # the player plays on — its websocket still on a, which relays to b — from the exact same position
        game = next((f for f in me.frames[sent_at:] if f["type"] == "game"), None) or me.expect("game")
        assert game["hand"] == last["hand"] and game["view"]["legal"] == last["view"]["legal"]
        over = me.play_on(lambda: [a, b])
        assert over is not None
        check_log(shared["database_url"])
        me.close()
        other.close()
    finally:
        a.stop()
        b.stop()


def _when(line: dict[str, Any]) -> float:
    from datetime import datetime

    return datetime.fromisoformat(str(line["ts"])).timestamp()


def test_a_rolling_restart_of_every_process_loses_nothing(shared: dict[str, str], tmp_path: Path) -> None:
    """Each process in turn is stopped (SIGTERM) and started again while three matches are played: a
    stopping process hands its rooms over at once (the leases would only run out after 30 s), every player
    on it reconnects to another, and every hand finishes identical to an uninterrupted replay."""
    env = {"PAOHUZI_LEASE_MS": "30000"}
    servers = start_many(3, tmp_path, shared, **env)
    stopped: list[ServerProcess] = []
    try:
        tables = [table(servers[k], [servers[(k + i) % 3] for i in range(3)], hands=12) for k in range(3)]
        players = [p for t in tables for p in t]
        at_stop: list[int] = []  # the action log's length at each stop

        def restarts() -> None:
            for i in range(3):  # as a deploy does it: the new process first, then the old one goes
                logged = len(action_log(shared["database_url"]))
                deadline = time.monotonic() + 60
                while len(action_log(shared["database_url"])) < logged + 5:  # play goes on between restarts
                    assert time.monotonic() < deadline, "no play between restarts"
                    time.sleep(0.02)
                fresh = start(tmp_path, shared, **env)
                old = servers[i]
                servers[i] = fresh
                at_stop.append(len(action_log(shared["database_url"])))
                old.stop()
                stopped.append(old)

        plays = [lambda p=p: p.play_on(lambda: servers, "match_over", timeout=300, think=0.04) for p in players]
        results = in_parallel([*plays, restarts])
        assert all(r is not None and r["type"] == "match_over" for r in results[:-1])
        # each stopped cleanly: status 0 (paohuzi serve takes the SIGTERM uvicorn raises again once stopped)
        assert [s.proc.returncode if s.proc else None for s in stopped] == [0, 0, 0]
        assert all(any(x.get("msg") == "server stopped" for x in s.log_lines()) for s in stopped)
        assert at_stop == sorted(at_stop) and len(action_log(shared["database_url"])) > at_stop[-1]
        for t in tables:
            overs = {f["hand"]: f for p in t for f in p.frames if f["type"] == "hand_over"}
            assert len(overs) == 12
            for over in overs.values():
                check_hand(t, over, spare=3, via=servers[0])
        check_log(shared["database_url"])
        everyone = stopped + servers
        for old in stopped:  # each stopping process released its rooms, and another had each at once
            handed = next(x for x in old.log_lines() if x.get("msg") == "rooms handed over")
            for code in handed["rooms"]:
                # Since the old process got the room (created or taken over): another's takeover may be logged
                # a few ms before "rooms handed over", which is written once every room is released.
                got = max(
                    _when(x)
                    for x in old.log_lines()
                    if x.get("msg") in ("room created", "room taken over") and x.get("room") == code
                )
                took = [x for s in everyone if s is not old for x in taken_over(s) if x["room"] == code]
                took = sorted((x for x in took if _when(x) > got), key=_when)
                assert took and _when(took[0]) - _when(handed) < 3.0, (code, handed, took)
        assert sum(len(x["rooms"]) for s in stopped for x in s.log_lines() if x.get("msg") == "rooms handed over") >= 3
        lines = [x.get("msg") for s in everyone for x in s.log_lines()]
        assert "room lease lost" not in lines and not any(str(m).startswith("room fenced") for m in lines)
        for p in players:
            p.close()
    finally:
        for s in servers + stopped:
            s.stop()


def test_limits_and_revocations_are_shared_by_every_process(shared: dict[str, str], tmp_path: Path) -> None:
    """Unknown room codes (10 tries, then one per 5 s) and failed log-ins (5 per account) count the same
    whichever process a request reaches; a session revoked on one process closes its websocket on another."""
    import httpx

    a, b = start_many(2, tmp_path, shared)
    try:
        guesser = Client(a)
        answers = [
            httpx.get((a if i % 2 else b).url + f"/api/rooms/{100000 + i}", timeout=10).status_code for i in range(12)
        ]
        assert answers == [404] * 10 + [429] * 2
        assert guesser.api("GET", "/api/me")["player"]["id"] == guesser.id  # other limits untouched

        owner = Client(b)
        owner.api("POST", "/api/me/claim", {"username": "共享的名字", "password": "a long enough one"})
        # log in on a (a second session), connect with it through b, revoke it on a: b closes the websocket
        session = httpx.post(a.url + "/api/login", json={"username": "共享的名字", "password": "a long enough one"})
        assert session.status_code == 201
        other = Client(b, token=session.json()["token"])
        other.connect()
        account = a.api("GET", "/api/me/account", other.token)
        a.api("DELETE", f"/api/me/sessions/{account['current']}", owner.token)
        assert other.closed_with()[0] == 4001

        wrong = {"username": "共享的名字", "password": "wrong!wrong!"}
        tries = [httpx.post((a if i % 2 else b).url + "/api/login", json=wrong).status_code for i in range(7)]
        assert tries == [401] * 5 + [429] * 2
        guesser.close()
        owner.close()
    finally:
        a.stop()
        b.stop()


def test_a_seat_left_behind_by_a_closed_room_does_not_lock_its_player_out(
    shared: dict[str, str], tmp_path: Path
) -> None:
    """A process that dies right after a room closed may leave the player's seat in Redis pointing at it
    (the directory is written after the database). That room is in no lease and not open: the player's
    frames and lobby calls are served as if it sat nowhere (they were answered ``moving`` for ever)."""
    import redis

    a = start(tmp_path, shared)
    try:
        me = Client(a)
        store = redis.Redis.from_url(shared["PAOHUZI_REDIS_URL"])
        store.set(f"{shared['PAOHUZI_REDIS_PREFIX']}:seat:{me.id}", "000000")  # no open room has this code
        me.connect()
        me.send({"type": "queue_join", "tier": "novice", "id": "q"})
        assert me.expect("queue", where=lambda f: f["queue"] is not None)["queue"]["position"] == 1
        me.send({"type": "queue_leave"})
        me.expect("queue", where=lambda f: f["queue"] is None)
        assert store.get(f"{shared['PAOHUZI_REDIS_PREFIX']}:seat:{me.id}") is None
        store.set(f"{shared['PAOHUZI_REDIS_PREFIX']}:seat:{me.id}", "000000")
        room = me.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]
        assert me.api("GET", "/api/me")["room"]["code"] == room["code"]
        store.close()
        me.close()
    finally:
        a.stop()
