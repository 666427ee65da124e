"""Resolving an attack: bonus, passive and active defense, the R14 order, criticals, damage and armor
(R9, R11, R13-R18, R26).

An exchange happens in steps, as at the table: :func:`roll_attack` rolls the attacker's dice, the
defender picks a defense (:func:`passive_defense` or :func:`roll_active_defense`), and
:func:`resolve_exchange` judges it and rolls damage. :func:`resolve_attack` does all three at once.
:func:`judge` is the R13/R14 decision on bare numbers; the exact odds use it too.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_pool, sum_of
from .engagement import Range, check_weapon_at_range
from .equipment import Armor, AttackType, Shield, Weapon
from .errors import IllegalAction, RulesError
from .feats import MartialFeat
from .options import DEFAULT_OPTIONS, BashCritical, CriticalDamage, MissileTie, PassiveTie, RuleOptions
from .spirits import check_physical_attack

UNDEFENDED_MELEE = 2
UNDEFENDED_MISSILE = 8
PASSIVE_BASE = 8
TWO_WEAPON_BONUS = 1
MAX_COVER_QUARTERS = 4
CRIT_DIE = {AttackType.BASH: 6, AttackType.PIERCE: 6, AttackType.CHOP: 8, AttackType.SLASH: 10}


class Fighter(BaseModel):
    """What the rules need to know of a combatant to attack or defend."""

    name: str
    prowess: int = Field(ge=0)
    dex_mod: int = 0
    weapon: Weapon
    off_hand: Weapon | None = None
    armor: Armor | None = None
    armor_hp: int | None = None
    """The armor's hit points left (R17); None means undamaged."""
    shield: Shield | None = None
    shield_hp: int | None = None
    spirit: bool = False
    feats: frozenset[MartialFeat] = frozenset()
    """The Martial Feats the GM granted (R13, R14, R17)."""

    @property
    def capped_dex(self) -> int:
        """R13: the Dex modifier, capped by the armor's Max Dex."""
        if self.armor is not None and self.armor.max_dex is not None:
            return min(self.dex_mod, self.armor.max_dex)
        return self.dex_mod

    @property
    def armor_intact(self) -> bool:
        """R17: armor at 0 HP gives no DR until repaired."""
        return self.armor is not None and (self.armor_hp is None or self.armor_hp > 0)

    @property
    def shield_intact(self) -> bool:
        return self.shield is not None and (self.shield_hp is None or self.shield_hp > 0)


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


class Outcome(StrEnum):
    HIT = "hit"
    MISS = "miss"
    BIND = "bind"


