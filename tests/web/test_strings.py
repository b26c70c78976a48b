"""The client's words are data, one file per language (``web/i18n/zh.json``, ``en.json``; web/js/i18n.js only
looks them up): both files say the same things — the same keys, each with the same placeholders, the same
number of quick-chat phrases (docs/protocol.md §3.1: the server relays a phrase's number) and the same
presets — and every value is text. No browser needed; the last test asks a real server for the files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.server import ServerProcess
from .make_font import WEB

LANGUAGES = ("zh", "en")
R9_PRESETS = {"changde", "changde_qmt", "shihuka", "liuhuqiang"}  # issues 29, 30 (tests/web/test_family_strings.py)
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: an object of tables"
    return data


@pytest.fixture(scope="module")
def words() -> dict[str, dict[str, Any]]:
    return {name: _load(WEB / "i18n" / f"{name}.json") for name in LANGUAGES}


def test_every_language_file_is_loaded_by_the_client_and_no_other_exists() -> None:
    assert sorted(p.stem for p in (WEB / "i18n").glob("*.json")) == sorted(LANGUAGES)
    i18n = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    assert re.search(r'LANGUAGES = \["zh", "en"\]', i18n)
    assert "../i18n/${name}.json" in i18n


def test_both_languages_have_the_same_keys(words: dict[str, dict[str, Any]]) -> None:
    zh, en = words["zh"]["strings"], words["en"]["strings"]
    assert len(zh) > 300
    assert set(zh) == set(en), f"only Chinese: {sorted(set(zh) - set(en))}; only English: {sorted(set(en) - set(zh))}"


def test_each_string_has_the_same_placeholders_in_both_languages(words: dict[str, dict[str, Any]]) -> None:
    zh, en = words["zh"]["strings"], words["en"]["strings"]
    differ = {
        key: (sorted(set(PLACEHOLDER.findall(zh[key]))), sorted(set(PLACEHOLDER.findall(en[key]))))
        for key in zh.keys() & en.keys()
        if set(PLACEHOLDER.findall(zh[key])) != set(PLACEHOLDER.findall(en[key]))
    }
    assert not differ, f"placeholders differ (zh, en): {differ}"
    # a singular form (`<key>_one`, chosen for {n} = 1) stands beside its key and fills the same {n}
    for key in (k for k in zh if k.endswith("_one") and k[: -len("_one")] in zh):
        assert "{n}" in zh[key[: -len("_one")]], key
        assert set(PLACEHOLDER.findall(en[key])) == set(PLACEHOLDER.findall(en[key[: -len("_one")]])), key


def test_every_value_is_text_and_none_is_empty(words: dict[str, dict[str, Any]]) -> None:
    for name, data in words.items():
        for table in ("strings", "presets", "mingtang", "titles"):
            for key, value in data.get(table, {}).items():
                assert isinstance(value, str) and value.strip(), f"{name}.json {table}.{key}: {value!r}"
        assert all(isinstance(p, str) and p for p in data["chat"]), f"{name}.json chat"


def test_both_languages_have_the_same_chat_phrases_and_presets(words: dict[str, dict[str, Any]]) -> None:
    zh, en = words["zh"], words["en"]
    assert len(zh["chat"]) == len(en["chat"]) == 8
    assert zh["chat"][5] == "再来一局！" and en["chat"][5] == "One more game!"
    assert set(zh["presets"]) == set(en["presets"]) == {"qq", "hunan", "hengyang", "huayang", *R9_PRESETS}


def test_only_english_carries_the_servers_chinese_words(words: dict[str, dict[str, Any]]) -> None:
    """名堂 (R7.2) and level titles (R7.4) arrive in Chinese: Chinese shows them as sent, English translates."""
    assert "mingtang" not in words["zh"] and "titles" not in words["zh"]
    assert words["en"]["mingtang"]["自摸"] == "Self-drawn"
    assert words["en"]["titles"]["帝王"] == "Emperor"
    assert all(re.search(r"[\u4e00-\u9fff]", word) for word in words["en"]["titles"])


def test_the_server_serves_the_words_and_the_client_modules(server: ServerProcess) -> None:
    """What the page fetches at start-up: each language file as JSON, and the split client's modules as
    JavaScript, under the same security headers as every response (tests/server/test_security.py)."""
    for name in LANGUAGES:
        r = httpx.get(f"{server.url}/i18n/{name}.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json"), name
        assert r.json() == json.loads((WEB / "i18n" / f"{name}.json").read_text(encoding="utf-8"))
        assert (
            r.headers["x-content-type-options"] == "nosniff"
            and "connect-src 'self'" in r.headers["content-security-policy"]
        )
    for module in ("main", "state", "reducer", "actions", "router", "render", "table_screen", "topbar", "i18n"):
        r = httpx.get(f"{server.url}/js/{module}.js")
        assert r.status_code == 200 and "javascript" in r.headers["content-type"], module
