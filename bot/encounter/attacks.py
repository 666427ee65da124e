"""Attacks at the table: declared by the attacker, answered by the defender, judged by the rules.

An exchange is kept in the fight document from the moment the attacker rolls until nobody may change
it any more, so every step is one transaction and a restart loses nothing:

1. :func:`declare_attack`: the attacker spends its dice and rolls (R7, R9-R12, R17, R25, R26). The
   defense is then either decided at once (an NPC under a passive or active-with-all-dice policy, a
   defender with no dice left, a helpless target) or left **awaiting** the defender's choice.
2. :func:`defend`: the defender (or the policy, when the timeout runs out) picks Passive or Active with
   k dice, with the shield or void (R13, R14); the exchange is judged, damage rolled and applied (R16,
   R17), reactions (R12, R14) and morale proposals (R22) recorded.
3. Follow-ups while the exchange is fresh: :func:`choose_die` (R9, counting another die to force a
   Bind) and :func:`desperate_defense` (R15). Each takes back what the exchange did and applies the new
   result, so HP never count a blow twice.
4. :func:`will_save`: a Bash critical under the Knock-Out option (R16) leaves the defender a Will save
   against its threat; rolled from its button, a failure knocks the defender out.

Nothing here knows Discord; ``step`` numbers let buttons drawn for an earlier moment be refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from ..catalog import Catalog
from ..rules.armor_class import armor_class_behind, attack_against_ac, defender_armor_class
from ..rules.combat import (
    Attack,
    AttackKind,
    AttackResult,
    Defense,
    Fighter,
    Outcome,
    attack_bonus,
    check_attack,
    desperation_defense,
    passive_defense,
    resolve_exchange,
    roll_active_defense,
    roll_attack,
    roll_damage,
)
from ..rules.dice import Advantage, D20Witness, DiceSource, sum_of
from ..rules.engagement import Range
from ..rules.equipment import AttackType, Weapon
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.feats import bind_feat
from ..rules.initiative import RollKind
from ..rules.morale import MoraleStanding
from ..rules.options import BindFeats
from ..rules.pool import Spend
from ..rules.saves import knockout_save
from ..rules.situations import SituationResult, Steed, automatic_hit, lance_charge_doubles, out_of_reach
from ..wording.attacks import ac_attack_log_line, exchange_log_line, knockout_save_log_line, request_log_line
from ..wording.phrases import possessive
from .document import KNOCKED_OUT, MAX_CONDITIONS, Combatant, Encounter, Side
from .done import Done
from .errors import OtherFight, OutOfDate
from .fighters import (
    AttackState,
    Hand,
    attack_state,
    explained,
    fighter,
    helpless_word,
    joker_bonus,
    may_defend_actively,
    may_take_attack_owed,
    require_actions_left,
    shield_usable,
    undefended_because,
    wielded,
)
from .morale import group_snapshot, propose_checks
from .permissions import Actor, acting_combatant, require_control
from .records import (
    Applied,
    Blow,
    DefensePolicy,
    Exchange,
    ExchangeStatus,
    Reaction,
    ReactionKind,
)
from .results import AcAttack, ExchangeReport

KEPT_EXCHANGES = 12
"""At most this many resolved exchanges with choices still open are kept (the oldest go first)."""


def require_this_fight(encounter: Encounter, tag: str) -> None:
    """Refuse a button drawn for another fight than the channel's present one."""
    if tag != encounter.tag:
        raise OtherFight()


class Declaration(BaseModel):
    """What ``/attack`` declares before any die is rolled."""

    dice: int = Field(ge=1, le=4)
    attack_type: AttackType | None = None
    """None: the weapon's first primary attack type (or its first type)."""
    grapple: bool = False
    bypass: bool = False
    at_armor: bool = False
    at_shield: bool = False
    """R17: strike at the target's shield as at armor."""
    two_weapons: bool = False
    holy_blessed: bool = False
    situation: Advantage = Advantage.NONE
    bonus: int = 0
    helpless: bool = False
    """The target is unaware or helpless: it defends with 2 against melee, 8 against missiles (R13)."""
    unseen: bool = False
    """R25: the GM declares the target cannot see the attacker (stealth or magic): advantage."""
    merciful: bool = False
    """R21: the attacker's side is known to show mercy (a frightened target may surrender)."""
    charge: bool = False
    """R25 mounted: a charge (a lance from a heavy warhorse doubles damage; a warhorse tramples)."""
    hand: Hand = Hand.MAIN
    """What the attack is made with: the main weapon, the off-hand one, or bare hands (R12, R26)."""


