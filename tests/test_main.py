"""``python -m bot`` start-up refusals (no token, a bad setting, a database it must not use): one clear
line, exit status 2."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import discord
import pytest
import uvloop

from bot.__main__ import main, run
from bot.config import Settings
from bot.store import LogEntry, open_store
from bot.store.schema import bundled_migrations


def run_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DEV_GUILD_ID")}
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def refusal_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused start-up prints, after checking it exited with status 2."""
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_without_a_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    done = run_bot(tmp_path)
    assert done.stdout == ""
    line = refusal_line(done)
    assert "DISCORD_TOKEN" in line
    assert ".env" in line


def test_a_bad_setting_is_named_in_one_line(tmp_path: Path) -> None:
    done = run_bot(tmp_path, DISCORD_TOKEN="x", DEV_GUILD_ID="not-a-number")
    line = refusal_line(done)
    assert "DEV_GUILD_ID" in line


def test_the_example_env_file_as_shipped_asks_for_the_token(tmp_path: Path) -> None:
    """Copying .env.example to .env without filling it in: the token message, not a parse error."""
    (tmp_path / ".env").write_text((Path(__file__).parents[1] / ".env.example").read_text())
    assert refusal_line(run_bot(tmp_path)).startswith("DISCORD_TOKEN is not set")


def test_the_example_env_file_with_a_token_is_valid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its empty optional settings (DEV_GUILD_ID=) mean 'use the default'."""
    example = (Path(__file__).parents[1] / ".env.example").read_text()
    (tmp_path / ".env").write_text(example.replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=abc\n"))
    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.discord_token.get_secret_value() == "abc"
    assert settings.dev_guild_id is None


def test_a_bad_log_level_is_named_in_one_line(tmp_path: Path) -> None:
    done = run_bot(tmp_path, DISCORD_TOKEN="x", LOG_LEVEL="verbose")
    line = refusal_line(done)
    assert "LOG_LEVEL" in line


def test_a_database_path_that_cannot_be_opened_is_one_line_before_discord_is_contacted(
    tmp_path: Path,
) -> None:
    """The store opens before login, so this needs no network (and the suite never touches it)."""
    missing = tmp_path / "no such folder" / "pommel.sqlite3"
    done = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(missing), LOG_LEVEL="warning")
    line = refusal_line(done)
    assert "Can't open the database" in line
    assert "DATABASE_PATH" in line


def main_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], database: Path
) -> tuple[int, list[str]]:
    """``main()`` in this process, with Discord's address at a closed port on this machine, so nothing
    leaves it; returns the exit status and the lines printed to stderr."""
    with socket.socket() as probe:  # a port nobody listens on: bind, note it, close
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.setenv("DATABASE_PATH", str(database))
    monkeypatch.setenv("LOG_LEVEL", "CRITICAL")
    status = main()
    return status, capsys.readouterr().err.strip().splitlines()


def test_discord_out_of_reach_is_one_line_and_status_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines = main_offline(tmp_path, monkeypatch, capsys, tmp_path / "pommel.sqlite3")
    assert status == 1
    assert len(lines) == 1
    assert lines[0].startswith("Can't reach Discord")


def test_a_second_pommel_on_the_same_database_refuses_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two processes on one file would apply every action twice; the second says so and stops."""
    database = tmp_path / "pommel.sqlite3"
    with asyncio.Runner() as first_process:
        running = first_process.run(open_store(database))
        try:
            status, lines = main_offline(tmp_path, monkeypatch, capsys, database)
        finally:
            first_process.run(running.close())
    assert status == 2
    assert len(lines) == 1
    assert str(database) in lines[0]
    assert "another Pommel process" in lines[0]


def test_a_file_that_is_not_a_database_is_one_line_saying_to_restore_a_backup(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("campaign notes\n" * 500)
    done = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(notes), LOG_LEVEL="warning")
    line = refusal_line(done)
    assert str(notes) in line
    assert "not a database" in line
    assert "backup" in line
    assert notes.read_text() == "campaign notes\n" * 500


