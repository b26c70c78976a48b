"""The account routes of the lobby API (issue 13 §1, docs/protocol.md §2 "Accounts"): claim a guest with a
username and password, log in on another device, list and revoke sessions ("log out everywhere"), export
one's data, delete the account.

Log-ins and claims are rate-limited per client address (every attempt) and per account (failed log-ins
by username, claims by player): beyond, 429 ``rate_limited`` before any password is checked.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from paohuzi.scoring import level_title
from paohuzi.server import account_store, accounts, double_cards, economy, ledger_store
from paohuzi.server.account_store import AccountData, ExportData, SessionData
from paohuzi.server.accounts import PASSWORD_MAX, username_key
from paohuzi.server.api import AS_JSON
from paohuzi.server.double_cards import CardStateData
from paohuzi.server.economy import TierData
from paohuzi.server.frames import PlayerProfile
from paohuzi.server.hub import Hub
from paohuzi.server.ledger_store import LedgerEntryData, ReliefGranted
from paohuzi.server.limits import Limits
from paohuzi.server.room import RoomError

__all__ = ["router", "ClaimIn", "LoginIn", "DeleteIn"]

router = APIRouter(prefix="/api")
_bearer = HTTPBearer(auto_error=False, description="a session token (POST /api/guests or POST /api/login)")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ClaimIn(_Body):
    """``POST /api/me/claim``: username (3–16 characters after NFKC) and password (8–128)."""

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX * 4)


class LoginIn(_Body):
    """``POST /api/login``."""

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX * 4)


class DeleteIn(_Body):
    """``DELETE /api/me``: the password, for an account that has one (a guest sends nothing)."""

    password: str | None = Field(default=None, max_length=PASSWORD_MAX * 4)


class ClaimAnswer(TypedDict):
    account: AccountData
    player: PlayerProfile


class LoginAnswer(TypedDict):
    token: str
    player: PlayerProfile


class AccountAnswer(TypedDict):
    account: AccountData
    sessions: list[SessionData]
    current: int  # the session this request used


class Revoked(TypedDict):
    revoked: list[int]  # session ids


class Deleted(TypedDict):
    deleted: int  # the player id


class ReliefRules(TypedDict):
    amount: int
    below: int
    per_day: int


class TiersAnswer(TypedDict):
    tiers: list[TierData]
    start_beans: int
    relief: ReliefRules


class LedgerAnswer(TypedDict):
    entries: list[LedgerEntryData]


class BoardRow(TypedDict):
    rank: int
    id: int
    nickname: str
    title: str
    value: int


class BoardAnswer(TypedDict):
    board: str
    period: str
    players: list[BoardRow]


class CardsAnswer(TypedDict):
    cards: CardStateData
    card_seconds: float


SessionId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a session id (GET /api/me/sessions)")]


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def current_session(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> tuple[PlayerProfile, int]:
    """The player and session id of the bearer token. :raises RoomError: 401 ``unauthorized``."""
    if credentials is None:
        raise RoomError("unauthorized", "send your token as 'Authorization: Bearer <token>'", 401)
    found = await _hub(request).session(credentials.credentials)
    if found is None:
        raise RoomError("unauthorized", "unknown or revoked token", 401)
    return found


Current = Annotated[tuple[PlayerProfile, int], Depends(current_session)]


class _Bucket:
    """One of the log-in limits' buckets (:class:`~paohuzi.server.limits.Limits`: in Redis in the shared
    mode, so every process counts the same tries)."""

    def __init__(self, request: Request, key: str, rate: float, burst: int) -> None:
        self.limits: Limits = request.app.state.limits
        self.key, self.rate, self.burst = "login:" + key, rate, burst

    async def take(self) -> bool:
        return await self.limits.take(self.key, self.rate, self.burst)

    async def peek(self) -> bool:
        return await self.limits.peek(self.key, self.rate, self.burst)


def _address_bucket(request: Request) -> _Bucket:
    s = _hub(request).settings
    client = request.client
    return _Bucket(request, "addr:" + (client.host if client else "?"), s.login_rate, s.login_burst)


def _account_bucket(request: Request, key: str) -> _Bucket:
    s = _hub(request).settings
    return _Bucket(request, "acct:" + key, s.login_fail_rate, s.login_fail_burst)


def _limited() -> RoomError:
    return RoomError("rate_limited", "too many log-in attempts; wait a minute and try again", 429)


def _user_agent(request: Request) -> str:
    return request.headers.get("user-agent", "")[:120]


@router.post("/me/claim", tags=["accounts"], response_model=AS_JSON)
async def claim(request: Request, body: ClaimIn, current: Current) -> ClaimAnswer:
    """Claim your guest account with a username and password (history, 积分 and title kept): then log in
    with them on any device. Usernames: 3–16 characters (after NFKC), letters a–z/A–Z, digits, ``_`` or
    Chinese characters, beginning with a letter; unique up to case and look-alikes. Passwords: 8–128
    characters, not the username."""
    player, _session = current
    try:  # the rules first: a name that breaks them costs no try
        accounts.check_password(body.password, accounts.normalize_username(body.username))
    except accounts.AccountError as exc:
        raise RoomError(exc.code, exc.message, 422) from None
    if not await _address_bucket(request).take() or not await _account_bucket(request, f"player:{player['id']}").take():
        raise _limited()
    account = await _hub(request).claim(player["id"], body.username, body.password)
    return {"account": account, "player": player}


@router.post("/login", status_code=201, tags=["accounts"], response_model=AS_JSON)
async def login(request: Request, body: LoginIn) -> LoginAnswer:
    """Log in to a claimed account: a new session token (keep it like the guest token)."""
    account = _account_bucket(request, username_key(body.username))
    if not await account.peek() or not await _address_bucket(request).take():
        raise _limited()
    found = await _hub(request).login(body.username, body.password, _user_agent(request))
    if found is None:
        await account.take()
        raise RoomError("bad_credentials", "wrong username or password", 401)
    token, player = found
    return {"token": token, "player": player}


@router.get("/me/account", tags=["accounts"], response_model=AS_JSON)
async def my_account(request: Request, current: Current) -> AccountAnswer:
    """Your username (null for a guest that has not claimed) and your live sessions; ``current`` is the id
    of the one this request used."""
    player, session = current
    hub = _hub(request)
    sessions = await hub.db.run(account_store.list_sessions(player["id"]))
    return {
        "account": await hub.account(player["id"]),
        "sessions": [x.to_dict() for x in sessions],
        "current": session,
    }


@router.delete("/me/sessions/{session_id}", tags=["accounts"], response_model=AS_JSON)
async def revoke_session(request: Request, session_id: SessionId, current: Current) -> Revoked:
    """Revoke one of your sessions (its websocket is closed with 4001)."""
    player, _session = current
    revoked = await _hub(request).revoke(player["id"], session_id)
    if not revoked:
        raise RoomError("not_found", f"you have no live session {session_id}", 404)
    return {"revoked": revoked}


@router.post("/me/logout", tags=["accounts"], response_model=AS_JSON)
async def logout(request: Request, current: Current) -> Revoked:
    """Revoke this session. A guest that has not claimed its account is refused (409 ``not_claimed``):
    without a username it could never log in again."""
    player, session = current
    hub = _hub(request)
    if (await hub.account(player["id"]))["username"] is None:
        raise RoomError("not_claimed", "claim your account first: you could never log in again", 409)
    return {"revoked": await hub.revoke(player["id"], session)}


@router.post("/me/logout-everywhere", tags=["accounts"], response_model=AS_JSON)
async def logout_everywhere(request: Request, current: Current) -> Revoked:
    """Revoke every one of your sessions, this one too (log in again with your password). Refused for a
    guest that has not claimed (409 ``not_claimed``)."""
    player, _session = current
    hub = _hub(request)
    if (await hub.account(player["id"]))["username"] is None:
        raise RoomError("not_claimed", "claim your account first: you could never log in again", 409)
    return {"revoked": await hub.revoke(player["id"], None)}


@router.get("/me/export", tags=["accounts"], response_model=AS_JSON)
async def export(request: Request, current: Current) -> ExportData:
    """All that is kept about you, as JSON: profile, account, sessions (without tokens) and every match you
    played with its hands (room codes included: you sat in them)."""
    player, _session = current
    data = await _hub(request).db.run(account_store.export(player["id"]))
    if data is None:
        raise RoomError("not_found", "no such player", 404)
    return data


@router.delete("/me", tags=["accounts"], response_model=AS_JSON)
async def delete_me(request: Request, current: Current, body: DeleteIn | None = None) -> Deleted:
    """Delete your account: every session is revoked, your username and password are forgotten, and your
    name in every match record becomes 已注销玩家 (others' history keeps the results, not you). A claimed
    account must send its password. Refused mid-match (409 ``in_game``)."""
    player, _session = current
    hub = _hub(request)
    account = await hub.account(player["id"])
    if account["username"] is not None:
        if not await _address_bucket(request).take():
            raise _limited()
        password = body.password if body is not None else None
        found = None if password is None else await hub.login_check(player["id"], account["username"], password)
        if not found:
            raise RoomError("bad_credentials", "send your password to delete your account", 401)
    await hub.delete_account(player["id"])
    return {"deleted": player["id"]}


# ---- 欢乐豆 (issue 13 §2) ---------------------------------------------------------------------------


@router.get("/tiers", tags=["beans"], response_model=AS_JSON)
async def tiers() -> TiersAnswer:
    """The table tiers (场次): multiplier of beans per point and the beans needed to sit down; the start
    grant and the daily relief."""
    return {
        "tiers": [t.to_dict() for t in economy.TIERS],
        "start_beans": economy.START_BEANS,
        "relief": {"amount": economy.RELIEF_AMOUNT, "below": economy.RELIEF_BELOW, "per_day": economy.RELIEF_PER_DAY},
    }


@router.post("/me/relief", tags=["beans"], response_model=AS_JSON)
async def relief(request: Request, current: Current) -> ReliefGranted:
    """The daily relief (救济) for a player holding under 100 beans: 500 beans, twice a UTC day."""
    player, _session = current
    return await _hub(request).relief(player["id"])


@router.get("/me/ledger", tags=["beans"], response_model=AS_JSON)
async def my_ledger(
    request: Request,
    current: Current,
    currency: Annotated[Literal["beans", "points", "cards"] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> LedgerAnswer:
    """Your ledger: every change of your beans, points (积分) and 双倍积分卡 held, newest first — only ever
    your own."""
    player, _session = current
    rows = await _hub(request).db.run(ledger_store.entries(player["id"], currency, limit))
    return {"entries": [r.to_dict() for r in rows]}


@router.get("/leaderboards/{board}", tags=["beans"], response_model=AS_JSON)
async def leaderboards(
    request: Request,
    board: Literal["points", "beans"],
    period: Annotated[Literal["week", "all"], Query()] = "all",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> BoardAnswer:
    """Players by 积分 or by 欢乐豆: ``all`` by balance, ``week`` by what hands gave them in the last 7
    days (from the ledger). Bots have no account; deleted players are left out."""
    rows = await _hub(request).db.run(ledger_store.leaderboard(board, 7 if period == "week" else None, limit))
    return {
        "board": board,
        "period": period,
        "players": [
            {"rank": i + 1, "id": pid, "nickname": nick, "title": level_title(points), "value": value}
            for i, (pid, nick, points, value) in enumerate(rows)
        ],
    }


# ---- 双倍积分卡 (issue 13 §3, R7.3) ------------------------------------------------------------------


@router.get("/me/double-cards", tags=["beans"], response_model=AS_JSON)
async def my_double_cards(request: Request, current: Current) -> CardsAnswer:
    """Your 双倍积分卡: how many you hold unused, and the active one (start, end, seconds left) if any. One
    card a UTC day on your first settled hand, one per level (R7.4) reached for the first time."""
    player, _session = current
    found = await _hub(request).db.run(double_cards.state(player["id"]))
    if found is None:
        raise RoomError("not_found", "no such player", 404)
    return {"cards": found.to_dict(), "card_seconds": _hub(request).settings.double_card_seconds}


@router.post("/me/double-cards/activate", tags=["beans"], response_model=AS_JSON)
async def activate_double_card(request: Request, current: Current) -> CardsAnswer:
    """Use one 双倍积分卡: for the next hour (wall-clock) every hand that starts doubles your own 积分 gain
    (R7.3; beans never double). 409 ``no_card`` when you hold none, ``card_active`` while one is active
    (cards do not stack)."""
    player, _session = current
    hub = _hub(request)
    failed, found = await hub.db.run(double_cards.activate(player["id"], hub.settings.double_card_seconds))
    if failed == "no_card":
        raise RoomError(failed, "you hold no 双倍积分卡", 409)
    if failed == "card_active":
        raise RoomError(failed, f"a 双倍积分卡 is already active until {found.active_until}; cards do not stack", 409)
    return {"cards": found.to_dict(), "card_seconds": hub.settings.double_card_seconds}
