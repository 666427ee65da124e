"""A button of an exchange message answered: the defense, or one of the follow-ups."""

from __future__ import annotations

from ...catalog import Catalog
from ...rules.dice import D20Witness, DiceSource
from ...wording.attacks import exchange_log_line
from ..document import Encounter
from ..done import Done
from ..permissions import Actor
from ..results import ExchangeReport
from .choices import PASSIVE, DefenseChoice, ExchangeAction
from .defend import defend
from .exchanges import require_this_fight
from .follow_ups import choose_die, declare_bind, desperate_defense


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
