"""Checks of the web client's static files that need no browser: no external assets, every module import
and every translation key resolves, both languages have every string, the card font covers the text."""

from __future__ import annotations

import re

from .make_font import CHARS, WEB, client_characters

FILES = sorted(p for p in WEB.rglob("*") if p.suffix in (".js", ".css", ".html", ".svg"))


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


def _table(text: str, name: str) -> set[str]:
    body = text.split(f"const {name} = {{", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r"^\s+(\w+):", body, re.M))


def test_both_languages_have_every_string_used() -> None:
    i18n = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    zh, en = _table(i18n, "zh"), _table(i18n, "en")
    assert zh == en, f"only Chinese: {sorted(zh - en)}; only English: {sorted(en - zh)}"
    used: set[str] = set()
    for path in (WEB / "js").glob("*.js"):
        if path.name == "i18n.js":
            continue
        used.update(re.findall(r"""\bt\(["'](\w+)["']""", path.read_text(encoding="utf-8")))
    assert used <= zh, f"keys without a translation: {sorted(used - zh)}"


def test_the_bundled_font_covers_every_chinese_character_of_the_client() -> None:
    covered = set(CHARS.read_text(encoding="utf-8").strip())
    missing = client_characters() - covered
    assert not missing, f"rebuild the font (python tests/web/make_font.py): missing {''.join(sorted(missing))}"
    # the twenty card faces (R1)
    assert set("一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾") <= covered
