"""The attacker's side of an exchange: what may be attacked and how, the bonus, and the roll (R9-R12,
R17, R26, R27).

:func:`check_attack` refuses an attack the rules do not allow before any die is rolled;
:func:`roll_attack` rolls the attacker's dice and keeps the highest.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_pool, sum_of
from .engagement import Range, check_weapon_at_range
from .equipment import AttackType, Weapon
from .errors import IllegalAction
from .fighter import Fighter
from .spirits import check_physical_attack

TWO_WEAPON_BONUS = 1


class AttackKind(StrEnum):
    NORMAL = "attack"
    COUNTERATTACK = "counterattack"
    OPPORTUNITY = "opportunity attack"
    TRAMPLE = "trample"
    """R25 mounted: a warhorse's hooves when its rider charges."""
    BIND_ATTACK = "bind attack"
    """R14: the attack a Bind triggers for a holder of Bind & Strike or Mutieren (Speed, R11)."""


class Attack(BaseModel):
    """What the attacker declares before rolling."""

    attack_type: AttackType
    dice: int = Field(ge=1, le=4)
    range: Range = Range.ONSET
    kind: AttackKind = AttackKind.NORMAL
    advantage: Advantage = Advantage.NONE
    bypass: bool = False
    at_armor: bool = False
    at_shield: bool = False
    """R17: strike at the shield as at armor (the Codex: a shield used for passive defense "may also be
    targeted for attack like Armor"): damage less its Toughness goes to its HP."""
    grapple: bool = False
    two_weapons: bool = False
    holy_blessed: bool = False
    joker_bonus: int = 0
    situational: int = 0
    """Any other flat modifier the GM allows."""
    automatic: bool = False
    """R25: an unconscious or incapacitated target is hit automatically in melee."""
    double_damage: bool = False
    """R25 mounted: a Knightly lance charge from a heavy warhorse scores double damage."""


def weapon_bonus(weapon: Weapon, at: Range, kind: AttackKind = AttackKind.NORMAL) -> Modifier:
    """R11: Reach at Onset, Speed at Melee and Grapple, and always Speed for counterattacks and
    opportunity attacks. A missile weapon's close-range bonus is its Reach. A warhorse's trample
    (R25) comes with its rider's charge, so it is weighed like its own attack."""
    if weapon.is_missile:
        return Modifier(label="Reach", value=weapon.reach)
    if at is Range.ONSET and kind in (AttackKind.NORMAL, AttackKind.TRAMPLE):
        return Modifier(label="Reach", value=weapon.reach)
    return Modifier(label="Speed", value=weapon.speed)


def attack_bonus(attacker: Fighter, defender: Fighter, attack: Attack) -> list[Modifier]:
    """R11: Prowess + weapon bonus + modifiers (Joker R3, two weapons R26, bypass R17, situational)."""
    parts = [
        Modifier(label="Prowess", value=attacker.prowess),
        weapon_bonus(attacker.weapon, attack.range, attack.kind),
    ]
    if attack.joker_bonus:
        parts.append(Modifier(label="Joker", value=attack.joker_bonus))
    if attack.two_weapons:
        parts.append(Modifier(label="Two weapons", value=TWO_WEAPON_BONUS))
    if attack.bypass and defender.armor is not None:
        parts.append(Modifier(label=f"Bypass {defender.armor.name}", value=defender.armor.bypass))
    if attack.situational:
        parts.append(Modifier(label="Situational", value=attack.situational))
    return parts


def check_two_weapons(main: Weapon, off_hand: Weapon | None) -> Weapon:
    """R26: neither weapon two-handed, a spear or a lance, and only one of them martial."""
    if off_hand is None:
        raise IllegalAction("Fighting with two weapons needs an off-hand weapon; set one on your character.")
    for weapon in (main, off_hand):
        if weapon.two_handed or weapon.spear_or_lance or weapon.is_missile:
            raise IllegalAction(
                f"{weapon.name} cannot be used for two-weapon fighting (no two-handed weapons, spears, "
                "lances or missile weapons)."
            )
    if main.martial and off_hand.martial:
        raise IllegalAction(
            f"Only one of the two weapons may be a martial weapon; {main.name} and {off_hand.name} both are."
        )
    return off_hand


def check_attack(attacker: Fighter, defender: Fighter, attack: Attack) -> None:
    """Refuse an attack the rules do not allow, before any die is rolled (R12, R17, R26, R27)."""
    weapon = attacker.weapon
    if attack.attack_type not in weapon.types:
        kinds = ", ".join(sorted(t.value for t in weapon.types))
        raise IllegalAction(f"{weapon.name} cannot {attack.attack_type.value}; it can {kinds}.")
    check_weapon_at_range(weapon, attack.range, grapple=attack.grapple)
    if attack.two_weapons:
        check_two_weapons(weapon, attacker.off_hand)
    if attack.bypass and attack.at_armor:
        raise IllegalAction("An attack either bypasses the armor or strikes at it, not both.")
    if attack.at_shield:
        _check_at_shield(defender, attack)
    if attack.grapple and (attack.bypass or attack.at_armor):
        what = "bypass the armor" if attack.bypass else "strike at the armor"
        raise IllegalAction(
            f"A grapple seizes the foe and deals no damage (R12), so it cannot also {what}; "
            "grapple, or strike, one at a time."
        )
    if attack.at_armor and defender.armor is None:
        raise IllegalAction(f"{defender.name} wears no armor to attack.")
    if attack.bypass and (defender.armor is None or not defender.armor_intact):
        raise IllegalAction(f"{defender.name} has no working armor to bypass; attack normally.")
    check_physical_attack(
        attacker.name,
        defender.name,
        attacker_spirit=attacker.spirit,
        defender_spirit=defender.spirit,
        holy_blessed=attack.holy_blessed,
    )


def _check_at_shield(defender: Fighter, attack: Attack) -> None:
    """R17: an attack at the shield needs a shield that still protects, and strikes nothing else."""
    if attack.bypass or attack.at_armor or attack.grapple:
        other = (
            "bypass the armor" if attack.bypass else "strike at the armor" if attack.at_armor else "grapple"
        )
        raise IllegalAction(f"An attack at the shield strikes the shield only; it cannot also {other}.")
    if defender.shield is None:
        raise IllegalAction(f"{defender.name} carries no shield to attack.")
    if not defender.shield_intact:
        raise IllegalAction(f"{defender.name}'s {defender.shield.name} is already broken (R17).")


class AttackRoll(BaseModel):
    """The attacker's side of an exchange, rolled: the dice, the bonus breakdown and the total."""

    attack: Attack
    roll: PoolRoll
    bonus: list[Modifier]
    missile: bool

    @property
    def total(self) -> int:
        return self.roll.value + sum_of(self.bonus)

    def choose(self, index: int) -> AttackRoll:
        """R9: count another of the attacker's dice."""
        return self.model_copy(update={"roll": self.roll.choose(index)})


def roll_attack(attacker: Fighter, defender: Fighter, attack: Attack, dice: DiceSource) -> AttackRoll:
    """R9, R10, R11: check the attack is allowed, then roll its dice and keep the highest."""
    check_attack(attacker, defender, attack)
    roll = roll_pool(dice, attack.dice, attack.advantage)
    return AttackRoll(
        attack=attack,
        roll=roll,
        bonus=attack_bonus(attacker, defender, attack),
        missile=attacker.weapon.is_missile,
    )
