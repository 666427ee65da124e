"""Where Pommel keeps what must outlive a restart: fights, the log, characters and guild settings.

Cogs depend on :class:`Store` only; :func:`open_store` gives the SQLite one, or the PostgreSQL one for a
``postgresql://`` URL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..characters import Character
from ..guild_settings import GuildSettings
from .base import (
    D20_FACE_KEYS,
    D20_ROLL_KINDS,
    FIGHT_D20_KINDS,
    KEPT_AFTER_LEAVING,
    MAX_LOG_PAGE,
    Store,
)
from .errors import (
    CharacterTaken,
    DatabaseDamaged,
    DatabaseInUse,
    DatabaseTooNew,
    EndedGone,
    InvalidDocument,
    MigrationFailed,
    NewerSettings,
    NothingToRedo,
    NothingToUndo,
    PastUnreadable,
    SetAsideGone,
    ShardTaken,
    StaleCharacter,
    StaleEncounter,
    StoreBusy,
    StoreUnavailable,
    UnreadableCharacter,
)
from .records import (
    ENDED_KEPT,
    HISTORY_KEPT,
    DiceTally,
    DueFight,
    EncounterChange,
    EndedEncounter,
    ForgottenGuild,
    HistoryStep,
    LogEntry,
    Redoable,
    SetAsideFight,
    log_entries,
)
from .shared import reads_fight
from .sqlite import SqliteStore

__all__ = [
    "D20_FACE_KEYS",
    "D20_ROLL_KINDS",
    "ENDED_KEPT",
    "FIGHT_D20_KINDS",
    "HISTORY_KEPT",
    "KEPT_AFTER_LEAVING",
    "MAX_LOG_PAGE",
    "Character",
    "CharacterTaken",
    "DatabaseDamaged",
    "DatabaseInUse",
    "DatabaseTooNew",
    "DiceTally",
    "DueFight",
    "EncounterChange",
    "EndedEncounter",
    "EndedGone",
    "ForgottenGuild",
    "GuildSettings",
    "HistoryStep",
    "InvalidDocument",
    "LogEntry",
    "MigrationFailed",
    "NewerSettings",
    "NothingToRedo",
    "NothingToUndo",
    "PastUnreadable",
    "Redoable",
    "SetAsideFight",
    "SetAsideGone",
    "ShardTaken",
    "SqliteStore",
    "StaleCharacter",
    "StaleEncounter",
    "Store",
    "StoreBusy",
    "StoreUnavailable",
    "UnreadableCharacter",
    "is_postgres_url",
    "log_entries",
    "open_store",
    "reads_fight",
]


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: Path | str) -> bool:
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


async def open_store(path: Path | str) -> Store:
    """Open the database at ``path`` (``":memory:"`` for a throwaway one, a ``postgresql://`` URL for
    PostgreSQL) and bring its schema up to date."""
    if is_postgres_url(path):
        from .postgres import PostgresStore  # asyncpg is loaded only by those who use it

        return await PostgresStore.open(str(path))
    try:
        return await SqliteStore.open(path)
    except (sqlite3.Error, OSError) as error:
        raise StoreUnavailable(
            f"Can't open the database {path}: {error}. Check DATABASE_PATH: its folder must exist and be "
            f"writable."
        ) from error
