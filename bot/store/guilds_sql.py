"""A server's own records, written once for both stores (see :mod:`bot.store.sql`): characters, guild
settings, its homebrew catalog entries, the servers Pommel left, and a server's data forgotten."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

from ..catalog import KINDS, CatalogLayer
from ..characters import Character
from ..guild_settings import GuildSettings
from .errors import CharacterTaken, StaleCharacter
from .log_sql import LogRow, insert_log
from .records import ForgottenGuild
from .shared import character_from, characters_from, homebrew_from, refuse_newer_settings, settings_from
from .sql import Sql, Steps, moment

T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------------------- characters

_CHARACTER = "SELECT document FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3"
_DELETE_CHARACTER = "DELETE FROM characters WHERE guild_id = $1 AND user_id = $2 AND name_key = $3"


def character(
    guild_id: int, user_id: int, key: str, name: str, *, lock: bool = False
) -> Steps[Character | None]:
    """The character stored under ``key`` (read as ``name`` says when it no longer reads), or None;
    ``lock``: the row stays as read until the commit (PostgreSQL's ``FOR UPDATE``)."""
    document = yield Sql(_CHARACTER + (" FOR UPDATE" if lock else ""), (guild_id, user_id, key), "value")
    return None if document is None else character_from(document, name)


def characters(guild_id: int, user_id: int) -> Steps[list[Character]]:
    # COLLATE "C": the keys sorted by code point, as SQLite sorts them, whatever the server's locale.
    rows = yield Sql(
        'SELECT document FROM characters WHERE guild_id = $1 AND user_id = $2 ORDER BY name_key COLLATE "C"',
        (guild_id, user_id),
        "rows",
    )
    return characters_from([row[0] for row in rows], guild_id, user_id)


def save_character(guild_id: int, user_id: int, key: str, document: str, old_key: str | None) -> Steps[None]:
    if old_key is not None and old_key != key:
        yield Sql(_DELETE_CHARACTER, (guild_id, user_id, old_key))
    yield Sql(
        "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
        " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id, user_id, name_key)"
        " DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
        (guild_id, user_id, key, document, _now()),
    )


def _insert_new(guild_id: int, user_id: int, name: str, key: str, document: str) -> Steps[None]:
    """Insert the character, or refuse with :class:`CharacterTaken` when one is stored under ``key``."""
    created = yield Sql(
        "INSERT INTO characters (guild_id, user_id, name_key, document, updated_at)"
        " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id, user_id, name_key) DO NOTHING"
        " RETURNING name_key",
        (guild_id, user_id, key, document, _now()),
        "value",
    )
    if created is None:
        taken = yield from character(guild_id, user_id, key, key)
        raise CharacterTaken(taken.name if taken is not None else name)


def create_character(guild_id: int, user_id: int, new: Character, document: str) -> Steps[None]:
    yield from _insert_new(guild_id, user_id, new.name, new.key, document)


def replace_character(
    guild_id: int, user_id: int, before: Character, after: Character, document: str
) -> Steps[None]:
    # Compared as models, not as JSON text: a document written before a field with a default was added
    # reads back equal to what the caller loaded, while its text differs from a new dump. The row stays as
    # read until the commit, so of two edits racing one is refused.
    stored = yield from character(guild_id, user_id, before.key, before.key, lock=True)
    if stored != before:
        raise StaleCharacter(before.name, deleted=stored is None)
    if after.key == before.key:
        yield Sql(
            "UPDATE characters SET document = $1, updated_at = $2"
            " WHERE guild_id = $3 AND user_id = $4 AND name_key = $5",
            (document, _now(), guild_id, user_id, before.key),
        )
        return
    taken = yield from character(guild_id, user_id, after.key, after.key)
    if taken is not None:
        raise CharacterTaken(taken.name)
    yield Sql(_DELETE_CHARACTER, (guild_id, user_id, before.key))
    # Created by another process since the look above (PostgreSQL): refused as taken all the same.
    yield from _insert_new(guild_id, user_id, after.name, after.key, document)


def delete_character(guild_id: int, user_id: int, key: str) -> Steps[bool]:
    return bool((yield Sql(_DELETE_CHARACTER, (guild_id, user_id, key), "count")) == 1)


# ---------------------------------------------------------------------------- guild settings


def guild_settings(guild_id: int) -> Steps[GuildSettings]:
    document = yield Sql("SELECT document FROM guild_settings WHERE guild_id = $1", (guild_id,), "value")
    return GuildSettings(guild_id=guild_id) if document is None else settings_from(guild_id, document)


def save_guild_settings(guild_id: int, document: str, rows: Sequence[LogRow]) -> Steps[None]:
    stored = yield Sql(
        "SELECT document FROM guild_settings WHERE guild_id = $1 FOR UPDATE", (guild_id,), "value"
    )
    refuse_newer_settings(stored)
    yield Sql(
        "INSERT INTO guild_settings (guild_id, document, updated_at) VALUES ($1, $2, $3)"
        " ON CONFLICT (guild_id) DO UPDATE SET document = excluded.document,"
        " updated_at = excluded.updated_at",
        (guild_id, document, _now()),
    )
    yield from insert_log(rows)


# ---------------------------------------------------------------------------- a server's homebrew

_HOMEBREW = 'SELECT kind, key, document FROM homebrew WHERE guild_id = $1 ORDER BY kind, key COLLATE "C"'


def homebrew(guild_id: int, *, lock: bool = False) -> Steps[CatalogLayer]:
    """The server's own catalog entries; ``lock``: their rows stay as read until the commit."""
    rows = yield Sql(_HOMEBREW + (" FOR UPDATE" if lock else ""), (guild_id,), "rows")
    return homebrew_from(guild_id, [(row[0], row[1], row[2]) for row in rows])


def change_homebrew(guild_id: int, change: Callable[[CatalogLayer], tuple[CatalogLayer, T]]) -> Steps[T]:
    """The server's entries read, changed by ``change`` (which may refuse: nothing is written) and the
    difference written: entries gone deleted, entries new or changed written."""
    before = yield from homebrew(guild_id, lock=True)
    after, result = change(before)
    gone = [
        (guild_id, kind, key) for kind in KINDS for key in before.table(kind) if key not in after.table(kind)
    ]
    now = _now()
    written = [
        (guild_id, kind, entry.key, entry.model_dump_json(), now)
        for kind, entry in after.entries()
        if before.table(kind).get(entry.key) != entry
    ]
    if gone:
        yield Sql("DELETE FROM homebrew WHERE guild_id = $1 AND kind = $2 AND key = $3", many=gone)
    if written:
        yield Sql(
            "INSERT INTO homebrew (guild_id, kind, key, document, updated_at) VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (guild_id, kind, key)"
            " DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
            many=written,
        )
    return result


# ---------------------------------------------------------------------------- the servers Pommel left


def guild_left(guild_id: int, at: datetime) -> Steps[None]:
    yield Sql(
        "INSERT INTO guild_departures (guild_id, left_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        (guild_id, at.astimezone(UTC)),
    )


def guild_returned(guild_id: int) -> Steps[None]:
    yield Sql("DELETE FROM guild_departures WHERE guild_id = $1", (guild_id,))


def guilds_left_before(cutoff: datetime) -> Steps[list[int]]:
    rows = yield Sql("SELECT guild_id, left_at FROM guild_departures ORDER BY left_at, guild_id", (), "rows")
    return [int(row[0]) for row in rows if moment(row[1]) < cutoff]


# ---------------------------------------------------------------------------- forgetting a server

_GUILD_CHANNELS = (
    "SELECT channel_id FROM log WHERE guild_id = $1"
    " UNION SELECT channel_id FROM encounters WHERE guild_id = $1"
    " UNION SELECT channel_id FROM set_aside_encounters WHERE guild_id = $1"
    " UNION SELECT channel_id FROM ended_encounters WHERE guild_id = $1"
)
_GUILD_LOG = "SELECT id FROM log WHERE guild_id = $1"

FORGET_GUILD_FIRST = (
    f"DELETE FROM encounter_history WHERE channel_id IN ({_GUILD_CHANNELS})",
    f"DELETE FROM encounter_undos WHERE channel_id IN ({_GUILD_CHANNELS})",
    f"DELETE FROM log_undone WHERE log_id IN ({_GUILD_LOG}) OR undo_log_id IN ({_GUILD_LOG})",
    "DELETE FROM log_d20 WHERE guild_id = $1",
    "DELETE FROM guild_departures WHERE guild_id = $1",
)
"""What refers to a server's log lines and fights, deleted before them (``$1``: the guild). A channel
belongs to one guild, so its history is the guild's."""

FORGET_GUILD_COUNTED = {
    "fights": ("encounters", "set_aside_encounters"),
    "ended": ("ended_encounters",),
    "characters": ("characters",),
    "settings": ("guild_settings",),
    "homebrew": ("homebrew",),
}
"""The tables of a server's own rows (by ``guild_id``), by what :class:`~bot.store.ForgottenGuild`
counts of them; its log lines go last: the log is append-only but for a server forgotten, marked in
``guilds_being_forgotten`` while its lines are deleted."""


def forget_guild(guild_id: int) -> Steps[ForgottenGuild]:
    guild = (guild_id,)
    for statement in FORGET_GUILD_FIRST:
        yield Sql(statement, guild)
    counts: dict[str, int] = {}
    for what, tables in FORGET_GUILD_COUNTED.items():
        counts[what] = 0
        for table in tables:
            counts[what] += yield Sql(f"DELETE FROM {table} WHERE guild_id = $1", guild, "count")
    yield Sql("INSERT INTO guilds_being_forgotten (guild_id) VALUES ($1)", guild)
    log_lines = yield Sql("DELETE FROM log WHERE guild_id = $1", guild, "count")
    yield Sql("DELETE FROM guilds_being_forgotten WHERE guild_id = $1", guild)
    return ForgottenGuild(
        fights=counts["fights"],
        ended=counts["ended"],
        log_lines=log_lines,
        characters=counts["characters"],
        settings=counts["settings"] > 0,
        homebrew=counts["homebrew"],
    )
