"""Fights: versioned documents written by compare-and-set, with their log lines in the same transaction."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import subprocess
import sys
import textwrap

import pytest

from bot.encounter.document import Encounter
from bot.rules.errors import RulesError
from bot.rules.options import RuleOptions
from bot.store import EncounterChange, LogEntry, StaleEncounter, Store

from .conftest import Database

CHANNEL = 100
GUILD = 10
GM = 1


def fight(channel_id: int = CHANNEL) -> Encounter:
    return Encounter(channel_id=channel_id, guild_id=GUILD, gm_id=GM)


def event(text: str, channel_id: int = CHANNEL) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=channel_id, user_id=GM, kind="encounter", text=text)


def next_round(current: Encounter | None) -> EncounterChange:
    """A change that counts rounds, starting the fight if there is none."""
    encounter = current or fight()
    encounter.initiative.round += 1
    return EncounterChange(encounter, (event(f"round {encounter.initiative.round}"),))


class CountingChange:
    """:func:`next_round`, counting how often ``update_encounter`` called it (once per attempt)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, current: Encounter | None) -> EncounterChange:
        self.calls += 1
        return next_round(current)


# ---------------------------------------------------------------------------------- round trip


async def test_a_new_fight_is_saved_as_version_1_and_loads_back_equal(store: Store) -> None:
    new = fight().model_copy(update={"options": RuleOptions(joker_bonus=3)})
    new.initiative.round = 2
    saved = await store.save_encounter(new)
    assert saved.version == 1
    assert await store.load_encounter(CHANNEL) == saved
    assert new.version == 0  # the argument is never changed


async def test_each_save_adds_one_to_the_version(store: Store) -> None:
    encounter = await store.save_encounter(fight())
    for expected in range(2, 5):
        encounter.initiative.round += 1
        encounter = await store.save_encounter(encounter)
        assert encounter.version == expected
    loaded = await store.load_encounter(CHANNEL)
    assert loaded is not None
    assert (loaded.version, loaded.initiative.round) == (4, 3)


async def test_the_returned_copy_shares_nothing_with_the_argument(store: Store) -> None:
    original = fight()
    saved = await store.save_encounter(original)
    saved.initiative.round = 7
    assert original.initiative.round == 0


async def test_a_channel_without_a_fight_loads_none(store: Store) -> None:
    await store.save_encounter(fight(channel_id=1))
    assert await store.load_encounter(2) is None


async def test_fights_in_different_channels_are_independent(store: Store) -> None:
    first = await store.save_encounter(fight(channel_id=1))
    second = await store.save_encounter(fight(channel_id=2))
    second.initiative.round = 5
    await store.save_encounter(second)
    assert await store.load_encounter(1) == first


# ---------------------------------------------------------------------------------- compare-and-set


async def test_a_stale_save_is_refused_and_changes_nothing(store: Store) -> None:
    first = await store.save_encounter(fight())
    current = await store.save_encounter(first)
    first.initiative.round = 99
    with pytest.raises(StaleEncounter) as refused:
        await store.save_encounter(first, events=[event("stale")])
    assert (refused.value.channel_id, refused.value.expected, refused.value.found) == (CHANNEL, 1, 2)
    assert "nothing was changed" in refused.value.message
    assert await store.load_encounter(CHANNEL) == current
    assert await store.read_log() == []


async def test_a_second_fight_in_a_channel_is_refused(store: Store) -> None:
    running = await store.save_encounter(fight())
    with pytest.raises(StaleEncounter, match="already running") as refused:
        await store.save_encounter(fight(), events=[event("second")])
    assert (refused.value.expected, refused.value.found) == (0, 1)
    assert await store.load_encounter(CHANNEL) == running
    assert await store.read_log() == []


async def test_saving_a_fight_that_was_ended_meanwhile_is_refused(store: Store) -> None:
    saved = await store.save_encounter(fight())
    await store.delete_encounter(saved)
    with pytest.raises(StaleEncounter, match="ended") as refused:
        await store.save_encounter(saved)
    assert refused.value.found is None
    assert await store.load_encounter(CHANNEL) is None


async def test_a_delete_is_a_compare_and_set_too(store: Store) -> None:
    first = await store.save_encounter(fight())
    current = await store.save_encounter(first)
    with pytest.raises(StaleEncounter):
        await store.delete_encounter(first, events=[event("ended")])
    assert await store.load_encounter(CHANNEL) == current
    await store.delete_encounter(current, events=[event("ended")])
    assert await store.load_encounter(CHANNEL) is None
    assert [entry.text for entry in await store.read_log()] == ["ended"]


