"""Checks of the web client's static files that need no browser: no external assets, every module import
and every translation key resolves, both languages have every string, the card font covers the text."""

from __future__ import annotations

import json
import re
from typing import Any

from paohuzi.rules import find_preset, preset_names
from paohuzi.scoring import LEVELS

from .make_font import CHARS, PACKAGE, WEB, server_words, shown_characters

FILES = sorted(p for p in WEB.rglob("*") if p.suffix in (".js", ".json", ".css", ".html", ".svg"))


def test_the_client_loads_nothing_from_elsewhere() -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for url in re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text):
            assert url == "http://www.w3.org/2000/svg", f"{path.name} refers to {url}"


def test_every_module_import_and_asset_exists() -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        refs = re.findall(r"""(?:from|import)\s+["'](\.{1,2}/[^"']+)["']""", text)
        refs += re.findall(r"""(?:src|href)=["']([^"':]+)["']""", text)
        refs += re.findall(r"""url\(["']?([^"')]+)["']?\)""", text)
        for ref in refs:
            assert (path.parent / ref).resolve().is_file(), f"{path.name}: {ref} does not exist"


def _language(name: str) -> dict[str, Any]:
    """A language's file of the client's words (web/i18n/NAME.json)."""
    data: dict[str, Any] = json.loads((WEB / "i18n" / f"{name}.json").read_text(encoding="utf-8"))
    return data


def test_both_languages_have_every_string_used() -> None:
    zh, en = set(_language("zh")["strings"]), set(_language("en")["strings"])
    assert zh == en, f"only Chinese: {sorted(zh - en)}; only English: {sorted(en - zh)}"
    used: set[str] = set()
    for path in (WEB / "js").glob("*.js"):
        used.update(re.findall(r"""\bt\(["'](\w+)["']""", path.read_text(encoding="utf-8")))
    assert used <= zh, f"keys without a translation: {sorted(used - zh)}"


def test_the_bundled_font_covers_every_chinese_character_the_client_can_show() -> None:
    """The client's own text, and the server's words it shows (名堂, titles, presets, nicknames)."""
    covered = set(CHARS.read_text(encoding="utf-8").strip())
    assert {"QQ游戏", "衡阳", "花样", "湖南", "帝王", "红乌对", "快乐的"} <= server_words()
    missing = shown_characters() - covered
    assert not missing, f"rebuild the font (python tests/web/make_font.py): missing {''.join(sorted(missing))}"
    # the twenty card faces (R1)
    assert set("一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾") <= covered


def test_english_mode_has_a_word_for_every_mingtang_title_and_preset() -> None:
    """The server sends 名堂 (R7.2), level titles (R7.4) and preset titles in Chinese: English mode needs each."""
    en = _language("en")
    titles = {title for _points, title in LEVELS}
    assert titles == set(en["titles"])
    mingtang = {w for w in server_words() if w not in titles and re.fullmatch(r"[0-9\u4e00-\u9fff]+", w)}
    mingtang -= {"湖南", "衡阳", "花样"} | {w for w in mingtang if w.endswith("的")}
    mingtang -= {find_preset(n).title for n in preset_names()}  # preset titles (R9: 常德红黑点 …), not 名堂
    mingtang -= {"书生", "茶客", "船家", "货郎", "樵夫", "牧童", "秀才"}  # guest nickname nouns
    assert mingtang <= set(en["mingtang"]), sorted(mingtang - set(en["mingtang"]))
    presets = {p.stem for p in (PACKAGE / "rules").glob("*.toml")}
    assert presets <= set(en["presets"]) & set(_language("zh")["presets"])


def test_every_server_error_code_has_a_message_in_both_languages() -> None:
    """docs/protocol.md §2 and §3.3, and every code the server's sources raise: no raw English in the UI."""
    zh, en = set(_language("zh")["strings"]), set(_language("en")["strings"])
    codes: set[str] = set()
    for path in (PACKAGE / "server").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes.update(re.findall(r'RoomError\(\s*"(\w+)"', text))
        codes.update(re.findall(r'_error\(\s*(?:conn|\d+),\s*"(\w+)"', text))
    protocol = (PACKAGE.parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = protocol.split("### 3.3 Errors", 1)[1].split("Close codes", 1)[0]
    codes.update(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert {"not_ready", "not_owner", "not_in_room", "stale_hand", "rate_limited"} <= codes
    missing = {c for c in codes if f"err_{c}" not in zh or f"err_{c}" not in en}
    assert not missing, f"error codes without a message: {sorted(missing)}"
