"""The fights' bookkeeping noted in memory (:mod:`bot.store.bookkeeping`): the fight's next change writes it
in its own transaction, a read sees it before, a refused change keeps it, what no change carried is
written alone (and only the fight it was noted for), and an undo carries it over."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.history import restored
from bot.encounter.records import FightMessage
from bot.rules.errors import RulesError
from bot.store import LogEntry, Store

from .conftest import Database
from .test_encounters import CHANNEL, GM, event, fight


@pytest.fixture
async def store(database: Database) -> AsyncIterator[Store]:
    """A store on ``database`` (SQLite: a file), which :func:`stored` reads apart."""
    opened = await database.open()
    try:
        yield opened
    finally:
        await opened.close()


def message(message_id: int, *drawn: str) -> FightMessage:
    return FightMessage(id=message_id, drawn=list(drawn))


def a_round(current: Encounter) -> Done[None]:
    current.initiative.round += 1
    return Done(None, log=[f"round {current.initiative.round}"])


def known(encounter: Encounter | None) -> dict[int, list[str]]:
    assert encounter is not None
    return {m.id: m.drawn for m in encounter.messages}


async def stored(database: Database) -> dict[int, list[str]]:
    """The messages of the fight as written in the database (read by a store of its own)."""
    other = await database.outside_writer()
    try:
        return known(await other.load_encounter(CHANNEL))
    finally:
        await other.close()


async def test_the_next_change_writes_the_notes_with_its_own_and_a_read_sees_them_before(
    store: Store, database: Database
) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, started.tag, [message(501, "a")], {})
    store.bookkeeping.note(CHANNEL, started.tag, [message(502, "b")], {501: ["c"]})
    assert known(await store.load_encounter(CHANNEL)) == {501: ["c"], 502: ["b"]}  # a read sees them
    assert await stored(database) == {}  # not written yet
    seen: list[dict[int, list[str]]] = []

    def round_seeing_them(current: Encounter) -> Done[None]:
        seen.append(known(current))
        return a_round(current)

    saved, _ = await store.change(CHANNEL, GM, round_seeing_them)
    assert seen == [{501: ["c"], 502: ["b"]}]  # the operation ran on the fight with its notes
    assert (saved.version, known(saved)) == (started.version + 1, {501: ["c"], 502: ["b"]})  # one write
    assert await stored(database) == {501: ["c"], 502: ["b"]}
    assert len(store.bookkeeping) == 0  # taken off once committed
    [step] = await store.history(CHANNEL)
    assert step.lines == ("round 1",)  # no step of history of their own


async def test_a_refused_change_keeps_the_notes_for_the_next(store: Store, database: Database) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, started.tag, [message(501, "a")])

    def refused(current: Encounter) -> Done[None]:
        raise RulesError("no")

    with pytest.raises(RulesError):
        await store.change(CHANNEL, GM, refused)
    assert len(store.bookkeeping) == 1
    assert await stored(database) == {}
    await store.change(CHANNEL, GM, a_round)
    assert await stored(database) == {501: ["a"]}


async def test_a_note_made_while_a_change_runs_stays_for_the_next(store: Store, database: Database) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, started.tag, [message(501, "a")])

    def redrawn_meanwhile(current: Encounter) -> Done[None]:
        store.bookkeeping.note(CHANNEL, started.tag, drawn={501: ["newer"]})
        return a_round(current)

    await store.change(CHANNEL, GM, redrawn_meanwhile)
    assert await stored(database) == {501: ["a"]}
    assert known(await store.load_encounter(CHANNEL)) == {501: ["newer"]}
    await store.change(CHANNEL, GM, a_round)
    assert await stored(database) == {501: ["newer"]}
    assert len(store.bookkeeping) == 0


async def test_notes_no_change_carried_are_written_alone_once_they_waited(
    store: Store, database: Database
) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, started.tag, [message(501, "a")])
    assert await store.write_notes(older_than=60) == 0  # too young
    assert await store.write_notes() == 1
    assert await stored(database) == {501: ["a"]}
    assert len(store.bookkeeping) == 0
    assert await store.history(CHANNEL) == []  # bookkeeping: no step of the fight's history
    assert await store.read_log(channel_id=CHANNEL) == []
    assert await store.write_notes() == 0  # nothing left


async def test_notes_of_a_fight_that_is_no_longer_the_channels_are_dropped(
    store: Store, database: Database
) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, "another fight", [message(501, "a")])
    store.bookkeeping.note(CHANNEL + 1, "a fight gone", [message(502, "b")])
    assert known(await store.load_encounter(CHANNEL)) == {}  # not this fight's
    assert await store.write_notes() == 0
    assert len(store.bookkeeping) == 0
    assert (await store.load_encounter(CHANNEL)) == started


async def test_an_undo_carries_over_the_messages_noted(store: Store, database: Database) -> None:
    await store.save_encounter(fight())
    saved, _ = await store.change(CHANNEL, GM, a_round)
    store.bookkeeping.note(CHANNEL, saved.tag, [message(501, "a")])
    restore = store.bookkeeping.restoring(restored)
    undone, _ = await store.undo(CHANNEL, 1, saved.version, restore, lambda steps: undo_line())
    restore.taken()
    assert undone.initiative.round == 0
    assert known(undone) == {501: ["a"]}  # the message is on the channel whatever the undo
    assert await stored(database) == {501: ["a"]}
    assert len(store.bookkeeping) == 0


def undo_line() -> LogEntry:
    return event("undo")


async def test_the_notes_of_one_channel_are_written_before_an_end_so_a_reopened_fight_knows_its_messages(
    store: Store,
) -> None:
    started = await store.save_encounter(fight())
    store.bookkeeping.note(CHANNEL, started.tag, [message(501, "a")])
    store.bookkeeping.note(CHANNEL + 1, "another channel's", [message(502, "b")])
    assert await store.write_notes(channel_id=CHANNEL) == 1  # what /encounter end does when it asks
    assert [channel for channel, _ in store.bookkeeping.waiting()] == [CHANNEL + 1]

    def end(current: Encounter) -> Done[None]:
        return Done(None, log=["ended"], end=True)

    await store.change(CHANNEL, GM, end)
    assert await store.load_encounter(CHANNEL) is None
    [ended] = await store.ended_encounters(CHANNEL)
    kept = await store.ended_encounter(ended.id)
    assert kept is not None
    reopened = await store.reopen_encounter(kept)
    assert known(reopened) == {501: ["a"]}
