"""Opening a database: pragmas, numbered migrations applied once and all or nothing, newer schemas refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import DatabaseTooNew, MigrationFailed, StoreUnavailable, open_store
from bot.store.schema import Migration, bundled_migrations, check_numbering
from bot.store.sqlite import SqliteStore, sql_statements


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


COUNTING = [
    Migration(1, "0001_first.sql", "CREATE TABLE applied (script INTEGER); INSERT INTO applied VALUES (1);"),
    Migration(2, "0002_second.sql", "INSERT INTO applied VALUES (2);"),
]


def test_the_bundled_migrations_are_numbered_from_one_without_gaps() -> None:
    migrations = bundled_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].name == "0001_initial"
    postgres = bundled_migrations("postgres")
    assert [m.name for m in postgres] == [m.name for m in migrations]  # one sequence, both dialects


@pytest.mark.parametrize(
    ("files", "refused"),
    [
        (["0001_a.sqlite.sql", "0001_a.postgres.sql", "0002_b.sqlite.sql"], "0002 needs both dialects"),
        (["0001_a.sqlite.sql", "0001_a.postgres.sql", "0002_b.sqlite.sql", "0002_c.postgres.sql"], "0002"),
        (["0001_a.sqlite.sql", "0001_b.sqlite.sql"], "two sqlite migrations are numbered 0001"),
        (["0001_a.sqlite.sql", "0001_a.postgres.sql", "0003_b.sqlite.sql", "0003_b.postgres.sql"], "0002"),
        (["0001_a.sqlite.sql", "0001_a.postgres.sql", "0002_b.sql"], "0002_b.sql is not named NNNN_<name>"),
    ],
)
def test_each_migration_has_both_dialects_under_one_number(
    tmp_path: Path, files: list[str], refused: str
) -> None:
    for name in files:
        (tmp_path / name).write_text("-- nothing", encoding="utf-8")
    with pytest.raises(ValueError, match=refused):
        bundled_migrations("sqlite", tmp_path)


def test_a_gap_in_the_numbering_is_refused() -> None:
    with pytest.raises(ValueError, match="0002"):
        check_numbering([COUNTING[0], Migration(3, "0003_third.sql", "")])


async def test_a_new_database_gets_the_whole_schema(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.close()
    assert user_version(path) == len(bundled_migrations())
    assert {"encounters", "log", "characters", "guild_settings"} <= tables(path)


async def test_reopening_applies_nothing_again(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    for _ in range(3):
        store = await SqliteStore.open(path, migrations=COUNTING)
        await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,)]
    assert user_version(path) == 2


async def test_only_the_pending_scripts_run(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING[:1])
    await store.close()
    store = await SqliteStore.open(path, migrations=COUNTING)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,)]


async def test_a_failing_script_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    """All pending scripts share one transaction: 0002 and a half-run 0003 are both undone."""
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING[:1])
    await store.close()
    broken = [
        *COUNTING,
        Migration(3, "0003_broken.sql", "CREATE TABLE half (x); INSERT INTO no_such_table VALUES (1);"),
    ]
    with pytest.raises(MigrationFailed, match="no_such_table"):
        await SqliteStore.open(path, migrations=broken)
    assert user_version(path) == 1
    assert "half" not in tables(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied").fetchall() == [(1,)]


async def test_a_failing_first_migration_leaves_an_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    broken = [COUNTING[0], Migration(2, "0002_broken.sql", "SELECT * FROM nowhere;")]
    with pytest.raises(MigrationFailed):
        await SqliteStore.open(path, migrations=broken)
    assert user_version(path) == 0
    assert tables(path) == set()


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)"
            " VALUES (99, '0099_later', 'x', '')"
        )
    with pytest.raises(
        DatabaseTooNew, match=r"schema version 99, with migrations .* not know \(0099_later\)"
    ) as refused:
        await open_store(path)
    assert refused.value.found == 99
    assert refused.value.known == len(bundled_migrations())
    assert refused.value.unknown == ("0099_later",)
    assert user_version(path) == len(bundled_migrations())


async def test_a_database_counted_past_what_this_pommel_knows_is_refused(tmp_path: Path) -> None:
    """A database recorded by count, by a Pommel of before the record, numbered past the migrations."""
    path = tmp_path / "pommel.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(DatabaseTooNew, match="schema version 99"):
        await open_store(path)
    assert tables(path) == set()


async def test_a_renumbered_migration_is_not_applied_again_and_is_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two branches merged: the second script became 0003, a new one took 0002."""
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING)
    await store.close()
    merged = [
        COUNTING[0],
        Migration(2, "0002_other_branch", "INSERT INTO applied VALUES (20);"),
        Migration(3, "0003_second.sql", COUNTING[1].sql),
    ]
    store = await SqliteStore.open(path, migrations=merged)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,), (20,)]
        recorded = db.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert recorded == [(1, "0001_first.sql"), (2, "0002_other_branch"), (3, "0003_second.sql")]
    assert user_version(path) == 3
    assert "migration 0002_second.sql recorded in" in caplog.text
    assert "is this Pommel's 0003_second.sql" in caplog.text
    caplog.clear()
    store = await SqliteStore.open(path, migrations=merged)  # recorded under its new name: said once
    await store.close()
    assert "renumbered" not in caplog.text


