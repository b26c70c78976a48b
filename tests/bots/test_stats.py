"""The statistics of duplicate matches (paohuzi.stats), checked against exact values on small inputs."""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import pytest

from paohuzi.stats import (
    Estimate,
    mean_ci,
    normal_quantile,
    paired_difference,
    per_deal_means,
    seatings,
    t_cdf,
    t_quantile,
)


class TestSeatings:
    def test_three_different_bots_give_all_six_permutations(self) -> None:
        assert seatings(["a", "b", "c"]) == sorted(permutations(range(3)))

    def test_two_alike_give_three_seatings(self) -> None:
        assert seatings(["search", "greedy", "greedy"]) == [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
        assert seatings(["greedy", "search", "greedy"]) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]

    def test_all_alike_give_one_seating(self) -> None:
        assert seatings(["random"] * 3) == [(0, 0, 0)]

    def test_four_seats(self) -> None:
        assert len(seatings(["a", "b", "c", "d"])) == 24
        assert len(seatings(["a", "a", "b", "b"])) == 6

    @pytest.mark.parametrize("bots", [["a", "b", "c"], ["a", "b", "b"], ["x", "x", "y"]])
    def test_every_bot_sits_in_every_seat_equally_often(self, bots: list[str]) -> None:
        found = seatings(bots)
        per_seat = [Counter(s[seat] for s in found) for seat in range(3)]
        assert per_seat[0] == per_seat[1] == per_seat[2]
        assert len(set(found)) == len(found)


class TestStudentT:
    @pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995])
    def test_one_degree_of_freedom_is_cauchy(self, p: float) -> None:
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-11)

    @pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995])
    def test_two_degrees_of_freedom_closed_form(self, p: float) -> None:
        a = 2 * p - 1
        assert t_quantile(p, 2) == pytest.approx(a * math.sqrt(2 / (1 - a * a)), rel=1e-11)

    def test_cdf_closed_forms(self) -> None:
        assert t_cdf(0.0, 7) == 0.5
        assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-14)
        assert t_cdf(-2.0, 2) == pytest.approx(0.5 - 1 / math.sqrt(6), abs=1e-14)
        th = math.atan(3.0 / math.sqrt(5))  # df = 5: F = 1/2 + (θ + sinθ cosθ (1 + 2/3 cos²θ)) / π
        f5 = 0.5 + (th + math.sin(th) * math.cos(th) * (1 + 2 / 3 * math.cos(th) ** 2)) / math.pi
        assert t_cdf(3.0, 5) == pytest.approx(f5, abs=1e-14)

    def test_known_table_values(self) -> None:
        # The 97.5 % points every t table prints (to six decimals).
        assert t_quantile(0.975, 4) == pytest.approx(2.776445, abs=5e-7)
        assert t_quantile(0.975, 10) == pytest.approx(2.228139, abs=5e-7)
        assert t_quantile(0.975, 30) == pytest.approx(2.042272, abs=5e-7)

    @pytest.mark.parametrize("df", [4, 10, 30])
    @pytest.mark.parametrize("p", [0.9, 0.975])
    def test_even_degrees_of_freedom_closed_form(self, df: int, p: float) -> None:
        # F(t) = 1/2 + x/2 · Σ_{k<ν/2} C(2k, k)/4^k (1 − x²)^k with x = t / √(ν + t²).
        t = t_quantile(p, df)
        x = t / math.sqrt(df + t * t)
        f = 0.5 + x / 2 * sum(math.comb(2 * k, k) / 4**k * (1 - x * x) ** k for k in range(df // 2))
        assert f == pytest.approx(p, abs=1e-14)

    def test_symmetry_and_large_df_tends_to_normal(self) -> None:
        assert t_quantile(0.025, 9) == -t_quantile(0.975, 9)
        assert t_quantile(0.975, 1e7) == pytest.approx(normal_quantile(0.975), abs=1e-6)
        assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)

    @pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
    def test_bad_probability(self, bad: float) -> None:
        with pytest.raises(ValueError, match="probability"):
            t_quantile(bad, 3)


class TestMeanCI:
    def test_three_values(self) -> None:
        e = mean_ci([1.0, 2.0, 6.0])  # mean 3, variance (4 + 1 + 9) / 2 = 7, df 2
        t = 0.95 * math.sqrt(2 / (1 - 0.95**2))
        assert e.mean == 3.0 and e.n == 3
        assert e.sd == pytest.approx(math.sqrt(7), rel=1e-15)
        assert e.half_width == pytest.approx(t * math.sqrt(7 / 3), rel=1e-11)
        assert (e.low, e.high) == pytest.approx((3 - t * math.sqrt(7 / 3), 3 + t * math.sqrt(7 / 3)), rel=1e-11)

    def test_two_values(self) -> None:
        e = mean_ci([0.0, 2.0])  # sd √2, se 1, t(0.975, 1) = tan(0.475 π)
        assert (e.low, e.high) == pytest.approx((1 - math.tan(0.475 * math.pi), 1 + math.tan(0.475 * math.pi)))

    def test_other_confidence(self) -> None:
        e = mean_ci([0.0, 2.0], confidence=0.5)  # t(0.75, 1) = 1
        assert (e.low, e.high) == pytest.approx((0.0, 2.0), abs=1e-12)

    def test_constant_values_have_a_zero_width_interval(self) -> None:
        e = mean_ci([4.0] * 5)
        assert (e.mean, e.low, e.high, e.sd) == (4.0, 4.0, 4.0, 0.0)

    def test_too_few_values(self) -> None:
        assert math.isnan(mean_ci([]).mean)
        one = mean_ci([5.0])
        assert one.mean == 5.0 and math.isnan(one.low) and not one.excludes_zero

    def test_excludes_zero(self) -> None:
        assert Estimate(1.0, 0.1, 1.9, 10, 1.0).excludes_zero
        assert Estimate(-1.0, -1.9, -0.1, 10, 1.0).excludes_zero
        assert not Estimate(1.0, -0.1, 2.1, 10, 1.0).excludes_zero

    def test_to_dict(self) -> None:
        assert mean_ci([1.0, 3.0]).to_dict()["mean"] == 2.0


class TestPairedDifference:
    def test_luck_cancels(self) -> None:
        # Big swings shared by both bots do not widen the interval: only the differences count.
        a = [103.0, -47.0, 12.0, 58.0]
        b = [101.0, -50.0, 10.0, 55.0]  # differences 2, 3, 2, 3
        e = paired_difference(a, b)
        t3 = t_quantile(0.975, 3)
        assert e.mean == 2.5
        assert e.half_width == pytest.approx(t3 * math.sqrt(1 / 3) / 2, rel=1e-12)
        assert e.excludes_zero

    def test_lengths_must_match(self) -> None:
        with pytest.raises(ValueError, match="same length"):
            paired_difference([1.0], [1.0, 2.0])


def test_per_deal_means() -> None:
    results = [(1, "a", 3.0), (0, "a", 2.0), (0, "a", 4.0), (0, "b", -6.0), (1, "b", -1.0), (1, "b", -2.0)]
    assert per_deal_means(results) == {"a": [3.0, 3.0], "b": [-6.0, -1.5]}