async def test_a_fight_can_start_again_after_it_ended(store: Store) -> None:
    await store.delete_encounter(await store.save_encounter(fight()))
    assert (await store.save_encounter(fight())).version == 1


async def test_two_writers_that_loaded_the_same_version_one_wins(store: Store) -> None:
    await store.save_encounter(fight())
    mine, theirs = await store.load_encounter(CHANNEL), await store.load_encounter(CHANNEL)
    assert mine is not None
    assert theirs is not None
    mine.initiative.round = 11
    theirs.initiative.round = 22
    results = await asyncio.gather(
        store.save_encounter(mine, events=[event("mine")]),
        store.save_encounter(theirs, events=[event("theirs")]),
        return_exceptions=True,
    )
    winners = [result for result in results if isinstance(result, Encounter)]
    losers = [result for result in results if isinstance(result, StaleEncounter)]
    assert len(winners) == 1
    assert len(losers) == 1
    stored = await store.load_encounter(CHANNEL)
    assert stored == winners[0]
    assert stored.initiative.round in (11, 22)
    winner_text = "mine" if stored.initiative.round == 11 else "theirs"
    assert [entry.text for entry in await store.read_log()] == [winner_text]


async def test_two_stores_on_one_database_racing_one_wins(database: Database) -> None:
    """Like another writer on the database: the in-process lock cannot help, the compare-and-set still
    does."""
    first, second = await database.open(), await database.outside_writer()
    try:
        await first.save_encounter(fight())
        mine, theirs = await first.load_encounter(CHANNEL), await second.load_encounter(CHANNEL)
        assert mine is not None
        assert theirs is not None
        mine.initiative.round = 11
        theirs.initiative.round = 22
        results = await asyncio.gather(
            first.save_encounter(mine), second.save_encounter(theirs), return_exceptions=True
        )
        winners = [result for result in results if isinstance(result, Encounter)]
        assert len(winners) == 1
        assert sum(isinstance(result, StaleEncounter) for result in results) == 1
        assert await first.load_encounter(CHANNEL) == winners[0]
        assert await second.load_encounter(CHANNEL) == winners[0]
    finally:
        await first.close()
        await second.close()


# ---------------------------------------------------------------------------------- update_encounter


async def test_many_concurrent_updates_all_land(store: Store) -> None:
    await asyncio.gather(*(store.update_encounter(CHANNEL, next_round) for _ in range(50)))
    stored = await store.load_encounter(CHANNEL)
    assert stored is not None
    assert (stored.initiative.round, stored.version) == (50, 50)
    log = await store.read_log(limit=100)
    assert [entry.text for entry in log] == [f"round {n}" for n in range(1, 51)]


async def test_updates_from_two_stores_on_one_database_all_land(database: Database) -> None:
    """Each store serializes its own commands; between the two, stale saves are retried.

    A save of one store is stale only if the other committed since its load, and each of the other's
    25 commits can spoil at most one load, so 26 attempts always suffice.
    """
    first, second = await database.open(), await database.outside_writer()
    counted = CountingChange()
    try:
        await asyncio.gather(
            *(s.update_encounter(CHANNEL, counted, attempts=26) for s in (first, second) for _ in range(25))
        )
        stored = await second.load_encounter(CHANNEL)
        assert stored is not None
        assert (stored.initiative.round, stored.version) == (50, 50)
        assert counted.calls >= 50
        assert len(await first.read_log(limit=1000)) == 50
    finally:
        await first.close()
        await second.close()


async def test_a_change_that_raises_writes_nothing(store: Store) -> None:
    saved = await store.save_encounter(fight())

    def refuse(current: Encounter | None) -> EncounterChange:
        assert current is not None
        current.initiative.round = 42  # changed in place, then refused: must not leak into the store
        raise RulesError("Not your turn.")

    with pytest.raises(RulesError, match="Not your turn"):
        await store.update_encounter(CHANNEL, refuse)
    assert await store.load_encounter(CHANNEL) == saved
    assert await store.read_log() == []


async def test_a_change_returning_none_ends_the_fight(store: Store) -> None:
    await store.save_encounter(fight())
    result = await store.update_encounter(CHANNEL, lambda _: EncounterChange(None, (event("the end"),)))
    assert result is None
    assert await store.load_encounter(CHANNEL) is None
    assert [entry.text for entry in await store.read_log()] == ["the end"]


async def test_a_change_with_no_fight_and_none_writes_only_its_events(store: Store) -> None:
    result = await store.update_encounter(CHANNEL, lambda _: EncounterChange(None, (event("no fight"),)))
    assert result is None
    assert await store.load_encounter(CHANNEL) is None
    assert [entry.text for entry in await store.read_log()] == ["no fight"]


