"""What a reminder says: whom it pings, what the fight waits for, since when, and how to act on it."""

from __future__ import annotations

from datetime import datetime

from ..encounter.document import Encounter
from ..encounter.reminders import Reminded, Wait, WaitKind
from .announcements import Announcement
from .links import linked, shown_at
from .tracker import holder_line, name


def reminder_announcement(encounter: Encounter, reminded: Reminded) -> Announcement:
    """One line per wait due, each pinging whoever must act on it."""
    announcement = Announcement()
    for wait in reminded.waits:
        mentions = " ".join(f"<@{user}>" for user in wait.ping)
        announcement.ping.extend(user for user in wait.ping if user not in announcement.ping)
        announcement.lines.append(f"⏰ {mentions}: {_waiting(encounter, wait, reminded.now)}")
    return announcement


def _waiting(encounter: Encounter, wait: Wait, now: datetime) -> str:
    waited = _hours(wait.since, now)
    tracker = linked("the tracker", shown_at(encounter))
    if wait.kind is WaitKind.TURN:
        holder = wait.holders[0]
        card = encounter.initiative.cards.get(holder)
        shown = f"{holder_line(encounter, holder)}, {card.label}" if card else holder_line(encounter, holder)
        whose = "your turn" if encounter.holder_owner(holder) is not None else "the turn"
        return (
            f"it has been {waited} since {whose} ({shown}) began; act with /attack, /move… "
            f"or press **Next** on {tracker}."
        )
    if wait.kind is WaitKind.OFFER:
        cards = ", ".join(holder_line(encounter, holder) for holder in wait.holders)
        return (
            f"the next turn has been offered to {cards} for {waited}; take it with **Act** on "
            f"{tracker} (or /init act), or let it pass with **Next**."
        )
    exchange = wait.exchange
    assert exchange is not None
    attacker, defender = (_named(encounter, exchange.attacker), _named(encounter, exchange.defender))
    url = shown_at(encounter, exchange)
    where = f"the buttons of {linked('the attack', url)}" if url else "the buttons of the attack's message"
    return f"**{attacker}**'s attack has waited {waited} for **{defender}**'s defense; pick one with {where}."


def _named(encounter: Encounter, combatant_id: str) -> str:
    found = next((c for c in encounter.combatants if c.id == combatant_id), None)
    return name(found.name) if found is not None else "someone who left"


def _hours(since: datetime, now: datetime) -> str:
    hours = max(0, int((now - since).total_seconds() // 3600))
    return "1 hour" if hours == 1 else f"{hours} hours"
