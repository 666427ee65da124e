"""The index of due times (issue 29): every write of a fight keeps, beside it, the next moment something is
due in it (:func:`bot.encounter.due.next_due`), and :meth:`Store.due_fights` lists only the fights with
something due, without reading a document; on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter
from bot.encounter.due import DUE_AT_ONCE, next_due, next_timer
from bot.encounter.permissions import Actor
from bot.rules.dice import ScriptedDice
from bot.store import DueFight, EncounterChange, Store
from tests.encounter.test_reminders import CATALOG
from tests.encounter.test_reminders import fight as dealt

from .conftest import Database
from .test_encounters import GUILD, event, fight


def waiting(channel_id: int, remind_after: int = 6) -> Encounter:
    """A fight dealt in ``channel_id``: the first turn waits, reminded after ``remind_after`` hours."""
    encounter = dealt("KS", "5H", "2C", remind_after=remind_after)
    return encounter.model_copy(update={"channel_id": channel_id, "guild_id": GUILD})


async def test_only_the_fights_with_something_due_are_listed_soonest_first(store: Store) -> None:
    await store.save_encounter(fight(1))  # nothing due: no round dealt, no defense
    soon = await store.save_encounter(waiting(2, remind_after=1))
    later = await store.save_encounter(waiting(3, remind_after=6))
    await store.save_encounter(waiting(4, remind_after=0))  # reminders off
    assert soon.waiting_since is not None
    assert later.waiting_since is not None
    first, second = soon.waiting_since + timedelta(hours=1), later.waiting_since + timedelta(hours=6)
    assert await store.due_fights() == [DueFight(2, GUILD, 1, first), DueFight(3, GUILD, 1, second)]
    assert await store.due_fights(first) == [DueFight(2, GUILD, 1, first)]
    assert await store.due_fights(first - timedelta(seconds=1)) == []


async def test_every_write_of_the_fight_keeps_its_due_time(store: Store) -> None:
    saved = await store.save_encounter(waiting(2))
    [due] = await store.due_fights()
    assert due.due_at == next_due(saved)

    def off(current: Encounter | None) -> EncounterChange:
        assert current is not None
        changed = current.model_copy(deep=True)
        changed.table = changed.table.model_copy(update={"remind_after_hours": 0})
        return EncounterChange(encounter=changed, events=(event("reminders off", 2),))

    await store.update_encounter(2, off)
    assert await store.due_fights() == []
    back = await store.load_encounter(2)
    assert back is not None
    back.table = back.table.model_copy(update={"remind_after_hours": 2})
    await store.save_encounter(back)
    [due] = await store.due_fights()
    assert due.version == 3
    current = await store.load_encounter(2)
    assert current is not None
    await store.delete_encounter(current)
    assert await store.due_fights() == []  # an ended fight is not in the index


async def test_a_reopened_fight_is_due_at_once_until_rechecked(store: Store) -> None:
    saved = await store.save_encounter(waiting(2, remind_after=0))
    await store.delete_encounter(saved)
    [ended] = await store.ended_encounters(2)
    reopened = await store.reopen_encounter(ended)
    assert await store.due_fights() == [DueFight(2, GUILD, reopened.version, DUE_AT_ONCE)]
    assert await store.due_fights(timers=True) == [DueFight(2, GUILD, reopened.version, DUE_AT_ONCE)]
    stale = reopened.model_copy(update={"version": reopened.version - 1})
    assert not await store.recheck_due(stale)  # not the version stored
    assert await store.due_fights(DUE_AT_ONCE) != []
    assert await store.recheck_due(reopened)
    assert await store.due_fights() == []
    assert await store.due_fights(timers=True) == []
    loaded = await store.load_encounter(2)
    assert loaded is not None
    assert loaded.version == reopened.version


async def test_the_index_survives_a_restart(database: Database) -> None:
    store = await database.open()
    try:
        saved = await store.save_encounter(waiting(7))
    finally:
        await store.close()
    store = await database.open()
    try:
        [due] = await store.due_fights(datetime.now(UTC) + timedelta(days=1))
    finally:
        await store.close()
    assert (due.channel_id, due.due_at) == (7, next_due(saved))


async def test_a_defenses_timer_is_indexed_apart_from_the_reminders(store: Store) -> None:
    """Start-up reads the fights with a defense's timer only (``timers``); the sweep, all that is due."""
    encounter = dealt("2S", "5H", "KC").model_copy(update={"channel_id": 2, "guild_id": GUILD})
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    asked, dice = datetime.now(UTC), ScriptedDice([15])
    declare_attack(encounter, CATALOG, Actor(1), bandit, alice, Declaration(dice=1), dice, asked)
    [exchange] = encounter.exchanges
    exchange.deadline = asked + timedelta(days=2)
    saved = await store.save_encounter(encounter)
    await store.save_encounter(waiting(3, remind_after=6))  # a reminder only: no timer
    assert await store.due_fights(timers=True) == [DueFight(2, GUILD, 1, exchange.deadline)]
    assert [due.channel_id for due in await store.due_fights()] == [2, 3]
    due = next_due(saved)
    assert due is not None
    assert (await store.due_fights())[0].due_at == due < exchange.deadline  # the GM's turn's reminder
    assert next_timer(saved) == exchange.deadline
