"""The log's lines for the roster and the fight's settings: ``/encounter``, ``/join``, ``/leave``,
``/npc``, ``/combatant``, ``/situation`` and the server's defaults, with the options and durations
the replies name the same way."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from ..encounter.combatants import Combatant, Lasting
from ..encounter.results import HpChange
from ..rules.cards import Card
from .phrases import Change
from .spirits import banishment_line


def started_log_line(by: str) -> str:
    return f"{by} started a fight"


def ended_log_line(by: str, rounds: int) -> str:
    return f"{by} ended the fight after {rounds} round{'' if rounds == 1 else 's'}"


def reopened_log_line(by: str) -> str:
    return f"{by} reopened the fight"


def option_label(field: str) -> str:
    return field.replace("_", " ")


def option_value(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _changes_listed(changes: Sequence[tuple[str, object, object]]) -> str:
    return "; ".join(f"{option_label(f)} {option_value(o)} → {option_value(n)}" for f, o, n in changes)


def options_log_line(changes: Sequence[tuple[str, object, object]]) -> str:
    return f"options changed: {_changes_listed(changes)}"


def defaults_log_line(by: str, changes: Sequence[tuple[str, object, object]]) -> str:
    """The options new fights start with, changed on the server; a log line of kind "settings"."""
    return f"{by} changed the server's defaults for new fights: {_changes_listed(changes)}"


def handed_over_log_line(by: str, whom: str) -> str:
    return f"{by} handed the fight to {whom}"


def gm_role_log_line(by: str, role: str | None) -> str:
    """The server's GM role set (by its name) or cleared; a log line of kind "settings"."""
    if role is None:
        return f"{by} cleared the server's GM role"
    return f"{by} set the server's GM role to {role}"


def joined_log_line(player: str, joined: Combatant, *, returning: bool = False) -> str:
    if returning:
        return f"{player} brought {joined.name} back, as they left: HP {joined.hp}/{joined.max_hp}"
    return f"{player} joined with {joined.name}"


def left_log_line(player: str, left: Combatant) -> str:
    return f"{player} took {left.name} out of the fight"


TURN_CUT_SHORT = "Their turn was in progress and is over; the GM starts the next one with Next."
"""Said when the combatants whose turn it was leave the fight (R2: their card is discarded)."""


def npcs_added_log_line(by: str, added: Sequence[Combatant], template: str) -> str:
    names = ", ".join(npc.name for npc in added)
    return f"{by} added {names} ({template}) to the group {added[0].group}"


def npcs_removed_log_line(by: str, removed: Sequence[Combatant]) -> str:
    return f"{by} removed {', '.join(target.name for target in removed)} from the fight"


def card_discarded_log_line(group: str | None, card: Card) -> str:
    return f"the card of {group} ({card.label}) was discarded"


def hp_log_line(by: str, combatant: Combatant, old: int, change: HpChange) -> str:
    down = f" ({combatant.state_label})" if combatant.is_down else ""
    banished = banishment_line(combatant, old)
    return f"{by}: {combatant.name} HP {old} → {combatant.hp} ({change}){down}" + (
        f"; {banished}" if banished else ""
    )


def condition_log_line(
    by: str, combatant: Combatant, condition: str, *, added: bool, lasting: Lasting | None = None
) -> str:
    until = f" ({duration_label(lasting)})" if lasting is not None else ""
    return f"{by}: {combatant.name} is {'now' if added else 'no longer'} {condition}{until}"


def duration_label(lasting: Lasting) -> str:
    """How long a condition still lasts, as the tracker and the log say it: "2 rounds"."""
    if lasting.rounds_left is not None:
        return f"{lasting.rounds_left} round{'s' if lasting.rounds_left != 1 else ''}"
    return "to end of next turn"


def edit_log_line(by: str, name: str, changes: Sequence[tuple[str, object, object]]) -> str:
    listed = "; ".join(f"{label} {old} → {new}" for label, old, new in changes)
    return f"{by} edited {name}: {listed}"


def position_log_line(
    by: str, combatant: Combatant, changes: Sequence[Change], notes: Sequence[str] = ()
) -> str:
    """``/situation``: what changed in where a combatant stands (R25), and what it cost."""
    listed = "; ".join(f"{label} {old} → {new}" for label, old, new in changes) or "nothing changed"
    extra = f" ({' '.join(notes)})" if notes else ""
    return f"{by}: {combatant.name}'s situation: {listed}{extra}"
