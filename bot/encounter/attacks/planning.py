"""Who may attack whom, and how: the kind of attack the moment allows (R1, R12, R14), the weapon in
hand (R12, R26), and the attack as it would be made now with its situations (R25), read without
changing the fight (``/attack`` and ``/odds`` both start here)."""

from __future__ import annotations

from dataclasses import dataclass

from ...catalog import Catalog
from ...rules.attack_rolls import Attack, AttackKind
from ...rules.equipment import AttackType, Weapon
from ...rules.errors import IllegalAction, shown
from ...rules.fighter import Fighter
from ...rules.initiative import RollKind
from ...rules.morale import MoraleStanding
from ...rules.options import BindFeats
from ...rules.situations import SituationResult, Steed, automatic_hit, lance_charge_doubles, out_of_reach
from ...wording.phrases import possessive
from ..combatants import Combatant
from ..document import Encounter
from ..fighters import (
    AttackState,
    Hand,
    attack_state,
    explained,
    helpless_word,
    joker_bonus,
    may_take_attack_owed,
    require_actions_left,
    wielded,
)
from ..records import ReactionKind
from .choices import Declaration


def default_attack_type(
    combatant_weapon_types: frozenset[AttackType], primary: frozenset[AttackType]
) -> AttackType:
    """The attack type used when none is named: the weapon's first primary type, else its first type."""
    order = list(AttackType)
    return min(primary or combatant_weapon_types, key=order.index)


def attack_kind(encounter: Encounter, attacker: Combatant, target: Combatant) -> AttackKind:
    """R1, R12, R14: an attack is made on one's own turn, or as a counterattack or opportunity attack
    the rules gave against this target. A Bind attack owed (R14: Bind & Strike, Mutieren) is made as
    such even on the attacker's own turn: the Bind gave it, not the turn."""
    if encounter.reaction(attacker, target, ReactionKind.BIND_ATTACK) is not None:
        _require_bind_order(encounter, attacker, target)
        return AttackKind.BIND_ATTACK
    if encounter.initiative.turn_of == attacker.holder and encounter.initiative.round > 0:
        require_actions_left(encounter, attacker, "attack")
        if attacker.attack_forfeit_round == encounter.initiative.round:
            raise IllegalAction(
                f"{shown(attacker.name)} spent this round's active action getting up from prone (R25): it "
                "cannot attack until the next round."
            )
        return AttackKind.NORMAL
    reaction = encounter.reaction(attacker, target)
    if reaction is not None:
        return AttackKind(reaction.kind.value)
    if encounter.initiative.round == 0:
        raise IllegalAction("The fight has not started: the GM deals the cards first (/init deal).")
    owed = [r for r in encounter.reactions if r.by == attacker.id]
    turn_of = encounter.initiative.turn_of
    now = f"it is {possessive(encounter.holder_name(turn_of))} turn" if turn_of else "no turn is in progress"
    if owed:
        targets = ", ".join(f"a {r.kind.value} on {shown(encounter.combatant(r.against).name)}" for r in owed)
        raise IllegalAction(
            f"{shown(attacker.name)} can attack {shown(target.name)} only on their own turn ({now}). "
            f"What they may do now: {targets}."
        )
    raise IllegalAction(
        f"{shown(attacker.name)} can attack only on their own turn, and {now}; out of turn only a "
        "counterattack (R14) or an opportunity attack (R12) the rules give is allowed."
    )


def _require_bind_order(encounter: Encounter, attacker: Combatant, target: Combatant) -> None:
    """R14 (``bind_feats: initiative first``): when both sides of a Bind were given an attack by their
    feats, the one with the initiative (R15: who acted earlier this round) strikes first."""
    if encounter.options.bind_feats is not BindFeats.INITIATIVE_FIRST:
        return
    first = encounter.reaction(target, attacker, ReactionKind.BIND_ATTACK)
    if first is None or not may_take_attack_owed(target):
        return
    if encounter.initiative.went_first(target.holder, attacker.holder):
        raise IllegalAction(
            f"{shown(target.name)} has the initiative and makes its Bind attack first (the fight's "
            f"`bind_feats` option: initiative first, R14); {shown(attacker.name)}'s comes after it."
        )


