"""Database jobs: small functions of a :class:`~sqlalchemy.orm.Session` that return plain data — typed rows
(frozen dataclasses, never ORM objects). They run on the database thread
(:meth:`paohuzi.server.db.Database.run`); nothing here touches the event loop.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

from paohuzi.rules import RuleSet
from paohuzi.server.models import ActionRow, HandRow, Match, MatchSeat, Player, Room, RoomSeat, per_hand, utcnow
from paohuzi.server.names import seat_nickname
from paohuzi.server.room_options import RoomOptions
from paohuzi.server.rows import (
    ActionLogRow,
    DissolutionData,
    HandSummary,
    MatchSeatRow,
    MatchSeatSummary,
    MatchSummary,
    PlayerRow,
    Replay,
    ReplayHand,
    RoomSeatRow,
    StoredHand,
    StoredMatch,
    StoredRoom,
)
from paohuzi.server.statements import CoreJob, Sql, Statement

__all__ = [
    "ActionLogRow",
    "HandSummary",
    "Job",
    "MatchSeatRow",
    "MatchSummary",
    "MatchSeatSummary",
    "PlayerRow",
    "Replay",
    "ReplayHand",
    "RoomSeatRow",
    "StoredHand",
    "StoredMatch",
    "StoredRoom",
    "hash_token",
    "iso",
]

T = TypeVar("T")
Job = Callable[[Session], T]  # a database job returning T: run it with Database.run


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, hex.

    >>> len(hash_token("x" * 43))
    64
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def iso(value: datetime | None) -> str | None:
    """A timestamp as ISO 8601 UTC (SQLite gives naive datetimes back; they are UTC)."""
    if value is None:
        return None
    text = value.replace(tzinfo=None).isoformat(timespec="seconds")
    return text + "Z"


def player_row(p: Player) -> PlayerRow:
    """A player as the typed row the rest of the server sees."""
    return PlayerRow(
        id=p.id,
        nickname=p.nickname,
        points=int(p.points),
        hands_played=p.hands_played,
        hands_won=p.hands_won,
        matches_played=p.matches_played,
        created_at=iso(p.created_at),
        beans=int(p.beans),
    )


# ---- players ----------------------------------------------------------------------------------------


def create_player(token_hash: str, nickname: str) -> Job[PlayerRow]:
    def job(s: Session) -> PlayerRow:
        p = Player(
            token_hash=token_hash, nickname=nickname, points=0, hands_played=0, hands_won=0, matches_played=0
        )
        s.add(p)
        s.flush()
        return player_row(p)

    return job


def player_by_token(token_hash: str) -> Job[PlayerRow | None]:
    def job(s: Session) -> PlayerRow | None:
        p = s.scalars(select(Player).where(Player.token_hash == token_hash)).first()
        return None if p is None else player_row(p)

    return job


def player_by_id(player_id: int) -> Job[PlayerRow | None]:
    def job(s: Session) -> PlayerRow | None:
        p = s.get(Player, player_id)
        return None if p is None else player_row(p)

    return job


def players_by_ids(ids: Sequence[int]) -> Job[dict[int, PlayerRow]]:
    def job(s: Session) -> dict[int, PlayerRow]:
        if not ids:
            return {}
        return {p.id: player_row(p) for p in s.scalars(select(Player).where(Player.id.in_(list(ids))))}

    return job


def set_nickname(player_id: int, nickname: str) -> Job[PlayerRow | None]:
    def job(s: Session) -> PlayerRow | None:
        p = s.get(Player, player_id)
        if p is None:
            return None
        p.nickname = nickname
        return player_row(p)

    return job


def touch_player(player_id: int) -> Job[None]:
    def job(s: Session) -> None:
        s.execute(update(Player).where(Player.id == player_id).values(last_seen_at=utcnow()))

    return job


def leaderboard(limit: int) -> Job[list[PlayerRow]]:
    def job(s: Session) -> list[PlayerRow]:
        rows = s.scalars(
            select(Player)
            .where(Player.deleted_at.is_(None))
            .order_by(Player.points.desc(), Player.id)
            .limit(limit)
        )
        return [player_row(p) for p in rows]

    return job


# ---- rooms ------------------------------------------------------------------------------------------


def open_room_codes() -> Job[set[str]]:
    def job(s: Session) -> set[str]:
        return set(s.scalars(select(Room.code).where(Room.status != "closed")))

    return job


def create_room(
    code: str, kind: str, owner_id: int | None, options: RoomOptions, seats: int, club: tuple[int, int] | None = None
) -> Job[int]:
    def job(s: Session) -> int:
        room = Room(code=code, kind=kind, owner_id=owner_id, options=options.to_dict(), status="waiting")
        if club is not None:  # a club table (issue 31): its club and template
            room.club_id, room.template_id = club
        s.add(room)
        s.flush()
        for i in range(seats):
            s.add(RoomSeat(room_id=room.id, seat=i, player_id=None, bot=None, ready=False))
        return room.id

    return job


def save_room(room_id: int, status: str, owner_id: int | None, seats: Sequence[RoomSeatRow]) -> Job[None]:
    """Write a room's status, owner and seats in one go."""

    def job(s: Session) -> None:
        values: dict[str, Any] = {"status": status, "owner_id": owner_id}
        if status == "closed":
            values["closed_at"] = utcnow()
        s.execute(update(Room).where(Room.id == room_id).values(**values))
        for i, seat in enumerate(seats):
            s.execute(
                update(RoomSeat)
                .where(RoomSeat.room_id == room_id, RoomSeat.seat == i)
                .values(player_id=seat.player_id, bot=seat.bot, ready=seat.ready)
            )

    return job


