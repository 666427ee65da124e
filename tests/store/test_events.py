"""What each of the store's writes of a fight announces once committed (:mod:`bot.events`), on both
stores: a change, a new fight, an undo and a redo, an end, a reopen; a refused write announces nothing."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.history import restored
from bot.encounter.lifecycle import EndedFight
from bot.events import FightChanged, FightEnded, FightReopened
from bot.rules.errors import RulesError
from bot.store import HistoryStep, LogEntry, Store
from tests.test_events import Heard

from .test_encounters import CHANNEL, GM, event, fight


def next_round(encounter: Encounter) -> Done[None]:
    encounter.initiative.round += 1
    return Done(None, log=[f"round {encounter.initiative.round}"])


def ending(encounter: Encounter) -> Done[EndedFight]:
    return Done(EndedFight.of(encounter), log=["over"], end=True)


def undo_line(steps: Sequence[HistoryStep]) -> LogEntry:
    return event("undo")


async def test_each_write_of_a_fight_announces_what_happened(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        started = await store.save_encounter(fight(), events=[event("started")])
    async with heard.bus.collecting():
        changed, _ = await store.change(CHANNEL, GM, next_round)
    async with heard.bus.collecting():
        undone, _ = await store.undo(CHANNEL, 1, changed.version, restored, undo_line)
    redoable = await store.redoable(CHANNEL)
    assert redoable is not None
    async with heard.bus.collecting():
        redone, _ = await store.redo(CHANNEL, redoable.undo_id, restored, undo_line)
    async with heard.bus.collecting():
        last, ended = await store.change(CHANNEL, GM, ending)
    [kept] = await store.ended_encounters(CHANNEL)
    kept_fight = await store.ended_encounter(kept.id)
    assert kept_fight is not None
    async with heard.bus.collecting():
        reopened = await store.reopen_encounter(kept_fight)
    assert heard.events == [
        FightChanged(started),
        FightChanged(changed),
        FightChanged(undone),
        FightChanged(redone),
        FightEnded(last, ended),
        FightReopened(reopened),
    ]


async def test_a_fight_saved_without_a_log_line_is_bookkeeping(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        await store.save_encounter(fight())
    assert heard.events == []


async def test_a_refused_write_announces_nothing(store: Store) -> None:
    heard = Heard()
    saved = await store.save_encounter(fight())

    def refused(encounter: Encounter) -> Done[None]:
        encounter.initiative.round += 1
        raise RulesError("no")

    with pytest.raises(RulesError):
        async with heard.bus.collecting():
            await store.change(CHANNEL, GM, refused)
    with pytest.raises(RulesError):
        async with heard.bus.collecting():
            await store.save_encounter(saved.model_copy(update={"version": saved.version + 5}))
    assert heard.events == []
