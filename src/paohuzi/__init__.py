"""paohuzi — 跑胡子 (字牌), the 80-card game of Hunan: an exact rules engine, bots, an RL environment and a
self-hostable online game. The rules are in ``docs/rules.md``; sections (R1, R2 …) are cited throughout.
"""

from __future__ import annotations

__version__ = "0.1.0"