def test_a_damaged_database_refuses_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the check, the bot started on it and answered "Something went wrong" where it hit the damage."""
    database = tmp_path / "pommel.sqlite3"

    async def make() -> None:
        store = await open_store(database)
        entry = LogEntry(guild_id=1, channel_id=2, user_id=3, kind="roll", text="rolled " * 20)
        await store.append_logs([entry] * 2000)
        await store.close()

    asyncio.run(make())
    middle = database.stat().st_size // 2 // 4096 * 4096
    with database.open("r+b") as file:
        file.seek(middle + 8)  # a page's cell pointers
        file.write(b"\xff" * 64)
    status, lines = main_offline(tmp_path, monkeypatch, capsys, database)
    assert status == 2
    assert len(lines) == 1
    assert str(database) in lines[0]
    assert "damaged" in lines[0]
    assert "backup" in lines[0]


def test_a_migration_that_fails_is_named_in_one_line_with_what_the_database_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At 3ea8a2f this said "Can't open the database …: duplicate column name: undone_by. Check
    DATABASE_PATH", for a database whose path was fine."""
    database = tmp_path / "pommel.sqlite3"
    with sqlite3.connect(database) as db:  # counted 5 (0005_log_d20), but 0006's column is there already
        for migration in bundled_migrations()[:4]:
            db.executescript(migration.sql)
        db.execute("ALTER TABLE encounter_history ADD COLUMN undone_by INTEGER")
        db.execute("CREATE TABLE log_d20 (x)")
        db.execute("PRAGMA user_version = 5")
    status, lines = main_offline(tmp_path, monkeypatch, capsys, database)
    assert status == 2
    assert len(lines) == 1
    assert lines[0].startswith(
        f"Migration 0006_redo failed on the database {database}: duplicate column name"
    )
    assert "DATABASE_PATH" not in lines[0]


def test_shard_ids_without_a_count_are_refused_in_one_line(tmp_path: Path) -> None:
    line = refusal_line(run_bot(tmp_path, DISCORD_TOKEN="x", SHARD_IDS="0,1"))
    assert line == (
        "The settings are invalid: SHARD_IDS needs SHARD_COUNT, the number of shards of all processes "
        "together. See .env.example."
    )


def test_a_shard_beyond_the_count_is_refused_in_one_line(tmp_path: Path) -> None:
    line = refusal_line(run_bot(tmp_path, DISCORD_TOKEN="x", SHARD_COUNT="2", SHARD_IDS="1,2"))
    assert "shard ids go from 0 to 1 (SHARD_COUNT), not [2]" in line


def test_shards_and_a_database_url_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", "3, 1")
    monkeypatch.setenv("DATABASE_URL", "postgresql://pommel@db/pommel")
    settings = Settings(_env_file=None, discord_token="x")
    assert settings.shards == (4, (1, 3))
    assert settings.database == "postgresql://pommel@db/pommel"


def test_without_shard_settings_one_process_runs_the_one_shard(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SHARD_COUNT", "SHARD_IDS", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=None, discord_token="x")
    assert settings.shards == (1, (0,))
    assert settings.database == settings.database_path


def test_a_database_url_that_is_not_postgresql_is_refused(tmp_path: Path) -> None:
    line = refusal_line(run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_URL="mysql://db/pommel"))
    assert "DATABASE_URL" in line


async def test_a_process_whose_shard_another_serves_refuses_to_start_saying_why(tmp_path: Path) -> None:
    """Before Discord is contacted: the lease is taken at login, right after the store opens."""
    from bot.store.postgres import PostgresStore
    from tests.postgres import fresh_schema

    async with fresh_schema() as url:
        holder = await PostgresStore.open(url)
        try:
            await holder.claim_shards(2, [1])
            done = await asyncio.to_thread(
                run_bot, tmp_path, DISCORD_TOKEN="x", DATABASE_URL=url, SHARD_COUNT="2", SHARD_IDS="0,1"
            )
        finally:
            await holder.close()
    line = refusal_line(done)
    assert line.startswith("Shard 1 (of 2) is already served by pid ")
    assert "Stop that process first, or give this one other SHARD_IDS." in line


def test_the_bot_serves_on_uvloop() -> None:
    """``python -m bot`` (and ``pommel clear-commands``) run on uvloop's event loop, for less CPU per
    action (issue 29), and get back what the coroutine returns."""

    async def the_loop() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    assert isinstance(run(the_loop()), uvloop.Loop)
