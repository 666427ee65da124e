"""What the store's tests share: a throwaway store, and a database file's path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store, open_store


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    """A store in memory, closed after the test."""
    opened = await open_store(":memory:")
    yield opened
    await opened.close()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where a test's database file goes (not created)."""
    return tmp_path / "pommel.sqlite3"