def open_rooms() -> Job[list[tuple[int, str]]]:
    """(id, code) of every room not closed: what the shared mode's processes share out (issue 14)."""

    def job(s: Session) -> list[tuple[int, str]]:
        return [(int(i), str(c)) for i, c in s.execute(select(Room.id, Room.code).where(Room.status != "closed"))]

    return job


def load_open_rooms(room_id: int | None = None) -> Job[list[StoredRoom]]:
    """Every room not closed (or the one of ``room_id``, if open), with its seats, its match on (if any),
    and that match's hands with their actions: what :meth:`paohuzi.server.wiring.OneProcess.recover` rebuilds."""

    def job(s: Session) -> list[StoredRoom]:
        out = []
        query = select(Room).where(Room.status != "closed")
        if room_id is not None:
            query = query.where(Room.id == room_id)
        for room in s.scalars(query.order_by(Room.id)):
            seats = s.scalars(
                select(RoomSeat).where(RoomSeat.room_id == room.id).order_by(RoomSeat.seat)
            ).all()
            out.append(
                StoredRoom(
                    id=room.id,
                    code=room.code,
                    kind=room.kind,
                    owner_id=room.owner_id,
                    options=RoomOptions.from_dict(room.options),
                    status=room.status,
                    seats=[RoomSeatRow(x.player_id, x.bot, x.ready) for x in seats],
                    match=_match_on(s, room.id),
                )
            )
        return out

    return job


def _match_on(s: Session, room_id: int) -> StoredMatch | None:
    match = s.scalars(
        select(Match).where(Match.room_id == room_id, Match.status == "playing").order_by(Match.id.desc())
    ).first()
    if match is None:
        return None
    mseats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == match.id).order_by(MatchSeat.seat))
    hands = []
    for hand in s.scalars(select(HandRow).where(HandRow.match_id == match.id).order_by(HandRow.number)):
        actions = s.execute(
            select(ActionRow.seat, ActionRow.action).where(ActionRow.hand_id == hand.id).order_by(ActionRow.seq)
        ).all()
        hands.append(
            StoredHand(
                id=hand.id,
                number=hand.number,
                seed=int(hand.seed),
                dealer=hand.dealer,
                status=hand.status,
                actions=[(a.seat, a.action) for a in actions],
                double_cards=[int(x) for x in hand.double_cards or ()], fair=hand.fair,  # issue 32
            )
        )
    return StoredMatch(
        id=match.id,
        seed=int(match.seed),
        rules=match.rules,
        hands_total=match.hands_total,
        scores=list(match.scores),
        seats=[MatchSeatRow(x.player_id, x.bot, x.nickname) for x in mseats],
        hands=hands,
        dissolution=(match.result or {}).get("dissolution"),
    )


# ---- matches and hands ------------------------------------------------------------------------------


def create_match(
    room_id: int,
    seed: int,
    rules: RuleSet,
    hands_total: int,
    seats: Sequence[MatchSeatRow],
) -> Job[int]:
    def job(s: Session) -> int:
        m = Match(
            room_id=room_id,
            seed=seed,
            rules=rules.to_dict(),
            hands_total=hands_total,
            status="playing",
            scores=[0] * len(seats),
        )
        s.add(m)
        s.flush()
        for i, seat in enumerate(seats):
            s.add(
                MatchSeat(
                    match_id=m.id,
                    seat=i,
                    player_id=seat.player_id,
                    bot=seat.bot,
                    nickname=seat.nickname[:32],
                    score=0,
                )
            )
        s.execute(update(Room).where(Room.id == room_id).values(status="playing"))
        return m.id

    return job


def create_hand(  # noqa: PLR0913 (one parameter per column)
    match_id: int, number: int, seed: int, dealer: int, rules: RuleSet, double_cards: Sequence[int] = (),
    fair: Mapping[str, object] | None = None,
) -> Job[int]:
    """A hand dealt; ``double_cards``: seats with an active 双倍积分卡 (R7.3); ``fair``: its seeds (issue 32)."""

    def job(conn: Sql) -> int:
        seeds = dict(fair) if fair is not None else None
        row = {"match_id": match_id, "number": number, "seed": seed, "dealer": dealer, "rules": _rules_dict(rules),
               "double_cards": sorted(double_cards) or None, "fair": seeds}  # None: JSON null, as the ORM wrote
        return _NEW_HAND.insert(conn, row)

    return per_hand(CoreJob(job))  # on SQLite, committed on the event loop when it can (issue 33)


@functools.lru_cache(maxsize=64)
def _rules_dict(rules: RuleSet) -> dict[str, Any]:
    """A rule set as hand rows store it, made once (``to_dict``: ~40 µs a hand, issue 33); never changed."""
    return rules.to_dict()


def action_row(hand_id: int, seq: int, seat: int, action: str, by: str) -> ActionLogRow:
    """A row of the append-only action log (see :meth:`paohuzi.server.db.Database.append_action`)."""
    return ActionLogRow(hand_id, seq, seat, action, by)


def finish_hand(
    hand_id: int,
    outcome: dict[str, Any],
    record: dict[str, Any],
    match_id: int,
    scores: Sequence[int],
    player_results: Sequence[tuple[int, int, bool]],
) -> CoreJob[None]:
    """Close a hand: its outcome and record, the match's running scores, and each human's points
    (player id, points won or lost, won the hand)."""

    def job(conn: Sql) -> None:
        # Core statements built once, seats and players in one executemany each (the ORM's bulk updates
        # cost ~75 % of a settlement's CPU, issue 14 item 6), on SQLite run by sqlite3 (issue 33, statements.py).
        _FINISH_HAND.execute(conn, {"b_id": hand_id, "b_outcome": outcome, "b_record": record, "b_at": utcnow()})
        _MATCH_SCORES.execute(conn, {"b_id": match_id, "b_s": list(scores)})
        _SEAT_SCORE.execute_many(conn, [{"b_match": match_id, "b_seat": i, "b_score": x} for i, x in enumerate(scores)])
        if player_results:
            won = [{"b_id": pid, "b_delta": delta, "b_won": int(w)} for pid, delta, w in player_results]
            _PLAYER_RESULT.execute_many(conn, won)

    return CoreJob(job)


_HANDS, _MATCHES = cast(Table, HandRow.__table__), cast(Table, Match.__table__)
_SEATS, _PLAYERS = cast(Table, MatchSeat.__table__), cast(Table, Player.__table__)
_NEW_HAND = Statement(insert(_HANDS).values(status="playing"))  # started_at: the column's default
_FINISH_HAND = Statement(update(_HANDS).where(_HANDS.c.id == bindparam("b_id")).values(
    status="finished", outcome=bindparam("b_outcome"), record=bindparam("b_record"), finished_at=bindparam("b_at")))
_MATCH_SCORES = Statement(update(_MATCHES).where(_MATCHES.c.id == bindparam("b_id")).values(scores=bindparam("b_s")))
_SEAT_SCORE = Statement(update(_SEATS).where(_SEATS.c.match_id == bindparam("b_match"), _SEATS.c.seat == bindparam(
    "b_seat")).values(score=bindparam("b_score")))
_PLAYER_RESULT = Statement(update(_PLAYERS).where(_PLAYERS.c.id == bindparam("b_id")).values(
    points=_PLAYERS.c.points + bindparam("b_delta"), hands_played=_PLAYERS.c.hands_played + 1,
    hands_won=_PLAYERS.c.hands_won + bindparam("b_won")))


def save_dissolution(match_id: int, proposal: DissolutionData | None) -> Job[None]:
    """Keep (or clear) a match's open 解散房间 proposal (R8.2) in ``matches.result`` while it is played
    (the match's result replaces it when the match ends), so that it survives a restart."""

    def job(s: Session) -> None:
        result = None if proposal is None else {"dissolution": proposal}
        s.execute(update(Match).where(Match.id == match_id, Match.status == "playing").values(result=result))

    return job


def finish_match(
    match_id: int,
    room_id: int,
    status: str,
    scores: Sequence[int],
    ranks: Sequence[int],
    result: dict[str, Any],
    humans: Sequence[int],
    void_hand: tuple[int, dict[str, Any]] | None = None,
) -> Job[None]:
    """Close a match. ``void_hand``: the hand in play when the match was dissolved (R8.2) and its record
    (marked dissolved), stored with status ``dissolved`` in the same transaction."""

    def job(s: Session) -> None:
        if void_hand is not None:
            s.execute(
                update(HandRow)
                .where(HandRow.id == void_hand[0])
                .values(status="dissolved", record=void_hand[1], finished_at=utcnow())
            )
        s.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(status=status, scores=list(scores), result=result, finished_at=utcnow())
        )
        s.execute(update(Room).where(Room.id == room_id, Room.status == "playing").values(status="waiting"))
        for seat, (score, rank) in enumerate(zip(scores, ranks, strict=False)):
            s.execute(
                update(MatchSeat)
                .where(MatchSeat.match_id == match_id, MatchSeat.seat == seat)
                .values(score=score, rank=rank)
            )
        for player_id in humans:
            s.execute(
                update(Player).where(Player.id == player_id).values(matches_played=Player.matches_played + 1)
            )

    return job


def summary_of(s: Session, m: Match, code: str | None) -> MatchSummary:
    """A match's summary (with its room's code, or None), in a job of this store or another's (club_records)."""
    seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat)).all()
    hands = s.scalars(select(HandRow).where(HandRow.match_id == m.id).order_by(HandRow.number)).all()
    return MatchSummary(
        id=m.id,
        room_code=code,
        preset=(m.rules or {}).get("name"),
        started_at=iso(m.started_at),
        finished_at=iso(m.finished_at),
        status=m.status,
        seats=[MatchSeatSummary(x.seat, x.player_id, seat_nickname(x), x.bot, int(x.score), x.rank) for x in seats],
        hands=[
            HandSummary(
                id=h.id,
                number=h.number,
                status=h.status,
                winner=(h.outcome or {}).get("winner"),
                points=(h.outcome or {}).get("points"),
                kind=(h.outcome or {}).get("kind"),
                leaver=(h.outcome or {}).get("leaver"),
                payments=(h.outcome or {}).get("payments"),
                code=replay_code(h.id, int(h.seed)) if h.status != "playing" else None,
                huxi=(h.outcome or {}).get("huxi"),
                names=(h.outcome or {}).get("names"),
                zimo=(h.outcome or {}).get("zimo") if (h.outcome or {}).get("kind") == "hu" else None,
            )
            for h in hands
        ],
    )


def history(player_id: int, limit: int) -> Job[list[MatchSummary]]:
    def job(s: Session) -> list[MatchSummary]:
        rows = s.execute(
            select(Match, Room.code)
            .join(MatchSeat, MatchSeat.match_id == Match.id)
            .join(Room, Room.id == Match.room_id)
            .where(MatchSeat.player_id == player_id)
            .order_by(Match.id.desc())
            .limit(limit)
        ).all()
        return [summary_of(s, m, code) for m, code in rows]

    return job


