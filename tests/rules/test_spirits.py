from __future__ import annotations

import pytest

from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.errors import IllegalAction, RulesError
from bot.rules.spirits import (
    Banishment,
    SpiritEffect,
    SpiritProtection,
    SpiritTarget,
    ability_score_for,
    banishment,
    banishment_days,
    check_physical_attack,
    heal_score,
    spiritual_attack,
    weapon_harms_spirit,
)
from tests.rules.conftest import breakdown


def test_r27_only_holy_blessed_weapons_harm_spirits() -> None:
    assert weapon_harms_spirit(holy_blessed=True)
    assert not weapon_harms_spirit(holy_blessed=False)


def test_r27_unrated_score_is_7_plus_modifier() -> None:
    assert ability_score_for(2) == 9
    assert ability_score_for(-1) == 6


def test_r27_unprotected_defender_rolls_at_disadvantage() -> None:
    # spirit 12 + 2 = 14; defender rolls 18 and 6, keeps 6, + WIS 1 = 7.
    dice = ScriptedDice([12, 18, 6])
    result = spiritual_attack(
        dice, attacker_modifier=2, defender_modifier=1, ability=SpiritTarget.WIS, damage=3
    )
    assert result.attacker_roll.faces == (12,)
    assert breakdown(result.attacker_modifiers) == (("spirit", 2),)
    assert result.attacker_total == 14
    assert result.defender_roll.faces == (18, 6)
    assert result.defender_advantage is Advantage.DISADVANTAGE
    assert breakdown(result.defender_modifiers) == (("WIS", 1),)
    assert result.defender_total == 7
    assert result.attacker_wins
    assert result.score_rated
    assert (result.score_before, result.damage, result.score_after) == (8, 3, 5)
    assert result.effect is None
    assert dice.remaining == 0


@pytest.mark.parametrize("protection", list(SpiritProtection))
def test_r27_any_protection_negates_the_disadvantage(protection: SpiritProtection) -> None:
    dice = ScriptedDice([12, 15])
    result = spiritual_attack(dice, 2, 0, SpiritTarget.CHA, protections={protection}, damage=3)
    assert result.defender_roll.faces == (15,)
    assert result.defender_advantage is Advantage.NONE
    assert result.protections == (protection,)
    assert not result.attacker_wins
    assert result.damage == 0
    assert dice.remaining == 0


def test_r27_communion_advantage_and_disadvantage_cancel() -> None:
    result = spiritual_attack(ScriptedDice([10, 9]), 0, 0, SpiritTarget.INT, communion_last_week=True)
    assert result.communion
    assert result.defender_advantage is Advantage.NONE
    assert result.defender_roll.faces == (9,)


def test_r27_protected_communicant_defends_with_advantage() -> None:
    result = spiritual_attack(
        ScriptedDice([10, 4, 17]),
        0,
        0,
        SpiritTarget.INT,
        protections={SpiritProtection.BAPTIZED},
        communion_last_week=True,
    )
    assert result.defender_advantage is Advantage.ADVANTAGE
    assert result.defender_roll.value == 17


def test_r27_proficiency_only_when_confirmed() -> None:
    confirmed = spiritual_attack(
        ScriptedDice([10, 20, 8]), 0, 0, SpiritTarget.WIS, confirmed=True, proficiency=2, damage=1
    )
    assert breakdown(confirmed.defender_modifiers) == (("WIS", 0), ("proficiency", 2))
    assert confirmed.defender_total == 10
    assert not confirmed.attacker_wins
    unconfirmed = spiritual_attack(ScriptedDice([10, 20, 8]), 0, 0, SpiritTarget.WIS, proficiency=2, damage=1)
    assert breakdown(unconfirmed.defender_modifiers) == (("WIS", 0),)
    assert unconfirmed.attacker_wins


def test_r27_tie_goes_to_the_defender() -> None:
    result = spiritual_attack(ScriptedDice([10, 12, 11]), 1, 0, SpiritTarget.CHA, damage=4)
    assert result.attacker_total == result.defender_total == 11
    assert not result.attacker_wins
    assert result.score_after == result.score_before == 7