class DefenseChoice(BaseModel):
    """What the defender picked: Passive, or Active with ``dice`` dice, the shield or void (R13, R14)."""

    mode: Literal["passive", "active"]
    dice: int = Field(default=0, ge=0, le=4)
    shield: bool = False
    void: bool = False


PASSIVE = DefenseChoice(mode="passive")


class ExchangeAction(StrEnum):
    """What a button of an exchange does: a defense (R13, R14), a desperation defense (R15), or a
    side counting another die that makes a Bind (R9)."""

    PASSIVE = "passive"
    ACTIVE = "active"
    SHIELD = "shield"
    VOID = "void"
    DESPERATE = "desperate"
    ATTACKER_DIE = "attackerdie"
    DEFENDER_DIE = "defenderdie"
    ATTACKER_BIND = "attackerbind"
    DEFENDER_BIND = "defenderbind"
    """R13 (``passive_tie: declared``): a side declares the passive tie a Bind."""


# ----------------------------------------------------------------------------- declaring


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


def _weapon_for(attacker: Combatant, declared: Declaration) -> str:
    """The catalog key of what the attack is made with (R12, R26), refused when that hand holds nothing
    or when two weapons are declared with anything but the main hand."""
    if declared.two_weapons and declared.hand is not Hand.MAIN:
        raise IllegalAction(
            f"`two_weapons:` strikes with both hands (R26), so it goes with the main hand, not "
            f"`hand: {declared.hand.value}`."
        )
    return wielded(attacker, declared.hand)


def _require_able(encounter: Encounter, attacker: Combatant, target: Combatant) -> None:
    if attacker.id == target.id:
        raise IllegalAction(f"{shown(attacker.name)} cannot attack themselves.")
    owed = encounter.reaction(attacker, target, ReactionKind.BIND_ATTACK)
    if owed is not None and owed.together:
        return  # R14: the two Bind attacks land together, so one felled by the other's still strikes
    attacker.require_able("attack")


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


def declare_attack(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    attacker: Combatant,
    target: Combatant,
    declared: Declaration,
    dice: DiceSource,
    now: datetime,
) -> ExchangeReport:
    """Check, spend, roll; then resolve at once or leave the defense to the defender.

    Refusals raise before anything is spent: the transaction is dropped.
    """
    require_control(encounter, actor, attacker, "attack")
    _require_able(encounter, attacker, target)
    kind = attack_kind(encounter, attacker, target)
    weapon = _weapon_for(attacker, declared)
    attacking, defending = fighter(attacker, catalog, weapon=weapon), fighter(target, catalog)
    planned = plan_attack(encounter, catalog, attacking, attacker, target, declared, kind)
    attack = planned.attack
    check_attack(attacking, defending, attack)
    attacker.pool.spend(declared.dice, _SPEND[kind])
    record_blow(encounter, attacker, target, planned, charge=declared.charge)
    mount = planned.state.mount
    if mount is not None and tramples(declared, mount) and may_take_attack_owed(mount):
        owe(encounter, ReactionKind.TRAMPLE, mount, target, "tramples on the charge")
    if kind is not AttackKind.NORMAL:
        encounter.reactions = [
            r for r in encounter.reactions if not (r.by == attacker.id and r.against == target.id)
        ]
    rolled = roll_attack(attacking, defending, attack, dice)
    encounter.engagement(attacker, target).record_attack(declared.dice, missile=rolled.missile)
    exchange = Exchange(
        id=encounter.next_exchange,
        fight=encounter.tag,
        attacker=attacker.id,
        defender=target.id,
        attack=rolled,
        weapon=weapon,
        round=encounter.initiative.round,
        asked_at=now,
        situations=planned.labels,
        notes=planned.notes,
        allies_in_melee=[c.name for c in planned.state.allies_in_melee] if rolled.missile else [],
    )
    encounter.next_exchange += 1
    encounter.exchanges.append(exchange)
    _forget_old_exchanges(encounter)
    exchange.undefended = undefended_because(target, declared=declared.helpless) is not None
    automatic = _automatic_defense(encounter, target, exchange)
    if automatic is not None:
        return _resolve(encounter, catalog, exchange, automatic, dice, decided_by="policy")
    minutes = encounter.table.defense_timeout_minutes
    if target.owner_id is not None and minutes:
        exchange.deadline = now + timedelta(minutes=minutes)
    return awaiting(exchange, target, defending)


