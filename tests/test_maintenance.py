"""``pommel backup``, ``restore``, ``check`` and ``check --alive`` on databases made for the test (a
running bot's database being backed up is in ``tests/e2e/test_backup.py``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from bot.__main__ import cli
from bot.heartbeat import STALE_SECONDS, Heartbeat
from bot.store import LogEntry, open_store
from bot.store.schema import REDO_STRETCH, bundled_migrations

KNOWN = len(bundled_migrations())


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without .env, and none of Pommel's settings from the environment."""
    monkeypatch.chdir(tmp_path)
    for name in (
        "DISCORD_TOKEN",
        "DATABASE_PATH",
        "DATABASE_URL",
        "HEARTBEAT_PATH",
        "SHARD_COUNT",
        "SHARD_IDS",
    ):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def pommel(*arguments: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli(list(arguments))
    out, err = capsys.readouterr()
    return status, out.strip(), err.strip()


def make_database(path: Path, rolls: int = 3) -> None:
    async def fill() -> None:
        store = await open_store(path)
        for n in range(rolls):
            await store.append_log(
                LogEntry(guild_id=1, channel_id=2, user_id=3, kind="roll", text=f"roll {n}")
            )
        await store.close()

    asyncio.run(fill())


def logged(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT text FROM log ORDER BY id")]


def test_check_of_a_sound_database_names_its_schema_version(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_database(here / "pommel.sqlite3")
    status, out, _ = pommel("check", capsys=capsys)
    assert status == 0
    assert out.splitlines() == [
        "pommel.sqlite3: integrity check passed.",
        f"Schema version {KNOWN} of {KNOWN} (last: {bundled_migrations()[-1].name}).",
    ]


def test_check_says_which_migrations_the_next_start_applies(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_database(here / "pommel.sqlite3")
    with sqlite3.connect(here / "pommel.sqlite3") as db:
        db.execute("DELETE FROM schema_migrations WHERE version = ?", (KNOWN,))
    status, out, _ = pommel("check", capsys=capsys)
    assert status == 0
    assert f"1 migration(s) not applied yet ({bundled_migrations()[-1].name})" in out


def test_check_of_a_database_from_a_newer_pommel_fails_saying_so(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_database(here / "pommel.sqlite3")
    with sqlite3.connect(here / "pommel.sqlite3") as db:
        db.execute("INSERT INTO schema_migrations VALUES (99, '0099_later', 'x', '')")
    status, _, err = pommel("check", capsys=capsys)
    assert status == 1
    assert "Schema version 99, with migrations this Pommel does not know (0099_later)" in err
    assert f"it knows versions up to {KNOWN} only" in err


def test_check_of_a_database_recorded_by_count_says_what_the_next_start_records(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The database of the redo stretch (0005_redo, before it became 0006): nothing pending but 0005,
    the rest recorded by name at the next start."""
    shutil.copyfile(
        Path(__file__).parent / "store" / "fixtures" / "redo_stretch.sqlite3", here / "pommel.sqlite3"
    )
    status, out, _ = pommel("check", capsys=capsys)
    assert status == 0
    assert "Schema version 6 of" in out
    assert "recorded by count: Pommel records them by name at its next start" in out
    pending = [m.name for m in bundled_migrations() if m.name not in REDO_STRETCH]
    assert f"migration(s) not applied yet ({', '.join(pending)})" in out


def test_check_of_a_file_that_is_not_a_database_fails(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "pommel.sqlite3").write_text("campaign notes\n" * 500)
    status, _, err = pommel("check", capsys=capsys)
    assert status == 1
    assert "damaged or not a database" in err
    assert "restore a backup" in err


def test_check_without_a_database_names_the_setting_and_creates_none(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = pommel("check", capsys=capsys)
    assert status == 2
    assert err == "There is no database at pommel.sqlite3: check DATABASE_PATH (or the path given)."
    assert not (here / "pommel.sqlite3").exists()


def test_a_backup_is_one_checked_file_holding_every_committed_change(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_database(here / "pommel.sqlite3", rolls=5)
    status, out, _ = pommel("backup", "copy.sqlite3", capsys=capsys)
    assert status == 0, out
    assert out.startswith("Backed up pommel.sqlite3 to copy.sqlite3 (")
    assert logged(here / "copy.sqlite3") == [f"roll {n}" for n in range(5)]
    assert sorted(p.name for p in here.iterdir() if p.name.startswith("copy")) == ["copy.sqlite3"]
    with sqlite3.connect(here / "copy.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # no -wal needed beside it


def test_a_backup_never_overwrites_a_file(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_database(here / "pommel.sqlite3")
    (here / "copy.sqlite3").write_text("yesterday's backup")
    status, _, err = pommel("backup", "copy.sqlite3", capsys=capsys)
    assert status == 2
    assert "copy.sqlite3 already exists: name a new file" in err
    assert (here / "copy.sqlite3").read_text() == "yesterday's backup"


def test_postgresql_is_backed_up_with_pg_dump(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://pommel@db/pommel")
    status, _, err = pommel("backup", "copy.sqlite3", capsys=capsys)
    assert status == 2
    assert "pg_dump" in err


def test_restore_puts_the_backup_in_place_and_keeps_what_it_replaced(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = here / "pommel.sqlite3"
    make_database(database, rolls=2)
    assert pommel("backup", "copy.sqlite3", capsys=capsys)[0] == 0
    make_database(database, rolls=1)  # a change after the backup, to be undone by the restore
    status, out, _ = pommel("restore", "copy.sqlite3", capsys=capsys)
    assert status == 0, out
    assert "Restored copy.sqlite3 to pommel.sqlite3" in out
    assert logged(database) == ["roll 0", "roll 1"]
    [kept] = [p for p in here.iterdir() if ".before-restore-" in p.name and p.name.endswith("Z")]
    assert logged(kept) == ["roll 0", "roll 1", "roll 0"]
    assert pommel("check", capsys=capsys)[0] == 0


def test_restore_refuses_while_pommel_has_the_database_open(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = here / "pommel.sqlite3"
    make_database(database)
    assert pommel("backup", "copy.sqlite3", capsys=capsys)[0] == 0

    async def restore_under_a_running_store() -> tuple[int, str, str]:
        store = await open_store(database)
        try:
            return await asyncio.to_thread(pommel, "restore", "copy.sqlite3", capsys=capsys)
        finally:
            await store.close()

    status, _, err = asyncio.run(restore_under_a_running_store())
    assert status == 2
    assert "another Pommel process" in err
    assert not [p for p in here.iterdir() if "before-restore" in p.name]


def test_alive_needs_a_fresh_heartbeat(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert pommel("check", "--alive", capsys=capsys)[0] == 2  # HEARTBEAT_PATH not set: nothing to watch
    beat = here / "pommel.alive"
    monkeypatch.setenv("HEARTBEAT_PATH", str(beat))
    status, _, err = pommel("check", "--alive", capsys=capsys)
    assert status == 1
    assert "not running" in err
    beat.write_text("now")
    assert pommel("check", "--alive", capsys=capsys)[0] == 0
    old = time.time() - STALE_SECONDS - 5
    os.utime(beat, (old, old))
    status, _, err = pommel("check", "--alive", capsys=capsys)
    assert status == 1
    assert "hung or lost its connection" in err


async def test_the_heartbeat_beats_while_connected_only_and_goes_with_the_bot(tmp_path: Path) -> None:
    beat = tmp_path / "pommel.alive"
    connected = False
    heartbeat = Heartbeat(beat, lambda: connected, every=0.05)
    heartbeat.start()
    await asyncio.sleep(1.5)
    assert not beat.exists()  # not connected yet
    connected = True
    loop = asyncio.get_running_loop()
    hang_guard = loop.time() + 60  # a beat is due every 0.05 s: only a hung heartbeat waits this long
    while not beat.exists() and loop.time() < hang_guard:
        await asyncio.sleep(0.05)
    assert f"pid {os.getpid()}" in beat.read_text()
    await heartbeat.stop()
    assert not beat.exists()


def test_check_of_postgresql_reads_its_migrations(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.store.postgres import postgres_migrations
    from tests.postgres import fresh_schema

    async def migrated_then_checked() -> tuple[int, str, str]:
        async with fresh_schema() as url:
            store = await open_store(url)
            await store.close()
            monkeypatch.setenv("DATABASE_URL", url)
            return await asyncio.to_thread(pommel, "check", capsys=capsys)

    status, out, _ = asyncio.run(migrated_then_checked())
    known = len(postgres_migrations())
    assert status == 0, out
    assert f"Schema version {known} of {known}" in out
