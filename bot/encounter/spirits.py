"""Spirits in a fight (R27): the spiritual attack and the score it drains, the effect at 0, a
possessing spirit driven out, and a drained mind healed.

The fight's bookkeeping over :mod:`bot.rules.spirits`, like :mod:`bot.encounter.attacks` is for attacks:
plain work on the fight document, no Discord. The fight keeps the INT, WIS and CHA scores a spiritual
attack lowers (from the sheet, or rated 7 + modifier at the first drain); the attack spends no Martial
Pool dice; a refusal raises having changed nothing.
"""

from __future__ import annotations

from ..notation import roll_notation
from ..rules.dice import D20Witness, DiceSource
from ..rules.engagement import Distance
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.initiative import RollKind
from ..rules.spirits import (
    CHA_AFTER_POSSESSION,
    RECOVERED_AT,
    SpiritEffect,
    SpiritProtection,
    SpiritTarget,
    heal_score,
    spiritual_attack,
)
from ..wording.spirits import driven_out_log_line, mind_healed_log_line, spirit_log_line
from .combatants import Combatant
from .document import Encounter
from .done import Done
from .fighters import joker_bonus
from .morale import driven_out_check_refused, propose_driven_out_check
from .permissions import Actor, acting_combatant, require_gm, require_turn
from .results import DrivenOut, MindHealed, SpiritAttack

DOING = "make a spiritual attack"


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
    """R27 on the fight: the acting spirit, on its own turn (R1), against a living combatant. The drain
    lowers the score the fight keeps (``defender_score`` replaces it first, when the GM knows better;
    none kept, it is rated 7 + modifier), and the effect at 0 becomes a condition on the defender, which
    gives it to the GM (:func:`~bot.encounter.permissions.controls`)."""
    witness = D20Witness(dice)  # every d20 rolled is kept in the log line (/stats dice)
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
    distance = encounter.engagement_now(spirit, defender).distance
    if distance is not Distance.NEAR:
        raise IllegalAction(
            f"A spiritual attack is not a ranged attack: {shown(spirit.name)} must move into contact with "
            f"{shown(defender.name)}, who is {distance.label} away (R27). Move it in, then set the distance "
            "with `/situation distance distance:near`."
        )
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
    rolled = roll_notation(damage_dice, witness) if damage_dice is not None else None
    drained = rolled.total if rolled is not None else damage or 0
    if drained < 0:
        raise RulesError(f"The damage came to {drained}; a spiritual attack drains 0 or more points.")
    kept = defender.score(ability) if defender_score is None else defender_score
    result = spiritual_attack(
        witness,
        attacker_modifier=modifier,
        defender_modifier=defender.modifier(ability) if defender_modifier is None else defender_modifier,
        ability=ability,
        protections=(protection,) if protection is not None else (),
        confirmed=confirmed,
        proficiency=defender.proficiency if proficiency is None else proficiency,
        communion_last_week=communion,
        damage=drained,
        defender_score=kept,
        joker_bonus=joker_bonus(encounter, spirit, RollKind.ATTACK),
    )
    if kept is not None or result.attacker_wins:
        defender.keep_score(ability, result.score_after)
    encounter.initiative.use_turn(spirit.holder)
    marked = mark_effect(defender, result.effect.value) if result.effect is not None else False
    attack = SpiritAttack(
        spirit=spirit.name,
        defender=defender.name,
        result=result,
        damage_roll=rolled if result.attacker_wins else None,
        condition_added=marked,
    )
    return Done(attack, log=[spirit_log_line(attack)], kind="spirit").rolled(witness)


def drive_out(
    encounter: Encounter, actor: Actor, *, target: str, spirit: str | None = None
) -> Done[DrivenOut]:
    """R27: the GM rules a possessing spirit driven out (by divine means): the person is its own again
    at CHA 1, and Frightened until its CHA is healed to 3 (``/spirit heal``). R22: the ``spirit`` named,
    if it is in the fight, is proposed a morale check (not a player character's)."""
    require_gm(encounter, actor, "rule a spirit driven out")
    person = encounter.combatant(target)
    leaving = encounter.combatant(spirit) if spirit is not None else None
    if leaving is not None and not leaving.spirit:
        raise IllegalAction(
            f"{shown(leaving.name)} is not a spirit; name the demon, ghost or spirit that possessed "
            f"{shown(person.name)}, or leave `spirit:` out."
        )
    possessed = person.condition_named(SpiritEffect.POSSESSED.value)
    if possessed is None:
        raise IllegalAction(
            f"{shown(person.name)} is not possessed: only a person a spirit drained to CHA 0 is (R27)."
        )
    person.remove_condition(possessed)
    before = person.cha_score
    person.keep_score(SpiritTarget.CHA, CHA_AFTER_POSSESSION)
    person.driven_out = True
    refused = driven_out_check_refused(encounter, leaving) if leaving is not None else None
    proposed = propose_driven_out_check(encounter, leaving, person) if leaving is not None else None
    out = DrivenOut(
        person=person.name,
        cha_before=before,
        cha_after=CHA_AFTER_POSSESSION,
        spirit=leaving.name if leaving is not None else None,
        proposal=proposed,
        no_check=refused,
    )
    return Done(out, log=[driven_out_log_line(out)], kind="spirit")


def heal_mind(
    encounter: Encounter, actor: Actor, *, target: str, ability: SpiritTarget, points: int
) -> Done[MindHealed]:
    """R27: the GM heals a drained INT, WIS or CHA by ``points``. At 3 or more the feeble-minded or mad
    are their player's again, and a person a spirit was driven out of is no longer Frightened; the
    possessed stay so until the spirit is driven out, whatever their CHA."""
    require_gm(encounter, actor, "heal an ability score")
    person = encounter.combatant(target)
    score = person.score(ability)
    if score is None:
        raise IllegalAction(
            f"The fight keeps no {ability.value} score for {shown(person.name)}: nothing drained it, so "
            "there is nothing to heal (R27)."
        )
    healing = heal_score(ability, score, points)
    if healing.after == score:
        raise IllegalAction(f"{shown(person.name)}'s {ability.value} is already {score}, the most it can be.")
    person.keep_score(ability, healing.after)
    ended: str | None = None
    if healing.after >= RECOVERED_AT:
        effect = ability.effect_at_zero
        held = person.condition_named(effect.value) if effect is not SpiritEffect.POSSESSED else None
        if held is not None:
            ended = person.remove_condition(held)
        elif ability is SpiritTarget.CHA and person.driven_out:
            person.driven_out = False
            ended = "frightened"
    still = person.condition_named(SpiritEffect.POSSESSED.value) is not None
    healed = MindHealed(person=person.name, healing=healing, ended=ended, still_possessed=still)
    return Done(healed, log=[mind_healed_log_line(healed)], kind="spirit")
