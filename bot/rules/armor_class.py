"""Lords of Hack Armor Class, for foes without Martial Pool stats, and the plain d20 attack (R24)."""

from __future__ import annotations

from enum import IntEnum

from pydantic import BaseModel, ConfigDict

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_check, with_joker
from .equipment import Armor, ArmorWeight

AC_CAP = 22
"""R24: no creature or character's Armor Class ever exceeds 22."""

SHIELD_AC = 2
MAX_MAGIC_AC = 10
"""R24: the most magic AC a sheet or combatant takes (the cap of 22 still holds on the total)."""


def armor_class(armor_base: int, weight: ArmorWeight, dex_mod: int, shield: bool, magic: int = 0) -> int:
    """R24: armor base + DEX (no or light armor only) + 2 with a shield + magic, never above 22.

    A negative DEX modifier lowers a light or unarmored AC just as a positive one raises it.
    """
    dex = dex_mod if weight in (ArmorWeight.NONE, ArmorWeight.LIGHT) else 0
    return min(AC_CAP, armor_base + dex + (SHIELD_AC if shield else 0) + magic)


def armor_class_of(armor: Armor | None, dex_mod: int, shield: bool, magic: int = 0) -> int:
    """R24: :func:`armor_class` for an armor record (None: unarmored, base 10)."""
    if armor is None:
        return armor_class(10, ArmorWeight.NONE, dex_mod, shield, magic)
    return armor_class(armor.ac_base, armor.weight, dex_mod, shield, magic)


def monster_armor_class(modifier: int) -> int:
    """R24: a monster's AC is 10 + its modifier, never above 22."""
    return min(AC_CAP, 10 + modifier)


def defender_armor_class(
    armor: Armor | None,
    dex_mod: int,
    *,
    shield: bool,
    monster_modifier: int | None = None,
    magic: int = 0,
) -> int:
    """R24: the AC an attack against AC is rolled against, never above 22.

    "Monster Armor Class is determined by adding one of the 3 modifiers to 10": a monster in no worn
    armor (none, or natural hide, fur or scales: its hide is part of the modifier) has 10 + its AC
    modifier, which already counts its shield and its hide (the skeleton's 4 is its round shield and
    its bones: AC 14; the wolf's 3 is AC 13). Anyone else, monsters in worn armor included, has the
    armor's AC: base, + DEX in no or light armor, + 2 with a shield (:func:`armor_class_of`; an
    unarmored character is base 10 + DEX). "Magic items and spells can add additional points of Armor
    Class": ``magic`` adds to either, within the cap.
    """
    worn = armor is not None and not armor.natural
    if not worn and monster_modifier is not None:
        return min(AC_CAP, monster_armor_class(monster_modifier) + magic)
    return armor_class_of(armor, dex_mod, shield, magic)


class Opening(IntEnum):
    """Lords of Hack: a target shooting from an opening has at least this AC against missiles."""

    WINDOW = 17
    ARROW_SLIT = 21


def armor_class_behind(ac: int, opening: Opening | None) -> int:
    """R24, R25: a target in a roofed area behind a window is at least AC 17, behind an arrow slit 21.

    This is on top of the cover disadvantage (R25), which the caller adds as a situation.
    """
    return ac if opening is None else max(ac, int(opening))


class AcAttackResult(BaseModel):
    """A plain d20 attack against an Armor Class: the dice, the bonuses, the total and the verdict.

    ``automatic`` is True when a natural 20 or 1 decided the attack, whatever the total.
    """

    model_config = ConfigDict(frozen=True)

    roll: PoolRoll
    modifiers: tuple[Modifier, ...]
    total: int
    armor_class: int
    hit: bool
    automatic: bool

    @property
    def natural_20(self) -> bool:
        return self.roll.natural_20

    @property
    def natural_1(self) -> bool:
        return self.roll.natural_1

    @property
    def advantage(self) -> Advantage:
        return self.roll.advantage


def attack_against_ac(
    dice: DiceSource,
    attack_bonus: int,
    ac: int,
    advantage: Advantage = Advantage.NONE,
    joker_bonus: int = 0,
    natural_results: bool = True,
    automatic: bool = False,
) -> AcAttackResult:
    """R24: d20 (2d20 keep-high/low under advantage/disadvantage, R10) + bonus hits on total >= AC.

    Choice (``natural_results``, ``RuleOptions.ac_natural_results``): a natural 20 always hits and
    a natural 1 always misses, as a GM of a d20 system expects; the result says so in
    ``natural_20``, ``natural_1`` and ``automatic``. The Joker bonus (R3) is listed apart from the
    attack bonus so the message can show it.
    """
    modifiers = with_joker([Modifier(label="attack", value=attack_bonus)], joker_bonus)
    check = roll_check(dice, modifiers, advantage)
    roll, total = check.roll, check.total
    decided = natural_results and (roll.natural_20 or roll.natural_1)
    hit = automatic or (roll.natural_20 if decided else total >= ac)
    automatic = automatic or decided
    return AcAttackResult(
        roll=roll,
        modifiers=check.modifiers,
        total=total,
        armor_class=ac,
        hit=hit,
        automatic=automatic,
    )
