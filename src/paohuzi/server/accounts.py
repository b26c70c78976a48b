"""Accounts (issue 13 §1): the rules for usernames and passwords, and password hashing.

Pure functions, no I/O, except :func:`hash_password` / :func:`verify_password`, which are CPU- and
memory-heavy on purpose (argon2id, ``argon2-cffi``'s RFC 9106 low-memory profile: 64 MiB, 3 passes):
run them off the event loop.

Usernames (docs/protocol.md §2, "Accounts"):

- NFKC-normalised first (full-width ``Ａｌｉｃｅ`` is ``Alice``), then 3–16 characters;
- letters a–z and A–Z, digits, ``_``, and Chinese characters (CJK unified ideographs); it must begin with
  a letter or a Chinese character. Letters of other scripts are refused, so no name can mix Latin with
  look-alike Cyrillic or Greek letters (``аlice`` with a Cyrillic ``а``);
- unique by their *skeleton* (:func:`username_key`): case folded and the usual look-alikes merged (``0``/``o``,
  ``1``/``l``/``i``, ``rn``/``m``, ``vv``/``w``), so ``Alice``, ``ALICE`` and ``A1ice`` are one name.
"""

from __future__ import annotations

import functools
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

__all__ = [
    "AccountError",
    "USERNAME_MIN",
    "USERNAME_MAX",
    "PASSWORD_MIN",
    "PASSWORD_MAX",
    "normalize_username",
    "username_key",
    "check_password",
    "hash_password",
    "verify_password",
    "dummy_hash",
]

USERNAME_MIN, USERNAME_MAX = 3, 16
PASSWORD_MIN, PASSWORD_MAX = 8, 128

_hasher = PasswordHasher()  # argon2id, RFC 9106 low-memory defaults
# TESTING ONLY (``Settings.test_cheap_passwords``): argon2id at the least cost argon2-cffi takes (8 KiB, 1 pass,
# 1 lane) for the test servers, whose few hundred claims and log-ins paid ~0.3 s of CPU each (docs/DEVELOPING.md).
# Never in production: a stolen cheap hash falls to a guess a microsecond.
_cheap_hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


class AccountError(ValueError):
    """A username or password that breaks the rules; ``code`` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _is_han(ch: str) -> bool:
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF


def _allowed(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ("0" <= ch <= "9") or ch == "_" or _is_han(ch)


def normalize_username(text: str) -> str:
    """The username as it is kept: NFKC, checked against the rules.

    >>> normalize_username("Ａｌｉｃｅ_1"), normalize_username("渔夫老王")
    ('Alice_1', '渔夫老王')
    >>> try:
    ...     normalize_username("аlice")  # a Cyrillic а
    ... except AccountError as exc:
    ...     print(exc.message[:46])
    username: 'а' (CYRILLIC SMALL LETTER A) is not

    :raises AccountError: ``invalid_username`` saying which rule is broken.
    """
    name = unicodedata.normalize("NFKC", text)
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise AccountError("invalid_username", f"username: {USERNAME_MIN}–{USERNAME_MAX} characters, not {len(name)}")
    for ch in name:
        if not _allowed(ch):
            what = unicodedata.name(ch, f"U+{ord(ch):04X}")
            shown = ch if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
            raise AccountError(
                "invalid_username",
                f"username: {shown!r} ({what}) is not allowed; use letters a–z, digits, _ or Chinese characters",
            )
    if not (name[0].isalpha()):
        raise AccountError("invalid_username", "username: must begin with a letter or a Chinese character")
    return name


_MERGES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"))


def username_key(name: str) -> str:
    """The skeleton two usernames are compared by (unique in the database).

    >>> username_key("Alice") == username_key("A1ICE") == username_key("alice")
    True
    >>> username_key("Barn"), username_key("bam")
    ('bam', 'bam')
    """
    key = name.casefold()
    for a, b in _MERGES:
        key = key.replace(a, b)
    return key


def check_password(password: str, username: str) -> None:
    """:raises AccountError: ``weak_password`` for one too short, too long, or the username itself.

    >>> check_password("correct horse", "alice")
    >>> check_password("short", "alice")
    Traceback (most recent call last):
    ...
    paohuzi.server.accounts.AccountError: password: at least 8 characters
    """
    if len(password) < PASSWORD_MIN:
        raise AccountError("weak_password", f"password: at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise AccountError("weak_password", f"password: at most {PASSWORD_MAX} characters")
    if username_key(password) == username_key(username):
        raise AccountError("weak_password", "password: must not be the username")


def hash_password(password: str, cheap: bool = False) -> str:
    """The argon2id hash (PHC string, salt and parameters inside) to store; ``cheap``: the test servers' cost.

    >>> hash_password("correct horse").startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    True
    """
    return (_cheap_hasher if cheap else _hasher).hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches ``stored`` (always the full argon2 cost, found or not: the cost is the one
    written in ``stored``)."""
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@functools.cache
def dummy_hash(cheap: bool = False) -> str:
    """Verified against when the username is unknown, so that a miss costs as long as a wrong password (the
    stored hashes' cost: ``cheap`` as for :func:`hash_password`)."""
    return hash_password("no such account: this hash is only there to spend the time", cheap)
