"""A computer player is called what the table calls it (issue 27): ``电脑2``, with its level when it plays one
(``电脑2·高手``), in ``/api/matches``, the histories and the stored match — never an internal name such as
``normal bot``. The server's words are the web client's (web/i18n/zh.json, levels.js ``botName``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from paohuzi.bots import levels
from paohuzi.server.names import BOT, BOT_WITH_LEVEL, bot_nickname

from ..support.clients import Client
from ..support.server import ServerProcess

ZH = Path(__file__).resolve().parents[2] / "src" / "paohuzi" / "web" / "i18n" / "zh.json"


def _chinese_strings() -> dict[str, str]:
    """The web client's Chinese words (web/i18n/zh.json): key → text."""
    strings: dict[str, str] = json.loads(ZH.read_text(encoding="utf-8"))["strings"]
    return strings


def test_the_server_names_computers_in_the_clients_words() -> None:
    zh = _chinese_strings()
    assert (zh["botN"], zh["botLevelN"]) == (BOT, BOT_WITH_LEVEL)
    assert [zh[f"level_{lv.key}"] for lv in levels.LEVELS] == [lv.zh for lv in levels.LEVELS]
    assert [bot_nickname(s, k) for s, k in ((1, "beginner"), (2, "master"), (1, "greedy"), (0, None))] == [
        "电脑2·入门",
        "电脑3·大师",
        "电脑2",
        "电脑1",
    ]


def _stored_names(server: ServerProcess, match_id: int) -> list[str]:
    with sqlite3.connect(server.workdir / "paohuzi.sqlite3") as db:
        rows = db.execute("SELECT nickname FROM match_seats WHERE match_id = ? ORDER BY seat", (match_id,))
        return [r[0] for r in rows]


def test_api_matches_names_the_computers_as_the_table_does(server: ServerProcess) -> None:
    me = Client(server, nickname="小明")
    me.api("POST", "/api/rooms/quick", {"hands": 1, "bot_level": "高手"}, expect=201)
    me.connect()
    room = me.expect("room", where=lambda f: f["room"]["match"] is not None)["room"]
    match_id = room["match"]["id"]
    want = ["小明", "电脑2·高手", "电脑3·高手"]
    seats = server.api("GET", f"/api/matches/{match_id}")["match"]["seats"]
    assert [(s["nickname"], s["bot"]) for s in seats] == list(zip(want, [None, "expert", "expert"], strict=True))
    assert _stored_names(server, match_id) == want
    assert [s["nickname"] for s in me.api("GET", "/api/me/history")["matches"][0]["seats"]] == want
    # a match an older server stored as "expert bot" is answered by the same names
    with sqlite3.connect(server.workdir / "paohuzi.sqlite3") as db:
        db.execute(
            "UPDATE match_seats SET nickname = bot || ' bot' WHERE match_id = ? AND bot IS NOT NULL", (match_id,)
        )
    assert _stored_names(server, match_id) == ["小明", "expert bot", "expert bot"]
    assert [s["nickname"] for s in server.api("GET", f"/api/matches/{match_id}")["match"]["seats"]] == want
    me.api("POST", "/api/rooms/leave", expect=None)
    me.close()
