"""The defender's side of an exchange: passive defense (R13) and the active defense's roll (R14).

The defender picks :func:`passive_defense` or :func:`roll_active_defense`; both return a
:class:`Defense`, which the judgement weighs against the attack.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from .attack_rolls import AttackRoll
from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_pool, sum_of
from .engagement import Range
from .errors import IllegalAction, RulesError
from .feats import MartialFeat
from .fighter import Fighter

UNDEFENDED_MELEE = 2
UNDEFENDED_MISSILE = 8
PASSIVE_BASE = 8
MAX_COVER_QUARTERS = 4


class Defense(BaseModel):
    """The defender's side: passive (a fixed number) or active (a roll)."""

    mode: Literal["passive", "active", "undefended"]
    bonus: list[Modifier]
    roll: PoolRoll | None = None
    shield: bool = False
    void: bool = False

    @property
    def total(self) -> int:
        return (self.roll.value if self.roll is not None else 0) + sum_of(self.bonus)

    @property
    def active(self) -> bool:
        return self.roll is not None

    def choose(self, index: int) -> Defense:
        """R9: count another of the defender's dice."""
        if self.roll is None:
            raise RulesError("A passive defense has no dice to choose from.")
        return self.model_copy(update={"roll": self.roll.choose(index)})


def passive_defense(
    defender: Fighter, *, missile: bool = False, undefended: bool = False, at: Range = Range.ONSET
) -> Defense:
    """R13: 8 + Prowess + Dex (capped by armor Max Dex) + shield DB; the weapon DB does not count,
    unless the defender holds the feat that lets it (then as in an active defense, R14: the better of
    the two, or both with the feat that adds them; not against missiles without Missile Parrying, nor
    at Grapple). An undefended target (unaware, helpless) has 2 against melee, 8 against missiles."""
    if undefended:
        value = UNDEFENDED_MISSILE if missile else UNDEFENDED_MELEE
        return Defense(mode="undefended", bonus=[Modifier(label="Undefended", value=value)])
    parts = [
        Modifier(label="Base", value=PASSIVE_BASE),
        Modifier(label="Prowess", value=defender.prowess),
        Modifier(label="Dex", value=defender.capped_dex),
    ]
    shield = defender.shield is not None and defender.shield_intact
    if MartialFeat.PASSIVE_WEAPON in defender.feats:
        parts += _defense_bonuses(defender, missile=missile, at=at, shield=shield)
    elif shield and defender.shield is not None:
        parts.append(Modifier(label=defender.shield.name, value=defender.shield.defense))
    return Defense(mode="passive", bonus=parts)


def _defense_bonuses(defender: Fighter, *, missile: bool, at: Range, shield: bool) -> list[Modifier]:
    """R14: the better of the weapon's DB and the shield's DB, or both with the feat that adds them. The
    weapon's counts neither at Grapple (R12) nor against missiles, unless with Missile Parrying."""
    candidates: list[Modifier] = []
    parrying = not missile or MartialFeat.MISSILE_PARRYING in defender.feats
    if parrying and at is not Range.GRAPPLE:
        candidates.append(Modifier(label=defender.weapon.name, value=defender.weapon.defense))
    if shield and defender.shield is not None:
        candidates.append(Modifier(label=defender.shield.name, value=defender.shield.defense))
    if len(candidates) == 2 and MartialFeat.SHIELD_AND_WEAPON in defender.feats:
        return candidates
    return [max(candidates, key=lambda m: m.value)] if candidates else []


def active_defense_bonus(
    defender: Fighter, *, missile: bool, at: Range, shield: bool, void: bool
) -> list[Modifier]:
    """R14: Prowess + Dex (capped) + the better of weapon DB and shield DB. Against missiles only the
    shield DB counts (and the weapon's, with Missile Parrying); at Grapple the weapon DB does not; a
    void defense counts neither. With the feat that adds them, the weapon's and the shield's add up."""
    parts = [
        Modifier(label="Prowess", value=defender.prowess),
        Modifier(label="Dex", value=defender.capped_dex),
    ]
    if void:
        return parts
    return parts + _defense_bonuses(defender, missile=missile, at=at, shield=shield)


def roll_active_defense(
    defender: Fighter,
    attack: AttackRoll,
    dice: DiceSource,
    *,
    committed: int,
    shield: bool = False,
    void: bool = False,
    cover_quarters: int = 0,
    advantage: Advantage = Advantage.NONE,
) -> Defense:
    """R14: k >= 1 pool dice, +1 free die with a shield (which needs at least one pool die), +1 free die
    per 25% cover against missiles; keep the highest. Shields are passive only at Grapple (R12)."""
    if committed < 1:
        raise IllegalAction("An active defense needs at least one Martial Pool die.")
    if shield:
        if defender.shield is None or not defender.shield_intact:
            raise IllegalAction(f"{defender.name} has no usable shield; defend without it.")
        if attack.attack.range is Range.GRAPPLE:
            raise IllegalAction("At Grapple range a shield defends passively only (R12).")
    if not 0 <= cover_quarters <= MAX_COVER_QUARTERS:
        raise IllegalAction("Cover is given in quarters: 0 to 4 (each 25% adds a free die against missiles).")
    free = int(shield) + (cover_quarters if attack.missile else 0)
    roll = roll_pool(dice, committed, advantage, free=free)
    bonus = active_defense_bonus(
        defender, missile=attack.missile, at=attack.attack.range, shield=shield, void=void
    )
    return Defense(mode="active", bonus=bonus, roll=roll, shield=shield, void=void)