async def test_a_change_returning_another_channels_fight_is_a_bug(store: Store) -> None:
    with pytest.raises(ValueError, match="channel"):
        await store.update_encounter(CHANNEL, lambda _: EncounterChange(fight(channel_id=CHANNEL + 1)))
    assert await store.load_encounter(CHANNEL + 1) is None


async def test_a_save_from_outside_the_lock_makes_update_retry(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store.save_encounter(fight())
    load = store.load_encounter
    interfered = 0

    async def load_then_interfere(channel_id: int) -> Encounter | None:
        nonlocal interfered
        loaded = await load(channel_id)
        if interfered == 0:  # another writer commits between our load and our save, once
            interfered += 1
            assert loaded is not None
            bumped = next_round(loaded.model_copy(deep=True)).encounter
            assert bumped is not None
            await store.save_encounter(bumped)
        return loaded

    monkeypatch.setattr(store, "load_encounter", load_then_interfere)
    counted = CountingChange()

    # The retry of the generic update (load, change, save); each store's own update reads inside its
    # write transaction, so no save can come between (see the test after the next).
    saved = await Store.update_encounter(store, CHANNEL, counted)
    assert saved is not None
    assert counted.calls == 2
    assert (saved.initiative.round, saved.version) == (2, 3)


async def test_update_gives_up_after_its_attempts(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    await store.save_encounter(fight())
    load = store.load_encounter

    async def load_then_interfere(channel_id: int) -> Encounter | None:
        loaded = await load(channel_id)
        assert loaded is not None
        await store.save_encounter(loaded)
        return loaded

    monkeypatch.setattr(store, "load_encounter", load_then_interfere)
    counted = CountingChange()

    with pytest.raises(StaleEncounter):
        await Store.update_encounter(store, CHANNEL, counted, attempts=4)
    assert counted.calls == 4
    stored = await load(CHANNEL)
    assert stored is not None
    assert stored.initiative.round == 0  # only the interfering saves landed, and they changed nothing
    assert await store.read_log() == []


async def test_update_reads_inside_its_write_transaction_so_another_store_cannot_interleave(
    database: Database,
) -> None:
    """An update holds the write lock from its read to its commit (SQLite's of the file, PostgreSQL's
    of the row): a second store (another process) writing all the while never makes it stale, and each
    change runs once."""
    first, second = await database.open(), await database.outside_writer()
    try:
        await first.save_encounter(fight())
        counted = CountingChange()
        await asyncio.gather(
            *(first.update_encounter(CHANNEL, counted, attempts=1) for _ in range(10)),
            *(second.update_encounter(CHANNEL, next_round, attempts=1) for _ in range(10)),
        )
        stored = await first.load_encounter(CHANNEL)
    finally:
        await first.close()
        await second.close()
    assert counted.calls == 10
    assert stored is not None
    assert (stored.initiative.round, stored.version) == (20, 21)


async def test_update_refuses_zero_attempts(store: Store) -> None:
    with pytest.raises(ValueError, match="attempts"):
        await store.update_encounter(CHANNEL, next_round, attempts=0)


# ---------------------------------------------------------------------------------- the channel lock


async def test_one_channel_has_one_lock_while_it_is_in_use(store: Store) -> None:
    held = store.lock(1)
    assert store.lock(1) is held
    assert store.lock(2) is not held


async def test_idle_channel_locks_are_forgotten(store: Store) -> None:
    for channel_id in range(1000):
        async with store.lock(channel_id):
            pass
    gc.collect()
    assert len(store._channel_locks) == 0  # nobody holds them, so nothing keeps them


async def test_the_lock_serializes_a_load_and_save_of_two_commands(store: Store) -> None:
    await store.save_encounter(fight())

    async def command() -> None:
        async with store.lock(CHANNEL):
            encounter = await store.load_encounter(CHANNEL)
            assert encounter is not None
            await asyncio.sleep(0)  # give the other command every chance to interleave
            encounter.initiative.round += 1
            await store.save_encounter(encounter)

    await asyncio.gather(command(), command())
    stored = await store.load_encounter(CHANNEL)
    assert stored is not None
    assert stored.initiative.round == 2


# ---------------------------------------------------------------------------------- one transaction


REFUSE_BOOM_SQLITE = """
CREATE TRIGGER refuse_boom BEFORE INSERT ON log WHEN NEW.kind = 'boom'
BEGIN SELECT RAISE(ABORT, 'boom refused'); END;
"""
REFUSE_BOOM_POSTGRES = """
CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'boom' THEN RAISE EXCEPTION 'boom refused'; END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER refuse_boom BEFORE INSERT ON log FOR EACH ROW EXECUTE FUNCTION refuse_boom();
"""


async def test_a_failing_event_undoes_the_save(database: Database) -> None:
    """The document and its events are one transaction: an event the database refuses undoes both."""
    store = await database.open()
    try:
        saved = await store.save_encounter(fight())
        await database.script(REFUSE_BOOM_SQLITE, REFUSE_BOOM_POSTGRES)
        changed = saved.model_copy(deep=True)
        changed.initiative.round = 5
        boom = LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="boom", text="boom")
        with pytest.raises(Exception, match="boom refused"):
            await store.save_encounter(changed, events=[event("fine"), boom])
        assert await store.load_encounter(CHANNEL) == saved
        assert await store.read_log() == []
        assert (await store.save_encounter(changed)).version == 2  # and the store carries on
    finally:
        await store.close()


async def test_a_cancelled_save_is_whole_or_absent_and_leaves_no_transaction_open(store: Store) -> None:
    """A command cancelled mid-save (Discord timing out, the bot shutting down) leaves no half-save.

    Cancelled after its COMMIT was sent, a save may still have landed; either way the fight and its
    event are both there or both absent, and the next transaction starts cleanly.
    """
    for steps in range(40):  # cancel ever later, to land on each await of the save in turn
        saving = asyncio.create_task(
            store.save_encounter(fight(channel_id=steps), events=[event(f"saved {steps}", channel_id=steps)])
        )
        await asyncio.sleep(steps / 20_000)
        saving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await saving
        fight_there = await store.load_encounter(steps) is not None
        event_there = bool(await store.read_log(channel_id=steps))
        assert fight_there == event_there
    assert (await store.save_encounter(fight(channel_id=99))).version == 1


# ---------------------------------------------------------------------------------- restart and crash


async def test_a_restart_keeps_the_fight_and_its_version(database: Database) -> None:
    store = await database.open()
    saved = await store.save_encounter(fight())
    saved.initiative.round = 3
    saved = await store.save_encounter(saved)
    await store.close()

    store = await database.open()
    try:
        loaded = await store.load_encounter(CHANNEL)
        assert loaded == saved
        assert (await store.save_encounter(loaded)).version == 3
    finally:
        await store.close()


CRASHING_COMMAND = """
    import asyncio, os, sys
    from bot.encounter.document import Encounter
    from bot.store import LogEntry, open_store

    async def main() -> None:
        store = await open_store(sys.argv[1])
        encounter = Encounter(channel_id=100, guild_id=10, gm_id=1)
        encounter.initiative.round = 4
        await store.save_encounter(encounter, events=[
            LogEntry(guild_id=10, channel_id=100, user_id=1, kind="encounter", text="acknowledged")
        ])
        print("acknowledged", flush=True)
        os._exit(9)  # die at once: no close, no checkpoint, no cleanup

    asyncio.run(main())
"""


async def test_an_acknowledged_save_survives_a_crash(database: Database) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHING_COMMAND), database.location],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 9, done.stderr
    assert done.stdout.strip() == "acknowledged"
    store = await database.open()
    try:
        loaded = await store.load_encounter(CHANNEL)
        assert loaded is not None
        assert (loaded.version, loaded.initiative.round) == (1, 4)
        assert [entry.text for entry in await store.read_log()] == ["acknowledged"]
    finally:
        await store.close()


