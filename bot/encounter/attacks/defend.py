"""The defense: the defender (or the policy) picks Passive or Active with k dice, with the shield or
void (R13, R14), and the exchange is judged and its result put on the fight."""

from __future__ import annotations

from ...catalog import Catalog
from ...rules.defenses import Defense, passive_defense, roll_active_defense
from ...rules.dice import DiceSource
from ...rules.engagement import Range
from ...rules.errors import RulesError, shown
from ...rules.exchange import resolve_exchange
from ...rules.fighter import Fighter
from ...rules.pool import Spend
from ...table_options import DefensePolicy
from ..combatants import Combatant
from ..document import Encounter
from ..fighters import fighter, may_defend_actively, shield_usable
from ..morale import group_snapshot, propose_checks
from ..permissions import Actor, require_control
from ..records import Exchange, ExchangeStatus
from ..results import ExchangeReport
from .blows import apply_result
from .choices import PASSIVE, DefenseChoice
from .exchanges import open_exchange, report_of


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
    exchange = open_exchange(encounter, exchange_id, step)
    if not exchange.pending:
        raise RulesError(_already_answered(encounter, exchange))
    defender = encounter.combatant(exchange.defender)
    if actor is not None:
        require_control(encounter, actor, defender, "defend")
    return resolve_defense(
        encounter, catalog, exchange, choice, dice, decided_by=None if actor is not None else "timeout"
    )


def _already_answered(encounter: Encounter, exchange: Exchange) -> str:
    defender = encounter.combatant(exchange.defender)
    return f"{shown(defender.name)} has already defended against that attack; nothing was changed."


def resolve_defense(
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
    report = report_of(exchange, defender, decided_by=decided_by)
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
    apply_result(encounter, exchange, result, attacker, defender, defending)
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


def automatic_defense(encounter: Encounter, target: Combatant, exchange: Exchange) -> DefenseChoice | None:
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
