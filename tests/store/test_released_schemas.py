"""Databases at every released migration state, made by the scripts as they were released (kept in
``released_migrations/``), opened by this Pommel: each comes up with the schema a new database gets, its
rows kept, and its migrations recorded by name. ``fixtures/redo_stretch.sqlite3`` was written by Pommel at
commit 9c246bc (two fights played, one ended, an undo), whose fifth migration was ``0005_redo``: at 3ea8a2f
it ran ``0006_redo`` again ("duplicate column name: undone_by") and the bot did not start."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.store import open_store
from bot.store.schema import bundled_migrations

from .conftest import Database

RELEASED = Path(__file__).parent / "released_migrations"
FIXTURES = Path(__file__).parent / "fixtures"

SQLITE_STATES = {
    "empty": [],
    **{
        f"counted {n}": [
            "0001_initial",
            "0002_set_aside_encounters",
            "0003_ended_encounters",
            "0004_encounter_history",
            "0005_log_d20",
            "0006_redo",
            "0007_undone_steps_index",
            "0008_forget_guilds",
        ][:n]
        for n in range(1, 9)
    },
    "redo stretch": [
        "0001_initial",
        "0002_set_aside_encounters",
        "0003_ended_encounters",
        "0004_encounter_history",
        "0005_redo",
    ],
}
"""Each state: the scripts (of ``released_migrations/sqlite``) it ran, its ``user_version`` their count."""

POSTGRES_RELEASED = [
    "0001_initial.sql",
    "0002_shard_leases.sql",
    "0003_redo.sql",
    "0004_log_d20.sql",
    "0005_undone_steps_index.sql",
    "0006_forget_guilds.sql",
]
POSTGRES_STATES = [POSTGRES_RELEASED[:n] for n in range(len(POSTGRES_RELEASED) + 1)]
"""Each state: the scripts PostgreSQL's own sequence had applied, recorded by number and name."""

EVERY = [migration.name for migration in bundled_migrations()]


