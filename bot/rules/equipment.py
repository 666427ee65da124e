"""Weapons, armor, shields and monster templates as typed, validated records (R11-R17, R24).

The numbers live in ``bot/data/*.yaml``; every entry says where its numbers come from, and names the
fields that are house values where the published tables are silent.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .dice import DiceSource

_DAMAGE = re.compile(r"^\s*(\d+)d(\d+)\s*(?:([+-])\s*(\d+))?\s*$")


class AttackType(StrEnum):
    BASH = "bash"
    PIERCE = "pierce"
    CHOP = "chop"
    SLASH = "slash"

    @classmethod
    def from_letter(cls, letter: str) -> AttackType:
        return {"B": cls.BASH, "P": cls.PIERCE, "C": cls.CHOP, "S": cls.SLASH}[letter.upper()]


class Size(StrEnum):
    TINY = "T"
    SMALL = "S"
    MEDIUM = "M"
    LARGE = "L"
    VERY_LARGE = "VL"

    @property
    def fits_grapple(self) -> bool:
        """R12: only size S and T weapons attack at Grapple range (and enter it)."""
        return self in (Size.TINY, Size.SMALL)


class Source(StrEnum):
    PUBLISHED = "published table"
    HOUSE = "house value"
    MIXED = "published table, house values marked"


class DamageDice(BaseModel):
    """A damage roll such as ``1d8`` or ``2d6+1``."""

    model_config = ConfigDict(frozen=True)

    count: int = Field(ge=1, le=20)
    sides: int = Field(ge=1, le=100)
    modifier: int = 0

    @classmethod
    def parse(cls, text: str) -> DamageDice:
        match = _DAMAGE.match(text)
        if match is None:
            raise ValueError(f"{text!r} is not a damage roll like '1d8' or '2d6+1'")
        count, sides, sign, mod = match.groups()
        modifier = int(mod or 0) * (-1 if sign == "-" else 1)
        return cls(count=int(count), sides=int(sides), modifier=modifier)

    def roll(self, dice: DiceSource) -> tuple[tuple[int, ...], int]:
        """The faces rolled and the total (never below 0)."""
        faces = tuple(dice.roll(self.sides) for _ in range(self.count))
        return faces, max(0, sum(faces) + self.modifier)

    def __str__(self) -> str:
        mod = f"{self.modifier:+d}" if self.modifier else ""
        return f"{self.count}d{self.sides}{mod}"


def _damage(value: object) -> object:
    return DamageDice.parse(value) if isinstance(value, str) else value


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    name: str = Field(min_length=1)
    source: Source
    house_fields: tuple[str, ...] = Field(default=(), validate_default=True)
    """The fields whose numbers are house values (the published tables do not give them)."""
    notes: str = ""

    # Field validators (not model validators) so that a loading error names the field at fault.
    @field_validator("house_fields")
    @classmethod
    def _house_fields_exist(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        unknown = [f for f in value if f not in cls.model_fields]
        if unknown:
            raise ValueError(f"house_fields names unknown fields: {', '.join(unknown)}")
        if info.data.get("source") is Source.MIXED and not value:
            raise ValueError("a mixed source must list its house_fields")
        return value


class Weapon(_Record):
    size: Size
    reach: int
    speed: int
    defense: int = Field(ge=0)
    damage: Annotated[DamageDice, Field()]
    types: frozenset[AttackType] = Field(min_length=1)
    primary: frozenset[AttackType] = frozenset()
    armor_piercing: int = Field(default=0, ge=0)
    two_handed: bool = False
    kind: Literal["melee", "missile", "thrown", "unarmed"] = "melee"
    martial: bool = True
    """Lords of Hack: a martial (not simple) weapon; R26 allows only one in a pair."""
    spear_or_lance: bool = False
    lance: bool = False
    """R25 mounted: a lance (a Knightly charge from a heavy warhorse with it does double damage)."""
    long_spear_or_bill: bool = False
    """R25 mounted: a long spear or a bill, the footman's answer to riders."""

    _parse_damage = field_validator("damage", mode="before")(_damage)

    @field_validator("primary")
    @classmethod
    def _primary_within_types(
        cls, value: frozenset[AttackType], info: ValidationInfo
    ) -> frozenset[AttackType]:
        types = info.data.get("types")
        if types is not None and not value <= types:
            raise ValueError("primary attack types must be among the weapon's attack types")
        return value

    @property
    def is_missile(self) -> bool:
        return self.kind in ("missile", "thrown")


class ArmorWeight(StrEnum):
    NONE = "none"
    LIGHT = "light"
    HEAVY = "heavy"


class Armor(_Record):
    dr_pierce: int = Field(ge=0)
    dr_chop: int = Field(ge=0)
    dr_slash: int = Field(ge=0)
    bypass: int = Field(le=0)
    """R17: the to-hit penalty for bypassing this armor (negative; natural armor -10)."""
    armor_check: int = Field(default=0, le=0)
    max_dex: int | None = None
    """None: no cap."""
    hardness: int = Field(default=0, ge=0)
    hp: int = Field(default=0, ge=0)
    weight: ArmorWeight
    ac_base: int = Field(ge=10, le=22)
    """R24: the Lords of Hack armor base (10 none, 12 light, 14-17 heavy)."""
    natural: bool = False

    def dr_against(self, attack_type: AttackType, by_attack_type: bool) -> int:
        """R17: the Pierce column, or the attack type's column when that option is on."""
        if not by_attack_type:
            return self.dr_pierce
        return {
            AttackType.CHOP: self.dr_chop,
            AttackType.SLASH: self.dr_slash,
        }.get(attack_type, self.dr_pierce)

    @property
    def costs_a_pool_die(self) -> bool:
        """R6: armor with Max Dex +1 or less costs one Martial Pool die."""
        return self.max_dex is not None and self.max_dex <= 1


class Shield(_Record):
    defense: int = Field(ge=0)
    toughness: int = Field(ge=0)
    hp: int = Field(ge=1)


class MonsterTemplate(_Record):
    prowess: int = Field(ge=0, le=20)
    dex_mod: int = 0
    hp: int = Field(ge=1)
    weapon: str
    off_hand: str | None = None
    armor: str | None = None
    shield: str | None = None
    morale: int | None = None
    """R21: the morale number; None for monsters that never check (undead, constructs)."""
    ac_modifier: int = 0
    """R24: monster AC = 10 + this modifier."""
    size: Size = Size.MEDIUM
    int_mod: int = 0
    wis_mod: int = 0
    cha_mod: int = 0
    """R27: the INT, WIS and CHA modifiers a spiritual attack is defended with (the score is rated 7 +
    the modifier); R21 and R23 take WIS and CHA too."""
    spirit: bool = False
    """R27: incorporeal; only Holy Blessed weapons harm it."""
    demon: bool = False
    """R27: a spirit that is a demon (sent back to Hell at 0 HP rather than dissipated)."""
    hit_dice: int | None = Field(default=None, ge=1, le=100)
    """R27: a spirit at 0 HP is gone for 100 ÷ HD days."""
    knightly_combat: bool = False
    """R25 mounted: proficient in Knightly Combat."""
    steed: Literal["heavy warhorse", "warhorse", "riding horse"] | None = None
    """R25 mounted: a mount ("heavy warhorse", "warhorse" or "riding horse"), None for anything else."""
    constructed: bool = False
    """A construct: numbers never give advantage against it (R25)."""
