"""The statistics of ``/stats dice``: the exact chi-square p-value, the binomial bands, and the test on
known fair and biased samples (seeded, so every run draws the same samples and gets the same counts)."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from bot.dice_stats import (
    FACES,
    MIN_DICE,
    SIGNIFICANCE,
    Verdict,
    binomial_band,
    binomial_quantile,
    chi_square_sf,
    chi_square_statistic,
    fairness,
)

# ---------------------------------------------------------------------------------- chi-square


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        # Critical values of published chi-square tables (to the 4 decimals they give).
        (30.1435, 19, 0.05),
        (36.1909, 19, 0.01),
        (43.8202, 19, 0.001),
        (11.6509, 19, 0.90),
        (3.8415, 1, 0.05),
        (18.3070, 10, 0.05),
        (6.6349, 1, 0.01),
    ],
)
def test_the_p_value_matches_the_published_critical_values(x: float, df: int, p: float) -> None:
    assert chi_square_sf(x, df) == pytest.approx(p, rel=2e-4)


@pytest.mark.parametrize("x", [0.5, 2.0, 7.3, 40.0])
def test_two_degrees_of_freedom_is_the_exponential(x: float) -> None:
    assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)


def test_one_degree_of_freedom_is_the_normal_tail() -> None:
    # X = Z², so P(X >= z²) = P(|Z| >= z) = erfc(z / √2).
    for z in (0.3, 1.0, 1.96, 3.0):
        assert chi_square_sf(z * z, 1) == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)


def test_the_p_value_falls_from_1_towards_0_without_overflow() -> None:
    values = [chi_square_sf(x, 19) for x in (0, 1, 10, 19, 30, 100, 1000, 1e6)]
    assert values[0] == 1.0
    assert values == sorted(values, reverse=True)
    assert values[-1] == 0.0
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi_square_sf(1.0, 0)


def test_the_statistic_of_equal_counts_is_zero() -> None:
    assert chi_square_statistic((30,) * 20) == 0.0
    # One face 10 above and one 10 below expected 30: (100 + 100) / 30.
    assert chi_square_statistic((40, 20) + (30,) * 18) == pytest.approx(200 / 30)


# ---------------------------------------------------------------------------------- bands


def exact_quantile(n: int, p: Fraction, q: Fraction) -> int:
    """The binomial quantile counted with fractions, term by term from 0."""
    cumulative = Fraction(0)
    for k in range(n + 1):
        cumulative += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if cumulative >= q:
            return k
    return n


@pytest.mark.parametrize("n", [1, 20, 100, 333, 1000])
def test_the_band_is_the_exact_binomial_band(n: int) -> None:
    p = Fraction(1, 20)
    assert binomial_band(n, 1 / 20) == (
        exact_quantile(n, p, Fraction(25, 1000)),
        exact_quantile(n, p, Fraction(975, 1000)),
    )


def test_the_band_of_a_large_sample_is_about_two_standard_deviations_wide() -> None:
    n = 1_000_000  # more dice than a year of a busy server
    mean, sd = n / 20, math.sqrt(n / 20 * 19 / 20)
    low, high = binomial_band(n, 1 / 20)
    assert abs(low - (mean - 1.96 * sd)) <= 2
    assert abs(high - (mean + 1.96 * sd)) <= 2
    assert binomial_quantile(0, 0.05, 0.5) == 0


# ---------------------------------------------------------------------------------- the test


def sample(rng: random.Random, dice: int, weights: list[float] | None = None) -> Counter[int]:
    return Counter(rng.choices(list(FACES), weights=weights, k=dice))


LOADED_20 = [0.5] + [1.0] * 18 + [2.0]
"""A die that shows 20 about one time in ten (2 in 20.5) and 1 half as often as it should."""


def test_fair_dice_are_called_uneven_at_the_stated_rate() -> None:
    """On fair dice a p-value under 0.05 happens 5% of the time: of 1000 seeded samples of 600 dice,
    between 3.5% and 6.5% (±2.2 standard deviations of that count) are called uneven, no more."""
    rng = random.Random(15)
    results = [fairness(sample(rng, 600), rolls=600) for _ in range(1000)]
    flagged = sum(1 for result in results if result.verdict in (Verdict.UNEVEN, Verdict.VERY_UNEVEN))
    assert 35 <= flagged <= 65, flagged
    assert flagged == sum(1 for result in results if (result.p_value or 1) < SIGNIFICANCE)
    # And each face is outside its 95% band at most 5% of the time (the band is conservative).
    outside = sum(len(result.outside) for result in results)
    assert outside <= 0.05 * 20 * len(results), outside


def test_a_loaded_die_is_caught() -> None:
    """A die showing 20 one time in ten is called uneven in at least 99% of seeded samples of 1000 dice,
    and 20 is outside its band."""
    rng = random.Random(16)
    results = [fairness(sample(rng, 1000, LOADED_20), rolls=1000) for _ in range(200)]
    caught = sum(1 for result in results if result.verdict in (Verdict.UNEVEN, Verdict.VERY_UNEVEN))
    assert caught >= 198, caught
    assert sum(1 for result in results if 20 in result.outside) >= 198


def test_one_known_biased_sample() -> None:
    counts = dict.fromkeys(FACES, 50) | {20: 100, 1: 25}  # 1,025 dice
    result = fairness(counts, rolls=900)
    assert result.dice == 1025
    assert result.verdict is Verdict.VERY_UNEVEN
    # Expected 51.25 each: (26.25² + 18 * 1.25² + 48.75²) / 51.25.
    assert result.statistic == pytest.approx(3093.75 / 51.25)
    assert result.p_value is not None
    assert 1e-6 < result.p_value < 1e-5
    assert result.outside == (1, 20)


def test_a_small_sample_is_too_few_to_tell() -> None:
    counts = {20: MIN_DICE - 1}  # the most lopsided sample there is, but too few dice
    result = fairness(counts, rolls=MIN_DICE - 1)
    assert result.verdict is Verdict.TOO_FEW
    assert result.p_value is None
    assert result.statistic is None
    assert fairness({}, rolls=0).verdict is Verdict.TOO_FEW
    assert fairness(dict.fromkeys(FACES, 5), rolls=100).verdict is Verdict.CONSISTENT


def test_faces_outside_1_to_20_are_ignored() -> None:
    assert fairness({0: 7, 21: 3, 5: 1}, rolls=1).counts == (0, 0, 0, 0, 1) + (0,) * 15