def record_blow(
    encounter: Encounter, attacker: Combatant, target: Combatant, planned: PlannedAttack, *, charge: bool
) -> None:
    """R25: remember the attack for this round's numbers (and whether it was a mounted charge, which
    moved the mount), and as the attacker's last target. Made on its own turn, it uses the turn: the
    card can no longer be held (R4)."""
    encounter.initiative.use_turn(attacker.holder)
    encounter.blows.append(
        Blow(
            by=attacker.id,
            against=target.id,
            mounted=planned.state.mount is not None,
            long_spear_or_bill=planned.state.facts.attacker.long_spear_or_bill,
            charge=charge and planned.state.mount is not None,
        )
    )
    attacker.last_target = target.id


_SPEND = {
    AttackKind.NORMAL: Spend.ATTACK,
    AttackKind.COUNTERATTACK: Spend.COUNTERATTACK,
    AttackKind.OPPORTUNITY: Spend.OPPORTUNITY_ATTACK,
    AttackKind.TRAMPLE: Spend.ATTACK,
    AttackKind.BIND_ATTACK: Spend.ATTACK,
}


def _automatic_defense(encounter: Encounter, target: Combatant, exchange: Exchange) -> DefenseChoice | None:
    """The defense nobody needs to be asked about: helpless targets, defenders without dice or out of
    the fight, and NPCs under a policy other than asking the GM."""
    if not may_defend_actively(target, undefended=exchange.undefended):
        return PASSIVE
    if target.owner_id is None and encounter.table.defense_policy is not DefensePolicy.ASK_GM:
        return policy_choice(encounter.table.defense_policy, target, encounter, exchange)
    return None


def policy_choice(
    policy: DefensePolicy, defender: Combatant, encounter: Encounter, exchange: Exchange | None
) -> DefenseChoice:
    """The defense a policy picks: passive, or active with every die left (and the shield if it has one
    that works at this range)."""
    if policy is not DefensePolicy.ACTIVE_ALL or defender.pool.remaining < 1:
        return PASSIVE
    at = exchange.attack.attack.range if exchange is not None else Range.ONSET
    return DefenseChoice(mode="active", dice=defender.pool.remaining, shield=shield_usable(defender, at))


def _forget_old_exchanges(encounter: Encounter) -> None:
    """Keep what buttons may still need: exchanges waiting for a defense, and resolved ones whose
    choices (R9, R15) are still open in this round. Settled ones go when the next attack is declared,
    so the document saved at every step stays small."""
    current = encounter.initiative.round
    kept = [
        e
        for e in encounter.exchanges
        if e.pending or e.awaiting_knockout_save or (e.follow_ups and e.round == current)
    ]
    resolved = [e for e in kept if not e.pending]
    if len(resolved) > KEPT_EXCHANGES:
        drop = {e.id for e in resolved[: len(resolved) - KEPT_EXCHANGES]}
        kept = [e for e in kept if e.id not in drop]
    encounter.exchanges = kept


# ----------------------------------------------------------------------------- defending


def defend(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor | None,
    exchange_id: int,
    step: int | None,
    choice: DefenseChoice,
    dice: DiceSource,
) -> ExchangeReport:
    """The defender's answer (``actor`` None: the policy, when the timeout ran out)."""
    exchange = _open(encounter, exchange_id, step)
    if not exchange.pending:
        raise RulesError(_already_answered(encounter, exchange))
    defender = encounter.combatant(exchange.defender)
    if actor is not None:
        require_control(encounter, actor, defender, "defend")
    return _resolve(
        encounter, catalog, exchange, choice, dice, decided_by=None if actor is not None else "timeout"
    )


