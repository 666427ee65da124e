"""Spiritual attacks in a fight (R27): the acting spirit, its target, the drain and the effect at 0.

The fight's bookkeeping over :func:`~bot.rules.spirits.spiritual_attack`, like
:mod:`bot.encounter.attacks` is for attacks: plain work on the fight document, no Discord. The attack
spends no Martial Pool dice; a refusal raises having changed nothing.
"""

from __future__ import annotations

from ..notation import roll_notation
from ..rules.dice import DiceSource
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.initiative import RollKind
from ..rules.spirits import SpiritProtection, SpiritTarget, spiritual_attack
from .document import Combatant, Encounter
from .done import Done
from .fighters import joker_bonus
from .log_lines import spirit_log_line
from .permissions import Actor, acting_combatant, require_turn
from .results import SpiritAttack

DOING = "make a spiritual attack"


def defender_modifier_of(target: Combatant, ability: SpiritTarget, given: int | None) -> int:
    """The defender's modifier for the check: the one given, else the fight's WIS or CHA modifier.

    The fight keeps no INT modifier, so an attack on INT needs it given."""
    if given is not None:
        return given
    if ability is SpiritTarget.WIS:
        return target.wis_mod
    if ability is SpiritTarget.CHA:
        return target.cha_mod
    raise RulesError(
        f"The fight does not know {shown(target.name)}'s INT modifier; give it with `defender_modifier:`."
    )


def mark_effect(target: Combatant, effect: str) -> bool:
    """R27: the effect at 0 becomes a condition on the defender, when it has room for one more."""
    if target.condition_named(effect) is not None:
        return False
    try:
        target.add_condition(effect)
    except IllegalAction:
        return False
    return True


def make_spiritual_attack(
    encounter: Encounter,
    actor: Actor,
    dice: DiceSource,
    *,
    who: str | None,
    target: str,
    ability: SpiritTarget,
    modifier: int,
    defender_modifier: int | None,
    defender_score: int | None,
    protection: SpiritProtection | None,
    confirmed: bool,
    proficiency: int | None,
    communion: bool,
    damage: int | None,
    damage_dice: str | None,
) -> Done[SpiritAttack]:
    """R27 on the fight: the acting spirit, on its own turn (R1), against a living combatant; the
    effect at 0 becomes a condition on the defender."""
    spirit = acting_combatant(encounter, actor, who, DOING)
    if not spirit.spirit:
        raise IllegalAction(
            f"{shown(spirit.name)} is not a spirit; only spirits make spiritual attacks (R27). "
            "Living fighters use /attack."
        )
    if spirit.out_of_the_fight:
        raise IllegalAction(f"{shown(spirit.name)} is {spirit.state_label} and cannot attack (R27).")
    require_turn(encounter, spirit, DOING)
    defender = encounter.combatant(target)
    if defender.id == spirit.id:
        raise IllegalAction(f"{shown(spirit.name)} cannot attack itself; pick a target.")
    if defender.spirit:
        raise IllegalAction(
            f"{shown(defender.name)} is a spirit too: spirits fight each other with their standard attack "
            "(/attack), not a spiritual one (R27)."
        )
    if (damage is None) == (damage_dice is None):
        given = "both" if damage is not None else "neither"
        raise RulesError(
            f"You gave {given} of `damage:` and `damage_dice:`. Give the spirit's damage as a number "
            "(`damage: 3`) or as dice to roll (`damage_dice: 1d6`)."
        )
    rolled = roll_notation(damage_dice, dice) if damage_dice is not None else None
    drained = rolled.total if rolled is not None else damage or 0
    if drained < 0:
        raise RulesError(f"The damage came to {drained}; a spiritual attack drains 0 or more points.")
    result = spiritual_attack(
        dice,
        attacker_modifier=modifier,
        defender_modifier=defender_modifier_of(defender, ability, defender_modifier),
        ability=ability,
        protections=(protection,) if protection is not None else (),
        confirmed=confirmed,
        proficiency=defender.proficiency if proficiency is None else proficiency,
        communion_last_week=communion,
        damage=drained,
        defender_score=defender_score,
        joker_bonus=joker_bonus(encounter, spirit, RollKind.ATTACK),
    )
    marked = mark_effect(defender, result.effect.value) if result.effect is not None else False
    attack = SpiritAttack(
        spirit=spirit.name,
        defender=defender.name,
        result=result,
        damage_roll=rolled if result.attacker_wins else None,
        condition_added=marked,
    )
    return Done(attack, log=[spirit_log_line(attack)], kind="spirit")
