"""A damaged database is refused when the store opens, in one line, and the file is left as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bot.store import LogEntry, StoreUnavailable, open_store

PAGE = 4096


@pytest.fixture
async def path(tmp_path: Path) -> Path:
    """A real Pommel database with a few hundred pages of log, closed."""
    path = tmp_path / "pommel.sqlite3"
    store = await open_store(path)
    await store.append_logs(
        [
            LogEntry(guild_id=10, channel_id=100, user_id=1, kind="roll", text=f"rolled {n} " * 8)
            for n in range(3000)
        ]
    )
    await store.close()
    assert path.stat().st_size > 50 * PAGE
    return path


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as file:
        file.seek(offset)
        file.write(data)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def refusal(path: Path) -> str:
    """The one line the store refuses with; checks the file was not changed by trying."""
    before = digest(path)
    with pytest.raises(StoreUnavailable) as refused:
        await open_store(path)
    assert digest(path) == before
    message = str(refused.value)
    assert "\n" not in message
    assert str(path) in message
    assert "backup" in message
    assert "untouched" in message
    return message


def middle_page(path: Path) -> int:
    return path.stat().st_size // 2 // PAGE * PAGE


async def test_a_database_whose_middle_pages_were_overwritten_is_refused(path: Path) -> None:
    """Whole pages of junk: SQLite says "malformed" as soon as it reads them."""
    overwrite(path, middle_page(path), b"\xab" * PAGE * 3)
    assert "damaged" in await refusal(path)


async def test_a_page_with_damaged_cells_is_refused_with_what_the_check_found(path: Path) -> None:
    """The cell pointers of a page overwritten: it still reads, but quick_check reports the broken cells."""
    overwrite(path, middle_page(path) + 8, b"\xff" * 64)
    message = await refusal(path)
    assert "damaged" in message
    assert "page" in message


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my campaign notes, not a database\n" * 200)
    assert "not a database" in await refusal(path)


async def test_an_empty_file_is_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / "pommel.sqlite3"
    path.touch()
    store = await open_store(path)
    await store.close()