class Judgement(BaseModel):
    """The R13/R14 decision: the outcome, and the facts around it."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    critical: bool = False
    fumble: bool = False
    counterattack: bool = False
    near_miss: bool = False
    declarable: bool = False
    """R13 (``passive_tie: declared``): a tie against a passive defense, a miss that either side with
    dice left may declare a Bind."""
    rule: str
    """Which ruling or R14 step decided, e.g. ``R14.3``."""


@cache
def _verdict(
    outcome: Outcome,
    rule: str,
    critical: bool = False,
    fumble: bool = False,
    counterattack: bool = False,
    near_miss: bool = False,
    declarable: bool = False,
) -> Judgement:
    """Judgements are few and frozen: each is built once, and the same one is returned for the same
    decision (the exact odds count them by identity, which keeps them fast). Positional, so the cache
    key is cheap."""
    return Judgement(
        outcome=outcome,
        rule=rule,
        critical=critical,
        fumble=fumble,
        counterattack=counterattack,
        near_miss=near_miss,
        declarable=declarable,
    )


def _hit(rule: str, critical: bool, counterattack: bool = False) -> Judgement:
    return _verdict(Outcome.HIT, rule, critical, False, counterattack)


def _tie(rule: str, near_miss: bool) -> Judgement:
    if near_miss:
        return _verdict(Outcome.MISS, rule, False, False, False, True)
    return _verdict(Outcome.BIND, rule)


def judge(
    *,
    attack_face: int,
    attack_fumble: bool,
    attack_total: int,
    defense_face: int | None,
    defense_total: int,
    void: bool = False,
    missile: bool = False,
    automatic: bool = False,
    options: RuleOptions | None = None,
) -> Judgement:
    """R13, R14, R16, R18 on bare numbers. ``defense_face`` is None for a passive defense.

    A critical needs a natural 20 that counts and a total above the defense's total (R16). An
    ``automatic`` hit (R25: a helpless target in melee) hits whatever the dice show; a natural 20
    above the defense is still a critical."""
    options = options or DEFAULT_OPTIONS
    near_miss = ties_are_near_misses(missile, options)
    declared = passive_ties_declared(options)
    return decide(
        attack_face,
        attack_fumble,
        attack_total,
        defense_face,
        defense_total,
        void,
        near_miss,
        automatic,
        declared,
    )


def ties_are_near_misses(missile: bool, options: RuleOptions) -> bool:
    """Whether a tie is a near miss rather than a Bind: a missile attack under that option (R13)."""
    return missile and options.missile_tie is MissileTie.NEAR_MISS


def passive_ties_declared(options: RuleOptions) -> bool:
    """Whether a tie against a passive defense is a miss either side may declare a Bind (R13)."""
    return options.passive_tie is PassiveTie.DECLARED


DECLARED_BIND = _verdict(Outcome.BIND, "R13")
"""R13: the Bind a side declared on a passive tie."""


def decide(
    attack_face: int,
    attack_fumble: bool,
    attack_total: int,
    defense_face: int | None,
    defense_total: int,
    void: bool,
    tie_is_near_miss: bool,
    automatic: bool = False,
    passive_tie_declared: bool = False,
) -> Judgement:
    """:func:`judge` with its arguments in order and the ties already settled
    (:func:`ties_are_near_misses`, :func:`passive_ties_declared`): for the exact odds, which ask it
    hundreds of times."""
    critical = attack_face == 20 and attack_total > defense_total

    if automatic:
        return _hit("R25", critical)
    if defense_face is None:
        if attack_fumble:
            return _verdict(Outcome.MISS, "R18", False, True)
        if attack_face == 20:
            return _hit("R16", critical)
        if attack_total == defense_total:
            if passive_tie_declared and not tie_is_near_miss:
                return _verdict(Outcome.MISS, "R13", False, False, False, False, True)
            return _tie("R13", tie_is_near_miss)
        if attack_total > defense_total:
            return _hit("R13", critical)
        return _verdict(Outcome.MISS, "R13")

    if attack_face == 1 and defense_face == 1 and not void:
        return _tie("R14.1", tie_is_near_miss)
    if defense_face == 1 and attack_face != 1:
        return _hit("R14.2", critical)
    if attack_face == 20:
        return _hit("R14.3", critical, counterattack=defense_face == 20)
    if defense_face == 20:
        return _verdict(Outcome.MISS, "R14.4", False, False, True)
    if attack_fumble and defense_face != 1:
        return _verdict(Outcome.MISS, "R14.5", False, True, True)
    if attack_face == defense_face and not void:
        return _tie("R14.6", tie_is_near_miss)
    if attack_total > defense_total:
        return _hit("R14.7", critical)
    return _verdict(Outcome.MISS, "R14.7")


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


class AttackResult(BaseModel):
    """Every fact a message about one attack needs."""

    attacker: str
    defender: str
    attack: AttackRoll
    defense: Defense
    judgement: Judgement
    damage: DamageRoll | None = None
    shield_damage: ShieldDamage | None = None
    weapon_damage: WeaponDamage | None = None
    attacker_bind_choice: int | None = None
    """R9: the index of another attacker die that would make a Bind, when one exists."""
    defender_bind_choice: int | None = None
    desperation: Defense | None = None
    """R15: the second active-defense roll, when one was made."""

    @property
    def outcome(self) -> Outcome:
        return self.judgement.outcome

    @property
    def hit(self) -> bool:
        return self.judgement.outcome is Outcome.HIT

    @property
    def counterattacker(self) -> str | None:
        """R14: the defender, when the exchange lets it counterattack (if it has dice left)."""
        return self.defender if self.judgement.counterattack else None


def _bind_choice(roll: PoolRoll, other_face: int | None) -> int | None:
    """R9: another available die showing the other side's counting face, if that is not already it."""
    if other_face is None or roll.value == other_face:
        return None
    return roll.index_of_face(other_face)


def judge_exchange(attack: AttackRoll, defense: Defense, options: RuleOptions | None = None) -> Judgement:
    """R13/R14 for rolled dice."""
    return judge(
        attack_face=attack.roll.value,
        attack_fumble=attack.roll.fumble,
        attack_total=attack.total,
        defense_face=defense.roll.value if defense.roll is not None else None,
        defense_total=defense.total,
        void=defense.void,
        missile=attack.missile,
        automatic=attack.attack.automatic,
        options=options,
    )


