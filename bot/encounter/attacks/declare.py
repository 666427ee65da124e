"""``/attack``: the attacker spends its dice and rolls (R7, R9-R12, R17, R25, R26); the defense is then
decided at once (an NPC under a policy, a defender with no dice left, a helpless target) or left
awaiting the defender's choice."""

from __future__ import annotations

from datetime import datetime, timedelta

from ...catalog import Catalog
from ...rules.attack_rolls import AttackKind, check_attack, roll_attack
from ...rules.dice import D20Witness, DiceSource
from ...rules.pool import Spend
from ...wording.attacks import exchange_log_line, request_log_line
from ..combatants import Combatant
from ..document import Encounter
from ..done import Done
from ..fighters import fighter, may_take_attack_owed, undefended_because
from ..permissions import Actor, acting_combatant, require_control
from ..records import Blow, Exchange, ReactionKind
from ..results import ExchangeReport
from .blows import owe
from .choices import Declaration
from .defend import automatic_defense, awaiting, resolve_defense
from .exchanges import require_this_fight
from .planning import PlannedAttack, attack_kind, plan_attack, require_able, tramples, weapon_for

KEPT_EXCHANGES = 12
"""At most this many resolved exchanges with choices still open are kept (the oldest go first)."""


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
    require_able(encounter, attacker, target)
    kind = attack_kind(encounter, attacker, target)
    weapon = weapon_for(attacker, declared)
    attacking, defending = fighter(attacker, catalog, weapon=weapon), fighter(target, catalog)
    planned = plan_attack(encounter, catalog, attacking, attacker, target, declared, kind)
    attack = planned.attack
    check_attack(attacking, defending, attack)
    attacker.pool.spend(declared.dice, SPEND[kind])
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
    automatic = automatic_defense(encounter, target, exchange)
    if automatic is not None:
        return resolve_defense(encounter, catalog, exchange, automatic, dice, decided_by="policy")
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


SPEND = {
    AttackKind.NORMAL: Spend.ATTACK,
    AttackKind.COUNTERATTACK: Spend.COUNTERATTACK,
    AttackKind.OPPORTUNITY: Spend.OPPORTUNITY_ATTACK,
    AttackKind.TRAMPLE: Spend.ATTACK,
    AttackKind.BIND_ATTACK: Spend.ATTACK,
}


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
