"""A judged exchange put on the fight and taken back: damage, armor and shield damage, Grapple, and the
attacks it owes (R12-R17); and which follow-ups it leaves open (R9, R13, R15)."""

from __future__ import annotations

from ...rules.engagement import Range
from ...rules.exchange import AttackResult
from ...rules.feats import bind_feat
from ...rules.fighter import Fighter
from ...rules.judgement import Outcome
from ...rules.options import BindFeats
from ..combatants import Combatant
from ..document import Encounter
from ..fighters import may_take_attack_owed
from ..records import Applied, Exchange, Reaction, ReactionKind


def apply_result(
    encounter: Encounter,
    exchange: Exchange,
    result: AttackResult,
    attacker: Combatant,
    defender: Combatant,
    defending: Fighter,
) -> None:
    """Put the result on the fight: damage, armor and shield damage, Grapple, counterattack (R12-R17).

    Choice: a grapple attack that hits puts the pair in Grapple instead of dealing damage (the blow
    is spent seizing the foe); the grappled target may then take an opportunity attack (R12).
    """
    applied = Applied()
    damage = result.damage
    if damage is not None and exchange.attack.attack.grapple:
        engagement = encounter.engagement(attacker, defender)
        applied.range_before = engagement.range
        engagement.enter_grapple()
        if may_take_attack_owed(defender):
            owe(
                encounter,
                ReactionKind.OPPORTUNITY,
                defender,
                attacker,
                "was grappled",
                at=applied.range_before,
            )
    elif damage is not None:
        hp_before = defender.hp
        defender.hp = defender.clamp_hp(defender.hp - damage.lethal)
        defender.nonlethal += damage.nonlethal
        applied.hp, applied.nonlethal = hp_before - defender.hp, damage.nonlethal  # HP as really lost
        if damage.armor_damage and defending.armor is not None:
            applied.armor_changed, applied.armor_hp_before = True, defender.armor_hp
            current = defending.armor.hp if defender.armor_hp is None else defender.armor_hp
            defender.armor_hp = max(0, current - damage.armor_damage)
        if damage.shield_damage and defending.shield is not None:
            applied.shield_changed, applied.shield_hp_before = True, defender.shield_hp
            current = defending.shield.hp if defender.shield_hp is None else defender.shield_hp
            defender.shield_hp = max(0, current - damage.shield_damage)
    if result.shield_damage is not None and result.shield_damage.damage and defending.shield is not None:
        applied.shield_changed, applied.shield_hp_before = True, defender.shield_hp
        current = defending.shield.hp if defender.shield_hp is None else defender.shield_hp
        defender.shield_hp = max(0, current - result.shield_damage.damage)
    exchange.result = result
    exchange.applied = applied
    exchange.follow_ups = _has_follow_ups(result, attacker, defender)
    exchange.step += 1
    if result.judgement.counterattack and may_take_attack_owed(defender):
        owe(encounter, ReactionKind.COUNTERATTACK, defender, attacker, "won the exchange")
    if result.outcome is Outcome.BIND:
        owe_bind_attacks(encounter, attacker, defender)


def owe_bind_attacks(encounter: Encounter, attacker: Combatant, defender: Combatant) -> None:
    """R14: a Bind gives each side holding Bind & Strike or Mutieren, with dice left, an attack on the
    other; when both hold one, the two land together (or the initiative's first: ``bind_feats``)."""
    striking = [
        (holder, opponent, feat)
        for holder, opponent in ((attacker, defender), (defender, attacker))
        if (feat := bind_feat(holder.feats)) is not None and may_take_attack_owed(holder)
    ]
    together = len(striking) == 2 and encounter.options.bind_feats is BindFeats.SIMULTANEOUS
    for holder, opponent, feat in striking:
        owed = owe(encounter, ReactionKind.BIND_ATTACK, holder, opponent, f"{feat.value} on the Bind")
        if together and not owed.together:
            encounter.reactions[encounter.reactions.index(owed)] = owed.model_copy(update={"together": True})


def _has_follow_ups(result: AttackResult, attacker: Combatant, defender: Combatant) -> bool:
    desperation = may_desperately_defend(result, defender)
    declarable = may_declare_bind(result, attacker) or may_declare_bind(result, defender)
    choices = result.attacker_bind_choice is not None or result.defender_bind_choice is not None
    return desperation or declarable or choices


def may_declare_bind(result: AttackResult, side: Combatant) -> bool:
    """R13 (``passive_tie: declared``): a tie against a passive defense is a miss that ``side`` may
    declare a Bind, if it has Martial Pool dice left ("if they have any MP remaining")."""
    return result.judgement.declarable and not side.out_of_the_fight and side.pool.remaining > 0


def may_desperately_defend(result: AttackResult, defender: Combatant) -> bool:
    """R15: hit while defending actively, not already desperate, with dice left; and only when a second
    defense could change something: not against a natural 20 (R14.3 hits whatever the defense rolls),
    nor against a hit that does nothing (no damage to HP or armor, and no grapple to escape), where it
    would only cost the dice."""
    if not (result.hit and result.defense.active and result.desperation is None):
        return False
    if defender.pool.remaining < 1 or result.attack.roll.value == 20:
        return False
    damage = result.damage
    harmful = (
        damage is not None
        and (damage.lethal + damage.nonlethal + damage.armor_damage + damage.shield_damage) > 0
    )
    return harmful or result.attack.attack.grapple


def undo_result(encounter: Encounter, exchange: Exchange, attacker: Combatant, defender: Combatant) -> None:
    """Take back what the exchange did, before a new result replaces it (R9, R15)."""
    applied = exchange.applied
    defender.hp = defender.clamp_hp(defender.hp + applied.hp)
    defender.nonlethal = max(0, defender.nonlethal - applied.nonlethal)
    if applied.armor_changed:
        defender.armor_hp = applied.armor_hp_before
    if applied.shield_changed:
        defender.shield_hp = applied.shield_hp_before
    if applied.range_before is not None:
        encounter.engagement(attacker, defender).range = applied.range_before
    encounter.reactions = [
        r
        for r in encounter.reactions
        if not (r.by == defender.id and r.against == attacker.id)
        and not (r.by == attacker.id and r.against == defender.id and r.kind is ReactionKind.BIND_ATTACK)
    ]
    exchange.applied = Applied()


def owe(
    encounter: Encounter,
    kind: ReactionKind,
    by: Combatant,
    against: Combatant,
    reason: str,
    *,
    at: Range | None = None,
) -> Reaction:
    """``by`` may make a ``kind`` on ``against`` this round (one of each kind per pair)."""
    owed = encounter.reaction(by, against, kind)
    if owed is not None:
        return owed
    reaction = Reaction(
        kind=kind, by=by.id, against=against.id, round=encounter.initiative.round, reason=reason, at=at
    )
    encounter.reactions.append(reaction)
    return reaction
