"""Statistics for bot matches: duplicate-deal seatings, means with confidence intervals, paired differences.

A **duplicate match** plays every deal once with each distinct seating of the bots, so that a good or a bad
deal falls to every bot in every seat and the luck of the cards cancels out (issue #4). The unit of
independence is therefore the *deal*, not the hand: the hands of one deal share their cards. Every interval
here is computed over per-deal values (a bot's mean points over the seatings of one deal, or the difference
of two bots' per-deal means), with Student's t.

This module is plain arithmetic: it imports nothing from the game, so the tables it produces can be checked
by hand.

>>> seatings(["search", "greedy", "greedy"])
[(0, 1, 1), (1, 0, 1), (1, 1, 0)]
>>> e = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
>>> e.mean, round(e.low, 6), round(e.high, 6)
(3.0, 1.036757, 4.963243)
>>> round(t_quantile(0.975, 10), 6)
2.228139
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "Estimate",
    "seatings",
    "mean_ci",
    "paired_difference",
    "per_deal_means",
    "t_quantile",
    "t_cdf",
    "normal_quantile",
]


# ---------------------------------------------------------------------------------------------------
# Seatings of a duplicate match.
# ---------------------------------------------------------------------------------------------------


def seatings(bots: Sequence[str]) -> list[tuple[int, ...]]:
    """The distinct seatings of ``bots`` for a duplicate deal, in lexicographic order.

    A seating is a tuple ``s`` with ``s[seat]`` = the index (into ``bots``) of the bot that sits there.
    Bots with the same spec are interchangeable, so seatings that differ only by swapping them are played
    once: three different bots give 3! = 6 seatings, two alike and one other give 3, three alike give 1.
    Every bot spec then sits in every seat equally often, and with the same partners.

    The index chosen for a repeated spec is its first occurrence in ``bots``.

    >>> seatings(["a", "b", "c"])
    [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    >>> seatings(["g", "g", "g"])
    [(0, 0, 0)]
    """
    first: dict[str, int] = {}
    labels = [first.setdefault(b, i) for i, b in enumerate(bots)]
    out: list[tuple[int, ...]] = []
    _distinct_permutations(sorted(labels), [], out)
    return out


def _distinct_permutations(pool: list[int], prefix: list[int], out: list[tuple[int, ...]]) -> None:
    if not pool:
        out.append(tuple(prefix))
        return
    previous = None
    for i, item in enumerate(pool):
        if item == previous:
            continue
        previous = item
        prefix.append(item)
        _distinct_permutations(pool[:i] + pool[i + 1 :], prefix, out)
        prefix.pop()


# ---------------------------------------------------------------------------------------------------
# Student's t, from the regularized incomplete beta function (Numerical Recipes' continued fraction).
# ---------------------------------------------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom.

    >>> t_cdf(0.0, 5), round(t_cdf(1.0, 1), 12), round(t_cdf(-2.0, 2), 12)
    (0.5, 0.75, 0.091751709536)
    """
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    tail = 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def normal_quantile(p: float) -> float:
    """The standard normal quantile (Acklam's rational approximation refined by one Halley step).

    >>> round(normal_quantile(0.975), 9)
    1.959963985
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {p!r}")
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
         -3.066479806614716e01, 2.506628277459239e00)
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
         -1.328068155288572e01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
         4.374664141464968e00, 2.938163982698783e00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
    low = 0.02425
    if p < low:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    elif p <= 1 - low:
        q = p - 0.5
        r = q * q
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (
            ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    else:
        q = math.sqrt(-2 * math.log(1 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p
    u = e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x - u / (1 + x * u / 2)


def t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t with ``df`` degrees of freedom: the t with P(T ≤ t) = p.

    Exact to about 1e-12 (bisection on :func:`t_cdf`, then Newton steps).

    >>> round(t_quantile(0.975, 4), 9), round(t_quantile(0.975, 1), 9)
    (2.776445105, 12.706204736)
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {p!r}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# ---------------------------------------------------------------------------------------------------
# Estimates.
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Estimate:
    """A sample mean with its two-sided confidence interval (Student's t over ``n`` independent values).

    :ivar mean: the sample mean (NaN for no values).
    :ivar low: the lower end of the interval (NaN when ``n`` < 2).
    :ivar high: the upper end.
    :ivar n: how many values.
    :ivar sd: the sample standard deviation (n − 1 in the denominator; NaN when ``n`` < 2).
    :ivar confidence: the interval's coverage, 0.95 by default.
    """

    mean: float
    low: float
    high: float
    n: int
    sd: float
    confidence: float = 0.95

    @property
    def half_width(self) -> float:
        """Half the interval's width (the ± of ``mean ± half_width``)."""
        return (self.high - self.low) / 2.0

    @property
    def excludes_zero(self) -> bool:
        """True if the whole interval lies on one side of 0: the difference is significant at this level."""
        return self.low > 0.0 or self.high < 0.0

    def __str__(self) -> str:
        if math.isnan(self.low):
            return f"{self.mean:+.3f}"
        return f"{self.mean:+.3f} ± {self.half_width:.3f}"

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready fields (NaN becomes None)."""

        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {"mean": num(self.mean), "low": num(self.low), "high": num(self.high), "n": self.n,
                "sd": num(self.sd), "confidence": self.confidence}


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> Estimate:
    """The mean of independent values with a two-sided Student-t confidence interval.

    >>> str(mean_ci([2.0, 4.0, 6.0, 8.0]))
    '+5.000 ± 4.109'
    >>> mean_ci([7.0]).n, str(mean_ci([7.0]))
    (1, '+7.000')
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    xs = [float(v) for v in values]
    n = len(xs)
    nan = float("nan")
    if n == 0:
        return Estimate(nan, nan, nan, 0, nan, confidence)
    mean = math.fsum(xs) / n
    if n == 1:
        return Estimate(mean, nan, nan, 1, nan, confidence)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    sd = math.sqrt(var)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, sd, confidence)


def paired_difference(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Estimate:
    """The mean of ``a[i] − b[i]`` with its confidence interval: the paired comparison of two bots.

    ``a[i]`` and ``b[i]`` are the two bots' results on the same deal ``i``, so the deal's luck cancels in
    the difference and only the difference's spread counts.

    >>> str(paired_difference([3.0, 5.0, 4.0, 6.0], [1.0, 2.0, 2.0, 3.0]))
    '+2.500 ± 0.919'
    """
    if len(a) != len(b):
        raise ValueError(f"paired samples must have the same length, got {len(a)} and {len(b)}")
    return mean_ci((x - y for x, y in zip(a, b, strict=True)), confidence)


def per_deal_means(results: Iterable[tuple[int, str, float]]) -> dict[str, list[float]]:
    """Group ``(deal, bot, value)`` triples into each bot's per-deal mean, deals in ascending order.

    A deal appears in a bot's list only if the bot played it. For a duplicate match every bot plays every
    deal, so the lists line up and can go to :func:`paired_difference`.

    >>> per_deal_means([(0, "a", 2.0), (0, "a", 4.0), (0, "b", -6.0), (1, "a", 1.0), (1, "b", -1.0)])
    {'a': [3.0, 1.0], 'b': [-6.0, -1.0]}
    """
    sums: dict[str, dict[int, list[float]]] = {}
    for deal, bot, value in results:
        sums.setdefault(bot, {}).setdefault(deal, []).append(float(value))
    return {bot: [math.fsum(v) / len(v) for _, v in sorted(per.items())] for bot, per in sums.items()}


def rate(count: int, total: int) -> float:
    """``count / total``, NaN for no total."""
    return count / total if total else float("nan")


def fmt_map(values: Mapping[str, float], digits: int = 3) -> str:
    """``key=value`` pairs, for log lines."""
    return ", ".join(f"{k}={v:.{digits}f}" for k, v in values.items())