# ---------------------------------------------------------------------------------- closing


async def test_close_twice_does_nothing_the_second_time(database: Database) -> None:
    store = await database.open()
    await store.close()
    await store.close()


async def test_a_closed_store_refuses_work(database: Database) -> None:
    store = await database.open()
    await store.close()
    with pytest.raises(RuntimeError, match="closed"):
        await store.load_encounter(CHANNEL)
    with pytest.raises(RuntimeError, match="closed"):
        await store.save_encounter(fight())


async def test_close_waits_for_the_transaction_in_progress(database: Database) -> None:
    store = await database.open()
    saving = asyncio.create_task(store.save_encounter(fight(), events=[event("started")]))
    await asyncio.sleep(0)  # the save is under way
    await store.close()
    assert (await saving).version == 1
    store = await database.open()
    try:
        assert await store.load_encounter(CHANNEL) is not None
    finally:
        await store.close()


async def test_fight_channels_lists_every_running_fight_and_forgets_ended_ones(store: Store) -> None:
    assert await store.fight_channels() == []
    first = await store.save_encounter(fight(CHANNEL))
    await store.save_encounter(fight(CHANNEL + 1))
    assert sorted(await store.fight_channels()) == [CHANNEL, CHANNEL + 1]
    await store.delete_encounter(first)
    assert await store.fight_channels() == [CHANNEL + 1]
