"""The wire edge (docs/protocol.md): one Pydantic model per client message and per HTTP body, with bounds.

This is the one place where the shape of untrusted input is checked (STYLE.md convention 5); the engine
alone checks legality. :func:`parse_client_frame` turns a websocket text frame into a
:data:`ClientMessage` or a :class:`ProtocolError` carrying the error code of docs/protocol.md §3.3. An
``act``'s action text is parsed here into an engine :class:`~paohuzi.engine.Action`: text that is no action
at all is ``bad_message``; an action that is well formed but not legal now is the engine's to refuse
(``illegal_action``).

>>> parse_client_frame('{"type": "act", "action": "discard x7", "id": 3}')
Act(id=3, type='act', action=Action.parse('discard x7'), hand=None, seat=None, seq=None)
>>> for text in ('{"type": "dance"}', '{"type": "act", "action": "chi x8"}'):
...     try:  # doctest: +ELLIPSIS
...         parse_client_frame(text)
...     except ProtocolError as exc:
...         print(exc.code, "|", exc.message)
bad_message | unknown message type 'dance' (expected one of: act, ...)
bad_message | action: chi takes the two hand cards it eats with, like 'chi x8 x9'; got 1
"""

from __future__ import annotations

import functools
import json
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from paohuzi.cards import NotationError
from paohuzi.engine import Action

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolError",
    "ClientMessage",
    "Hello",
    "Ping",
    "Sync",
    "Ready",
    "Start",
    "Act",
    "Auto",
    "Rematch",
    "Leave",
    "QueueJoin",
    "QueueLeave",
    "QueueIn",
    "parse_client_frame",
    "RoomOptionsIn",
    "QuickPlayIn",
    "JoinIn",
    "GuestIn",
    "NicknameIn",
    "clean_nickname",
    "ROOM_BOUNDS",
]

PROTOCOL_VERSION = 2  # 2: verifiable deals (issue 32): deal_commit, seed, game.deal, hand_over.deal

MessageId = Annotated[str, StringConstraints(max_length=64)] | Annotated[int, Field(ge=-(2**53), le=2**53)]