def sqlite_schema(path: Path) -> set[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        return {(kind, name, sql) for kind, name, sql in rows if name != "schema_migrations"}


def sqlite_record(path: Path) -> tuple[list[str], int]:
    with sqlite3.connect(path) as db:
        names = [row[0] for row in db.execute("SELECT name FROM schema_migrations ORDER BY version")]
        return names, int(db.execute("PRAGMA user_version").fetchone()[0])


async def fresh_sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "fresh.sqlite3"
    await (await open_store(path)).close()
    return path


@pytest.mark.parametrize("state", list(SQLITE_STATES))
async def test_a_sqlite_database_of_each_released_state_upgrades_without_loss(
    tmp_path: Path, state: str
) -> None:
    scripts = SQLITE_STATES[state]
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for script in scripts:
            db.executescript((RELEASED / "sqlite" / f"{script}.sql").read_text(encoding="utf-8"))
        db.execute(f"PRAGMA user_version = {len(scripts)}")
        if scripts:
            db.execute(
                "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)"
                " VALUES ('2026-12-01T22:30:00+00:00', 10, 100, 2, 'roll', 'Ansel rolls',"
                " '{\"faces\": [3, 17]}')"
            )
    store = await open_store(path)
    try:
        [line] = await store.read_log(channel_id=100) if scripts else [None]
        if scripts:
            assert line is not None
            assert line.text == "Ansel rolls"
            assert (await store.tally_d20(guild_id=10, viewer=2, gm=True)).rolls == 1
    finally:
        await store.close()
    assert sqlite_schema(path) == sqlite_schema(await fresh_sqlite(tmp_path))
    assert sqlite_record(path) == (EVERY, len(EVERY))


async def test_the_database_of_the_redo_stretch_comes_up_with_all_it_held(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "pommel.sqlite3"
    shutil.copyfile(FIXTURES / "redo_stretch.sqlite3", path)
    store = await open_store(path)
    try:
        running = await store.load_encounter(101)
        assert running is not None
        assert len(running.combatants) == 3
        assert await store.load_encounter(100) is None
        assert len(await store.history(101)) == 3
        redoable = await store.redoable(101)
        assert redoable is not None
        assert len(redoable.steps) == 1
        [ended] = await store.ended_encounters(100)
        kept = await store.ended_encounter(ended.id)
        assert kept is not None
        assert kept.encounter is not None
        assert len(kept.encounter.combatants) == 3
        assert [c.name for c in await store.characters(10, 2)] == ["Ansel"]
        assert [c.name for c in await store.characters(10, 1)] == ["Brigid"]
        assert (len(await store.read_log(channel_id=100)), len(await store.read_log(channel_id=101))) == (
            8,
            7,
        )
        # 0005_log_d20 never ran on it: it does now, and counts the rolls logged before.
        assert (await store.tally_d20(guild_id=10, viewer=1, gm=True)).rolls == 2
    finally:
        await store.close()
    assert sqlite_schema(path) == sqlite_schema(await fresh_sqlite(tmp_path))
    assert sqlite_record(path) == (EVERY, len(EVERY))
    assert "applied migration 0006_redo" not in caplog.text


@pytest.mark.parametrize("scripts", POSTGRES_STATES, ids=lambda scripts: f"postgres {len(scripts)}")
async def test_a_postgres_database_of_each_released_state_upgrades_without_loss(scripts: list[str]) -> None:
    import asyncpg

    from tests.postgres import fresh_schema

    async def schema(url: str) -> set[tuple[str, ...]]:
        db = await asyncpg.connect(url)
        try:
            columns = await db.fetch(
                "SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '')"
                " FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name <> 'schema_migrations'"
            )
            indexes = await db.fetch(
                "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                " AND tablename <> 'schema_migrations'"
            )
            routines = await db.fetch(
                "SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p"
                " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema()"
            )
            triggers = await db.fetch(
                "SELECT tgname, tgrelid::regclass::text FROM pg_trigger t"
                " JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = current_schema() AND NOT t.tgisinternal"
            )
            schema_name = await db.fetchval("SELECT current_schema()")
        finally:
            await db.close()
        rows = [*columns, *indexes, *routines, *triggers]
        return {tuple(str(value).replace(schema_name, "<schema>") for value in row) for row in rows}

    async with fresh_schema() as fresh:
        await (await open_store(fresh)).close()
        expected = await schema(fresh)
    async with fresh_schema() as url:
        db = await asyncpg.connect(url)
        try:
            async with db.transaction():
                if scripts:  # as the Pommel that applied them recorded them
                    await db.execute(
                        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                        " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                    )
                for number, script in enumerate(scripts, start=1):
                    await db.execute((RELEASED / "postgres" / script).read_text(encoding="utf-8"))
                    await db.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", number, script
                    )
                if scripts:
                    await db.execute(
                        "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data) VALUES"
                        " (now(), 10, 100, 2, 'roll', 'Ansel rolls', '{\"faces\": [3, 17]}')"
                    )
        finally:
            await db.close()
        store = await open_store(url)
        try:
            if scripts:
                [line] = await store.read_log(channel_id=100)
                assert line.text == "Ansel rolls"
                assert (await store.tally_d20(guild_id=10, viewer=2, gm=True)).rolls == 1
        finally:
            await store.close()
        assert await schema(url) == expected
        db = await asyncpg.connect(url)
        try:
            recorded = [
                row[0] for row in await db.fetch("SELECT name FROM schema_migrations ORDER BY version")
            ]
        finally:
            await db.close()
        assert recorded == EVERY


async def test_the_fights_of_a_database_before_the_index_of_due_times_are_due_at_once(
    database: Database,
) -> None:
    """0011 (the index of due times) on a database of the last release (0009): its running fights keep
    reading, each due at once ("to check") until a sweep works its due time out from its document."""
    from bot.encounter.document import Encounter
    from bot.encounter.due import DUE_AT_ONCE
    from bot.store import DueFight, SqliteStore
    from bot.store.postgres import PostgresStore, postgres_migrations
    from bot.store.shared import fight_document

    if database.kind == "sqlite":
        released = bundled_migrations()[:9]
        await (await SqliteStore.open(database.location, migrations=released)).close()
    else:
        released = postgres_migrations()[:9]
        await (await PostgresStore.open(database.location, migrations=released)).close()
    assert released[-1].name == "0009_shard_leases"
    document, _ = fight_document(Encounter(channel_id=100, guild_id=10, gm_id=1))
    quoted = document.replace("'", "''")
    await database.script(
        "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at)"
        f" VALUES (100, 10, 4, '{quoted}', '2026-12-01T22:30:00+00:00')",
        f"INSERT INTO encounters (channel_id, guild_id, version, document) VALUES (100, 10, 4, '{quoted}')",
    )
    store = await database.open()
    try:
        assert await store.due_fights() == [DueFight(100, 10, 4, DUE_AT_ONCE)]
        assert await store.due_fights(timers=True) == [DueFight(100, 10, 4, DUE_AT_ONCE)]
        fight = await store.load_encounter(100)
        assert fight is not None
        assert fight.version == 4
        assert await store.recheck_due(fight)  # what the first sweep finds: nothing due in it
        assert await store.due_fights() == []
        assert await store.due_fights(timers=True) == []
    finally:
        await store.close()
