"""The names the server gives seats that no player's nickname names: a computer player (电脑) is called
what the table calls it — ``电脑2``, with its difficulty level (难度, :mod:`paohuzi.bots.levels`) when it
plays one, ``电脑2·高手`` — in match records, ``/api/matches``, histories and exports. The web client
shows the same name in the player's language (``web/js/levels.js`` ``botName``; tests/server/test_names.py
holds the two to the same words).

>>> bot_nickname(1, "expert"), bot_nickname(0, "greedy"), bot_nickname(2, None)
('电脑2·高手', '电脑1', '电脑3')
"""

from __future__ import annotations

from paohuzi.bots.levels import LEVELS
from paohuzi.server.models import MatchSeat

__all__ = ["bot_nickname", "seat_nickname", "BOT", "BOT_WITH_LEVEL"]

BOT = "电脑{n}"  # web/i18n/zh.json ``botN``
BOT_WITH_LEVEL = "电脑{n}·{level}"  # web/i18n/zh.json ``botLevelN``
_LEVEL_NAMES = {lv.key: lv.zh for lv in LEVELS}


def bot_nickname(seat: int, bot: str | None) -> str:
    """The computer player's name at ``seat`` (0-based; shown from 1). ``bot``: the bot it plays, by its
    registered name — a level's key names the level; any other bot (an operator's own) shows no level."""
    level = _LEVEL_NAMES.get(bot) if bot is not None else None
    if level is None:
        return BOT.format(n=seat + 1)
    return BOT_WITH_LEVEL.format(n=seat + 1, level=level)


def seat_nickname(seat: MatchSeat) -> str:
    """The name a match seat is shown by: the player's (as stored; 已注销玩家 once deleted), or the
    computer's by :func:`bot_nickname` — also for seats an older server stored as ``"normal bot"``."""
    return seat.nickname if seat.player_id is not None else bot_nickname(seat.seat, seat.bot)