def resolve_exchange(
    attacker: Fighter,
    defender: Fighter,
    attack: AttackRoll,
    defense: Defense,
    dice: DiceSource,
    options: RuleOptions | None = None,
    *,
    bind_declared: bool = False,
) -> AttackResult:
    """R13-R18: judge the exchange, then roll damage on a hit and shield damage on a shield Bind.

    ``bind_declared``: a side declared a Bind on a passive tie (R13, ``passive_tie: declared``). With
    ``weapon_damage_in_binds``, a Bind not taken on the shield may have damaged the defender's weapon
    (R17; how much is the GM's), unless the defender holds Fuhlen."""
    options = options or DEFAULT_OPTIONS
    judgement = judge_exchange(attack, defense, options)
    if bind_declared:
        if not judgement.declarable:
            raise IllegalAction("Only a tie against a passive defense can be declared a Bind (R13).")
        judgement = DECLARED_BIND
    result = AttackResult(
        attacker=attacker.name, defender=defender.name, attack=attack, defense=defense, judgement=judgement
    )
    if judgement.outcome is Outcome.HIT:
        result.damage = roll_damage(
            attacker, defender, attack.attack, dice, critical=judgement.critical, options=options
        )
    elif judgement.outcome is Outcome.BIND and defense.shield and defender.shield is not None:
        faces, rolled = attacker.weapon.damage.roll(dice)
        rolled += attack.attack.joker_bonus
        toughness = defender.shield.toughness
        result.shield_damage = ShieldDamage(
            shield=defender.shield.name,
            faces=faces,
            rolled=rolled,
            toughness=toughness,
            damage=max(0, rolled - toughness),
        )
    elif judgement.outcome is Outcome.BIND and options.weapon_damage_in_binds:
        fuhlen = MartialFeat.FUHLEN in defender.feats
        result.weapon_damage = WeaponDamage(weapon=defender.weapon.name, fuhlen=fuhlen)
    if judgement.outcome is not Outcome.BIND and defense.roll is not None and not defense.void:
        result.attacker_bind_choice = _bind_choice(attack.roll, defense.roll.value)
        result.defender_bind_choice = _bind_choice(defense.roll, attack.roll.value)
    return result


def resolve_attack(
    attacker: Fighter,
    defender: Fighter,
    attack: Attack,
    dice: DiceSource,
    *,
    defense: Literal["passive", "active", "undefended"] = "passive",
    defense_dice: int = 0,
    shield: bool = False,
    void: bool = False,
    cover_quarters: int = 0,
    defense_advantage: Advantage = Advantage.NONE,
    options: RuleOptions | None = None,
) -> AttackResult:
    """R9-R18 in one call: roll the attack, the defense, judge, and roll damage."""
    rolled = roll_attack(attacker, defender, attack, dice)
    if defense == "active":
        chosen = roll_active_defense(
            defender,
            rolled,
            dice,
            committed=defense_dice,
            shield=shield,
            void=void,
            cover_quarters=cover_quarters,
            advantage=defense_advantage,
        )
    else:
        chosen = passive_defense(
            defender, missile=rolled.missile, undefended=defense == "undefended", at=attack.range
        )
    return resolve_exchange(attacker, defender, rolled, chosen, dice, options)


_DEFENDER_RANK = {Outcome.HIT: 0, Outcome.BIND: 2, Outcome.MISS: 3}


def _defender_rank(judgement: Judgement) -> tuple[int, int]:
    return (_DEFENDER_RANK[judgement.outcome] - int(judgement.critical), int(judgement.counterattack))


class Desperation(BaseModel):
    """R15: the second defense, which one stood, and its price."""

    result: AttackResult
    improved: bool
    swap_initiative: bool
    """The defender had the initiative: the two swap initiative next round."""
    pool_penalty: int
    """The defender did not: it loses this many dice next round (R6)."""


def desperation_defense(
    first: AttackResult,
    attacker: Fighter,
    defender: Fighter,
    dice: DiceSource,
    *,
    dice_left: int,
    defender_has_initiative: bool,
    cover_quarters: int = 0,
    options: RuleOptions | None = None,
) -> Desperation:
    """R15: a defender hit while defending actively may spend all remaining dice on a second active
    defense; the better defense stands (the one whose outcome is better for the defender). Spend the
    pool (Spend.DESPERATION_DEFENSE) before calling this."""
    if not first.defense.active:
        raise IllegalAction("A desperation defense follows an active defense only.")
    if not first.hit:
        raise IllegalAction("A desperation defense is for an attack that hit; this one did not.")
    if first.desperation is not None:
        raise IllegalAction("This attack already met a desperation defense.")
    if dice_left < 1:
        raise IllegalAction("A desperation defense needs at least one die left in your Martial Pool.")
    shield = first.defense.shield and defender.shield_intact
    second = roll_active_defense(
        defender,
        first.attack,
        dice,
        committed=dice_left,
        shield=shield,
        void=first.defense.void,
        cover_quarters=cover_quarters,
    )
    improved = _defender_rank(judge_exchange(first.attack, second, options)) > _defender_rank(first.judgement)
    stood = (
        resolve_exchange(attacker, defender, first.attack, second, dice, options)
        if improved
        else first.model_copy()
    )
    stood.desperation = second
    return Desperation(
        result=stood,
        improved=improved,
        swap_initiative=defender_has_initiative,
        pool_penalty=0 if defender_has_initiative else 1,
    )
