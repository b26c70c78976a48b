"""匹配 per preset (issue 29): the server's ``match_presets`` (``PAOHUZI_MATCH_PRESETS``, default ``qq``) lists
the presets that have public tables; each has its own queue in each tier, and a public table plays its
queue's preset. A preset not listed, or no preset at all, is refused with the presets there are; a bad
setting stops the server from starting."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.server.config import Settings

from ..support.clients import Client
from ..support.server import ServerProcess, running

OTHER = "hunan"  # a second preset with public tables on this module's server


@pytest.fixture(scope="module")
def two_queues(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("public-presets")
    env = {"PAOHUZI_MATCH_FILL_SECONDS": "600", "PAOHUZI_MATCH_PRESETS": f"qq,{OTHER}"}
    with running(workdir, env=env) as proc:
        yield proc


def _queued(c: Client, tier: str, preset: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "queue_join", "tier": tier, "id": "q"}
    if preset is not None:
        message["preset"] = preset
    c.send(message)
    return c.expect("queue", where=lambda f: f["queue"] is not None)["queue"]


def test_each_preset_has_its_own_queue_and_its_tables_play_it(two_queues: ServerProcess) -> None:
    """Two wait for hunan, one for qq (no preset given: the first listed): nobody is seated; a third for
    hunan seats the three hunan players at a hunan table, and the qq player still waits, alone."""
    plain, *others = players = [Client(two_queues, nickname=f"队{i}") for i in range(4)]
    for c in players:
        c.connect()
    assert _queued(plain, "novice", None) | {"waited_ms": 0} == {
        "tier": "novice",
        "preset": "qq",
        "multiplier": 1,
        "minimum": 100,
        "position": 1,
        "waiting": 1,
        "waited_ms": 0,
        "fill_ms": 600_000,
        "online": True,
        "drop_ms": None,
    }
    first = _queued(others[0], "novice", OTHER)
    assert (first["preset"], first["position"], first["waiting"]) == (OTHER, 1, 1)  # not behind the qq player
    second = _queued(others[1], "novice", "湖南")  # an alias names the same preset
    assert (second["preset"], second["position"], second["waiting"]) == (OTHER, 2, 2)
    status = plain.api("GET", "/api/queue")
    assert status["presets"] == ["qq", OTHER]
    novice = next(t for t in status["tiers"] if t["name"] == "novice")
    assert (novice["waiting"], novice["by_preset"]) == (3, {"qq": 1, OTHER: 2})
    assert status["queue"]["preset"] == "qq" and status["queue"]["waiting"] == 1
    others[2].api("POST", "/api/queue", {"tier": "novice", "preset": OTHER}, expect=None)
    rooms = []
    for c in others:
        c.expect("queue", where=lambda f: f["queue"] is None, timeout=30)
        rooms.append(
            c.expect("room", where=lambda f: f["room"] is not None and f["room"]["status"] == "playing")["room"]
        )
    assert len({r["code"] for r in rooms}) == 1
    options = rooms[0]["options"]
    assert (options["preset"], options["rules"]["name"], options["tier"]) == (OTHER, OTHER, "novice")
    assert [s["player"]["id"] for s in rooms[0]["seats"]] == [c.id for c in others]
    place = plain.api("GET", "/api/queue")["queue"]
    assert (place["preset"], place["position"], place["waiting"]) == ("qq", 1, 1)
    plain.api("DELETE", "/api/queue")
    for c in players:
        c.close()


def test_a_preset_without_public_tables_is_refused_naming_those_there_are(two_queues: ServerProcess) -> None:
    me = Client(two_queues)
    for preset in ("huayang", "nowhere"):
        err = me.api("POST", "/api/queue", {"tier": "practice", "preset": preset}, expect=422)["error"]
        assert err == {
            "code": "invalid",
            "message": f"no public tables for preset {preset!r} on this server; 匹配 presets: qq, {OTHER}",
        }
    me.connect()
    me.send({"type": "queue_join", "tier": "practice", "preset": "huayang", "id": 9})
    assert me.expect("error", where=lambda f: f.get("id") == 9)["code"] == "invalid"
    assert me.api("GET", "/api/queue")["queue"] is None
    me.close()


def test_the_setting_lists_known_presets_once_default_qq() -> None:
    assert Settings().match_presets == ("qq",)
    assert Settings.from_env({"PAOHUZI_MATCH_PRESETS": "hunan, qq"}).match_presets == ("hunan", "qq")
    for bad, unknown in (("qq,nowhere", "nowhere"), ("qq,qq", "none"), ("", "none")):
        with pytest.raises(ValueError, match="PAOHUZI_MATCH_PRESETS") as caught:
            Settings.from_env({"PAOHUZI_MATCH_PRESETS": bad})
        assert f"(unknown: {unknown}; presets: qq, " in str(caught.value)


def test_a_preset_queue_survives_a_server_restart(database_url: str, tmp_path: Path) -> None:
    """kill -9 while one waits for hunan and one for qq: after the restart each waits again in its own
    preset's queue (``queue_entries.preset``, migration 0009), first in it."""
    env = {"PAOHUZI_MATCH_FILL_SECONDS": "600", "PAOHUZI_MATCH_PRESETS": f"qq,{OTHER}"}
    with running(tmp_path, database_url, env=env) as server:
        a, b = Client(server), Client(server)
        for c in (a, b):
            c.connect()
        _queued(a, "novice", OTHER)
        _queued(b, "novice", "qq")
        server.kill()
        server.start()
        for c, preset in ((a, OTHER), (b, "qq")):
            c.connect()
            place = c.expect("queue")["queue"]
            assert (place["tier"], place["preset"], place["position"], place["waiting"]) == ("novice", preset, 1, 1)
        for c in (a, b):
            c.api("DELETE", "/api/queue")
            c.close()
