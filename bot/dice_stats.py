"""Are the dice fair? Honest statistics of the d20 faces a server rolled, for ``/stats dice``.

Pure functions, no Discord, no database: the counts of each face go in, and out come the chi-square
goodness-of-fit test against a fair d20 (its p-value computed exactly, no table and no scipy) and the
band in which each face's count falls 95% of the time on fair dice. Below :data:`MIN_DICE` dice the
test is not run at all: the sample is too small to tell.

A p-value is not a verdict. On fair dice it is below 0.05 one time in twenty, whatever the number of
rolls, and about one face in twenty is outside its 95% band by chance; the words for players
(:mod:`bot.ui.stats_views`) say so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

SIDES = 20
FACES = range(1, SIDES + 1)
MIN_DICE = 5 * SIDES
"""The fewest dice the test is run on: 5 expected per face, the usual floor under which the chi-square
distribution no longer describes the statistic (and nothing but a gross bias could show anyway)."""
SIGNIFICANCE = 0.05
"""A p-value below this is called uneven: on fair dice that happens 5% of the time."""
STRONG_SIGNIFICANCE = 0.001
"""Below this, very uneven: on fair dice, one time in a thousand."""
BAND_LEVEL = 0.95
TAIL_SDS = 12.0
"""Binomial mass further below the mean than this many standard deviations is under 1e-30: the band's
walk starts there instead of at 0 (where the probability underflows for large samples)."""


class Verdict(Enum):
    """What the test says, in the four cases a player is told apart."""

    TOO_FEW = "too few"
    CONSISTENT = "consistent with fair dice"
    UNEVEN = "uneven"
    VERY_UNEVEN = "very uneven"


def chi_square_statistic(counts: tuple[int, ...]) -> float:
    """Pearson's statistic of ``counts`` against equal chances for every face: sum of (O - E)² / E."""
    total = sum(counts)
    if total == 0:
        return 0.0
    expected = total / len(counts)
    return sum((observed - expected) ** 2 for observed in counts) / expected


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the regularized upper incomplete gamma
    function Q(df/2, x/2), in the closed form it has for whole and half-whole arguments.

    Even ``df`` = 2k: Q(k, y) = e^-y · sum_{j<k} y^j / j!. Odd ``df`` = 2k + 1: Q(k + 1/2, y) = erfc(√y)
    + e^-y · sum_{j=1..k} y^(j-1/2) / Γ(j + 1/2). Each term is taken through logarithms, so a large ``x``
    gives a tiny p-value rather than an overflow.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if x <= 0:
        return 1.0
    y = x / 2
    log_y = math.log(y)
    if df % 2 == 0:
        terms = (j * log_y - math.lgamma(j + 1) - y for j in range(df // 2))
        return min(1.0, math.fsum(math.exp(term) for term in terms))
    terms = ((j - 0.5) * log_y - math.lgamma(j + 0.5) - y for j in range(1, df // 2 + 1))
    return min(1.0, math.erfc(math.sqrt(y)) + math.fsum(math.exp(term) for term in terms))


def binomial_quantile(n: int, p: float, q: float) -> int:
    """The smallest k with P(X <= k) >= q, for X binomial with ``n`` trials of chance ``p`` (0 < p < 1).

    The probabilities are walked upwards with the ratio of successive terms, from 0, or for a large
    ``n`` from :data:`TAIL_SDS` standard deviations below the mean (what lies below is negligible).
    """
    if n == 0:
        return 0
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    k = max(0, math.floor(mean - TAIL_SDS * sd))
    log_pmf = (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    pmf = math.exp(log_pmf)
    cumulative = pmf
    ratio = p / (1 - p)
    while cumulative < q and k < n:
        pmf *= (n - k) / (k + 1) * ratio
        k += 1
        cumulative += pmf
    return k


def binomial_band(n: int, p: float, level: float = BAND_LEVEL) -> tuple[int, int]:
    """The central band [low, high] that a binomial count falls in at least ``level`` of the time:
    below ``low`` at most (1 - level)/2 of the time, above ``high`` at most as often."""
    tail = (1 - level) / 2
    return binomial_quantile(n, p, tail), binomial_quantile(n, p, 1 - tail)


@dataclass(frozen=True, slots=True)
class Fairness:
    """The d20 faces of some rolls and what the test makes of them.

    ``counts[f - 1]`` is how often face f came up; ``rolls`` how many rolls (log lines) they came from.
    ``p_value`` and ``statistic`` are None when there are fewer than :data:`MIN_DICE` dice.
    """

    counts: tuple[int, ...]
    rolls: int
    band: tuple[int, int]
    statistic: float | None
    p_value: float | None

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        """Each face's expected count on a fair d20."""
        return self.dice / SIDES

    @property
    def outside(self) -> tuple[int, ...]:
        """The faces whose count is outside the 95% band (about one in twenty on fair dice)."""
        low, high = self.band
        return tuple(face for face, count in zip(FACES, self.counts, strict=True) if not low <= count <= high)

    @property
    def verdict(self) -> Verdict:
        if self.p_value is None:
            return Verdict.TOO_FEW
        if self.p_value < STRONG_SIGNIFICANCE:
            return Verdict.VERY_UNEVEN
        if self.p_value < SIGNIFICANCE:
            return Verdict.UNEVEN
        return Verdict.CONSISTENT


def fairness(faces: Mapping[int, int], rolls: int) -> Fairness:
    """The test of a d20's faces: ``faces`` maps a face (1..20) to how often it came up (others are
    ignored), ``rolls`` is how many rolls they came from."""
    counts = tuple(int(faces.get(face, 0)) for face in FACES)
    dice = sum(counts)
    band = binomial_band(dice, 1 / SIDES)
    if dice < MIN_DICE:
        return Fairness(counts, rolls, band, None, None)
    statistic = chi_square_statistic(counts)
    return Fairness(counts, rolls, band, statistic, chi_square_sf(statistic, SIDES - 1))
