"""复盘 routes (issue 34, docs/protocol.md §2 "Reviews"): a finished hand's review for one seat —
:func:`paohuzi.bots.review.review_record` of its record — computed in worker processes off the event loop,
kept in ``hand_reviews`` once computed, and limited per player.

- ``GET /api/replays/{hand_id}/review?seat=N``: a hand of one's own matches (the bearer's token; 404 for
  anyone else); ``seat`` defaults to one's own seat in it.
- ``GET /api/replays/code/{code}/review?seat=N``: a hand opened by its replay code. The replay the code opens
  shows every seat's view once the hand is over (R5: nothing is hidden any more), so any seat of it may be
  reviewed; the review itself reads only that seat's observations.

A computed review costs a worker about a second (docs/AI.md §10): each player may start ``review_burst`` at
once and one per ``1 / review_rate`` seconds after (429 ``rate_limited``); one already kept costs nothing and
is not limited. The same (hand, seat) asked twice at once is computed once. Every review is seeded 0 and made
with the server's ``review_worlds``: ``paohuzi review RECORD --seat N --worlds W`` on the replay's record gives
the same numbers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Annotated, TypedDict, cast

from fastapi import APIRouter, Path, Query, Request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from paohuzi.bots.review import ReviewData, ReviewError, ReviewSettings, review_record
from paohuzi.server import store
from paohuzi.server.api import AS_JSON, HandId, Player
from paohuzi.server.hub import Hub
from paohuzi.server.limits import Limits
from paohuzi.server.models import HandReview, MatchSeat
from paohuzi.server.models import HandRow as HandModel
from paohuzi.server.process_pool import process_pool
from paohuzi.server.room import RoomError

__all__ = ["router", "Reviewer", "compute"]

router = APIRouter(prefix="/api")

#: The seed of every server review (the CLI's default too: the same record gives the same review).
SEED = 0

Seat = Annotated[int | None, Query(ge=0, le=3, description="the seat reviewed (default: your own)")]


class ReviewAnswer(TypedDict):
    hand_id: int
    seat: int
    cached: bool  # true: kept from an earlier request
    review: ReviewData  # paohuzi.bots.review.Review.to_dict()


def compute(record: Mapping[str, object], seat: int, worlds: int) -> ReviewData | str:
    """The review's JSON, or the message naming why the hand cannot be reviewed (run in a worker)."""
    try:
        return review_record(record, seat, seed=SEED, settings=ReviewSettings(worlds=worlds)).to_dict()
    except ReviewError as exc:
        return str(exc)


