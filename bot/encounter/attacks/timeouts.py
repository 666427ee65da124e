"""A player's defense not given in time: the table's policy decides, or the GM is asked."""

from __future__ import annotations

from datetime import datetime

from ...catalog import Catalog
from ...rules.dice import D20Witness, DiceSource
from ...rules.errors import RulesError
from ...table_options import DefensePolicy
from ...wording.attacks import exchange_log_line
from ..document import Encounter
from ..done import Done
from ..results import ExchangeReport
from .defend import policy_choice, resolve_defense, waiting_report


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
    return resolve_defense(
        encounter,
        catalog,
        exchange,
        policy_choice(policy, defender, encounter, exchange),
        dice,
        decided_by="timeout",
    )


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
