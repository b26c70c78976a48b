"""Decisions, turn timers and bot turns (docs/protocol.md §3.4).

Each seat that must decide has a :class:`Decision`: its deadline (``turn_seconds`` for a decision that
includes discarding, ``claim_seconds`` for a claim window), kept while the decision stays the same, and two
timers — the deadline, and the bot's turn for a bot seat or a seat in 托管. :class:`Turns` keeps them for
the hand on; what the timers do when they fire is the game's (:class:`~paohuzi.server.game.Game`).
:func:`bot_action` is a bot's answer, thought out off the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from paohuzi.engine import Action, ActionKind, Hand, Phase
from paohuzi.server.bots import BotPool, SeatBot, make_seat_bot
from paohuzi.server.frames import TimerInfo

__all__ = ["Decision", "SeatState", "Turns", "bot_action"]


@dataclass(slots=True)
class SeatState:
    """One seat of a room. ``auto`` is 托管; ``auto_reason`` is ``manual``, ``timeout`` or ``offline``;
    ``missed`` counts the deadlines the seat's player let pass in a row (two turn 托管 on); ``ready_by``:
    before the room's first match, when (``time.time()``) its unready player is stood up (issue 12 item 5)."""

    index: int
    player_id: int | None = None
    bot: str | None = None
    ready: bool = False
    auto: bool = False
    auto_reason: str | None = None
    missed: int = 0
    brain: SeatBot | None = None
    ready_by: float | None = None

    @property
    def free(self) -> bool:
        return self.player_id is None and self.bot is None

    @property
    def bot_plays(self) -> bool:
        """A bot plays this seat's decisions: a bot seat, or a player's seat in 托管."""
        return self.bot is not None or self.auto


#: What a decision is about: the hand, its phase and the seat's legal actions (a change is a new decision).
DecisionKey = tuple[int, Phase, tuple[Action, ...]]


class Decision:
    """A seat's pending decision: its legal actions, its deadline and the timers that act on it."""

    __slots__ = ("seat", "key", "kind", "deadline", "timer", "bot_timer", "thinking", "timed_out")

    def __init__(self, seat: int, key: DecisionKey, kind: str, deadline: float) -> None:
        self.seat = seat
        self.key = key
        self.kind = kind
        self.deadline = deadline
        self.timer: asyncio.TimerHandle | None = None
        self.bot_timer: asyncio.TimerHandle | None = None
        self.thinking = False  # a bot is deciding for this seat right now
        self.timed_out = False  # the deadline passed: a bot plays this one decision

    def cancel(self) -> None:
        for handle in (self.timer, self.bot_timer):
            if handle is not None:
                handle.cancel()
        self.timer = self.bot_timer = None


class Turns:
    """The pending decisions of a match's hand on, by seat.

    ``on_deadline(d)`` runs when ``d``'s deadline passes, ``on_bot(d)`` when a bot should play ``d``
    (``bot_delay`` after it began, or after 托管 began); both are plain callbacks on the event loop.
    """

    def __init__(
        self,
        seats: Sequence[SeatState],
        bot_delay: float,
        on_deadline: Callable[[Decision], None],
        on_bot: Callable[[Decision], None],
    ) -> None:
        self.seats = seats
        self.bot_delay = bot_delay
        self.on_deadline = on_deadline
        self.on_bot = on_bot
        self.pending: dict[int, Decision] = {}

    def current(self, d: Decision) -> bool:
        """Whether ``d`` is still the seat's open decision."""
        return self.pending.get(d.seat) is d

    def schedule(self, hand: Hand, hand_id: int, turn_seconds: float, claim_seconds: float) -> None:
        """Give each deciding seat a deadline (kept while its decision is unchanged) and its bot timer."""
        loop = asyncio.get_running_loop()
        deciding = hand.deciding
        for seat in [s for s in self.pending if s not in deciding]:
            self.pending.pop(seat).cancel()
        for seat in deciding:
            legal = hand.legal_actions(seat)
            key = (hand_id, hand.phase, tuple(legal))
            d = self.pending.get(seat)
            if d is not None and d.key == key:
                continue
            if d is not None:
                d.cancel()
            kind = "discard" if any(a.kind is ActionKind.DISCARD for a in legal) else "claim"
            timeout = turn_seconds if kind == "discard" else claim_seconds
            d = Decision(seat, key, kind, loop.time() + timeout)
            self.pending[seat] = d
            d.timer = loop.call_later(timeout, self.on_deadline, d)
            if self.seats[seat].bot_plays:
                d.bot_timer = loop.call_later(self.bot_delay, self.on_bot, d)

    def done(self, seat: int) -> None:
        """The seat decided: its decision and timers go."""
        d = self.pending.pop(seat, None)
        if d is not None:
            d.cancel()

    def cancel(self) -> None:
        """Every decision and timer goes (the hand is over, or the room stops)."""
        for d in self.pending.values():
            d.cancel()
        self.pending.clear()

    def bot_on(self, seat: int) -> None:
        """托管 began: a bot plays the seat's open decision after ``bot_delay``."""
        d = self.pending.get(seat)
        if d is not None and d.bot_timer is None:
            d.bot_timer = asyncio.get_running_loop().call_later(self.bot_delay, self.on_bot, d)

    def bot_off(self, seat: int) -> None:
        """托管 ended: the player decides again."""
        d = self.pending.get(seat)
        if d is not None and d.bot_timer is not None:
            d.bot_timer.cancel()
            d.bot_timer = None

    def timers(self, viewer: int) -> list[TimerInfo]:
        """The deadlines ``viewer`` may see: its own, and the other seats' discard decisions. Another
        seat's claim timer is never shown: it would tell that the seat may 碰/吃 the card (R5)."""
        return self.timers_of([viewer])[viewer]

    def timers_of(self, viewers: Iterable[int]) -> dict[int, list[TimerInfo]]:
        """:meth:`timers` for each of ``viewers`` at once, as one round of ``update`` frames needs them: the
        clocks read once and each deadline built once, shared by the viewers' lists (issue 33)."""
        now = asyncio.get_running_loop().time()
        wall = time.time()
        entries: list[tuple[int, str, TimerInfo]] = []
        for seat in sorted(self.pending):
            d = self.pending[seat]
            left = max(0.0, d.deadline - now)
            entries.append(
                (
                    seat,
                    d.kind,
                    {
                        "seat": seat,
                        "kind": d.kind,
                        "remaining_ms": int(left * 1000),
                        "deadline": int((wall + left) * 1000),
                        "auto": self.seats[seat].bot_plays,
                    },
                )
            )
        return {
            viewer: [entry for seat, kind, entry in entries if seat == viewer or kind == "discard"]
            for viewer in viewers
        }


async def bot_action(
    d: Decision, seat: SeatState, hand: Hand, lock: asyncio.Lock, bots: BotPool, default_bot: str,
    seed: int | None = None,
) -> Action:
    """What the seat's bot plays for ``d`` (``lock`` is held). The bot sees only the seat's observation and
    legal actions (R5), and thinks on the pool with the lock released, so that the event loop and the other
    tables go on meanwhile; the caller must check that ``d`` is still open before playing the answer. A new
    bot is seeded with ``seed``, or a secret random one."""
    if seat.brain is None:
        seat.brain = make_seat_bot(seat.bot or default_bot, secrets.randbits(32) if seed is None else seed)
    legal = hand.legal_actions(d.seat)
    observation = hand.observation(d.seat)
    brain = seat.brain
    d.thinking = True
    lock.release()
    try:
        return await bots.think(brain, observation, legal)
    finally:
        await lock.acquire()
        d.thinking = False
