from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.armor_class import (
    AC_CAP,
    Opening,
    armor_class,
    armor_class_behind,
    armor_class_of,
    attack_against_ac,
    defender_armor_class,
    monster_armor_class,
)
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.equipment import Armor, ArmorWeight, Source
from tests.rules.conftest import breakdown


@pytest.mark.parametrize(
    ("base", "weight", "expected"),
    [(10, ArmorWeight.NONE, 13), (12, ArmorWeight.LIGHT, 15), (16, ArmorWeight.HEAVY, 16)],
)
def test_r24_dex_counts_only_in_no_or_light_armor(base: int, weight: ArmorWeight, expected: int) -> None:
    assert armor_class(base, weight, dex_mod=3, shield=False) == expected


def test_r24_negative_dex_lowers_light_armor_but_not_heavy() -> None:
    assert armor_class(12, ArmorWeight.LIGHT, dex_mod=-1, shield=False) == 11
    assert armor_class(14, ArmorWeight.HEAVY, dex_mod=-1, shield=False) == 14


def test_r24_shield_adds_2_and_magic_adds_its_points() -> None:
    assert armor_class(14, ArmorWeight.HEAVY, 0, shield=True) == 16
    assert armor_class(14, ArmorWeight.HEAVY, 0, shield=True, magic=1) == 17


def test_r24_ac_never_exceeds_22() -> None:
    assert armor_class(17, ArmorWeight.HEAVY, 0, shield=True, magic=5) == AC_CAP == 22
    assert monster_armor_class(15) == 22


def test_r24_monster_ac_is_10_plus_modifier() -> None:
    assert monster_armor_class(3) == 13
    assert monster_armor_class(-1) == 9


HIDE = Armor(
    key="natural_hide",
    name="Natural Hide",
    source=Source.HOUSE,
    dr_pierce=2,
    dr_chop=4,
    dr_slash=4,
    bypass=-10,
    weight=ArmorWeight.NONE,
    ac_base=10,
    natural=True,
)


def test_r24_monster_armor_class_is_one_of_the_3_modifiers_added_to_10_hide_is_no_worn_armor() -> None:
    """Lords of Hack: "Monster Armor Class is determined by adding one of the 3 modifiers to 10". A
    wolf (AC modifier 3, DEX +2) in its natural hide is AC 13, not 10 + DEX = 12; an ogre (modifier 1,
    DEX -1) is AC 11, not 9."""
    assert defender_armor_class(HIDE, 2, shield=False, monster_modifier=3) == 13
    assert defender_armor_class(HIDE, -1, shield=False, monster_modifier=1) == 11
    # A character in natural hide (no monster modifier) still reads it as no armor: 10 + DEX.
    assert defender_armor_class(HIDE, 2, shield=False) == 12


def test_r24_magic_items_and_spells_add_armor_class_to_anyone_never_past_22() -> None:
    """Lords of Hack: "Magic items and spells can add additional points of Armor Class"; "no creature
    or character's Armor Class can ever exceed AC 22"."""
    assert defender_armor_class(None, 2, shield=True, magic=2) == 16
    assert defender_armor_class(HIDE, 2, shield=False, monster_modifier=3, magic=1) == 14
    assert defender_armor_class(None, 0, shield=False, monster_modifier=12, magic=5) == AC_CAP


def test_r24_armor_record_gives_base_and_weight() -> None:
    mail = Armor(
        key="mail",
        name="Haubergeon, Mail",
        source=Source.PUBLISHED,
        dr_pierce=8,
        dr_chop=16,
        dr_slash=24,
        bypass=-5,
        weight=ArmorWeight.HEAVY,
        ac_base=15,
    )
    assert armor_class_of(mail, dex_mod=2, shield=True) == 17
    assert armor_class_of(None, dex_mod=2, shield=False) == 12


def test_r24_window_and_arrow_slit_raise_ac_to_a_minimum() -> None:
    assert armor_class_behind(12, Opening.WINDOW) == 17
    assert armor_class_behind(19, Opening.WINDOW) == 19
    assert armor_class_behind(12, Opening.ARROW_SLIT) == 21
    assert armor_class_behind(12, None) == 12


