"""Rebuild ``src/paohuzi/web/fonts/phz-kai.woff2``: the card and UI characters of the web client, cut from
LXGW WenKai Bold (SIL OFL 1.1) and renamed "PHZ Kai", as the licence asks of a modified version.

Run by hand after adding Chinese text to the client (needs Debian's ``fonts-lxgw-wenkai`` and
``pip install fonttools brotli``)::

    python tests/web/make_font.py

The text is every string the client can show: the client's own files (HTML, JS, CSS, the words in
``web/i18n/*.json``) and the words the server sends that the client shows as they are — the 名堂 and level
titles (``paohuzi/scoring/``), the preset titles (``paohuzi/rules/*.toml``) and the guest nicknames
(``paohuzi/server/hub.py``). ``tests/web/test_static.py`` fails when the bundled font lacks one of these
characters, and the browser tests fail when a page shows a Chinese character the font lacks.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "paohuzi"
WEB = PACKAGE / "web"
SOURCE = Path("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Bold.ttf")
TARGET = WEB / "fonts" / "phz-kai.woff2"
CHARS = WEB / "fonts" / "phz-kai.chars.txt"  # the characters in the font, for tests/web/test_static.py
FAMILY = "PHZ Kai"
# Full-width digits and punctuation, for nicknames people type.
EXTRA = "０１２３４５６７８９，。！？：；（）"
# The server's modules whose short Chinese string constants reach the screen as they are.
SERVER_WORDS = (*sorted((PACKAGE / "scoring").glob("*.py")), PACKAGE / "server" / "hub.py")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def client_characters() -> set[str]:
    """Every CJK character in the client's HTML, JS, CSS and words (``web/i18n/*.json``) files."""
    chars: set[str] = set()
    for path in WEB.rglob("*"):
        if path.suffix in (".js", ".json", ".html", ".css"):
            chars.update(CJK.findall(path.read_text(encoding="utf-8")))
    return chars


def server_words() -> set[str]:
    """The Chinese words the server sends for display: string constants (not docstrings) of
    :data:`SERVER_WORDS` up to 12 characters long, and the preset titles."""
    words: set[str] = set()
    for path in SERVER_WORDS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if len(node.value) <= 12 and CJK.search(node.value):
                    words.add(node.value)
    for path in (PACKAGE / "rules").glob("*.toml"):
        found = re.search(r'^title\s*=\s*"([^"]*)"', path.read_text(encoding="utf-8"), re.M)
        if found:
            words.add(found.group(1))
    return words


def shown_characters() -> set[str]:
    """Every CJK character the client can show."""
    server = set("".join(server_words()))
    return client_characters() | {c for c in server | set(EXTRA) if CJK.match(c)}


def main() -> int:
    from fontTools import subset  # noqa: PLC0415 (a tool only this script needs)
    from fontTools.ttLib import TTFont  # noqa: PLC0415

    text = "".join(sorted(shown_characters()))
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    font = TTFont(SOURCE)
    sub = subset.Subsetter(options)
    sub.populate(text=text + "0123456789")
    sub.subset(font)
    name = font["name"]
    for record in list(name.names):
        if record.nameID in (1, 4, 16, 21):
            record.string = FAMILY
        elif record.nameID == 3:
            record.string = f"{FAMILY} subset"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "")
        elif record.nameID == 2:
            record.string = "Bold"
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(TARGET)
    CHARS.write_text(text + "\n", encoding="utf-8")
    print(f"{TARGET}: {len(text)} characters, {TARGET.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