class ProtocolError(ValueError):
    """A frame refused at the wire edge. ``code`` is one of docs/protocol.md §3.3."""

    def __init__(self, code: str, message: str, msg_id: MessageId | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.msg_id = msg_id


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: MessageId | None = None


class Hello(_Message):
    type: Literal["hello"]
    token: Annotated[str, StringConstraints(min_length=10, max_length=200)]


class Ping(_Message):
    type: Literal["ping"]


class Sync(_Message):
    type: Literal["sync"]


class Ready(_Message):
    type: Literal["ready"]
    ready: bool = True


class Start(_Message):
    type: Literal["start"]


_MAX_ACTION = 80


def _parse_action(value: Any) -> Action:
    """The action notation (docs/engine.md §3) → an :class:`Action`; what is not an action is refused here.

    :raises ValueError: not text, empty or too long, or not an action (naming what is wrong).
    """
    if isinstance(value, Action):
        return value
    if not isinstance(value, str):
        raise ValueError(f"an action is text, like 'discard x7', got {type(value).__name__}")
    if not 1 <= len(value) <= _MAX_ACTION:
        raise ValueError(f"an action has 1 to {_MAX_ACTION} characters, got {len(value)}")
    try:
        return _action(value)
    except NotationError as exc:
        raise ValueError(str(exc)) from None


@functools.lru_cache(maxsize=4096)
def _action(text: str) -> Action:
    """:meth:`Action.parse`, remembered: an action is immutable, and a table's players send the same few
    hundred texts all along (issue 33: a parse a frame was 3 % of an action's CPU). A text that is not an action
    raises each time (nothing is remembered of it)."""
    return Action.parse(text)


class Act(_Message):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    type: Literal["act"]
    action: Annotated[Action, BeforeValidator(_parse_action)]
    hand: Annotated[int, Field(ge=0, le=2**62)] | None = None
    seat: Annotated[int, Field(ge=0, le=3)] | None = None
    seq: Annotated[int, Field(ge=0, le=2**31)] | None = None  # the newest frame's ``seq`` the choice was made on


class Auto(_Message):
    type: Literal["auto"]
    on: bool


class Rematch(_Message):
    type: Literal["rematch"]


class Leave(_Message):
    type: Literal["leave"]


#: Quick chat: a fixed list of phrases and emoji, sent by number (no free text: nothing to moderate). The
#: words are the client's (docs/protocol.md §3.1); the server relays the number.
CHAT_PHRASES = 14


class Chat(_Message):
    type: Literal["chat"]
    phrase: Annotated[int, Field(ge=0, lt=CHAT_PHRASES)]




class Kick(_Message):
    """Owner, before a match: release a seat (a player or a computer)."""

    type: Literal["kick"]
    seat: Annotated[int, Field(ge=0, le=3)]


class GiveOwner(_Message):
    """Owner: hand the room over to the player in ``seat``."""

    type: Literal["give_owner"]
    seat: Annotated[int, Field(ge=0, le=3)]


class AddBot(_Message):
    """Owner, before a match: seat a computer of ``level`` in a free seat."""

    type: Literal["add_bot"]
    seat: Annotated[int, Field(ge=0, le=3)]
    level: Literal["beginner", "normal", "expert", "master"] = "normal"  # paohuzi.bots.levels


class Dissolve(_Message):
    """解散房间 (R8.2): propose to end the match by agreement."""

    type: Literal["dissolve"]


class DissolveVote(_Message):
    """An answer to the open 解散房间 proposal (R8.2)."""

    type: Literal["dissolve_vote"]
    agree: bool


class DissolveWithdraw(_Message):
    """撤回: the proposer takes back its open 解散房间 proposal (R8.2, docs/decisions.md)."""

    type: Literal["dissolve_withdraw"]


class QueueJoin(_Message):
    """匹配 (issue 13 §4): wait in ``tier``'s queue for a public table."""

    type: Literal["queue_join"]
    tier: Annotated[str, StringConstraints(min_length=1, max_length=16)]
    # issue 29: the preset to play (one of the server's match_presets); None: the first of them
    preset: Annotated[str, StringConstraints(min_length=1, max_length=32)] | None = None


class QueueLeave(_Message):
    """Leave the queue (cancel the 匹配)."""

    type: Literal["queue_leave"]


class Seed(_Message):
    """可验证发牌 (issue 32): this seat's client seed for the deal whose ``deal_commit`` it answers."""

    type: Literal["seed"]
    commitment: Annotated[str, StringConstraints(min_length=64, max_length=64)]
    seed: Annotated[str, StringConstraints(min_length=2, max_length=64)]


class Hint(_Message):
    """提示 (issue #16): the suggested move and the 听牌 of each discard, for your seat."""

    type: Literal["hint"]


class ClubWatch(_Message):
    """亲友圈 (issue 31): follow a club's tables live (``club_tables`` frames); ``club`` null: stop."""

    type: Literal["club_watch"]
    club: Annotated[str, StringConstraints(pattern=r"^[0-9]{6}$")] | None = None


ClientMessage = Annotated[
    Hello
    | Ping
    | Sync
    | Ready
    | Start
    | Act
    | Auto
    | Rematch
    | Leave
    | Chat
    | Dissolve
    | DissolveVote
    | DissolveWithdraw
    | Kick
    | GiveOwner
    | AddBot
    | Hint
    | Seed
    | QueueJoin
    | QueueLeave
    | ClubWatch,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = (
    *("act", "add_bot", "auto", "chat", "club_watch", "dissolve", "dissolve_vote", "dissolve_withdraw"),
    *("give_owner", "hello"),
    *("hint", "kick"),
    *("leave", "ping", "queue_join", "queue_leave", "ready", "rematch", "seed", "start", "sync"),
)


def parse_client_frame(text: str | bytes) -> ClientMessage:
    """Decode and validate one client frame.

    :raises ProtocolError: ``bad_json`` (not JSON, not an object) or ``bad_message`` (unknown type, missing
        or badly typed field), with the frame's ``id`` when it could be read.
    """
    if isinstance(text, str) and '"act"' in text:
        # an ``act``, most frames (issue 33): read and validated by pydantic-core in one pass, half the CPU of
        # json.loads and the union's validation; one it refuses for any reason is read again below, which finds
        # it bad with the usual error (tests/server/test_protocol_act.py: the same answer for every frame)
        try:
            return Act.model_validate_json(text)
        except ValidationError:
            pass
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError("bad_json", "the frame is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", f"a frame must be a JSON object, got {type(data).__name__}")
    msg_id = data.get("id")
    if (
        not isinstance(msg_id, (str, int))
        or isinstance(msg_id, bool)
        or (isinstance(msg_id, str) and len(msg_id) > 64)
    ):
        msg_id = None
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        shown = repr(kind)[:40]
        raise ProtocolError(
            "bad_message",
            f"unknown message type {shown} (expected one of: {', '.join(MESSAGE_TYPES)})",
            msg_id,
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", _describe(exc), msg_id) from None


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:3]:
        loc = [str(p) for p in err.get("loc", ()) if not isinstance(p, int) or True]
        if len(loc) > 1:
            loc = loc[1:]  # drop the discriminator tag
        where = ".".join(loc) or "message"
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)


# ---- HTTP bodies ------------------------------------------------------------------------------------

ROOM_BOUNDS = {
    "hands": (1, 64),
    "stake": (0, 1000),
    "turn_seconds": (3, 300),
    "claim_seconds": (2, 300),
}


def clean_nickname(text: str) -> str:
    """Normalise a nickname: NFC, trimmed, inner spaces collapsed; 1–16 characters, no control characters.

    >>> clean_nickname("  快乐的  渔夫 ")
    '快乐的 渔夫'
    >>> clean_nickname("a\\x00b")
    Traceback (most recent call last):
    ...
    ValueError: a nickname may not contain control characters
    """
    text = " ".join(unicodedata.normalize("NFC", text).split())
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise ValueError("a nickname may not contain control characters")
    if not 1 <= len(text) <= 16:
        raise ValueError("a nickname has 1 to 16 characters")
    return text


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestIn(_Body):
    """``POST /api/guests``: optionally choose the nickname at once."""

    nickname: str | None = Field(default=None, max_length=64)

    @field_validator("nickname")
    @classmethod
    def _nick(cls, value: str | None) -> str | None:
        return None if value is None else clean_nickname(value)


class NicknameIn(_Body):
    """``PATCH /api/me``."""

    nickname: str = Field(max_length=64)

    @field_validator("nickname")
    @classmethod
    def _nick(cls, value: str) -> str:
        return clean_nickname(value)


class RoomOptionsIn(_Body):
    """``POST /api/rooms``: the options of a private room (docs/protocol.md §2). Unset fields take the
    server's defaults (stake: the preset's)."""

    preset: str = Field(default="qq", max_length=32)
    four_players: bool = False
    hands: int | None = Field(default=None, ge=ROOM_BOUNDS["hands"][0], le=ROOM_BOUNDS["hands"][1])
    stake: int | None = Field(default=None, ge=ROOM_BOUNDS["stake"][0], le=ROOM_BOUNDS["stake"][1])
    turn_seconds: float | None = Field(
        default=None, ge=ROOM_BOUNDS["turn_seconds"][0], le=ROOM_BOUNDS["turn_seconds"][1]
    )
    claim_seconds: float | None = Field(
        default=None, ge=ROOM_BOUNDS["claim_seconds"][0], le=ROOM_BOUNDS["claim_seconds"][1]
    )
    bots_fill: bool = True
    hints: bool = True  # 提示 offered at this table (issue #16)
    bot_level: str | None = Field(default=None, max_length=16)  # the computers' level (paohuzi.bots.levels)
    tier: str = Field(default="practice", max_length=16)  # 场次 (issue 13 §2): practice … senior
    # R8.1 house options; unset: the preset's (docs/protocol.md §2, docs/rules.md R8.1). Which of them a room
    # may set, and to what, is its preset's family's (R9; /api/presets ``family_options``): the rule set
    # refuses the others, naming the option and the family (422).
    min_huxi: int | None = Field(default=None, ge=1, le=60)  # 起胡: 15/18/21 (classic, 常德), 10 (十胡卡)
    zimo: Literal["plus_one", "double", "none"] | None = None  # 自摸: +1 底 / 自摸翻倍 / nothing
    cap: Literal[0, 50, 100, 200, 300, 600] | None = None  # 封顶 (0 = none)
    must_hu: bool | None = None  # 有胡必胡
    win_on_discard: bool | None = None  # 放炮: a discarded card may be won
    discarder_pays: bool | None = None  # 放炮包赔 (with win_on_discard)
    first_dealer: Literal["draw", "owner"] | None = None  # 坐庄: drawn (R2) or the room's owner
    # R9 family options (issue 29), each offered by some families only (``family_options``)
    xing: Literal["none", "fan", "sui"] | None = None  # 醒 (R9.4): none / 翻醒 / 随醒
    base_bonus: Literal["none", "plus_one", "double"] | None = None  # 底分 (R9.2): 囤 + 1 / 囤 × 2
    hongheidian: bool | None = None  # 红黑点 (R9.2 Table F)
    duiduihu: bool | None = None  # 对对胡 (R9.1 Table D)
    tiandi_haidi: bool | None = None  # 天胡 地胡 海底 (R9.2)
    shuahou: bool | None = None  # 耍猴 (R9.1 Table E)
    hanghangxi: bool | None = None  # 行行息
    tuanyuan: bool | None = None  # 团圆
    huangfan: bool | None = None  # 黄番
    # R9.3 衡阳六胡抢 (issue 30 part 2): who plays (all seated play: 4, or 3), 囤, 底, 一五十, 明偎
    players: Literal[3, 4] | None = None  # 四人 / 三人 (every seat plays; not 守醒's ``four_players``)
    tun: Literal["3xi1tun", "1xi1tun"] | None = None  # 三息一囤 / 一息一囤
    di: Literal[1, 2] | None = None  # 底 of 三息一囤
    yiwushi: bool | None = None  # 一五十 / 壹伍拾 a 句
    mingwei: bool | None = None  # 明偎: a 偎 face up to everyone (R5)


#: The R8.1 options a private room may set (RoomOptionsIn), each an option of :class:`paohuzi.rules.RuleSet`.
HOUSE_OPTIONS = (
    *("min_huxi", "zimo", "cap", "must_hu", "win_on_discard", "discarder_pays", "first_dealer"),
    *("xing", "base_bonus", "hongheidian", "duiduihu", "tiandi_haidi"),  # R9 (issue 29)
    *("shuahou", "hanghangxi", "tuanyuan", "huangfan"),
    *("players", "tun", "di", "yiwushi", "mingwei"),  # R9.3 (issue 30)
)


class QuickPlayIn(_Body):
    """``POST /api/rooms/quick``."""

    preset: str = Field(default="qq", max_length=32)
    hands: int | None = Field(default=None, ge=ROOM_BOUNDS["hands"][0], le=ROOM_BOUNDS["hands"][1])
    bot_level: str | None = Field(default=None, max_length=16)  # the opponents' level (paohuzi.bots.levels)
    tier: str = Field(default="practice", max_length=16)  # 场次 (issue 13 §2): practice … senior


class JoinIn(_Body):
    """``POST /api/rooms/{code}/join``."""

    seat: int | None = Field(default=None, ge=0, le=3)


class QueueIn(_Body):
    """``POST /api/queue``: the tier (场次) whose queue to wait in, and the preset to play there (issue 29:
    one of the server's ``match_presets``; unset: the first of them)."""

    tier: str = Field(min_length=1, max_length=16)
    preset: str | None = Field(default=None, min_length=1, max_length=32)


# ---- 亲友圈 (issue 31) -------------------------------------------------------------------------------------

CLUB_NOTICE_MAX = 200  # characters of a club's notice, the only free text of a club


def clean_text(text: str, what: str, longest: int, lines: bool = False) -> str:
    """A club's name (one line) or notice (``lines``): NFC, trimmed, no control characters but newlines in
    a notice; at most ``longest`` characters.

    >>> clean_text("  周五  牌局 ", "a club name", 16)
    '周五 牌局'
    """
    text = unicodedata.normalize("NFC", text).strip()
    if lines:
        text = "\n".join(" ".join(line.split()) for line in text.splitlines())
    else:
        text = " ".join(text.split())
    if any(unicodedata.category(ch).startswith("C") and ch != "\n" for ch in text):
        raise ValueError(f"{what} may not contain control characters")
    if len(text) > longest:
        raise ValueError(f"{what} has at most {longest} characters (this one has {len(text)})")
    return text


def club_name(value: str, what: str = "a club name") -> str:
    """A club's (or a template's) name: one line of 1–16 characters (:func:`clean_text`)."""
    text = clean_text(value, what, 16)
    if not text:
        raise ValueError(f"{what} has 1 to 16 characters")
    return text


class ClubIn(_Body):
    """``POST /api/clubs``: a new club's name (1–16 characters)."""

    name: str = Field(max_length=64)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return club_name(value)


class ClubSettingsIn(_Body):
    """``PATCH /api/clubs/{number}``: any of the owner's settings (unset: unchanged)."""

    name: str | None = Field(default=None, max_length=64)
    notice: str | None = Field(default=None, max_length=CLUB_NOTICE_MAX * 4)
    join_mode: Literal["approval", "open"] | None = None
    auto_open: bool | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else club_name(value)

    @field_validator("notice")
    @classmethod
    def _notice(cls, value: str | None) -> str | None:
        return None if value is None else clean_text(value, "the notice", CLUB_NOTICE_MAX, lines=True)


class ClubRoleIn(_Body):
    """``PUT /api/clubs/{number}/members/{player}/role``."""

    role: Literal["admin", "member"]


class ClubTransferIn(_Body):
    """``POST /api/clubs/{number}/transfer``: the member who becomes the owner."""

    player: int = Field(ge=1, le=2**31 - 1)


class ClubTemplateIn(_Body):
    """A 玩法 template (``POST /api/clubs/{number}/templates``, ``PUT …/{id}``): a name and the room options
    its tables play (as ``POST /api/rooms``: preset, house options, 局数 ``hands``, 底分 ``stake`` …)."""

    name: str = Field(max_length=64)
    options: RoomOptionsIn = Field(default_factory=lambda: RoomOptionsIn())

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return club_name(value, "a template name")


class ClubTableIn(_Body):
    """``POST /api/clubs/{number}/tables``: open a table of this template (and sit down at it)."""

    template: int = Field(ge=1, le=2**31 - 1)
