"""The pictures (``bot/ui/charts.py``): PNGs of the stated size, not empty, with alt text that says what they
show; drawn on the charts' own thread."""

from __future__ import annotations

import struct
import threading
from collections import Counter
from random import Random

import pytest

from bot.dice_stats import FACES, fairness
from bot.rules.odds import AttackOdds, attack_odds
from bot.ui import charts
from bot.ui.charts import ALT_TEXT_LIMIT, HEIGHT, WIDTH, Chart, PlannedDefense, dice_chart, drawn, odds_chart


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def check(chart: Chart) -> None:
    assert png_size(chart.png) == (WIDTH, HEIGHT) == (chart.width, chart.height)
    assert len(chart.png) > 10_000
    assert 0 < len(chart.alt_text) <= ALT_TEXT_LIMIT


def test_a_fair_sample_is_drawn_with_its_counts_in_the_alt_text() -> None:
    result = fairness(Counter(Random(15).choices(list(FACES), k=1200)), rolls=700)
    chart = dice_chart(result, "Rolls in the server")
    check(chart)
    assert chart.filename == "d20-faces.png"
    assert chart.alt_text.startswith(
        "Bar chart of how often each face of the d20 came up. Rolls in the server: 1,200 d20s from 700 "
        "rolls. On fair dice each face would come up about 60.0 times, 95% of the time between 46 and 75"
    )
    for face, count in zip(FACES, result.counts, strict=True):
        assert f"{face}: {count}" in chart.alt_text
    assert "Outside the band" not in chart.alt_text


def test_a_biased_sample_names_the_faces_outside_the_band() -> None:
    result = fairness(dict.fromkeys(FACES, 50) | {20: 100, 1: 25}, rolls=900)
    chart = dice_chart(result, "Alice's rolls in #table")
    check(chart)
    assert "Outside the band: 1, 20." in chart.alt_text
    assert "Chi-square test against fair dice: p < 0.0001." in chart.alt_text


@pytest.mark.parametrize("faces", [{}, {20: 3}])
def test_no_dice_or_too_few_are_drawn_too(faces: dict[int, int]) -> None:
    chart = dice_chart(fairness(faces, rolls=sum(faces.values())), "Rolls in #lobby")
    check(chart)
    assert "Too few dice for the test." in chart.alt_text


def test_a_dollar_in_a_name_is_drawn_as_typed_not_as_mathematics() -> None:
    # "$" would start matplotlib's mathtext, and an unbalanced "^" in it raise.
    check(dice_chart(fairness({}, rolls=0), "$^{Big$ Spender's rolls"))
    defense = PlannedDefense(
        "against $5 ^{",
        True,
        tuple((n, attack_odds(attack_dice=n, attack_bonus=0, defense_dice=1)) for n in range(1, 5)),
    )
    check(odds_chart("$^ → $", [defense], asked=1))


def plan(**question: int) -> tuple[tuple[int, AttackOdds], ...]:
    return tuple((dice, attack_odds(attack_dice=dice, **question)) for dice in range(1, 5))


def test_an_odds_plan_has_a_panel_per_defense_and_every_bar_in_its_alt_text() -> None:
    passive = PlannedDefense(
        "against passive defense 14 (R13)", False, plan(attack_bonus=4, passive_defense=14)
    )
    active = PlannedDefense(
        "if Bandit defends actively with all 2 dice left: +3 (R14)",
        True,
        plan(attack_bonus=4, defense_dice=2, defense_bonus=3),
    )
    chart = odds_chart("Ansel → Bandit", [passive, active], asked=2)
    check(chart)
    assert chart.filename == "odds-plan.png"
    text = chart.alt_text
    assert text.startswith("Stacked bar chart of the odds of an attack with 1 to 4 dice: Ansel → Bandit.")
    assert "Against passive defense 14 (R13): 1 die hit 50.0% (5.0% critical), Bind 5.0%, miss 45.0%" in text
    assert "2 dice (asked) hit 75.0%" in text
    assert "If Bandit defends actively with all 2 dice left: +3 (R14): 1 die hit" in text
    assert text.count("counterattack") == 4  # only against the active defense
    single = odds_chart("Odds of an attack +4", [passive], asked=1)
    check(single)


def test_alt_text_is_cut_to_discords_limit() -> None:
    defense = PlannedDefense("x" * 400, True, plan(attack_bonus=0, defense_dice=1))
    chart = odds_chart("y" * 600, [defense, defense], asked=1)
    assert len(chart.alt_text) == ALT_TEXT_LIMIT
    assert chart.alt_text.endswith("…")


async def test_charts_are_drawn_on_their_own_thread() -> None:
    where: list[str] = []

    def draw() -> Chart:
        where.append(threading.current_thread().name)
        return dice_chart(fairness({}, rolls=0), "Rolls")

    check(await drawn(draw))
    assert where[0].startswith("pommel-charts")
    assert where[0] != threading.main_thread().name
    assert charts.DPI * 12 == WIDTH


def test_the_count_axis_starts_at_0_unless_many_dice_would_make_every_bar_look_alike() -> None:
    rng = Random(15)
    assert charts.axis_floor(fairness(Counter(rng.choices(list(FACES), k=1400)), rolls=700)) == 0
    many = fairness(Counter(rng.choices(list(FACES), k=100_000)), rolls=60_000)
    floor = charts.axis_floor(many)
    assert 0 < floor < min(min(many.counts), many.band[0])
    assert floor > 4000
    check(dice_chart(many, "Rolls in the server"))
