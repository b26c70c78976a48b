"""The match being played at a room (:class:`Game`): its engine, hands, action log, frames and bot turns.

Every step that plays an action follows the same order (issue #5 §6):

1. the engine applies the action (it refuses anything not legal: state unchanged);
2. the action is appended to the ``actions`` log and committed;
3. only then are the events sent — each seat gets its own view and the events it may see (R5).

If step 2 fails the engine is rolled back by replaying the record without the action, the actor is
answered ``internal`` (nothing changed), and once the database answers again every seat gets a fresh
``game`` snapshot (:meth:`Game._await_storage`): no client waits for an answer that never comes.

The server decides who sees what only through the engine (``Hand.observation(seat)``,
``Event.for_seat(seat)``); it never looks into the cards itself. A game belongs to one room and runs under
that room's lock; it sees the room only as a :class:`Table`.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any, Protocol, cast

from sqlalchemy import text
from sqlalchemy.orm import Session

from paohuzi.engine import (
    Action,
    Hand,
    HandRecord,
    IllegalActionError,
    Match,
    MatchRecord,
    Observation,
    for_seats,
    replay_match,
)
from paohuzi.groups import Group
from paohuzi.rules import RuleSet
from paohuzi.scoring import scored_waits, waits_to_dicts
from paohuzi.server import double_cards, fair_deal, frames, ledger_store, store
from paohuzi.server.crash import crash_point
from paohuzi.server.frames import GameFrame, MatchInfo, MessageId, RoomError, WaitInfo
from paohuzi.server.logs import debug_on, log
from paohuzi.server.names import bot_nickname
from paohuzi.server.room_options import RoomOptions
from paohuzi.server.sent import Sent
from paohuzi.server.services import RoomServices
from paohuzi.server.turns import Decision, SeatState, Turns, bot_action

__all__ = ["Game", "Lineup", "Table"]

ERROR, WARNING, INFO, DEBUG = 40, 30, 20, 10

Lineup = list[store.MatchSeatRow]  # who played each seat, as the match began


def _probe(s: Session) -> None:
    """The cheapest job that needs the database to answer (and, in the shared mode, the room's fence)."""
    s.execute(text("SELECT 1"))


class Table(Protocol):
    """The room, as the game played at it sees it."""

    id: int
    code: str
    rules: RuleSet
    options: RoomOptions
    seats: list[SeatState]
    owner_id: int | None
    lock: asyncio.Lock
    match: Game | None
    deal_seeds: fair_deal.DealSeeds | None  # 可验证发牌: the deal being prepared (issue 32)

    def broadcast_room(self) -> None:
        """Send every seated player the room's state."""

    async def match_over(self) -> None:
        """The match ended (its result is stored and sent): the room waits for the next one."""


async def active_cards(services: RoomServices, lineup: Lineup) -> list[int]:
    """The seats whose player has a 双倍积分卡 active now (R7.3; a hand starting now is doubled for them).
    Bots never hold cards."""
    humans = {seat.player_id: i for i, seat in enumerate(lineup) if seat.player_id is not None}
    if not humans:
        return []
    active = await services.db.run(double_cards.active_players(sorted(humans)))
    return sorted(humans[pid] for pid in active)


class Game:
    """The match at a room, with its database ids, the decisions pending and what each seat was sent."""

    def __init__(
        self, table: Table, services: RoomServices, match_id: int, engine: Match, lineup: Lineup
    ) -> None:
        self.table = table
        self.services = services
        self.id = match_id
        self.engine = engine
        self.lineup = lineup
        self.number = 1
        self.hand_id = 0
        # the engine's hand is dealt and its row not written yet (no ``hand_id`` of its own): no snapshot of it
        self._storing = True
        self.seq = 0
        self.finished = False
        self.penalty: int | None = None
        self.status = "playing"
        self.turns = Turns(table.seats, services.settings.bot_delay, self._on_deadline, self._on_bot)
        self.sent = Sent()
        self._waits: dict[int, tuple[Any, list[WaitInfo]]] = {}  # seat -> (hand state, 听牌 hint)
        self._storage_watch: asyncio.Task[Any] | None = None  # waits for the database after a failed store

    # ---- starting and resuming -----------------------------------------------------------------------

    @classmethod
    async def create(cls, table: Table, services: RoomServices) -> Game:
        """A new match at ``table``, stored; its first hand is dealt by :meth:`begin_hand`."""
        roster = services.roster
        lineup: Lineup = [
            store.MatchSeatRow(
                s.player_id,
                s.bot,
                roster.card(s.player_id)["nickname"] if s.player_id is not None else bot_nickname(s.index, s.bot),
            )
            for s in table.seats
        ]
        settings = services.settings
        # A secret random seed; only a test server (PAOHUZI_TESTING=1) may fix it (docs/server.md).
        seed = settings.test_match_seed if settings.testing and settings.test_match_seed >= 0 else secrets.randbits(62)
        rules = table.rules
        # R8.1 坐庄 ``owner``: the owner's seat deals the first hand (a quick-play table's player sits at 0)
        owner = next((s.index for s in table.seats if s.player_id is not None and s.player_id == table.owner_id), 0)
        cards = await active_cards(services, lineup)
        hands, fair = table.options.hands, await fair_deal.first_deal(table, services)  # 可验证发牌 (issue 32)
        engine = Match(rules, seed, len(table.seats), hands, owner=owner, double_cards=tuple(cards), fair=fair)
        match_id = await services.db.run(store.create_match(table.id, seed, rules, engine.hands, lineup))
        return cls(table, services, match_id, engine, lineup)

    @classmethod
    def restore(cls, table: Table, services: RoomServices, data: store.StoredMatch) -> Game:
        """The match stored as ``data`` (:func:`paohuzi.server.store.load_open_rooms`), replayed by the
        engine from its rules, seeds and action log; :meth:`carry_on` then plays on."""
        record = MatchRecord(
            rules=data.rules,
            seed=data.seed,
            players=len(table.seats),
            hands=data.hands_total,
            # R7.3 双倍积分卡: each hand's own, as they were when it started (hands.double_cards)
            double_cards=tuple(data.hands[0].double_cards) if data.hands else (),
            # R8.1 坐庄 by the owner: the owner's seat is the first hand's dealer
            owner=data.hands[0].dealer if data.hands and data.hands[0].dealer is not None else 0,
            records=tuple(
                HandRecord(
                    # store.create_hand always stores the dealer; -1 (none stored) fails replay_match's check
                    dealer=h.dealer if h.dealer is not None else -1,
                    actions=tuple(h.actions),
                    seed=h.seed if h.fair is None else None,  # a verifiable deal: its seeds (issue 32)
                    fair=h.fair,
                    double_cards=tuple(h.double_cards),
                    format_version=None,
                )
                for h in data.hands
            ),
        )
        return cls(table, services, data.id, replay_match(record), list(data.seats))

    async def carry_on(self, data: store.StoredMatch) -> None:
        """Go on from where the stored match stopped. Every seat gets its full time again
        (docs/protocol.md §3.4)."""
        if not data.hands:  # stopped before the first hand was stored: dealt again, verifiably (issue 32)
            m, fair = self.engine, await fair_deal.first_deal(self.table, self.services)
            if fair is not None:
                doubled, owner = m.double_cards, m.owner
                self.engine = Match(m.rules, m.seed, m.players, m.hands, double_cards=doubled, owner=owner, fair=fair)
            await self.begin_hand()
            return
        last = data.hands[-1]
        self.number, self.hand_id, self.seq = last.number, last.id, len(last.actions)
        engine = self.engine
        self._storing = False
        if last.status == "playing":
            if engine.hand.over:  # the last action was stored, its hand not yet closed
                await self.finish_hand()
            else:
                self.sent = Sent.replayed(engine.hand)  # the next ``game`` carries the count so far (seq)
                self._schedule()
        elif engine.over:
            await self.finish_match()
        else:
            cards = await active_cards(self.services, self.lineup)
            engine.next_hand(cards, await fair_deal.collect(self.table, self.services, self.number + 1))
            await self.begin_hand(self.number + 1)

    # ---- reading -------------------------------------------------------------------------------------

    @property
    def hand(self) -> Hand:
        return self.engine.hand

    def _humans(self) -> list[bool]:
        return [s.player_id is not None for s in self.lineup]

    def info(self) -> MatchInfo:
        """The match as RoomState shows it (docs/protocol.md §2)."""
        engine = self.engine
        return {
            "id": self.id,
            "hand_no": self.number,
            "hands": engine.hands,
            "scores": list(engine.totals),
            "hand_id": self.hand_id,
            "dealer": engine.hand.dealer,
            "finished": self.finished,
            "ranking": engine.ranking() if self.finished else None,
            "leaver": engine.leaver,
            "double_cards": sorted(engine.hand.double_cards),  # R7.3: seats whose card doubles this hand
        }

    def snapshot(self, seat: int, view: Observation | None = None) -> GameFrame:
        """The full snapshot of the hand for ``seat`` (``game``), of ``view`` (default: the seat's observation
        now); sending it is :meth:`send_snapshot`."""
        hand = self.hand
        view = hand.observation(seat) if view is None else view
        return frames.game(
            match=self.id,
            hand=self.hand_id,
            number=self.number,
            hands=self.engine.hands,
            seq=self.sent.seq(seat),
            seat=seat,
            view=view,
            waits=self.waits(seat, view),
            timers=self.turns.timers(seat),
            scores=list(self.engine.totals),
            auto=[s.auto for s in self.table.seats],
            over=hand.over,
            deal=fair_deal.deal_info(hand, self._humans()),
        )

    def waits(self, seat: int, view: Observation) -> list[WaitInfo]:
        """听牌 hint for ``seat``: each card whose own draw would complete its hand, with 胡息 and points
        (:func:`paohuzi.scoring.scored_waits`; only the seat's own cards are used: its hand and table as its
        ``view`` shows them, the hand's own — issue 33: without asking the engine for them again). Cached per
        hand state."""
        hand = self.hand
        if hand.over or seat not in hand.seats:
            return []
        cards, table = view.hand, cast("tuple[Group, ...]", view.tables[seat])  # its own 偎 are shown (R5)
        key = (self.hand_id, cards, table)
        cached = self._waits.get(seat)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            found: list[WaitInfo] = waits_to_dicts(scored_waits(cards, table, self.table.rules))
        except Exception:  # noqa: BLE001 — a hint must never break a table
            log(ERROR, "waits failed", room=self.table.code, seat=seat, exc_info=True)
            found = []
        self._waits[seat] = (key, found)
        return found

    # ---- sending -------------------------------------------------------------------------------------

    def send_snapshot(self, seat: SeatState) -> None:
        """Send the seat's player the ``game`` snapshot (if online), and remember the view it was sent."""
        pid = seat.player_id
        if pid is None or not self.services.delivery.online(pid):
            return
        if self._storing:  # dealt, not stored yet: begin_hand sends it once it has its id
            return
        view = self.hand.observation(seat.index)
        frame = self.snapshot(seat.index, view)
        self.sent.snapshot(seat.index, view)
        self.services.delivery.send(pid, frame)

    def _send_updates(self, events: list[Any], actor: int | None = None, msg_id: MessageId | None = None) -> None:
        """Each seat gets an ``update`` only when something it may see changed: another seat's 过 in a claim
        window, which changes nothing the others see, is not even told by an empty frame (R5: that the
        seat had a choice would tell what it holds). ``seq`` counts the frames a seat got, not actions."""
        hand = self.hand
        delivery = self.services.delivery
        sent, hand_id = self.sent, self.hand_id
        auto = [s.auto for s in self.table.seats]
        seats = [seat for seat in self.table.seats if seat.player_id is not None and delivery.online(seat.player_id)]
        indices = [seat.index for seat in seats]
        timers = self.turns.timers_of(indices)
        told = for_seats(events, indices)  # each event's dict made once (issue 33)
        for k, seat in enumerate(seats):
            pid = seat.player_id
            assert pid is not None
            i = seat.index
            seen = told[k]
            view = hand.observation(i)
            own = msg_id is not None and i == actor
            if not seen and not own and sent.same_view(i, view):
                continue
            frame = frames.update(
                hand=hand_id,
                seq=sent.update(i, view),
                events=seen,
                view=view,
                waits=self.waits(i, view),
                timers=timers[i],
                auto=auto,
                msg_id=msg_id if own else None,  # the update caused by this seat's own `act`
            )
            delivery.send(pid, frame)

    # ---- playing -------------------------------------------------------------------------------------

    async def apply(self, seat: int, action: Action, by: str, msg_id: MessageId | None = None) -> None:
        """Apply, log, then send (the lock is held). :raises IllegalActionError: state unchanged."""
        engine = self.engine
        events = engine.apply(seat, action)
        applied = engine.hand.last_action
        assert applied is not None  # apply played it
        text = str(applied[1])
        self.seq += 1
        self.turns.done(seat)
        try:
            await self.services.db.append_action(store.action_row(self.hand_id, self.seq, seat, text, by))
        except Exception:
            log(
                ERROR,
                "action not stored; rolled back",
                room=self.table.code,
                hand=self.hand_id,
                seq=self.seq,
                exc_info=True,
            )
            self._roll_back()
            if self._storage_watch is None or self._storage_watch.done():
                self._storage_watch = self.services.tasks.spawn(self._await_storage())
            raise RoomError("internal", "the server could not store the action; nothing changed", 500) from None
        if debug_on():  # the call's keyword arguments cost more than the level's check, at every action (issue 33)
            log(DEBUG, "action", room=self.table.code, hand=self.hand_id, seq=self.seq, seat=seat, by=by)
        hand = engine.hand
        if hand.over:
            self.turns.cancel()
        else:
            self._schedule()
        self._send_updates(events, seat, msg_id)
        if hand.over:
            await self.finish_hand()

    async def _await_storage(self) -> None:
        """After an action could not be stored (a database outage): probe the database, less often the
        longer it is down, and when it answers send every seat the ``game`` snapshot — the position as it is
        (the action was rolled back) with the deadlines the roll-back gave. A client that did not resend
        its action, or whose timers went stale, sees at once that it may act (issue 27)."""
        delay = 0.1
        while self._current():
            try:
                await self.services.db.run(_probe)
            except Exception:  # noqa: BLE001 — still down: the failure was logged with the action
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            async with self.table.lock:
                if self._current():
                    log(INFO, "database answers again: snapshots sent", room=self.table.code, hand=self.hand_id)
                    for seat in self.table.seats:
                        self.send_snapshot(seat)
            return

    def _current(self) -> bool:
        return not self.finished and self.table.match is self

    def _roll_back(self) -> None:
        self.engine = self.engine.without_last_action()
        self.seq -= 1
        self.turns.cancel()
        self._schedule()

    async def leave(self, seat: int) -> int | None:
        """The player at ``seat`` leaves (the lock is held): mid-hand that is 逃跑 (R7.3), which ends the
        hand and the match; returns the penalty paid, or None."""
        hand = self.hand
        if hand.over or seat not in hand.seats:
            self.engine.leave(seat)
            if self.engine.over:
                await self.finish_match()
            return None
        events = self.engine.leave(seat)
        self.seq += 1
        await self.services.db.append_action(store.action_row(self.hand_id, self.seq, seat, "leave", "player"))
        self.turns.cancel()
        assert hand.outcome is not None
        self.penalty = -hand.outcome.payments[seat]
        self._send_updates(events)
        await self.finish_hand()
        return self.penalty

    async def dissolve(self) -> None:
        """解散房间 agreed (R8.2, the lock is held): the hand in play is void — not settled, its record kept
        and marked dissolved — and the match ends; nobody pays 逃跑."""
        self.turns.cancel()
        hand_open = not self.hand.over
        self.engine.dissolve()
        await self.finish_match(void_hand=hand_open)

    def _schedule(self) -> None:
        options = self.table.options
        self.turns.schedule(self.hand, self.hand_id, options.turn_seconds, options.claim_seconds)

    # ---- timers and bot turns ------------------------------------------------------------------------

    def _open(self, d: Decision) -> bool:
        return not self.finished and self.table.match is self and self.turns.current(d)

    def _on_deadline(self, d: Decision) -> None:
        self.services.tasks.spawn(self._timed_out(d))

    def _on_bot(self, d: Decision) -> None:
        self.services.tasks.spawn(self._bot_turn(d))

    async def _timed_out(self, d: Decision) -> None:
        async with self.table.lock:
            if not self._open(d):
                return
            seat = self.table.seats[d.seat]
            d.timed_out = True  # a bot plays this decision (docs/protocol.md §3.4) …
            if seat.bot is None and not seat.auto:
                seat.missed += 1
                if seat.missed >= 2:  # … and 托管 begins at the second missed deadline in a row
                    seat.auto, seat.auto_reason = True, "timeout"
                    self.table.broadcast_room()
            await self._bot_move(d)

    async def _bot_turn(self, d: Decision) -> None:
        async with self.table.lock:
            if not self._open(d) or not self.table.seats[d.seat].bot_plays:
                return
            await self._bot_move(d)

    async def _bot_move(self, d: Decision) -> None:
        """The bot decides for seat ``d.seat`` (the lock is held, released while it thinks); its answer is
        played only if the decision is still the same one."""
        if d.thinking:
            return
        seat = self.table.seats[d.seat]
        settings = self.services.settings
        # a test server dealing from one seed seeds its bots from it too: its hands replay the same (docs/server.md)
        fixed = settings.testing and settings.test_match_seed >= 0
        seed = settings.test_match_seed * 16 + d.seat if fixed else None
        action = await bot_action(d, seat, self.hand, self.table.lock, self.services.bots, settings.bot_name, seed)
        if not self._open(d) or not (seat.bot_plays or d.timed_out):
            return
        try:
            await self.apply(d.seat, action, "bot" if seat.bot is not None else "auto")
        except (RoomError, IllegalActionError) as exc:
            log(ERROR, "bot move failed", room=self.table.code, seat=d.seat, error=str(exc))

    # ---- hands and the match's end -------------------------------------------------------------------

    async def begin_hand(self, number: int = 1) -> None:
        """Store the engine's hand just dealt as hand ``number`` of the match, and send it to every seat."""
        hand = self.hand
        self._storing = True  # the engine has just dealt it (nothing ran in between: no await)
        fair = hand.fair.to_dict() if hand.fair is not None else None  # issue 32: kept to deal it again
        hand_id = await self.services.db.run(
            store.create_hand(
                self.id, number, self.engine.hand_seed, hand.dealer, self.table.rules, sorted(hand.double_cards), fair
            )
        )
        # number, id and hand change together: a player who (re)connected while the row was being stored was
        # sent no snapshot then (send_snapshot), never the new hand under the last one's id and number —
        # with another deal commitment (issue 32) — and gets it below with everyone
        self.number, self.hand_id, self._storing = number, hand_id, False
        self.seq = len(hand.actions)
        self.sent.clear()
        self.turns.cancel()
        if not hand.over:
            self._schedule()
        self.table.broadcast_room()
        for seat in self.table.seats:
            self.send_snapshot(seat)
        if hand.over:  # a dealt 天胡 ends the hand before anyone plays (R6.4)
            await self.finish_hand()

    async def finish_hand(self) -> None:
        hand = self.hand
        outcome = hand.outcome
        assert outcome is not None
        data = outcome.to_dict()
        payments = list(outcome.payments)
        scores = list(self.engine.totals)
        results = [
            (seat.player_id, payments[s], outcome.winner == s)
            for s, seat in enumerate(self.lineup)
            if seat.player_id is not None and s in hand.seats
        ]
        # R7.3: the seat whose 积分 gain a card doubled (a win's winner; an escape's shares are never doubled)
        doubled = [outcome.winner] if outcome.winner is not None and outcome.winner in hand.double_cards else []
        # 积分 and 欢乐豆 move with their ledger rows in the settlement's own transaction (issue 13 §2).
        finish = store.finish_hand(self.hand_id, data, hand.record(), self.id, scores, results)
        beans = await self.services.db.run(
            ledger_store.settle_hand(
                finish,
                self.hand_id,
                [seat.player_id for seat in self.lineup],
                list(hand.seats),
                payments,
                hand.rules.stake,
                self.table.options.multiplier,
                doubled,
            ),
            hand=self.hand_id,  # on the worker that committed the hand's appends (issue 33)
        )
        crash_point("settled")
        for pid, delta, won in results:
            seat_of = next(s for s, x in enumerate(self.lineup) if x.player_id == pid)
            self.services.roster.won(pid, delta, won, beans[seat_of])
        log(
            INFO,
            "hand over",
            room=self.table.code,
            hand=self.hand_id,
            kind=outcome.kind,
            winner=outcome.winner,
            points=outcome.points,
        )
        code = store.replay_code(self.hand_id, self.engine.hand_seed)
        deal = fair_deal.reveal(hand, self._humans())  # 可验证发牌: the seeds, now that the hand is over
        for seat in self.table.seats:
            if seat.player_id is not None:
                frame = frames.hand_over(
                    hand=self.hand_id,
                    number=self.number,
                    outcome=outcome,
                    scores=scores,
                    deltas=payments,
                    beans=beans,
                    double_cards=sorted(hand.double_cards),
                    view=hand.observation(seat.index),
                    code=code,
                    deal=deal,
                )
                self.services.delivery.send(seat.player_id, frame)
        if self.engine.over:
            await self.finish_match()
        else:
            self.table.broadcast_room()
            self.services.tasks.spawn(self._next_hand_later())

    async def _next_hand_later(self) -> None:
        await asyncio.sleep(self.services.settings.between_hands)
        async with self.table.lock:
            engine = self.engine
            if self.table.match is not self or self.finished or not engine.hand.over or engine.over:
                return
            cards = await active_cards(self.services, self.lineup)
            engine.next_hand(cards, await fair_deal.collect(self.table, self.services, self.number + 1))
            await self.begin_hand(self.number + 1)

    async def finish_match(self, *, void_hand: bool = False) -> None:
        """The match is over: stored, its summary sent. ``void_hand``: the hand in play was voided by a
        dissolution (R8.2), and is stored with the engine's record of it, marked dissolved."""
        engine = self.engine
        void = (self.hand_id, engine.void) if void_hand and engine.void is not None else None
        self.finished = True
        self.status = "dissolved" if engine.dissolved else "aborted" if engine.leaver is not None else "finished"
        self.turns.cancel()
        standings = engine.standings()
        ranks = [0] * engine.players
        for row in standings:
            ranks[row["seat"]] = row["rank"]
        humans = [seat.player_id for seat in self.lineup if seat.player_id is not None]
        result = {"standings": standings, "leaver": engine.leaver, "penalty": self.penalty}
        await self.services.db.run(
            store.finish_match(self.id, self.table.id, self.status, engine.totals, ranks, result, humans, void)
        )
        for pid in humans:
            self.services.roster.played_match(pid)
        frame = frames.match_over(
            match=self.id,
            status=self.status,
            scores=list(engine.totals),
            ranking=engine.ranking(),
            standings=standings,
            leaver=engine.leaver,
            penalty=self.penalty,
            void_hand=void[0] if void is not None else None,
        )
        for seat in self.table.seats:
            if seat.player_id is not None:
                self.services.delivery.send(seat.player_id, frame)
        log(INFO, "match over", room=self.table.code, match=self.id, status=self.status)
        await self.table.match_over()