@pytest.mark.parametrize(
    ("ability", "effect"),
    [
        (SpiritTarget.INT, SpiritEffect.FEEBLE_MINDED),
        (SpiritTarget.WIS, SpiritEffect.STARK_RAVING_MAD),
        (SpiritTarget.CHA, SpiritEffect.POSSESSED),
    ],
)
def test_r27_damage_to_0_gives_the_effect(ability: SpiritTarget, effect: SpiritEffect) -> None:
    result = spiritual_attack(ScriptedDice([15, 3, 2]), 0, 0, ability, damage=9, defender_score=4)
    assert not result.score_rated
    assert result.score_before == 4
    assert result.score_after == 0
    assert result.effect is effect


def test_r27_joker_adds_to_spirit_attack_and_damage() -> None:
    result = spiritual_attack(ScriptedDice([9, 20, 10]), 0, 0, SpiritTarget.CHA, damage=2, joker_bonus=2)
    assert breakdown(result.attacker_modifiers) == (("spirit", 0), ("Joker", 2))
    assert result.attacker_total == 11
    assert result.attacker_wins
    assert result.damage == 4
    assert result.score_after == 3


def test_r27_negative_damage_is_refused() -> None:
    with pytest.raises(RulesError):
        spiritual_attack(ScriptedDice([]), 0, 0, SpiritTarget.INT, damage=-1)


@pytest.mark.parametrize(("hit_dice", "days"), [(1, 100), (3, 34), (5, 20), (8, 13), (100, 1), (150, 1)])
def test_r27_a_spirit_at_0_hp_is_gone_100_over_hd_days_rounded_up(hit_dice: int, days: int) -> None:
    assert banishment_days(hit_dice) == days


def test_r27_demons_are_sent_back_other_spirits_dissipated() -> None:
    assert banishment(demon=True) is Banishment.SENT_BACK
    assert banishment(demon=False) is Banishment.DISSIPATED
    with pytest.raises(RulesError):
        banishment_days(0)


def test_r27_healing_to_3_ends_the_effect() -> None:
    assert heal_score(SpiritTarget.INT, 0, 2).model_dump() == {
        "ability": SpiritTarget.INT,
        "before": 0,
        "after": 2,
        "recovered": False,
    }
    assert heal_score(SpiritTarget.CHA, 1, 2).recovered
    assert not heal_score(SpiritTarget.WIS, 5, 2).recovered  # it never fell below 3
    assert heal_score(SpiritTarget.WIS, 28, 9).after == 30
    with pytest.raises(RulesError):
        heal_score(SpiritTarget.WIS, 2, 0)


def test_r27_how_long_each_effect_gives_the_body_to_the_gm() -> None:
    assert SpiritEffect.FEEBLE_MINDED.lasts == "until healed to INT 3"
    assert SpiritEffect.STARK_RAVING_MAD.lasts == "until healed to WIS 3"
    assert SpiritEffect.POSSESSED.lasts == "until the spirit is driven out"


@pytest.mark.parametrize(
    ("attacker_spirit", "defender_spirit", "holy_blessed", "refusal"),
    [
        (False, False, False, None),
        (False, True, False, "Ghost is a spirit: physical weapons, even magical ones, do nothing"),
        (False, True, True, None),
        (True, False, False, "Ann is a spirit: its standard attack is only for other spirits"),
        (True, False, True, "Ann is a spirit: its standard attack is only for other spirits"),
        (True, True, False, None),
    ],
)
def test_r27_physical_attacks_between_the_living_and_spirits(
    attacker_spirit: bool, defender_spirit: bool, holy_blessed: bool, refusal: str | None
) -> None:
    def check() -> None:
        check_physical_attack(
            "Ann",
            "Ghost",
            attacker_spirit=attacker_spirit,
            defender_spirit=defender_spirit,
            holy_blessed=holy_blessed,
        )

    if refusal is None:
        check()
    else:
        with pytest.raises(IllegalAction, match=refusal):
            check()
