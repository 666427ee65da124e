"""When a fight next has something due (the store's index of due times), on the document alone: it agrees
with the reminders' sweep (:func:`~bot.encounter.reminders.worth_a_change`) and the defenses' timers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter
from bot.encounter.due import DUE_AT_ONCE, next_due, next_timer
from bot.encounter.initiative import press
from bot.encounter.permissions import Actor
from bot.encounter.reminders import remind, worth_a_change
from bot.encounter.results import TurnAction
from bot.rules.dice import ScriptedDice
from tests.encounter.test_reminders import CATALOG, GM, fight

ASKED = datetime(2026, 12, 1, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def test_a_fight_with_reminders_off_and_no_defense_asked_has_nothing_due() -> None:
    assert next_due(Encounter(channel_id=5, guild_id=6, gm_id=GM)) is None
    assert next_due(fight("KS", "5H", "2C", remind_after=0)) is None


def test_a_turn_is_due_when_its_reminder_is_and_not_a_moment_before() -> None:
    encounter = fight("KS", "5H", "2C", remind_after=6)
    assert encounter.waiting_since is not None
    due = next_due(encounter)
    assert due == encounter.waiting_since + timedelta(hours=6)
    assert not worth_a_change(encounter, due - SECOND)
    assert worth_a_change(encounter, due)
    remind(encounter, due)
    assert next_due(encounter) is None  # reminded: nothing more until the fight moves on
    press(encounter, TurnAction.NEXT, Actor(11), ScriptedDice([]))
    assert encounter.waiting_since is not None
    assert next_due(encounter) == encounter.waiting_since + timedelta(hours=6)


def test_a_turn_begun_unseen_is_due_at_once() -> None:
    encounter = fight("KS", "5H", "2C")
    encounter.waiting = encounter.waiting_since = None
    assert next_due(encounter) == DUE_AT_ONCE
    assert worth_a_change(encounter, DUE_AT_ONCE)


def test_a_defense_with_a_deadline_is_due_at_its_deadline_until_the_gm_is_asked() -> None:
    encounter = fight("2S", "5H", "KC", remind_after=0)
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    declare_attack(
        encounter, CATALOG, Actor(GM), bandit, alice, Declaration(dice=1), ScriptedDice([15]), ASKED
    )
    [exchange] = encounter.exchanges
    assert exchange.deadline is not None  # the table's timeout
    assert next_due(encounter) == exchange.deadline
    exchange.deadline = None  # a table without one
    assert next_due(encounter) is None
    exchange.deadline = ASKED + timedelta(minutes=10)
    assert next_due(encounter) == exchange.deadline
    assert next_timer(encounter) == exchange.deadline
    exchange.gm_pinged = True  # the timeout asked the GM: no timer any more
    assert next_due(encounter) is None
    assert next_timer(encounter) is None


def test_the_earliest_of_a_deadline_and_a_reminder_is_due_in_utc() -> None:
    encounter = fight("2S", "5H", "KC", remind_after=1)
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    encounter.reminded.append(encounter.waiting or "")  # the GM's turn was reminded already
    declare_attack(
        encounter, CATALOG, Actor(GM), bandit, alice, Declaration(dice=1), ScriptedDice([15]), ASKED
    )
    [exchange] = encounter.exchanges
    exchange.deadline = (ASKED + timedelta(hours=2)).astimezone(timezone(timedelta(hours=5)))
    due = next_due(encounter)
    assert due == ASKED + timedelta(hours=1)  # the defense's reminder first
    assert next_timer(encounter) == ASKED + timedelta(hours=2)  # the timer alone
    assert due is not None
    assert due.tzinfo is UTC
    exchange.deadline = ASKED + timedelta(minutes=30)
    assert next_due(encounter) == ASKED + timedelta(minutes=30)