class Reviewer:
    """The worker processes reviews run on (``review_workers``; 0: one thread of this process), made when the
    first review is asked for, and the reviews being computed, so that one asked twice is computed once."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: Executor | None = None
        self._running: dict[tuple[int, int], asyncio.Future[ReviewData | str]] = {}

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = (
                process_pool(self.workers)
                if self.workers > 0
                else ThreadPoolExecutor(max_workers=1, thread_name_prefix="paohuzi-review")
            )
        return self._executor

    async def review(self, hand_id: int, seat: int, record: Mapping[str, object], worlds: int) -> ReviewData | str:
        key = (hand_id, seat)
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        loop = asyncio.get_running_loop()
        future = asyncio.ensure_future(loop.run_in_executor(self._pool(), compute, record, seat, worlds))
        self._running[key] = future
        try:
            return await asyncio.shield(future)
        except BrokenProcessPool:
            self._executor = None  # a worker died (killed, out of memory): the next review starts a new pool
            raise RoomError("internal", "the review's worker process stopped; ask again", 503) from None
        finally:
            if future.done():
                self._running.pop(key, None)
            else:
                future.add_done_callback(lambda _f: self._running.pop(key, None))

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def reviewer(request: Request) -> Reviewer:
    """The app's :class:`Reviewer` (made with the app's settings on first use)."""
    found: Reviewer | None = getattr(request.app.state, "reviewer", None)
    if found is None:
        found = request.app.state.reviewer = Reviewer(_hub(request).settings.review_workers)
    return found


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


# ---- database jobs ----------------------------------------------------------------------------------------


def kept(hand_id: int, seat: int) -> store.Job[ReviewData | None]:
    """The review kept for (hand, seat), or None."""

    def job(s: Session) -> ReviewData | None:
        row = s.get(HandReview, (hand_id, seat))
        return None if row is None else cast(ReviewData, row.review)

    return job


def keep(hand_id: int, seat: int, review: ReviewData) -> store.Job[None]:
    """Keep (or replace) the review of (hand, seat)."""

    def job(s: Session) -> None:
        row = s.get(HandReview, (hand_id, seat))
        if row is None:
            s.add(HandReview(hand_id=hand_id, seat=seat, review=dict(review)))
        else:
            row.review = dict(review)

    return job


def seat_of(hand_id: int, player_id: int) -> store.Job[int | None]:
    """The seat ``player_id`` played in the match of hand ``hand_id``, or None."""

    def job(s: Session) -> int | None:
        found = s.execute(
            select(MatchSeat.seat)
            .join(HandModel, HandModel.match_id == MatchSeat.match_id)
            .where(HandModel.id == hand_id, MatchSeat.player_id == player_id)
        ).first()
        return None if found is None else int(found[0])

    return job


# ---- routes -----------------------------------------------------------------------------------------------


@router.get("/replays/{hand_id}/review", tags=["replays"], response_model=AS_JSON)
async def review_own_hand(request: Request, hand_id: HandId, player: Player, seat: Seat = None) -> ReviewAnswer:
    """复盘 of a finished hand of one's own matches, for ``seat`` (default: one's own)."""
    hub = _hub(request)
    own = await hub.db.run(seat_of(hand_id, player["id"]))
    found = None if own is None else await hub.db.run(store.replay(hand_id))
    if own is None or found is None:
        raise RoomError("not_found", f"no finished hand {hand_id} of yours", 404)
    return await _answer(request, hand_id, own if seat is None else seat, found.record, player["id"])


@router.get("/replays/code/{code}/review", tags=["replays"], response_model=AS_JSON)
async def review_by_code(
    request: Request, code: Annotated[str, Path(max_length=32)], player: Player,
    seat: Annotated[int, Query(ge=0, le=3, description="the seat reviewed")],
) -> ReviewAnswer:
    """复盘 of a finished hand opened by its replay code, for any of its seats. Unknown codes are limited like
    room codes (429 beyond)."""
    hub = _hub(request)
    limits, s = _limits(request), hub.settings
    keys = [f"guess:player:{player['id']}"]
    for key in keys:
        if not await limits.peek(key, s.join_guess_rate, s.join_guess_burst):
            raise RoomError("rate_limited", "too many unknown room codes tried; wait a minute", 429)
    found = await hub.db.run(store.replay_by_code(code))
    if found is None:
        for key in keys:
            await limits.take(key, s.join_guess_rate, s.join_guess_burst)
        raise RoomError("not_found", "no finished hand has this replay code", 404)
    return await _answer(request, found.hand.id, seat, found.record, player["id"])


async def _answer(
    request: Request, hand_id: int, seat: int, record: Mapping[str, object], player_id: int
) -> ReviewAnswer:
    hub = _hub(request)
    worlds = hub.settings.review_worlds
    found = await hub.db.run(kept(hand_id, seat))
    if found is not None and found["settings"]["worlds"] == worlds:
        return {"hand_id": hand_id, "seat": seat, "cached": True, "review": found}
    s = hub.settings
    if not await _limits(request).take(f"review:player:{player_id}", s.review_rate, s.review_burst):
        raise RoomError("rate_limited", "too many reviews asked for; wait a minute", 429)
    review = await reviewer(request).review(hand_id, seat, record, worlds)
    if isinstance(review, str):
        raise RoomError("not_reviewable", review, 422)
    try:
        await hub.db.run(keep(hand_id, seat, review))
    except IntegrityError:
        pass  # another process (the shared mode) kept it first: the same review, as it is deterministic
    return {"hand_id": hand_id, "seat": seat, "cached": False, "review": review}


def _limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits
