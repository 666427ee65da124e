"""What the store's tests share: every store test runs on both stores, SQLite and PostgreSQL.

``store`` is a throwaway store of each kind (SQLite in memory; PostgreSQL in a schema of its own, see
:mod:`tests.postgres`: skipped, saying so, without ``POMMEL_TEST_DATABASE_URL``, failed under CI).
``database`` is one test's database of each kind that can be opened again (a restart), with raw
statements for what a person with the database's shell would do. ``path`` is a SQLite file's path, for
the tests of what only SQLite has (its file lock, its pragmas, a damaged file).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store, open_store
from tests.postgres import fresh_schema, pytest_runtest_makereport

__all__ = ["pytest_runtest_makereport"]  # folds the skips of the PostgreSQL half into one line

KINDS = ["sqlite", "postgres"]


class Database:
    """One test's database: ``open()`` opens a store on it (again after a close: a restart)."""

    def __init__(self, kind: str, location: str) -> None:
        self.kind = kind
        self.location = location

    async def open(self) -> Store:
        return await open_store(self.location)

    async def fetch(self, sql: str, *parameters: Any) -> list[tuple[Any, ...]]:
        """Run one statement outside Pommel (``?`` placeholders, in either dialect); its rows."""
        if self.kind == "sqlite":
            import sqlite3

            with sqlite3.connect(self.location) as db:
                rows = db.execute(sql, parameters).fetchall()
            db.close()
            return [tuple(row) for row in rows]
        import asyncpg

        numbered = iter(range(1, 1000))
        connection = await asyncpg.connect(self.location)
        try:
            found = await connection.fetch(re.sub(r"\?", lambda _: f"${next(numbered)}", sql), *parameters)
        finally:
            await connection.close()
        return [tuple(row) for row in found]

    async def script(self, sqlite: str, postgres: str) -> None:
        """Run a script of several statements outside Pommel, written for each dialect."""
        if self.kind == "sqlite":
            import sqlite3

            with sqlite3.connect(self.location) as db:
                db.executescript(sqlite)
            db.close()
            return
        import asyncpg

        connection = await asyncpg.connect(self.location)
        try:
            await connection.execute(postgres)
        finally:
            await connection.close()

    async def outside_writer(self) -> Store:
        """A second store on the database that is not a second Pommel process: SQLite's takes no file
        lock (a second Pommel is refused, see test_exclusive.py); PostgreSQL's needs none."""
        if self.kind == "sqlite":
            from bot.store import SqliteStore

            return await SqliteStore.open(self.location, exclusive=False)
        return await self.open()


@pytest.fixture(params=KINDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        yield Database("sqlite", str(tmp_path / "pommel.sqlite3"))
        return
    async with fresh_schema() as url:
        yield Database("postgres", url)


@pytest.fixture
async def store(database: Database) -> AsyncIterator[Store]:
    """A throwaway store of each kind, closed after the test."""
    opened = await open_store(":memory:") if database.kind == "sqlite" else await database.open()
    yield opened
    await opened.close()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where a test's SQLite database file goes (not created), for what only SQLite has."""
    return tmp_path / "pommel.sqlite3"
