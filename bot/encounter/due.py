"""When a fight next has something due, read on the document alone: the earliest of its defenses'
deadlines (a timer's) and of its reminders (the sweep's), or None when nothing is due in it at all.

The store keeps these moments beside each fight (``encounters.due_at`` and, for the defenses' timers
alone, ``timer_at``, written by the same transaction that writes the fight), so that start-up reads only
the fights with a timer to schedule again and the reminders' sweep only those with something due, and an
idle or ended fight costs them nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

from .document import Encounter
from .reminders import next_reminder

DUE_AT_ONCE = datetime(1970, 1, 1, tzinfo=UTC)
"""Due the first time anything looks: a wait whose beginning is still to be noted, or a fight whose due
time is yet to be worked out (the fights stored before the index, migration 0011, and a fight reopened)."""


def next_timer(encounter: Encounter) -> datetime | None:
    """The earliest deadline of a defense waiting for its timer (the bot's scheduler keeps one for each:
    they are what a start must schedule again), in UTC."""
    deadlines = [
        exchange.deadline
        for exchange in encounter.exchanges
        if exchange.pending and exchange.deadline is not None and not exchange.gm_pinged
    ]
    return min(deadlines).astimezone(UTC) if deadlines else None


def next_due(encounter: Encounter) -> datetime | None:
    """The earliest moment something is due in the fight (a defense's deadline, a reminder), in UTC."""
    moments = [
        moment
        for moment in (next_timer(encounter), next_reminder(encounter, DUE_AT_ONCE))
        if moment is not None
    ]
    return min(moments).astimezone(UTC) if moments else None
