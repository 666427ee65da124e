"""SQLite's group commit: the changes queued while a COMMIT runs share the next one (one fsync), each in
a savepoint of its own, and none is acknowledged before the COMMIT that holds it has returned."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.encounter.document import Encounter
from bot.rules.errors import RulesError
from bot.store import LogEntry, SqliteStore
from bot.store.sqlite import GROUP_MOST

GUILD = 10
GM = 1


def fight(channel_id: int) -> Encounter:
    return Encounter(channel_id=channel_id, guild_id=GUILD, gm_id=GM)


def event(text: str, channel_id: int) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=channel_id, user_id=GM, kind="encounter", text=text)


async def count_commits(store: SqliteStore) -> list[str]:
    """The COMMITs the store's writer connection runs from now on."""
    commits: list[str] = []
    writer: sqlite3.Connection = store._db._conn
    trace = lambda sql: commits.append(sql) if sql == "COMMIT" else None  # noqa: E731
    await store._db._execute(writer.set_trace_callback, trace)  # type: ignore[no-untyped-call]  # its thread
    return commits


async def test_changes_of_many_channels_queued_together_share_one_commit(path: Path) -> None:
    store = await SqliteStore.open(path)
    try:
        commits = await count_commits(store)
        saved = await asyncio.gather(
            *(store.save_encounter(fight(channel), events=[event("new", channel)]) for channel in range(30))
        )
        assert [encounter.version for encounter in saved] == [1] * 30
        assert len(commits) == 1
        assert sorted(await store.fight_channels()) == list(range(30))
        assert len(await store.read_log(limit=100)) == 30
        # One at a time, each has its commit: a lone change never waits for company.
        await store.save_encounter(saved[0])
        await store.save_encounter(saved[1])
        assert len(commits) == 3
    finally:
        await store.close()


async def test_a_burst_is_committed_in_groups_of_at_most_group_most(path: Path) -> None:
    """So that the first changes of a burst are answered without waiting for the last one's work."""
    store = await SqliteStore.open(path)
    try:
        commits = await count_commits(store)
        await asyncio.gather(*(store.save_encounter(fight(channel)) for channel in range(2 * GROUP_MOST + 6)))
        assert len(commits) == 3
        assert len(await store.fight_channels()) == 2 * GROUP_MOST + 6
    finally:
        await store.close()


async def test_a_change_that_raises_in_a_group_is_rolled_back_alone(path: Path) -> None:
    store = await SqliteStore.open(path)
    try:
        await store.save_encounter(fight(2))

        def refuse(current: Encounter | None) -> object:
            assert current is not None
            raise RulesError("Not your turn.")

        outcomes = await asyncio.gather(
            store.save_encounter(fight(1), events=[event("first", 1)]),
            store.update_encounter(2, refuse),  # type: ignore[arg-type]
            store.append_logs([event("half", 3), event("half again", 3)]),
            store.save_encounter(fight(4), events=[event("last", 4)]),
            return_exceptions=True,
        )
        assert isinstance(outcomes[1], RulesError)
        assert not any(isinstance(outcome, BaseException) for n, outcome in enumerate(outcomes) if n != 1)
        assert sorted(await store.fight_channels()) == [1, 2, 4]
        logged = [entry.text for entry in await store.read_log(limit=10)]
        assert logged == ["first", "half", "half again", "last"]
    finally:
        await store.close()


async def test_a_lone_change_that_raises_leaves_nothing_and_runs_no_savepoint(path: Path) -> None:
    store = await SqliteStore.open(path)
    try:
        statements: list[str] = []
        writer: sqlite3.Connection = store._db._conn
        await store._db._execute(writer.set_trace_callback, statements.append)  # type: ignore[no-untyped-call]

        def half_then_refuse(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO encounters (channel_id, version, document, updated_at) VALUES (5, 1, '{}', '')"
            )
            raise RulesError("Not your turn.")

        with pytest.raises(RulesError):
            await store._transaction(half_then_refuse)
        assert await store.fight_channels() == []
        assert (await store.save_encounter(fight(5))).version == 1  # and the store carries on
        assert not [sql for sql in statements if "SAVEPOINT" in sql or "RELEASE" in sql]
        assert statements.count("ROLLBACK") == 1
        assert statements.count("COMMIT") == 1
    finally:
        await store.close()


async def test_a_commit_that_fails_fails_every_change_of_its_group(path: Path) -> None:
    store = await SqliteStore.open(path)
    try:

        def tables(db: sqlite3.Connection) -> None:
            db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
            db.execute(
                "CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)"
            )

        await store._transaction(tables)

        def orphan(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO child (parent_id) VALUES (99)")  # refused at COMMIT, not here

        outcomes = await asyncio.gather(
            store.save_encounter(fight(1), events=[event("lost with the group", 1)]),
            store._transaction(orphan),
            return_exceptions=True,
        )
        assert all(isinstance(outcome, sqlite3.IntegrityError) for outcome in outcomes), outcomes
        assert await store.fight_channels() == []
        assert await store.read_log() == []
        assert (await store.save_encounter(fight(1))).version == 1  # and the store carries on
    finally:
        await store.close()


async def test_a_cancelled_caller_does_not_take_its_group_down(path: Path) -> None:
    store = await SqliteStore.open(path)
    try:
        first = asyncio.create_task(store.save_encounter(fight(1)))
        second = asyncio.create_task(store.save_encounter(fight(2)))
        await asyncio.sleep(0)  # both queued
        first.cancel()
        assert (await second).version == 1
        with pytest.raises(asyncio.CancelledError):
            await first
        assert sorted(await store.fight_channels()) == [1, 2]  # whole: it was already queued
    finally:
        await store.close()


GROUPS_THEN_KILLED = """
    import asyncio, os, sys
    from bot.encounter.document import Encounter
    from bot.store import LogEntry, open_store

    async def save(store, channel):
        encounter = Encounter(channel_id=channel, guild_id=10, gm_id=1)
        entry = LogEntry(guild_id=10, channel_id=channel, user_id=1, kind="encounter", text="saved")
        await store.save_encounter(encounter, events=[entry])
        print(channel, flush=True)  # acknowledged
        if channel == 150:
            os._exit(9)  # die at once, others in flight: no close, no checkpoint, no cleanup

    async def main():
        store = await open_store(sys.argv[1])
        await asyncio.gather(*(save(store, channel) for channel in range(300)))

    asyncio.run(main())
"""


async def test_every_acknowledged_change_of_a_group_survives_kill_9(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(GROUPS_THEN_KILLED), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 9, done.stderr
    acknowledged = {int(line) for line in done.stdout.split()}
    assert 150 in acknowledged
    store = await SqliteStore.open(path)
    try:
        stored = set(await store.fight_channels())
        logged = {entry.channel_id for entry in await store.read_log(limit=500)}
    finally:
        await store.close()
    assert acknowledged <= stored
    assert stored == logged  # each fight with its log line, whole