def test_r24_attack_hits_on_total_equal_to_ac() -> None:
    result = attack_against_ac(ScriptedDice([10]), attack_bonus=5, ac=15)
    assert result.roll.faces == (10,)
    assert breakdown(result.modifiers) == (("attack", 5),)
    assert result.total == 15
    assert result.armor_class == 15
    assert result.hit
    assert not result.automatic


def test_r24_attack_misses_one_below_ac() -> None:
    assert not attack_against_ac(ScriptedDice([9]), attack_bonus=5, ac=15).hit


def test_r24_natural_20_always_hits() -> None:
    result = attack_against_ac(ScriptedDice([20]), attack_bonus=-5, ac=22)
    assert result.total == 15
    assert result.hit
    assert result.natural_20
    assert result.automatic


def test_r24_natural_1_always_misses() -> None:
    result = attack_against_ac(ScriptedDice([1]), attack_bonus=15, ac=10)
    assert result.total == 16
    assert not result.hit
    assert result.natural_1
    assert result.automatic


@pytest.mark.parametrize(
    ("advantage", "kept", "hit"), [(Advantage.ADVANTAGE, 17, True), (Advantage.DISADVANTAGE, 3, False)]
)
def test_r24_advantage_is_2d20_keep_high_or_low(advantage: Advantage, kept: int, hit: bool) -> None:
    result = attack_against_ac(ScriptedDice([3, 17]), attack_bonus=2, ac=15, advantage=advantage)
    assert result.roll.faces == (3, 17)
    assert result.roll.value == kept
    assert result.advantage is advantage
    assert result.hit is hit


def test_r24_joker_bonus_is_shown_and_counted() -> None:
    result = attack_against_ac(ScriptedDice([8]), attack_bonus=3, ac=13, joker_bonus=2)
    assert breakdown(result.modifiers) == (("attack", 3), ("Joker", 2))
    assert result.total == 13
    assert result.hit


@given(
    base=st.integers(10, 22),
    weight=st.sampled_from(list(ArmorWeight)),
    dex=st.integers(-5, 10),
    shield=st.booleans(),
    magic=st.integers(0, 10),
)
def test_r24_ac_is_never_above_22_and_never_falls_with_more_magic(
    base: int, weight: ArmorWeight, dex: int, shield: bool, magic: int
) -> None:
    ac = armor_class(base, weight, dex, shield, magic)
    assert ac <= AC_CAP
    assert armor_class(base, weight, dex, shield, magic + 1) >= ac
    assert monster_armor_class(magic + dex) <= AC_CAP


def test_r24_option_without_natural_results_only_the_total_counts() -> None:
    low = attack_against_ac(ScriptedDice([20]), attack_bonus=-5, ac=22, natural_results=False)
    assert not low.hit
    assert not low.automatic
    high = attack_against_ac(ScriptedDice([1]), attack_bonus=15, ac=10, natural_results=False)
    assert high.hit


def test_r24_an_unarmored_monster_s_modifier_already_counts_its_shield() -> None:
    """The skeleton (round shield, no armor, AC modifier 4) has AC 14, as its data and R24 say; the
    shield was counted a second time (16)."""
    assert defender_armor_class(None, 2, shield=True, monster_modifier=4) == 14


def test_r24_an_unarmored_character_adds_dex_and_a_shield() -> None:
    """A character in no armor is 10 + DEX (+2 with a shield); DEX +3 read AC 10 before."""
    assert defender_armor_class(None, 3, shield=False) == 13
    assert defender_armor_class(None, 3, shield=True) == 15


def test_r24_an_armored_monster_uses_its_armor_and_no_ac_is_above_22() -> None:
    light = Armor(
        key="gambeson",
        name="Gambeson",
        source=Source.HOUSE,
        dr_pierce=1,
        dr_chop=2,
        dr_slash=3,
        bypass=-2,
        weight=ArmorWeight.LIGHT,
        ac_base=12,
    )
    assert defender_armor_class(light, 1, shield=False, monster_modifier=9) == 13
    assert defender_armor_class(None, 0, shield=True, monster_modifier=12) == AC_CAP
    assert defender_armor_class(None, 15, shield=True) == AC_CAP