def weapon_for(attacker: Combatant, declared: Declaration) -> str:
    """The catalog key of what the attack is made with (R12, R26), refused when that hand holds nothing
    or when two weapons are declared with anything but the main hand."""
    if declared.two_weapons and declared.hand is not Hand.MAIN:
        raise IllegalAction(
            f"`two_weapons:` strikes with both hands (R26), so it goes with the main hand, not "
            f"`hand: {declared.hand.value}`."
        )
    return wielded(attacker, declared.hand)


def require_able(encounter: Encounter, attacker: Combatant, target: Combatant) -> None:
    """Refuse an attack on oneself, or by an attacker unable to attack (R14: unless a Bind attack
    lands together with the other's)."""
    if attacker.id == target.id:
        raise IllegalAction(f"{shown(attacker.name)} cannot attack themselves.")
    owed = encounter.reaction(attacker, target, ReactionKind.BIND_ATTACK)
    if owed is not None and owed.together:
        return  # R14: the two Bind attacks land together, so one felled by the other's still strikes
    attacker.require_able("attack")


@dataclass(frozen=True, slots=True)
class PlannedAttack:
    """The attack as it would be made now (:func:`plan_attack`): what the rules core rolls, the net
    situation and each situation named with its source (R25), and notes for the message."""

    attack: Attack
    situations: SituationResult
    labels: list[str]
    state: AttackState
    notes: list[str]


def plan_attack(
    encounter: Encounter,
    catalog: Catalog,
    attacking: Fighter,
    attacker: Combatant,
    target: Combatant,
    declared: Declaration,
    kind: AttackKind,
) -> PlannedAttack:
    """The attack ``attacker`` would make on ``target`` now, and the situations on it; reading the
    fight changes nothing (``/attack`` and ``/odds`` both start here).

    R12: the range the attack happens at (the second attack of a round closes to Melee unless every
    attack of it used 2+ dice; missiles keep the range; a grappled target's opportunity attack is made
    at the range before the Grapple). R25: every situation the fight knows
    (:func:`~bot.encounter.fighters.attack_state`), with the declared ones; the automatic hit on a
    helpless target in melee; the lance charge; what scaling and horseback forbid. R3: the Joker bonus
    of the attacker's turn.
    """
    weapon = attacking.weapon
    engagement = encounter.engagement_now(attacker, target)
    at = engagement.range if weapon.is_missile else engagement.range_for_attack(declared.dice)
    owed = encounter.reaction(attacker, target) if kind is not AttackKind.NORMAL else None
    if owed is not None and owed.at is not None:
        at = owed.at
    state = attack_state(encounter, catalog, attacker, target, weapon, unseen_declared=declared.unseen)
    rider = next((c for c in encounter.combatants if c.position.mount == attacker.id), None)
    _require_allowed(attacker, target, weapon, declared, state, ridden=rider is not None)
    if kind is AttackKind.NORMAL:
        _require_steed_may_strike(encounter, attacker, target, rider)
    situations, labels = explained(state, attacker, target, declared.situation)
    notes: list[str] = []
    mount = state.mount
    doubled = lance_charge_doubles(
        knightly=attacker.knightly_combat,
        lance=weapon.lance,
        steed=mount.steed if mount is not None else None,
        charging=declared.charge,
    )
    if doubled and mount is not None:
        notes.append(
            f"Lance charge from {shown(mount.name)}, a heavy warhorse, with Knightly Combat: "
            "double damage (R25)"
        )
    if mount is not None and tramples(declared, mount):
        notes.append(
            f"{shown(mount.name)} tramples on the charge: it may attack {shown(target.name)} with its "
            "hooves (R25)"
        )
    automatic = automatic_hit(state.facts)
    if automatic:
        notes.append(f"{shown(target.name)} is {helpless_word(target)}: hit automatically in melee (R25)")
    if declared.merciful and target.standing is MoraleStanding.FRIGHTENED:
        notes.append(
            f"{shown(target.name)} is frightened and {shown(attacker.name)} shows mercy: it may surrender "
            "instead of fighting (R21); the GM decides"
        )
    attack = Attack(
        attack_type=declared.attack_type or default_attack_type(weapon.types, weapon.primary),
        dice=declared.dice,
        range=at,
        kind=kind,
        advantage=situations.advantage,
        bypass=declared.bypass,
        at_armor=declared.at_armor,
        at_shield=declared.at_shield,
        grapple=declared.grapple,
        two_weapons=declared.two_weapons,
        holy_blessed=declared.holy_blessed,
        joker_bonus=joker_bonus(encounter, attacker, RollKind.ATTACK),
        situational=declared.bonus,
        automatic=automatic,
        double_damage=doubled,
    )
    return PlannedAttack(attack, situations, labels, state, notes)


