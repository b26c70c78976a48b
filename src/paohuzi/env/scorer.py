"""The learned scorer under its first name: it lives in :mod:`paohuzi.bots.scorer` (it is the 大师 level).

``paohuzi.env.scorer:ScorerBot`` and ``paohuzi.env.scorer:ScorerSearchBot`` keep working as bot specs; the
registered names are ``scorer`` and ``scorer_search`` (``make_bot("scorer")``).
"""

from __future__ import annotations

from paohuzi.bots.scorer import DEFAULT_SCORER, Scorer, ScorerBot, ScorerSearchBot

__all__ = ["Scorer", "ScorerBot", "ScorerSearchBot", "DEFAULT_SCORER"]
