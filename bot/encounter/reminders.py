"""Reminders for play-by-post: whoever a fight waits for is pinged once, when the wait grows long.

A fight waits for three things: the turn in progress (its card's player, the GM for NPCs), a defense
(the defender's player, the GM for NPCs or once the GM was asked), and a turn offered between turns
(the players offered it). When one has waited the table's ``remind_after_hours``
(:class:`~bot.table_options.TableOptions`; 0: never), :func:`remind` returns it and marks it
reminded in the same change, so that no wait is reminded twice, across restarts too.

A turn's wait counts from the press that began it (:func:`note_wait`, called by
:func:`bot.encounter.initiative.press`); a wait begun otherwise (a card's holder left the fight) counts
from the first time :func:`remind` sees it. A defense counts from when it was asked. A turn whose card
attacked and waits for the defense is not reminded meanwhile: only the defender's side can act.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from ..rules.errors import RulesError
from .document import Encounter
from .done import Done
from .records import Exchange


class WaitKind(StrEnum):
    TURN = "turn"
    OFFER = "offer"
    DEFENSE = "defense"


@dataclass(frozen=True, slots=True)
class Wait:
    """Something the fight waits for, since when, and who must act on it."""

    key: str
    kind: WaitKind
    since: datetime
    ping: list[int]
    holders: list[str] = field(default_factory=list)
    """The turn's card holder, or the holders offered the turn."""
    exchange: Exchange | None = None
    """The attack waiting for its defense."""


@dataclass(frozen=True, slots=True)
class Reminded:
    """What :func:`remind` found due (and marked), for the message."""

    waits: list[Wait]
    now: datetime


class NothingDue(RulesError):
    """Nothing to remind now (reminders are off, nothing waited long enough, or it was reminded)."""

    def __init__(self) -> None:
        super().__init__("Nothing has waited long enough for a reminder.")


def turn_wait(encounter: Encounter) -> str | None:
    """The key of the turn or offered turn the fight waits for now; None when it waits for neither."""
    if encounter.initiative.round == 0:
        return None
    if encounter.initiative.turn_of is not None:
        return f"{WaitKind.TURN}:{encounter.flow.step}"
    if encounter.flow.offered:
        return f"{WaitKind.OFFER}:{encounter.flow.step}"
    return None


def note_wait(encounter: Encounter, now: datetime) -> bool:
    """Remember when the turn (or offer) now waited for began, if it is a new one; True if it was."""
    key = turn_wait(encounter)
    if key == encounter.waiting:
        return False
    encounter.waiting = key
    encounter.waiting_since = now if key is not None else None
    return True


def waits(encounter: Encounter) -> list[Wait]:
    """Everything the fight waits for now whose beginning is known."""
    found: list[Wait] = []
    key = turn_wait(encounter)
    since = encounter.waiting_since
    if key is not None and key == encounter.waiting and since is not None:
        state = encounter.initiative
        if state.turn_of is not None:
            holders = [state.turn_of]
            found.append(Wait(key, WaitKind.TURN, since, _players(encounter, holders), holders))
        else:
            holders = list(encounter.flow.offered)
            found.append(Wait(key, WaitKind.OFFER, since, _players(encounter, holders), holders))
    for exchange in encounter.exchanges:
        if exchange.pending:
            found.append(_defense_wait(encounter, exchange))
    return found


def due(encounter: Encounter, now: datetime) -> list[Wait]:
    """The waits to remind now: longer than ``remind_after_hours`` and not reminded yet."""
    hours = encounter.table.remind_after_hours
    if hours <= 0:
        return []
    after = timedelta(hours=hours)
    return [
        wait
        for wait in waits(encounter)
        if wait.key not in encounter.reminded and now - wait.since >= after and not _on_hold(encounter, wait)
    ]


def _on_hold(encounter: Encounter, wait: Wait) -> bool:
    """A turn whose card attacked and waits for the defense: its player has nothing to do until the
    defender answers (whom that defense's own reminder pings), so the turn is not reminded meanwhile."""
    if wait.kind is not WaitKind.TURN:
        return False
    attacking = {c.id for c in encounter.combatants if c.holder in wait.holders}
    return any(exchange.pending and exchange.attacker in attacking for exchange in encounter.exchanges)


def worth_a_change(encounter: Encounter, now: datetime) -> bool:
    """Whether :func:`remind` would change anything (read on a loaded fight, before a transaction)."""
    if encounter.table.remind_after_hours <= 0:
        return False
    return turn_wait(encounter) != encounter.waiting or bool(due(encounter, now))


def next_reminder(encounter: Encounter, unseen: datetime) -> datetime | None:
    """The first moment :func:`worth_a_change` holds (``unseen`` when it holds already, a wait begun
    unseen, whatever the time), or None when it never will without a change of the fight."""
    hours = encounter.table.remind_after_hours
    if hours <= 0:
        return None
    if turn_wait(encounter) != encounter.waiting:
        return unseen
    after = timedelta(hours=hours)
    return min(
        (
            wait.since + after
            for wait in waits(encounter)
            if wait.key not in encounter.reminded and not _on_hold(encounter, wait)
        ),
        default=None,
    )


def remind(encounter: Encounter, now: datetime) -> Done[Reminded]:
    """The waits due for a reminder, marked reminded; refused (:class:`NothingDue`, nothing changes)
    when reminders are off or nothing is due. A turn begun unseen starts counting now."""
    if encounter.table.remind_after_hours <= 0:
        raise NothingDue()
    noted = note_wait(encounter, now)
    found = due(encounter, now)
    if not found and not noted:
        raise NothingDue()
    current = {wait.key for wait in waits(encounter)}
    encounter.reminded = [key for key in encounter.reminded if key in current] + [w.key for w in found]
    return Done(Reminded(found, now), kind="reminder")


def _players(encounter: Encounter, holders: list[str]) -> list[int]:
    """Who plays these cards: their players, the GM for NPC groups (each once)."""
    users = [encounter.holder_owner(holder) for holder in holders]
    return list(dict.fromkeys(encounter.gm_id if user is None else user for user in users))


def _defense_wait(encounter: Encounter, exchange: Exchange) -> Wait:
    defender = next((c for c in encounter.combatants if c.id == exchange.defender), None)
    owner = defender.owner_id if defender is not None else None
    asked_gm = exchange.gm_pinged or owner is None
    since = exchange.deadline if exchange.gm_pinged and exchange.deadline is not None else exchange.asked_at
    ping = [encounter.gm_id] if asked_gm or owner is None else [owner]
    return Wait(f"{WaitKind.DEFENSE}:{exchange.id}", WaitKind.DEFENSE, since, ping, exchange=exchange)