async def test_a_migration_edited_after_it_was_applied_is_named_and_not_applied_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path, migrations=COUNTING)
    await store.close()
    edited = [COUNTING[0], Migration(2, "0002_second.sql", "INSERT INTO applied VALUES (2); -- and more")]
    store = await SqliteStore.open(path, migrations=edited)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT script FROM applied ORDER BY script").fetchall() == [(1,), (2,)]
    assert "migration 0002_second.sql was changed after it was applied" in caplog.text


async def test_a_failing_migration_names_itself_and_the_error_not_the_database_path(tmp_path: Path) -> None:
    """At 3ea8a2f a database of the redo stretch ran 0006_redo again, and the message blamed DATABASE_PATH."""
    path = tmp_path / "pommel.sqlite3"
    with sqlite3.connect(path) as db:  # recorded by count, but 0006's column is there already
        for migration in bundled_migrations()[:4]:
            db.executescript(migration.sql)
        db.execute("ALTER TABLE encounter_history ADD COLUMN undone_by INTEGER")
        db.execute("CREATE TABLE log_d20 (x)")
        db.execute("PRAGMA user_version = 5")
    with pytest.raises(StoreUnavailable) as refused:
        await open_store(path)
    message = str(refused.value)
    assert isinstance(refused.value, MigrationFailed)
    assert message.startswith("Migration 0006_redo failed on the database")
    assert "duplicate column name: undone_by" in message
    assert "DATABASE_PATH" not in message
    assert user_version(path) == 5


async def test_the_database_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    store = await SqliteStore.open(path)
    try:
        with sqlite3.connect(path) as outside:  # the journal mode is kept in the file itself
            assert outside.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # The rest are per connection, so they are asked of the store's own writer.
        writer = store._db

        async def setting(pragma: str) -> int:
            [(value,)] = await writer.execute_fetchall(f"PRAGMA {pragma}")
            return int(value)

        assert await setting("synchronous") == 2  # FULL
        assert await setting("foreign_keys") == 1
        assert await setting("busy_timeout") > 0
        assert (await store._fetch_all("PRAGMA query_only"))[0][0] == 1  # reads go through a reader
    finally:
        await store.close()


def test_statements_are_split_without_cutting_triggers_or_comments() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    /* a block; comment */
    CREATE TRIGGER t_no_delete BEFORE DELETE ON t
    BEGIN
        SELECT RAISE(ABORT, 'no; never');
        SELECT 1;
    END;
    ;
    -- trailing; comment
    """
    statements = sql_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("CREATE TABLE t (x TEXT DEFAULT 'a;b');")
    assert statements[1].startswith("/* a block; comment */")
    assert statements[1].endswith("END;")


def test_a_script_ending_mid_statement_is_refused() -> None:
    with pytest.raises(ValueError, match="incomplete"):
        sql_statements("CREATE TABLE t (x); CREATE TABLE u (y)")