def _open(encounter: Encounter, exchange_id: int, step: int | None) -> Exchange:
    exchange = encounter.exchange(exchange_id)
    if step is not None and step != exchange.step:
        raise OutOfDate(OutOfDate.ATTACK)
    return exchange


def _already_answered(encounter: Encounter, exchange: Exchange) -> str:
    defender = encounter.combatant(exchange.defender)
    return f"{shown(defender.name)} has already defended against that attack; nothing was changed."


def _resolve(
    encounter: Encounter,
    catalog: Catalog,
    exchange: Exchange,
    choice: DefenseChoice,
    dice: DiceSource,
    *,
    decided_by: str | None,
) -> ExchangeReport:
    """Roll the defense picked, judge the exchange and put its result on the fight."""
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    report = _report(exchange, defender, decided_by=decided_by)
    attacking, defending = fighter(attacker, catalog, weapon=exchange.weapon), fighter(defender, catalog)
    if choice.mode == "active":
        defense = roll_active_defense(
            defending,
            exchange.attack,
            dice,
            committed=choice.dice,
            shield=choice.shield,
            void=choice.void,
            cover_quarters=defender.position.cover,
        )
        defender.pool.spend(choice.dice, Spend.ACTIVE_DEFENSE)
        exchange.cover_dice = defender.position.cover if exchange.attack.missile else 0
    else:
        defense = exchange_passive_defense(exchange, defending)
    before = group_snapshot(encounter, defender.group) if defender.group else None
    result = resolve_exchange(attacking, defending, exchange.attack, defense, dice, encounter.options)
    exchange.defense = defense
    exchange.status = ExchangeStatus.RESOLVED
    _apply(encounter, exchange, result, attacker, defender, defending)
    if before is not None:
        report.proposals = propose_checks(encounter, before)
    return report


def exchange_passive_defense(exchange: Exchange, defending: Fighter) -> Defense:
    """R13: the passive defense against this exchange's attack (at its range: no weapon DB at Grapple)."""
    attack = exchange.attack
    return passive_defense(
        defending, missile=attack.missile, undefended=exchange.undefended, at=attack.attack.range
    )


def awaiting(exchange: Exchange, defender: Combatant, defending: Fighter) -> ExchangeReport:
    """The report of an exchange waiting for the defense, with the passive defense it offers (R13)."""
    passive = exchange_passive_defense(exchange, defending)
    return ExchangeReport(
        exchange=exchange, hp_before=defender.hp, nonlethal_before=defender.nonlethal, passive=passive.total
    )


def waiting_report(encounter: Encounter, catalog: Catalog, exchange_id: int) -> ExchangeReport:
    """The report of an exchange that waits for its defense, as it stands (a request to draw again)."""
    exchange = encounter.exchange(exchange_id)
    defender = encounter.combatant(exchange.defender)
    return awaiting(exchange, defender, fighter(defender, catalog))


def _report(exchange: Exchange, defender: Combatant, *, decided_by: str | None = None) -> ExchangeReport:
    return ExchangeReport(
        exchange=exchange,
        hp_before=defender.hp,
        nonlethal_before=defender.nonlethal,
        decided_by=decided_by,
    )


