"""``/attack against_ac:`` (R24): one plain d20 against the target's Armor Class."""

from __future__ import annotations

from ...catalog import Catalog
from ...rules.armor_class import armor_class_behind, attack_against_ac, defender_armor_class
from ...rules.attack_rolls import attack_bonus, check_attack
from ...rules.damage import roll_damage
from ...rules.dice import D20Witness, DiceSource, sum_of
from ...rules.errors import IllegalAction
from ...wording.attacks import ac_attack_log_line
from ..combatants import Combatant, Side
from ..document import Encounter
from ..done import Done
from ..fighters import fighter
from ..permissions import Actor, acting_combatant, require_control
from ..results import AcAttack
from .choices import Declaration
from .declare import SPEND, record_blow
from .planning import attack_kind, plan_attack, require_able, weapon_for

AGAINST_AC_CONFLICTS = {
    "grapple": "a grapple is a Martial Pool attack (R12)",
    "bypass": "`bypass_armor:` aims past armor that the AC already counts",
    "at_armor": "`at_armor:` strikes the armor's HP, which a foe with only an AC does not have",
    "at_shield": "`at_shield:` strikes the shield's HP, which the AC already counts as +2",
    "helpless": "`helpless:` is the undefended defense of the Martial Pool (R13); against an AC, "
    "use `situation:` or `bonus:`",
}
"""R24: the /attack options that have no meaning against an Armor Class, and why."""


def _require_plain_against_ac(declared: Declaration) -> None:
    """R24: refuse, naming each, the options an attack against AC cannot honour (nothing is spent)."""
    if declared.dice > 1:
        raise IllegalAction(
            "An attack against AC is one plain d20 (R24): leave out `dice:`, or attack with the Martial "
            "Pool by leaving out `against_ac:`."
        )
    given = {"grapple": declared.grapple, "bypass": declared.bypass, "at_armor": declared.at_armor}
    given["at_shield"] = declared.at_shield
    given["helpless"] = declared.helpless
    wrong = [why for option, why in AGAINST_AC_CONFLICTS.items() if given[option]]
    if wrong:
        raise IllegalAction(
            f"`against_ac:` cannot go with that: {'; '.join(wrong)}. Nothing was rolled or spent."
        )


def attack_armor_class(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    attacker: Combatant,
    target: Combatant,
    declared: Declaration,
    dice: DiceSource,
) -> AcAttack:
    """R24: a plain d20 + Prowess + weapon bonus (R11) against the target's AC, hitting on total >= AC.

    Choices: it spends one Martial Pool die (it is the round's attack all the same) and counts toward
    the pair's range like any attack (R12: a second attack in the round is at Melee, with Speed); the
    AC is :func:`~bot.rules.armor_class.defender_armor_class`; a natural 20 is a critical (R16 dice)
    and DR does not apply (the AC already counts the armor). What has no meaning against an AC is
    refused before anything is spent: more than one die, a grapple, bypassing or striking at the
    armor, a helpless target (R13's undefended defense is a Martial Pool one).
    """
    require_control(encounter, actor, attacker, "attack")
    require_able(encounter, attacker, target)
    _require_plain_against_ac(declared)
    kind = attack_kind(encounter, attacker, target)
    wielding = weapon_for(attacker, declared)
    attacking, defending = fighter(attacker, catalog, weapon=wielding), fighter(target, catalog)
    weapon = attacking.weapon
    planned = plan_attack(encounter, catalog, attacking, attacker, target, declared, kind)
    attack, situations = planned.attack, planned.situations
    check_attack(attacking, defending, attack)
    attacker.pool.spend(1, SPEND[kind])
    record_blow(encounter, attacker, target, planned, charge=declared.charge)
    encounter.engagement(attacker, target).record_attack(1, missile=weapon.is_missile)
    ac = defender_armor_class(
        defending.armor,
        target.dex_mod,
        shield=defending.shield is not None,
        monster_modifier=target.ac_modifier if target.side is Side.NPC else None,
        magic=target.magic_ac,
    )
    if weapon.is_missile:
        ac = armor_class_behind(ac, target.position.opening)
    parts = attack_bonus(attacking, defending, attack.model_copy(update={"joker_bonus": 0}))
    roll = attack_against_ac(
        dice,
        sum_of(parts),
        ac,
        situations.advantage,
        attack.joker_bonus,
        natural_results=encounter.options.ac_natural_results,
        automatic=attack.automatic,
    )
    hp_before = target.hp
    damage = None
    if roll.hit:
        unarmored = defending.model_copy(update={"armor": None})
        damage = roll_damage(
            attacking, unarmored, attack, dice, critical=roll.natural_20, options=encounter.options
        )
        target.hp = target.clamp_hp(target.hp - damage.lethal)
        target.nonlethal += damage.nonlethal
    return AcAttack(
        attacker=attacker.id,
        defender=target.id,
        weapon=wielding,
        bonus=parts,
        roll=roll,
        damage=damage,
        hp_before=hp_before,
        situations=planned.labels,
        notes=planned.notes,
        allies_in_melee=[c.name for c in planned.state.allies_in_melee] if weapon.is_missile else [],
    )


def ac_attack(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    *,
    who: str | None,
    target: str,
    declared: Declaration,
    dice: DiceSource,
) -> Done[AcAttack]:
    """``/attack against_ac:`` (R24): :func:`attack_armor_class` by the attacker named, else the user's."""
    attacker = acting_combatant(encounter, actor, who, "attack")
    witness = D20Witness(dice)
    result = attack_armor_class(
        encounter, catalog, actor, attacker, encounter.combatant(target), declared, witness
    )
    return Done(result, log=[ac_attack_log_line(encounter, result)], kind="attack").rolled(witness)
