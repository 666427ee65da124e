"""One Pommel per database: a second process on the same file would apply every action twice."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bot.store import DatabaseTooNew, StoreUnavailable, open_store


async def test_a_second_store_on_the_same_file_is_refused_in_one_line(path: Path) -> None:
    first = await open_store(path)
    try:
        with pytest.raises(StoreUnavailable) as refused:
            await open_store(path)
    finally:
        await first.close()
    message = str(refused.value)
    assert str(path) in message
    assert "another Pommel process" in message
    assert "\n" not in message


async def test_the_file_is_free_again_once_the_store_is_closed(path: Path) -> None:
    first = await open_store(path)
    await first.close()
    second = await open_store(path)
    await second.close()


async def test_another_spelling_of_the_same_path_is_refused_too(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(path.parent)
    first = await open_store(path.name)
    try:
        with pytest.raises(StoreUnavailable, match="another Pommel process"):
            await open_store(path.parent / "." / path.name)
    finally:
        await first.close()


async def test_throwaway_databases_in_memory_take_no_lock() -> None:
    first, second = await open_store(":memory:"), await open_store(":memory:")
    await first.close()
    await second.close()


async def test_an_open_that_fails_lets_go_of_the_file(path: Path) -> None:
    store = await open_store(path)
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at)"
            " VALUES (99, '0099_x', 'x', '')"
        )
    for _ in range(2):  # refused for what it is each time, not for a lock left behind
        with pytest.raises(DatabaseTooNew):
            await open_store(path)


HOLDING_PROCESS = """
    import asyncio, sys
    from bot.store import open_store

    async def main() -> None:
        store = await open_store(sys.argv[1])
        print("holding", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # until the test lets go (or kills us)
        await store.close()

    asyncio.run(main())
"""


async def test_another_process_is_refused_while_it_runs_and_its_lock_dies_with_it(path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOLDING_PROCESS), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert await asyncio.to_thread(holder.stdout.readline) == "holding\n"
        with pytest.raises(StoreUnavailable) as refused:
            await open_store(path)
        assert f"pid {holder.pid}" in str(refused.value)
        assert f"pid {os.getpid()}" not in str(refused.value)
    finally:
        holder.kill()  # no close, no cleanup: the lock must go with the process
        await asyncio.to_thread(holder.wait, 30)
    store = await open_store(path)
    await store.close()
