"""``/odds`` shows the plan: beside the numbers, a chart of the same attack with 1 to 4 dice (hit,
critical, Bind, miss, fumble, counterattack) against the defense given, or in a fight against the
target's passive and active defense, uploaded with its alt text through the fake Discord."""

from __future__ import annotations

from typing import Any

from bot.rules.dice import Advantage
from bot.rules.odds import AttackOdds, attack_odds

from .fake_discord import World
from .fights import seed_fight
from .harness import RunningBot
from .test_odds import NO_DICE
from .test_stats import the_chart


def row(dice: int, odds: AttackOdds, *, asked: bool = False, active: bool = False) -> str:
    """One bar of the chart as its alt text says it."""

    def pct(value: object) -> str:
        return f"{float(value) * 100:.1f}%"  # type: ignore[arg-type]

    said = (
        f"{dice} {'die' if dice == 1 else 'dice'}{' (asked)' if asked else ''} hit {pct(odds.hit)} "
        f"({pct(odds.critical)} critical), Bind {pct(odds.bind)}, miss {pct(odds.miss)} "
        f"({pct(odds.fumble)} fumble)"
    )
    return f"{said}, counterattack {pct(odds.counterattack)}" if active else said


async def test_the_numbers_come_with_the_plan_for_1_to_4_dice(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash("odds", user=world.player, options={"dice": 2, "bonus": 4, "defense": 14})
    assert result.ephemeral
    assert "Hit **75.0%**" in result.content  # the numbers as before
    alt_text = the_chart(result, "odds-plan.png")
    assert alt_text.startswith(
        "Stacked bar chart of the odds of an attack with 1 to 4 dice: Odds of an attack +4. "
        "Against passive defense 14 (R13): "
    )
    for dice in range(1, 5):
        odds = attack_odds(attack_dice=dice, attack_bonus=4, passive_defense=14)
        assert row(dice, odds, asked=dice == 2) in alt_text
    assert "counterattack" not in alt_text  # none against a passive defense


async def test_an_active_defense_shows_the_counterattack(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    options = {"bonus": 3, "defense_dice": 2, "defense_bonus": 2, "situation": "advantage", "public": True}
    result = await pommel.slash("odds", user=world.player, options=options)
    assert not result.ephemeral
    alt_text = the_chart(result, "odds-plan.png")
    assert "Odds of an attack +3 with advantage. Against an active defense of 2 dice +2 (R14): " in alt_text
    for dice in range(1, 5):
        odds = attack_odds(
            attack_dice=dice,
            attack_bonus=3,
            defense_dice=2,
            defense_bonus=2,
            attack_advantage=Advantage.ADVANTAGE,
        )
        assert row(dice, odds, asked=dice == 1, active=True) in alt_text


async def test_chart_false_leaves_the_picture_out(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash(
        "odds", user=world.player, options={"bonus": 4, "defense": 14, "chart": False}
    )
    assert "Hit **" in result.content
    assert result.message is not None
    assert result.message.attachments == []


async def skirmish(pommel: RunningBot, world: World) -> None:
    """Ansel (+5 at Onset, pool 3) and a Bandit (passive 10; active 2 dice +5), as in test_odds."""
    await seed_fight(pommel, world, players=[(world.player, "Ansel")], npcs=[("bandit", 1, "Bandit")])


async def test_in_a_fight_the_plan_is_against_the_targets_passive_and_active_defense(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "**If Bandit defends passively**: 10" in result.content
    alt_text = the_chart(result, "odds-plan.png")
    assert "Ansel → Bandit: Sword, Arming, pierce at Onset range, +5." in alt_text
    passive = alt_text.index("If Bandit defends passively: 10 (Base +8, Prowess +1, Dex +1) (R13): ")
    active = alt_text.index("If Bandit defends actively with all 2 dice left: +5")
    assert passive < active
    for dice in range(1, 5):
        against_passive = attack_odds(attack_dice=dice, attack_bonus=5, passive_defense=10)
        against_active = attack_odds(attack_dice=dice, attack_bonus=5, defense_dice=2, defense_bonus=5)
        assert alt_text.index(row(dice, against_passive, asked=dice == 1)) < active
        assert alt_text.index(row(dice, against_active, asked=dice == 1, active=True)) > active
