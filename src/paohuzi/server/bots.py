"""Computer players for bot seats and 托管: :func:`paohuzi.bots.make_bot` when it is available, else a
small fallback that plays any legal action (胡 whenever it can). A bot only ever sees its seat's
observation and its legal actions, like a person.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Protocol

from paohuzi.engine import Action, ActionKind, Observation
from paohuzi.server.process_pool import process_pool

__all__ = ["BotPool", "SeatBot", "make_seat_bot", "choose"]


class SeatBot(Protocol):
    def act(self, observation: Observation, legal: list[Action]) -> Action: ...


class _FallbackBot:
    """Plays 胡 when it can, otherwise a random legal action (used only if :mod:`paohuzi.bots` lacks
    ``make_bot``)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation, legal: list[Action]) -> Action:
        for action in legal:
            if action.kind is ActionKind.HU:
                return action
        return self._rng.choice(legal)


def make_seat_bot(name: str, seed: int) -> SeatBot:
    """A bot of the named kind (``greedy`` by default), seeded."""
    try:
        from paohuzi.bots import make_bot
    except ImportError:
        return _FallbackBot(seed)
    try:
        bot: SeatBot = make_bot(name, seed=seed)
        return bot
    except Exception:  # noqa: BLE001 — an unknown name falls back rather than breaking a table
        return _FallbackBot(seed)


def choose(bot: SeatBot, observation: Observation, legal: list[Action]) -> Action:
    """The bot's choice, or the first legal action if the bot fails or answers something illegal."""
    try:
        action = bot.act(observation, legal)
    except Exception:  # noqa: BLE001 — a bot bug must not stop a table
        action = None
    if action not in legal:
        passes = [a for a in legal if a.kind is ActionKind.PASS]
        return passes[0] if passes else legal[0]
    return action


class BotPool:
    """Where bots think, off the event loop: one worker thread, or ``workers`` processes (for many bot
    tables on many cores)."""

    def __init__(self, workers: int) -> None:
        self._executor: Executor = (
            process_pool(workers)
            if workers > 0
            else ThreadPoolExecutor(max_workers=1, thread_name_prefix="paohuzi-bots")
        )

    async def think(self, bot: SeatBot, observation: Observation, legal: list[Action]) -> Action:
        """:func:`choose` on the pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, choose, bot, observation, legal)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
