"""Tests of the bots, the match statistics and `paohuzi simulate` (issue #4)."""
