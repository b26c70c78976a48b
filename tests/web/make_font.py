"""Rebuild ``src/paohuzi/web/fonts/phz-kai.woff2``: the card and UI characters of the web client, cut from
LXGW WenKai Bold (SIL OFL 1.1) and renamed "PHZ Kai", as the licence asks of a modified version.

Run by hand after adding Chinese text to the client (needs Debian's ``fonts-lxgw-wenkai`` and
``pip install fonttools brotli``)::

    python tests/web/make_font.py

``tests/web/test_static.py`` checks that the font covers every Chinese character the client's files use.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "paohuzi" / "web"
SOURCE = Path("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Bold.ttf")
TARGET = WEB / "fonts" / "phz-kai.woff2"
CHARS = WEB / "fonts" / "phz-kai.chars.txt"  # the characters in the font, for tests/web/test_static.py
FAMILY = "PHZ Kai"
# Beyond the client's own text: the server's guest nicknames and the level titles (R7.4).
EXTRA = (
    "快乐的勇敢的安静的机灵的淡定的幸运的认真的悠闲的聪明的豪爽的渔夫猎人掌柜书生茶客船家货郎樵夫牧童秀才"
    "包身工短工长工佃户贫农渔夫猎人中农富农掌柜商人衙役小财主大财主小地主大地主知县通判知府总督巡抚丞相帝王"
    "红胡真点假点红乌乌胡对对胡大字胡小字胡海底胡红和一点红黑乌红对红乌对乌对小字大字点胡平胡自摸天胡"
    "０１２３４５６７８９"
)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def client_characters() -> set[str]:
    """Every CJK character in the client's HTML, JS and CSS files."""
    chars: set[str] = set()
    for path in WEB.rglob("*"):
        if path.suffix in (".js", ".html", ".css"):
            chars.update(CJK.findall(path.read_text(encoding="utf-8")))
    return chars


def main() -> int:
    from fontTools import subset  # noqa: PLC0415 (a tool only this script needs)
    from fontTools.ttLib import TTFont  # noqa: PLC0415

    text = "".join(sorted(client_characters() | set(EXTRA)))
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