def _apply(
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


def _undo(encounter: Encounter, exchange: Exchange, attacker: Combatant, defender: Combatant) -> None:
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


# ----------------------------------------------------------------------------- follow-ups


def _follow_up(
    encounter: Encounter, exchange_id: int, step: int | None
) -> tuple[Exchange, AttackResult, Combatant, Combatant]:
    exchange = _open(encounter, exchange_id, step)
    result = exchange.result
    if exchange.pending or result is None:
        raise RulesError("That attack still waits for the defender's choice.")
    if not exchange.follow_ups:
        raise RulesError(
            "That exchange is settled: its choices were made, or a new round has begun. Nothing was changed."
        )
    return exchange, result, encounter.combatant(exchange.attacker), encounter.combatant(exchange.defender)


def choose_die(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    side: Literal["attacker", "defender"],
    dice: DiceSource,
) -> ExchangeReport:
    """R9: the attacker or the defender counts another of their dice, which makes a Bind (R14.6)."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    chooser = attacker if side == "attacker" else defender
    require_control(encounter, actor, chooser, "choose a die")
    index = result.attacker_bind_choice if side == "attacker" else result.defender_bind_choice
    if index is None:
        raise IllegalAction(f"{shown(chooser.name)} has no other die that would make a Bind.")
    attack, defense = result.attack, result.defense
    if side == "attacker":
        attack = attack.choose(index)
    else:
        defense = defense.choose(index)
    report = _report(exchange, defender)
    report.chose_die = side

    def bind(attacking: Fighter, defending: Fighter) -> AttackResult:
        exchange.attack, exchange.defense = attack, defense
        return resolve_exchange(attacking, defending, attack, defense, dice, encounter.options)

    _decide_again(encounter, catalog, exchange, attacker, defender, report, bind)
    return report


def declare_bind(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    side: Literal["attacker", "defender"],
    dice: DiceSource,
) -> ExchangeReport:
    """R13 (``passive_tie: declared``): the attacker or the defender, with dice left, declares the
    tie against the passive defense a Bind; nothing is spent."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    declarer = attacker if side == "attacker" else defender
    require_control(encounter, actor, declarer, "declare a Bind")
    if not may_declare_bind(result, declarer):
        raise IllegalAction(
            f"{shown(declarer.name)} can declare a Bind only on a tie against a passive defense, with "
            "Martial Pool dice left (R13); nothing was changed."
        )
    report = _report(exchange, defender)
    report.declared_bind = side

    def bind(attacking: Fighter, defending: Fighter) -> AttackResult:
        return resolve_exchange(
            attacking, defending, result.attack, result.defense, dice, encounter.options, bind_declared=True
        )

    _decide_again(encounter, catalog, exchange, attacker, defender, report, bind)
    return report


def _decide_again(
    encounter: Encounter,
    catalog: Catalog,
    exchange: Exchange,
    attacker: Combatant,
    defender: Combatant,
    report: ExchangeReport,
    decide: Callable[[Fighter, Fighter], AttackResult],
) -> None:
    """R9, R15: a resolved exchange decided anew (another die counted, a desperation defense): what the
    first result did is taken back, ``decide`` (run after it, with both fighters) gives the new result,
    which is applied; nothing else may follow, and a morale check its losses call for is proposed."""
    before = group_snapshot(encounter, defender.group) if defender.group else None
    _undo(encounter, exchange, attacker, defender)
    attacking, defending = fighter(attacker, catalog, weapon=exchange.weapon), fighter(defender, catalog)
    _apply(encounter, exchange, decide(attacking, defending), attacker, defender, defending)
    exchange.follow_ups = False
    if before is not None:
        report.proposals = propose_checks(encounter, before)


def desperate_defense(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    dice: DiceSource,
) -> ExchangeReport:
    """R15: the defender, hit while defending actively, spends every die left on a second defense; the
    better stands. With the initiative the two swap it next round; without, it loses a die then (R6)."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    require_control(encounter, actor, defender, "make a desperation defense")
    if not may_desperately_defend(result, defender):
        raise IllegalAction(
            f"{shown(defender.name)} can make a desperation defense only when hit while defending "
            "actively, once, and with dice left."
        )
    state = encounter.initiative
    had_initiative = state.went_first(defender.holder, attacker.holder)
    report = _report(exchange, defender)

    def desperately(attacking: Fighter, defending: Fighter) -> AttackResult:
        # The HP shown before is as the first result's undoing left them.
        report.hp_before, report.nonlethal_before = defender.hp, defender.nonlethal
        left = defender.pool.spend_all(Spend.DESPERATION_DEFENSE)
        outcome = desperation_defense(
            result,
            attacking,
            defending,
            dice,
            dice_left=left,
            defender_has_initiative=had_initiative,
            cover_quarters=defender.position.cover,
            options=encounter.options,
        )
        if outcome.swap_initiative and defender.holder != attacker.holder:
            state.swap_next_round(defender.holder, attacker.holder)
        defender.pool.penalty_next_round += outcome.pool_penalty
        report.desperation_improved = outcome.improved
        report.swap_initiative = outcome.swap_initiative
        report.pool_penalty = outcome.pool_penalty
        return outcome.result

    _decide_again(encounter, catalog, exchange, attacker, defender, report, desperately)
    return report


# ----------------------------------------------------------------------------- knock-out


def will_save(
    encounter: Encounter,
    actor: Actor,
    *,
    fight: str,
    exchange_id: int,
    step: int,
    pool_dice: int,
    dice: DiceSource,
) -> Done[ExchangeReport]:
    """R16 (Knock-Out option), R20: the defender (its player, or the GM) rolls the Will save against the
    blow's Knock-Out threat, with ``pool_dice`` Martial Pool dice joining the free die; a failure puts
    the :data:`~bot.encounter.document.KNOCKED_OUT` condition on it (out of the fight until removed).

    Choice: rolling the save accepts the blow, so the exchange's other choices (R9, R15) close.
    """
    require_this_fight(encounter, fight)
    exchange = _open(encounter, exchange_id, step)
    defender = encounter.combatant(exchange.defender)
    threat = exchange.knockout_threat
    if threat is None:
        raise RulesError("That blow made no Knock-Out threat, so there is no Will save to make (R16).")
    if exchange.knockout_save is not None:
        raise RulesError(f"{shown(defender.name)} has already made that Will save; nothing was changed.")
    require_control(encounter, actor, defender, "make the Will save")
    if defender.out_of_the_fight:
        raise IllegalAction(f"{shown(defender.name)} is {defender.state_label}: there is nothing to save.")
    if len(defender.conditions) >= MAX_CONDITIONS:
        raise IllegalAction(
            f"{shown(defender.name)} already has {MAX_CONDITIONS} conditions, and a failed save adds "
            f"'{KNOCKED_OUT}': remove one with /combatant condition first. Nothing was rolled."
        )
    if pool_dice:
        defender.pool.spend(pool_dice, Spend.SAVE)
    before = group_snapshot(encounter, defender.group) if defender.group else None
    witness = D20Witness(dice)
    save = knockout_save(witness, pool_dice=pool_dice, will=defender.wis_mod, threat=threat)
    exchange.knockout_save = save
    if not save.success:
        defender.add_condition(KNOCKED_OUT)
        exchange.knocked_out = True
    exchange.follow_ups = False
    exchange.step += 1
    report = ExchangeReport(
        exchange=exchange,
        hp_before=defender.hp + exchange.applied.hp,
        nonlethal_before=defender.nonlethal - exchange.applied.nonlethal,
    )
    if before is not None:
        report.proposals = propose_checks(encounter, before)
    return Done(report, log=[knockout_save_log_line(encounter, exchange)], kind="attack").rolled(witness)


# ----------------------------------------------------------------------------- timeouts


def time_out(
    encounter: Encounter, catalog: Catalog, exchange_id: int, dice: DiceSource, now: datetime
) -> ExchangeReport | None:
    """The timeout of a player's defense: the policy decides, or (asking the GM) the GM is pinged and
    None is returned. A defense answered meanwhile is left alone (refused as answered)."""
    exchange = encounter.exchange(exchange_id)
    if not exchange.overdue(now) or exchange.gm_pinged:
        raise RulesError("That defense is no longer waiting.")
    policy = encounter.table.defense_policy
    if policy is DefensePolicy.ASK_GM:
        exchange.gm_pinged = True
        return None
    defender = encounter.combatant(exchange.defender)
    return _resolve(
        encounter,
        catalog,
        exchange,
        policy_choice(policy, defender, encounter, exchange),
        dice,
        decided_by="timeout",
    )


# ----------------------------------------------------------------------------- against AC


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
    _require_able(encounter, attacker, target)
    _require_plain_against_ac(declared)
    kind = attack_kind(encounter, attacker, target)
    wielding = _weapon_for(attacker, declared)
    attacking, defending = fighter(attacker, catalog, weapon=wielding), fighter(target, catalog)
    weapon = attacking.weapon
    planned = plan_attack(encounter, catalog, attacking, attacker, target, declared, kind)
    attack, situations = planned.attack, planned.situations
    check_attack(attacking, defending, attack)
    attacker.pool.spend(1, _SPEND[kind])
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


# ----------------------------------------------------------------------------- the operations


def attack(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    *,
    who: str | None,
    target: str,
    declared: Declaration,
    dice: DiceSource,
    now: datetime,
    fight: str | None = None,
) -> Done[ExchangeReport]:
    """``/attack`` (or an attack owed, from its button: ``fight`` is the tag the button carried):
    the attacker (the one named, else the user's) declares, spends and rolls (:func:`declare_attack`)."""
    if fight is not None:
        require_this_fight(encounter, fight)
    attacker = acting_combatant(encounter, actor, who, "attack")
    witness = D20Witness(dice)
    report = declare_attack(
        encounter, catalog, actor, attacker, encounter.combatant(target), declared, witness, now
    )
    exchange = report.exchange
    line = (
        request_log_line(encounter, exchange)
        if exchange.pending
        else exchange_log_line(encounter, exchange, report)
    )
    return Done(report, log=[line], kind="attack").rolled(witness)


def answer(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    *,
    fight: str,
    exchange_id: int,
    step: int,
    action: ExchangeAction,
    dice_committed: int,
    dice: DiceSource,
) -> Done[ExchangeReport]:
    """A button of an exchange message: the defense (R13, R14), a desperation defense (R15) or another
    die for a Bind (R9), for the exchange at the ``step`` the button was drawn for."""
    require_this_fight(encounter, fight)
    witness = D20Witness(dice)
    if action is ExchangeAction.DESPERATE:
        report = desperate_defense(encounter, catalog, actor, exchange_id, step, witness)
    elif action is ExchangeAction.ATTACKER_DIE:
        report = choose_die(encounter, catalog, actor, exchange_id, step, "attacker", witness)
    elif action is ExchangeAction.DEFENDER_DIE:
        report = choose_die(encounter, catalog, actor, exchange_id, step, "defender", witness)
    elif action is ExchangeAction.ATTACKER_BIND:
        report = declare_bind(encounter, catalog, actor, exchange_id, step, "attacker", witness)
    elif action is ExchangeAction.DEFENDER_BIND:
        report = declare_bind(encounter, catalog, actor, exchange_id, step, "defender", witness)
    else:
        choice = (
            PASSIVE
            if action is ExchangeAction.PASSIVE
            else DefenseChoice(
                mode="active",
                dice=dice_committed,
                shield=action is ExchangeAction.SHIELD,
                void=action is ExchangeAction.VOID,
            )
        )
        report = defend(encounter, catalog, actor, exchange_id, step, choice, witness)
    line = exchange_log_line(encounter, report.exchange, report)
    return Done(report, log=[line], kind="attack").rolled(witness)


def expire(
    encounter: Encounter, catalog: Catalog, exchange_id: int, dice: DiceSource, now: datetime
) -> Done[ExchangeReport]:
    """A defense's timeout ran out (:func:`time_out`): the policy decided, or the exchange still awaits
    the defense and the GM is asked (the report then offers the passive defense, like a request)."""
    witness = D20Witness(dice)
    report = time_out(encounter, catalog, exchange_id, witness, now)
    if report is not None:
        line = exchange_log_line(encounter, report.exchange, report)
        return Done(report, log=[line], kind="attack").rolled(witness)
    asking = waiting_report(encounter, catalog, exchange_id)
    defender = encounter.combatant(asking.exchange.defender)
    return Done(asking, log=[f"{defender.name} did not defend in time; the GM is asked"], kind="attack")


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


__all__ = [
    "AcAttack",
    "Declaration",
    "DefenseChoice",
    "ExchangeAction",
    "ExchangeReport",
    "OtherFight",
    "OutOfDate",
    "ac_attack",
    "answer",
    "attack",
    "attack_armor_class",
    "awaiting",
    "choose_die",
    "declare_attack",
    "declare_bind",
    "defend",
    "desperate_defense",
    "expire",
    "plan_attack",
    "require_this_fight",
    "time_out",
    "will_save",
]
