"""What a side chooses before any die of an exchange is rolled: the attack declared (``/attack``),
the defense picked (R13, R14), and what a button of an exchange does."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from ...rules.dice import Advantage
from ...rules.equipment import AttackType
from ..fighters import Hand


class Declaration(BaseModel):
    """What ``/attack`` declares before any die is rolled."""

    dice: int = Field(ge=1, le=4)
    attack_type: AttackType | None = None
    """None: the weapon's first primary attack type (or its first type)."""
    grapple: bool = False
    bypass: bool = False
    at_armor: bool = False
    at_shield: bool = False
    """R17: strike at the target's shield as at armor."""
    two_weapons: bool = False
    holy_blessed: bool = False
    situation: Advantage = Advantage.NONE
    bonus: int = 0
    helpless: bool = False
    """The target is unaware or helpless: it defends with 2 against melee, 8 against missiles (R13)."""
    unseen: bool = False
    """R25: the GM declares the target cannot see the attacker (stealth or magic): advantage."""
    merciful: bool = False
    """R21: the attacker's side is known to show mercy (a frightened target may surrender)."""
    charge: bool = False
    """R25 mounted: a charge (a lance from a heavy warhorse doubles damage; a warhorse tramples)."""
    hand: Hand = Hand.MAIN
    """What the attack is made with: the main weapon, the off-hand one, or bare hands (R12, R26)."""


class DefenseChoice(BaseModel):
    """What the defender picked: Passive, or Active with ``dice`` dice, the shield or void (R13, R14)."""

    mode: Literal["passive", "active"]
    dice: int = Field(default=0, ge=0, le=4)
    shield: bool = False
    void: bool = False


PASSIVE = DefenseChoice(mode="passive")


class ExchangeAction(StrEnum):
    """What a button of an exchange does: a defense (R13, R14), a desperation defense (R15), or a
    side counting another die that makes a Bind (R9)."""

    PASSIVE = "passive"
    ACTIVE = "active"
    SHIELD = "shield"
    VOID = "void"
    DESPERATE = "desperate"
    ATTACKER_DIE = "attackerdie"
    DEFENDER_DIE = "defenderdie"
    ATTACKER_BIND = "attackerbind"
    DEFENDER_BIND = "defenderbind"
    """R13 (``passive_tie: declared``): a side declares the passive tie a Bind."""
