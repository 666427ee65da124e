"""Finding the exchange a button was drawn for (in this fight, at this step) and starting its report."""

from __future__ import annotations

from ..combatants import Combatant
from ..document import Encounter
from ..errors import OtherFight, OutOfDate
from ..records import Exchange
from ..results import ExchangeReport


def require_this_fight(encounter: Encounter, tag: str) -> None:
    """Refuse a button drawn for another fight than the channel's present one."""
    if tag != encounter.tag:
        raise OtherFight()


def open_exchange(encounter: Encounter, exchange_id: int, step: int | None) -> Exchange:
    """The exchange, refused when the button was drawn for an earlier step of it."""
    exchange = encounter.exchange(exchange_id)
    if step is not None and step != exchange.step:
        raise OutOfDate(OutOfDate.ATTACK)
    return exchange


def report_of(exchange: Exchange, defender: Combatant, *, decided_by: str | None = None) -> ExchangeReport:
    """The report of an exchange, with the defender's HP as they stand before its result."""
    return ExchangeReport(
        exchange=exchange,
        hp_before=defender.hp,
        nonlethal_before=defender.nonlethal,
        decided_by=decided_by,
    )
