"""A score written out as players read it (R7, R9): ``formula(score)`` →
``"卡胡 3囤 × 红胡2番 × 自摸2 = 6分"``. What the settlement screen and ``paohuzi analyze`` show; the room stake
(底分 d) is the caller's to add.
"""

from __future__ import annotations

from paohuzi.scoring.family import is_kahu
from paohuzi.scoring.fan import NAMES_EN
from paohuzi.scoring.results import Score

__all__ = ["formula"]

_WORDS = {
    "zh": {
        "kahu": "卡胡 ",
        "tun": "{}囤",
        "xing": "{}醒",
        "plus_one": "底分1",
        "double": "底分2",
        "zimo_plus": "自摸1",
        "fan": "{}{}番",
        "zimo_double": "自摸2",
        "points": "{}分",
        "cap": "封顶{}分",
    },
    "en": {
        "kahu": "Ka Hu ",
        "tun": "{} tun",
        "xing": "{} xing",
        "plus_one": "bonus 1",
        "double": "bonus 2",
        "zimo_plus": "self-drawn 1",
        "fan": "{} {} fan",
        "zimo_double": "self-drawn 2",
        "points": "{} points",
        "cap": "capped at {} points",
    },
}


def formula(score: Score, lang: str = "zh") -> str:
    """The score as a formula: base terms (囤, 醒, 底分, 自摸 +1) × the 名堂 that add 番 (together, as they
    combine) × 自摸2 under 自摸翻倍 = points, then 封顶. ``lang`` ``zh`` or ``en``.

    >>> from paohuzi.scoring.fan import named
    >>> s = Score((named("红胡", 2), named("自摸", 0)), 2, 1, 4, 11, zimo=True, zimo_double=True, uncapped=4,
    ...           tun=1, family="shihuka")
    >>> formula(s), formula(s, "en")
    ('1囤 × 红胡2番 × 自摸2 = 4分', '1 tun × Red win 2 fan × self-drawn 2 = 4 points')
    >>> formula(Score((named("红胡", 3), named("对对胡", 8)), 11, 3, 33, 21, uncapped=33, tun=2, xing=1))
    '(2囤 + 1醒) × (红胡3番 + 对对胡8番) = 33分'
    """
    if lang not in _WORDS:
        raise ValueError(f"lang must be one of {', '.join(_WORDS)}, got {lang!r}")
    w = _WORDS[lang]
    terms = [w["tun"].format(score.tun)]
    if score.xing:
        terms.append(w["xing"].format(score.xing))
    core = score.tun + score.xing
    if score.base_bonus == "plus_one":  # R9.2 底分
        terms.append(w["plus_one"])
        core += 1
    elif score.base_bonus == "double":
        terms = [f"({' + '.join(terms)}) × {w['double']}" if len(terms) > 1 else f"{terms[0]} × {w['double']}"]
        core *= 2
    if score.base > core:  # 自摸 + 1 (R7.1, R8.1 plus_one, R9.1)
        terms.append(w["zimo_plus"])
    base = " + ".join(terms)
    if len(terms) > 1:
        base = f"({base})"
    names = [
        w["fan"].format(NAMES_EN.get(n.name, n.name) if lang == "en" else n.name, n.fan) for n in score.names if n.fan
    ]
    fan = (" × " if score.combine == "multiply" else " + ").join(names)  # table G multiplies (R9.3)
    if len(names) > 1:
        fan = f"({fan})"
    text = ("{}{} × {}" if fan else "{}{}").format(w["kahu"] if is_kahu(score) else "", base, fan)
    if score.zimo_double:
        text += f" × {w['zimo_double']}"
    text += " = " + w["points"].format(score.uncapped)
    if score.capped:
        text += ", " + w["cap"].format(score.points)
    return text
