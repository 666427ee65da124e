"""Saving throws helped by the Martial Pool (R20)."""

from __future__ import annotations

from pydantic import BaseModel

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_check


class SaveResult(BaseModel):
    """A saving throw: every die (the free one and the pool dice), the bonus and the outcome."""

    roll: PoolRoll
    bonus: int
    target: int
    total: int
    success: bool


def saving_throw(
    dice: DiceSource, *, pool_dice: int, bonus: int, target: int, advantage: Advantage = Advantage.NONE
) -> SaveResult:
    """R20: a save always gets one die; Martial Pool dice added to it join the roll, highest counts.
    It succeeds when the total meets the target number. Spend the pool dice before calling this."""
    check = roll_check(dice, [Modifier(label="save", value=bonus)], advantage, pool_dice=pool_dice)
    return SaveResult(
        roll=check.roll, bonus=bonus, target=target, total=check.total, success=check.total >= target
    )


def knockout_save(dice: DiceSource, *, pool_dice: int, will: int, threat: int) -> SaveResult:
    """R16 (Knock-Out option), R20: the Will save a Bash critical forces, against its Knock-Out threat
    (basic + crit damage) as the target number; Martial Pool dice may join it. A failure knocks the
    target out.

    Choice: the Will bonus is the WIS modifier (the fight keeps no OGL Will save); the KO table the
    text points to was never found, so a failure is always a knock-out, never a lesser stun."""
    return saving_throw(dice, pool_dice=pool_dice, bonus=will, target=threat)
