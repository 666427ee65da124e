"""Saving throws helped by the Martial Pool (R20)."""

from __future__ import annotations

from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.saves import knockout_save, saving_throw


def test_r20_a_save_always_gets_one_free_die() -> None:
    result = saving_throw(ScriptedDice([4]), pool_dice=0, bonus=2, target=10)
    assert result.roll.faces == (4,)
    assert result.roll.committed == 0
    assert result.total == 6
    assert not result.success


def test_r20_pool_dice_join_the_free_die_and_the_highest_counts() -> None:
    dice = ScriptedDice([4, 15, 9])
    result = saving_throw(dice, pool_dice=2, bonus=2, target=10)
    assert dice.remaining == 0
    assert result.roll.faces == (4, 15, 9)
    assert result.roll.committed == 2
    assert result.roll.value == 15
    assert result.total == 17
    assert result.success


def test_r20_total_equal_to_the_target_succeeds() -> None:
    result = saving_throw(ScriptedDice([8]), pool_dice=0, bonus=2, target=10)
    assert result.total == 10
    assert result.success


def test_r20_disadvantage_on_a_save_with_no_pool_dice_is_2d20_keep_low() -> None:
    result = saving_throw(
        ScriptedDice([4, 15]), pool_dice=0, bonus=0, target=10, advantage=Advantage.DISADVANTAGE
    )
    assert result.roll.value == 4
    assert not result.success


def test_r16_the_knockout_will_save_meets_the_threat_or_knocks_out() -> None:
    # WIS +1; the free die and one pool die: 9 and 12, the 12 counts: 13 against a threat of 13.
    resisted = knockout_save(ScriptedDice([9, 12]), pool_dice=1, will=1, threat=13)
    assert (resisted.roll.faces, resisted.total, resisted.success) == ((9, 12), 13, True)
    failed = knockout_save(ScriptedDice([11]), pool_dice=0, will=1, threat=13)
    assert (failed.total, failed.target, failed.success) == (12, 13, False)
