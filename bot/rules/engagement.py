"""Range per pair of combatants: Onset, Melee, Grapple (R12)."""

from __future__ import annotations

from enum import IntEnum, StrEnum

from pydantic import BaseModel, Field

from .equipment import Weapon
from .errors import IllegalAction


class Range(IntEnum):
    """R12: the three combat ranges, from farthest to closest."""

    ONSET = 0
    MELEE = 1
    GRAPPLE = 2

    @property
    def label(self) -> str:
        return self.name.capitalize()


class Distance(StrEnum):
    """How far apart a pair is, for missiles (R25): thrown weapons reach 50' and are at disadvantage
    from 25'; ranged weapons are at disadvantage from 150'. Melee happens at Near."""

    NEAR = "near"
    """Under 25' (5")."""
    MIDDLE = "middle"
    """25' to 50' (5" to 10")."""
    FAR = "far"
    """50' to 150' (10" to 30")."""
    VERY_FAR = "very far"
    """150' (30") or more."""

    @property
    def label(self) -> str:
        return _DISTANCE_LABELS[self]


_DISTANCE_LABELS = {
    Distance.NEAR: "under 25'",
    Distance.MIDDLE: "25' to 50'",
    Distance.FAR: "50' to 150'",
    Distance.VERY_FAR: "150' or more",
}


def pair_key(a: str, b: str) -> str:
    """The key of a pair, the same whichever side is named first."""
    first, second = sorted((a, b))
    return f"{first}|{second}"


class Engagement(BaseModel):
    """R12: the range between one pair, and what the pair did this round."""

    range: Range = Range.ONSET
    attacks_this_round: int = Field(default=0, ge=0)
    all_multi_die: bool = True
    """Every attack this round between the pair used 2+ dice (which maintains Onset)."""
    distance: Distance = Distance.NEAR
    """R25: how far apart the pair is for a missile; it persists until changed."""

    def range_for_attack(self, dice: int) -> Range:
        """R12: the range the next attack happens at. The second attack in a round puts the pair in
        Melee, unless every attack of the round, this one included, uses 2+ dice."""
        if self.range is not Range.ONSET or self.attacks_this_round == 0:
            return self.range
        if dice >= 2 and self.all_multi_die:
            return Range.ONSET
        return Range.MELEE

    def record_attack(self, dice: int, *, missile: bool = False) -> Range:
        """R12: count an attack between the pair (missiles stay at Onset and do not count)."""
        if missile:
            return self.range
        self.range = self.range_for_attack(dice)
        self.attacks_this_round += 1
        self.all_multi_die = self.all_multi_die and dice >= 2
        return self.range

    def enter_grapple(self) -> None:
        """R12: a successful grapple attack puts the pair in Grapple."""
        self.range = Range.GRAPPLE

    def new_round(self) -> None:
        """R5: per-round counters reset; the range itself persists."""
        self.attacks_this_round = 0
        self.all_multi_die = True


class RangeChange(BaseModel):
    """What a range change costs and provokes (R12)."""

    old: Range
    new: Range
    cost: int
    provokes_opportunity_attack: bool


def plan_range_change(engagement: Engagement, target: Range) -> RangeChange:
    """R12/R19: 1 MP per step; leaving Grapple provokes an opportunity attack; Grapple itself is only
    entered by a successful grapple attack."""
    if target is engagement.range:
        raise IllegalAction(f"You are already at {target.label} range with that opponent.")
    if target is Range.GRAPPLE:
        raise IllegalAction(
            "Grapple range is entered only by a successful unarmed or size S/T attack declared as a "
            "grapple: use /attack with grapple on."
        )
    return RangeChange(
        old=engagement.range,
        new=target,
        cost=abs(int(target) - int(engagement.range)),
        provokes_opportunity_attack=engagement.range is Range.GRAPPLE,
    )


def check_weapon_at_range(weapon: Weapon, at: Range, *, grapple: bool = False) -> None:
    """R12: at Grapple size M+ weapons cannot attack; entering Grapple needs unarmed or size S/T."""
    if (at is Range.GRAPPLE or grapple) and weapon.kind != "unarmed" and not weapon.size.fits_grapple:
        what = "attack at Grapple range" if at is Range.GRAPPLE else "start a grapple"
        raise IllegalAction(
            f"A size {weapon.size.value} weapon ({weapon.name}) cannot {what}; only unarmed attacks or "
            "size S or T weapons can (strike with the off hand or unarmed instead)."
        )
    if grapple and weapon.is_missile:
        raise IllegalAction("A missile weapon cannot start a grapple.")