def match_summary(match_id: int) -> Job[MatchSummary | None]:
    def job(s: Session) -> MatchSummary | None:
        row = s.execute(
            select(Match, Room.code).join(Room, Room.id == Match.room_id).where(Match.id == match_id)
        ).first()
        return None if row is None else summary_of(s, row[0], row[1])

    return job


# ---- replay codes -------------------------------------------------------------------------------------

#: Replay codes (issue 12 item 4) are written with these 32 characters (no 0/O, 1/I).
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_CHECK = 6  # the last 6 characters: 30 bits from the hand's secret seed


def _b32(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 32)
        out = CODE_ALPHABET[r] + out
        if n == 0:
            return out


def replay_code(hand_id: int, seed: int) -> str:
    """A finished hand's replay code: the hand id in base 32, then 6 characters of SHA-256 over the id and
    the hand's seed. The seed is secret (drawn with ``secrets``, never shown before the hand is over), so a
    code cannot be made from an id: the code is the capability to watch the hand (hands 1–31: 7
    characters, 32–1023: 8, one more per factor 32)."""
    digest = int.from_bytes(hashlib.sha256(f"paohuzi-replay:{hand_id}:{seed}".encode()).digest()[:8], "big")
    check = "".join(CODE_ALPHABET[(digest >> (5 * i)) & 31] for i in range(CODE_CHECK))
    return _b32(hand_id) + check


def parse_replay_code(text: str) -> int | None:
    """The hand id a replay code names (not yet checked), or None if the text is no code. Case, spaces and
    dashes are ignored."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if not CODE_CHECK < len(code) <= CODE_CHECK + 7 or any(ch not in CODE_ALPHABET for ch in code):
        return None
    n = 0
    for ch in code[:-CODE_CHECK]:
        n = n * 32 + CODE_ALPHABET.index(ch)
    return n if 1 <= n <= 2**31 - 1 else None


def replay_by_code(text: str) -> Job[Replay | None]:
    """The finished hand a replay code opens, or None (unknown, wrong, or the hand is still played)."""
    hand_id = parse_replay_code(text)
    code = "".join(ch for ch in text.upper() if ch not in " -")

    def job(s: Session) -> Replay | None:
        if hand_id is None:
            return None
        h = s.get(HandRow, hand_id)
        if h is None or not hmac.compare_digest(replay_code(h.id, int(h.seed)), code):
            return None
        return _replay(h)

    return job


def replay_access(hand_id: int) -> Job[tuple[str, set[int]] | None]:
    """Who may open a hand's replay by its id: the room's kind and the match's players (private rooms'
    hands: only those; the code opens it for anyone)."""

    def job(s: Session) -> tuple[str, set[int]] | None:
        row = s.execute(
            select(Room.kind, HandRow.match_id)
            .join(Match, Match.id == HandRow.match_id)
            .join(Room, Room.id == Match.room_id)
            .where(HandRow.id == hand_id)
        ).first()
        if row is None:
            return None
        players = s.scalars(select(MatchSeat.player_id).where(MatchSeat.match_id == row[1])).all()
        return str(row[0]), {p for p in players if p is not None}

    return job


def replay(hand_id: int) -> Job[Replay | None]:
    def job(s: Session) -> Replay | None:
        h = s.get(HandRow, hand_id)
        return None if h is None else _replay(h)

    return job


def _replay(h: HandRow) -> Replay | None:
    """A finished hand as a replay; None while it is played (replays of hands in play stay unavailable)."""
    if h.status == "playing" or h.record is None:
        return None
    hand = ReplayHand(
        id=h.id,
        match_id=h.match_id,
        number=h.number,
        status=h.status,
        started_at=iso(h.started_at),
        finished_at=iso(h.finished_at),
        outcome=h.outcome,
        code=replay_code(h.id, int(h.seed)),
    )
    return Replay(hand=hand, record=h.record)


def hand_actions(hand_id: int) -> Job[list[tuple[int, str, str]]]:
    def job(s: Session) -> list[tuple[int, str, str]]:
        rows = s.execute(
            select(ActionRow.seat, ActionRow.action, ActionRow.by)
            .where(ActionRow.hand_id == hand_id)
            .order_by(ActionRow.seq)
        ).all()
        return [(r.seat, r.action, r.by) for r in rows]

    return job
