"""Duplicate matches (paohuzi.bots.tournament) and their summary table, on fixed inputs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from paohuzi.bots.tournament import HandResult, deal_seed, run_match, summarize
from paohuzi.engine import replay
from paohuzi.rules import find_preset
from paohuzi.stats import t_quantile

QQ = find_preset("qq")


def _result(
    deal: int, seating: int, bots: tuple[str, ...], points: tuple[float, ...], winner: int | None, huxi: int = 0
) -> HandResult:
    return HandResult(deal, seating, bots, points, winner, winner is None, huxi, (2, 3, 4), (0.02, 0.03, 0.04))


class TestSummarize:
    def test_exact_table(self) -> None:
        # Two deals of a vs b vs b: seatings (a b b), (b a b), (b b a).
        results = [
            _result(0, 0, ("a", "b", "b"), (4.0, -2.0, -2.0), 0, 18),
            _result(0, 1, ("b", "a", "b"), (0.0, 0.0, 0.0), None),
            _result(0, 2, ("b", "b", "a"), (-1.0, -1.0, 2.0), 2, 15),
            _result(1, 0, ("a", "b", "b"), (-3.0, 6.0, -3.0), 1, 21),
            _result(1, 1, ("b", "a", "b"), (-2.0, -2.0, 4.0), 2, 16),
            _result(1, 2, ("b", "b", "a"), (0.0, 0.0, 0.0), None),
        ]
        summary = summarize(results, ["a", "b", "b"])
        a, b = summary.rows
        # Per-deal means: a = [(4 + 0 + 2) / 3, (-3 - 2 + 0) / 3] = [2, -5/3];
        # b = [(-2 - 2 + 0 + 0 - 1 - 1) / 6, (6 - 3 - 2 + 4 + 0 + 0) / 6] = [-1, 5/6].
        assert (a.bot, a.hands, b.hands) == ("a", 6, 12)
        assert a.points.mean == pytest.approx((2 - 5 / 3) / 2)
        assert b.points.mean == pytest.approx((-1 + 5 / 6) / 2)
        sd = math.sqrt(((2 - 1 / 6) ** 2 + (-5 / 3 - 1 / 6) ** 2) / 1)
        assert a.points.half_width == pytest.approx(t_quantile(0.975, 1) * sd / math.sqrt(2))
        assert (a.win_rate, b.win_rate) == (2 / 6, 2 / 12)
        assert (a.draw_rate, b.draw_rate) == (2 / 6, 4 / 12)
        assert (a.win_huxi, b.win_huxi) == ((18 + 15) / 2, (21 + 16) / 2)
        ((x, y, diff),) = summary.differences
        assert (x, y) == ("a", "b")
        assert diff.mean == pytest.approx(((2 - -1) + (-5 / 3 - 5 / 6)) / 2)
        # Decisions per hand are (2, 3, 4) by seat; a sits in seats 0, 1, 2 once per deal.
        assert (a.decisions, b.decisions) == (18, 36)
        assert a.decision_ms == pytest.approx(1000 * 0.18 / 18)

    def test_table_text_and_dict(self) -> None:
        results = [_result(0, 0, ("a", "a", "a"), (2.0, -1.0, -1.0), 0, 15)]
        summary = summarize(results, ["a", "a", "a"])
        assert "points/hand" in summary.table()
        data = summary.to_dict()
        assert data["table"][0]["win_huxi"] == 15.0 and data["differences"] == []
        json.dumps(data, allow_nan=False)


def test_seeds() -> None:
    assert deal_seed(0, 5) == 5 and deal_seed(2, 5) == 2_000_005


def test_small_match_is_reproducible_and_recorded(tmp_path: Path) -> None:
    one = run_match(["random", "greedy[useful=false]", "random"], QQ, deals=2, seed=7, record_dir=str(tmp_path))
    two = run_match(["random", "greedy[useful=false]", "random"], QQ, deals=2, seed=7, jobs=2)
    assert [(r.deal, r.seating, r.bots, r.points) for r in one] == [(r.deal, r.seating, r.bots, r.points) for r in two]
    assert len(one) == 2 * 3 and {r.seating for r in one} == {0, 1, 2}
    for r in one:
        assert sum(r.points) == 0
        record = json.loads((tmp_path / f"deal{r.deal:06d}-seating{r.seating}.json").read_text(encoding="utf-8"))
        assert record["bots"] == list(r.bots)
        hand = replay(record)
        assert hand.over and tuple(p / QQ.stake for p in hand.outcome.payments) == r.points


def test_wrong_number_of_bots() -> None:
    with pytest.raises(ValueError, match="3 bots are needed"):
        run_match(["random", "random"], QQ, deals=1)