def _require_steed_may_strike(
    encounter: Encounter, horse: Combatant, target: Combatant, rider: Combatant | None
) -> None:
    """R25 mounted, a mount's attack of its own on its turn (a trample or an attack owed is not one):
    "A warhorse ... will strike out with its hooves any combat round when it does not move", and
    carrying its rider is moving, so a warhorse that moved, or whose rider moved or charged on it, this
    round does not strike (its trample on the charge is owed apart). A riding horse, mule, pony or draft
    horse "will only attack if they are attacked, cannot flee, and have no rider": it attacks only a foe
    that attacked it (this round, or as that foe's last attack); whether it could flee is the GM's, who
    runs it."""
    if horse.steed is None:
        return
    name = shown(horse.name)
    if horse.steed.warhorse:
        carried = rider is not None and rider.moves > 0
        charged = rider is not None and any(b.by == rider.id and b.charge for b in encounter.blows)
        if horse.moves > 0 or carried or charged:
            why = "moved"
            if rider is not None and (carried or charged):
                why = f"carried {shown(rider.name)}, who {'charged' if charged else 'moved'}"
            raise IllegalAction(
                f"{name} {why} this round: a warhorse strikes with its hooves only in a round it does not "
                "move (R25). It tramples when its rider charges."
            )
        return
    attacked = target.last_target == horse.id or any(
        b.by == target.id and b.against == horse.id for b in encounter.blows
    )
    if not attacked:
        raise IllegalAction(
            f"{name} is a riding horse: it attacks only someone who attacked it, when it cannot flee and "
            f"has no rider (R25), and {shown(target.name)} has not attacked it."
        )


def tramples(declared: Declaration, mount: Combatant) -> bool:
    """R25 mounted: a warhorse (heavy or not) tramples when its rider charges."""
    return declared.charge and mount.steed is not None and mount.steed.warhorse


def _require_allowed(
    attacker: Combatant,
    target: Combatant,
    weapon: Weapon,
    declared: Declaration,
    state: AttackState,
    *,
    ridden: bool,
) -> None:
    """R25, R26: what the text forbids, refused before anything is spent: a thrown weapon past 50',
    two-handed weapons or weapon and shield while scaling, two weapons on horseback, a charge on foot,
    a riding horse attacking with a rider on its back."""
    if ridden and attacker.steed is Steed.RIDING:
        raise IllegalAction(
            f"{shown(attacker.name)} is a riding horse with a rider: it attacks only when attacked, unable "
            "to flee, and riderless (R25)."
        )
    if out_of_reach(state.facts):
        distance = state.facts.distance.label
        raise IllegalAction(
            f"{weapon.name} is thrown, and {shown(target.name)} is {distance} away: thrown weapons reach "
            "50' at most (R25). Close in first, or set the distance with `/situation distance`."
        )
    if attacker.position.scaling and weapon.two_handed:
        raise IllegalAction(
            f"{shown(attacker.name)} is scaling and cannot wield {weapon.name}: no two-handed weapons "
            "while scaling (R25)."
        )
    if attacker.position.scaling and attacker.shield is not None:
        raise IllegalAction(
            f"{shown(attacker.name)} is scaling with a shield: a climber may attack or use a shield, "
            "not both (R25). Put the shield away (`/combatant edit shield:none`) to attack."
        )
    if declared.two_weapons and state.mount is not None:
        raise IllegalAction("Two-weapon fighting cannot be used on horseback (R26).")
    if declared.charge and state.mount is None:
        raise IllegalAction(
            f"`charge:` is a mounted charge, and {shown(attacker.name)} is on foot "
            "(mount with `/situation mount`)."
        )
