"""What a hit does: weapon damage, critical dice, armor's DR and Armor Piercing, attacks at the armor
or the shield, and the damage of a Bind to a shield or a weapon (R16, R17, R25, R26).
"""

from __future__ import annotations

from pydantic import BaseModel

from .attack_rolls import Attack
from .dice import DiceSource
from .equipment import AttackType, Weapon
from .fighter import Fighter
from .options import DEFAULT_OPTIONS, BashCritical, CriticalDamage, RuleOptions

CRIT_DIE = {AttackType.BASH: 6, AttackType.PIERCE: 6, AttackType.CHOP: 8, AttackType.SLASH: 10}


class DamageRoll(BaseModel):
    """Damage with its whole breakdown (R16, R17, R26)."""

    weapon: str
    faces: tuple[int, ...]
    weapon_damage: int
    off_hand_weapon: str | None = None
    off_hand_faces: tuple[int, ...] = ()
    off_hand_damage: int | None = None
    joker_bonus: int = 0
    critical_faces: tuple[int, ...] = ()
    critical_damage: int = 0
    critical_die: int | None = None
    dynamic: bool = False
    armor: str | None = None
    dr: int = 0
    armor_piercing: int = 0
    bypassed: bool = False
    lethal: int = 0
    nonlethal: int = 0
    knockout_threat: int | None = None
    """R16 option: the TN of the Will save a Bash critical forces."""
    armor_damage: int = 0
    """R17: damage to the armor itself when attacking the armor (after its Hardness)."""
    shield: str | None = None
    """R17: the shield struck by an attack at the shield; ``dr`` is then its Toughness."""
    shield_damage: int = 0
    """R17: damage to the shield struck (after its Toughness)."""
    doubled: int = 0
    """R25 mounted: the damage a lance charge from a heavy warhorse added (the weapon damage again)."""

    @property
    def before_dr(self) -> int:
        """Weapon damage (the better of two weapons, R26) + Joker + crit dice."""
        weapon = max(self.weapon_damage, self.off_hand_damage or 0) + self.joker_bonus
        return weapon + self.doubled + self.critical_damage


def _dr(defender: Fighter, attack: Attack, weapon: Weapon, options: RuleOptions) -> tuple[int, int]:
    """R17: the armor column less the weapon's Armor Piercing, never below 0; (dr, ap used)."""
    armor = defender.armor
    if armor is None or not defender.armor_intact or attack.bypass:
        return 0, 0
    column = armor.dr_against(attack.attack_type, options.attack_types_vs_armor)
    return max(0, column - weapon.armor_piercing), min(column, weapon.armor_piercing)


def _critical_dice(attacker: Fighter, attack: Attack, options: RuleOptions) -> tuple[int, int, bool]:
    """R16: (number of crit dice, their sides, dynamic?)."""
    if options.critical_damage is CriticalDamage.SIMPLE_D10:
        return 1, 10, False
    dynamic = options.dynamic_criticals and attack.attack_type in attacker.weapon.primary and attack.dice >= 2
    return (attack.dice if dynamic else 1), CRIT_DIE[attack.attack_type], dynamic


def roll_damage(
    attacker: Fighter,
    defender: Fighter,
    attack: Attack,
    dice: DiceSource,
    *,
    critical: bool,
    options: RuleOptions | None = None,
) -> DamageRoll:
    """R16, R17, R26: weapon damage (+Joker) + crit dice, combined, then minus DR.

    Two weapons roll both and keep the better. A bypassing hit ignores DR. A hit on the armor goes to
    the armor's HP after its Hardness. A Bash critical is nonlethal by default: DR is taken from the
    combined damage, the lethal share first, and what is left of the crit dice is nonlethal. With the
    Knock-Out option the basic damage is dealt as usual and basic + crit (before DR) is the Will TN.
    """
    options = options or DEFAULT_OPTIONS
    weapon = attacker.weapon
    faces, weapon_damage = weapon.damage.roll(dice)
    result = DamageRoll(weapon=weapon.name, faces=faces, weapon_damage=weapon_damage)
    if attack.two_weapons and attacker.off_hand is not None:
        off_faces, off_damage = attacker.off_hand.damage.roll(dice)
        result.off_hand_weapon = attacker.off_hand.name
        result.off_hand_faces = off_faces
        result.off_hand_damage = off_damage
        if off_damage > weapon_damage:
            weapon = attacker.off_hand
    base = max(weapon_damage, result.off_hand_damage or 0) + attack.joker_bonus
    result.joker_bonus = attack.joker_bonus
    if critical:
        if options.critical_damage is CriticalDamage.DOUBLE:
            result.critical_damage = max(weapon_damage, result.off_hand_damage or 0)
        else:
            count, sides, dynamic = _critical_dice(attacker, attack, options)
            result.critical_faces = tuple(dice.roll(sides) for _ in range(count))
            result.critical_damage = sum(result.critical_faces)
            result.critical_die = sides
            result.dynamic = dynamic
    if attack.double_damage:
        result.doubled = base
        base *= 2
    combined = base + result.critical_damage
    if attack.at_shield and defender.shield is not None:
        result.shield = defender.shield.name
        result.dr = defender.shield.toughness
        result.shield_damage = max(0, combined - defender.shield.toughness)
        return result
    if attack.at_armor and defender.armor is not None:
        result.armor = defender.armor.name
        result.dr = defender.armor.hardness
        result.armor_damage = max(0, combined - defender.armor.hardness)
        return result
    dr, ap = _dr(defender, attack, weapon, options)
    result.armor = defender.armor.name if defender.armor is not None else None
    result.dr, result.armor_piercing, result.bypassed = dr, ap, attack.bypass
    after_dr = max(0, combined - dr)
    if critical and attack.attack_type is AttackType.BASH:
        lethal = max(0, base - dr)
        result.lethal = lethal
        if options.bash_critical is BashCritical.KNOCKOUT:
            result.knockout_threat = combined
        else:
            result.nonlethal = after_dr - lethal
    else:
        result.lethal = after_dr
    return result


class ShieldDamage(BaseModel):
    """R17: a Bind against an active shield defense: the attacking weapon's damage less Toughness."""

    shield: str
    faces: tuple[int, ...]
    rolled: int
    toughness: int
    damage: int


class WeaponDamage(BaseModel):
    """R17 (option ``weapon_damage_in_binds``): a Bind may have damaged the defender's weapon. The Codex
    gives no number for it, so how much is the GM's; a defender with Fuhlen is immune."""

    weapon: str
    fuhlen: bool = False
    """The defender holds Fuhlen: its weapon takes no damage."""
