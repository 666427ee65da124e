"""The store over SQL, both dialects: every method runs one transaction (or read) of
:mod:`bot.store.fights_sql`, :mod:`bot.store.log_sql` or :mod:`bot.store.guilds_sql`, written once; a
driver (:class:`~bot.store.sqlite.SqliteStore`, :class:`~bot.store.postgres.PostgresStore`) says how to
run one (:meth:`SqlStore._write`, :meth:`SqlStore._read`) and how to open, lock and migrate."""

from __future__ import annotations

from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from ..catalog import CatalogLayer
from ..characters import Character, name_key
from ..encounter.document import Encounter
from ..events import FightChanged, announce
from ..guild_settings import GuildSettings
from . import fights_sql, guilds_sql, log_sql
from .errors import StaleEncounter
from .fights_sql import FightAhead
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
)
from .shared import (
    DocumentStore,
    Unreadable,
    character_document,
    check_page,
    readable_fight,
    settings_document,
)
from .sql import Work

T = TypeVar("T")

FIGHTS_READ_AHEAD = 64
"""Channels whose fight, as its last change here wrote it, is kept parsed for the next change, so that
change skips reading the document it finds (the last 64 channels changed: about 3 MB for fights of eight
fighters; an idle server's channels leave it as others are changed). Both stores: the document stored is
compared whole, so a write by another process (PostgreSQL) is never missed."""


class SqlStore(DocumentStore):
    """The :class:`~bot.store.base.Store` in a SQL database, whatever its dialect."""

    RETRIES_STALE = False
    """Whether :meth:`update_encounter` runs a change again when its write was stale. SQLite's write lock
    of the whole file keeps any other write out. PostgreSQL's changes take the fight's lock (of the
    channel, with or without a fight in it), but its other writes of a fight (another process's end,
    undo or new fight, or an older Pommel's change during an upgrade) take its row's alone, and may
    come between a change's read and its write."""

    @abstractmethod
    async def _write(self, work: Work[T]) -> T:
        """Run ``work`` as one write transaction: committed when it returns, rolled back when it raises;
        a caller cancelled meanwhile does not stop it, so it ends whole."""

    async def _change(self, work: Work[T]) -> T:
        """Run ``work``, a change of a fight (:func:`~bot.store.fights_sql.update`), as one write: by
        default as :meth:`_write` does; PostgreSQL runs it under the fight's lock, in two round trips."""
        return await self._write(work)

    @abstractmethod
    async def _read(self, work: Work[T], *, long: bool = False) -> T:
        """Run ``work``, statements that only read; a ``long`` one (a count over a year of rolls) may run
        apart from the others."""

    def __init__(self) -> None:
        super().__init__()
        self._read_ahead: OrderedDict[int, FightAhead] = OrderedDict()
        """:data:`FIGHTS_READ_AHEAD`: channel -> the fight its last change here wrote. Taken out by the
        next change of the channel (SQLite: on the connection's thread; PostgreSQL: on the event loop) and
        used only if it finds that very version and document stored, so a fight taken from it is the
        change's own."""

    # ------------------------------------------------------------------------------ fights read ahead

    def fight_ahead(self, channel_id: int) -> FightAhead | None:
        """The channel's fight read ahead, taken out: put back only by a write, so a change that fails
        leaves none, and no other channel's write pushes it out while the change reads."""
        return self._read_ahead.pop(channel_id, None)

    def fight_as_read(
        self, channel_id: int, version: int, document: str | None, ahead: FightAhead | None
    ) -> Encounter:
        """The stored fight (``version``, ``document``) for a change to make its own: the one read ahead
        when it is that very version and document (no other write came between, from this process or
        another), or when PostgreSQL left the document out as the one ``ahead`` wrote; else read now."""
        if ahead is not None and ahead.version == version and document in (None, ahead.document):
            return ahead.fight  # taken out by fight_ahead: the change's own
        if document is None:
            raise RuntimeError(f"the fight of channel {channel_id} was left out as read ahead, but is not")
        return readable_fight(version, document)

    def fight_written(self, channel_id: int, written: FightAhead) -> None:
        """A change wrote ``written.fight`` as its document, now stored at its version (if its transaction
        commits: if not, the next change finds another version or document stored, and reads it)."""
        self._read_ahead[channel_id] = written
        if len(self._read_ahead) > FIGHTS_READ_AHEAD:
            self._read_ahead.popitem(last=False)

    # ------------------------------------------------------------------------------ fights

    async def _stored_fight(self, channel_id: int) -> tuple[int, str] | None:
        return await self._read(lambda: fights_sql.stored_fight(channel_id))

    async def fight_channels(self) -> list[int]:
        return await self._read(fights_sql.fight_channels)

    async def due_fights(self, through: datetime | None = None, *, timers: bool = False) -> list[DueFight]:
        return await self._read(lambda: fights_sql.due_fights(through, timers))

    async def recheck_due(self, encounter: Encounter) -> bool:
        return await self._write(lambda: fights_sql.recheck_due(encounter))

    async def _save_fight(self, encounter: Encounter, document: str, events: Sequence[LogEntry]) -> None:
        rows = log_sql.log_rows(events)
        await self._write(lambda: fights_sql.write_fight(encounter, document, rows))

    async def delete_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> None:
        rows = log_sql.log_rows(events)
        await self._write(lambda: fights_sql.delete_fight(encounter, rows))

    async def update_encounter(
        self,
        channel_id: int,
        change: Callable[[Encounter | None], EncounterChange],
        *,
        attempts: int = 3,
    ) -> Encounter | None:
        """The read, the change and the write in one transaction (:func:`~bot.store.fights_sql.update`).

        ``change`` runs inside the transaction (in SQLite on the connection's thread, inside
        ``BEGIN IMMEDIATE``), so it runs once; only where :data:`RETRIES_STALE`, a write made stale by a
        fight another process started at that moment runs it again, up to ``attempts`` times in all.
        (The change is the rules core's work: pure Python that touches nothing of the event loop's.)
        """
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")
        async with self.lock(channel_id):
            attempt = 1
            while True:
                try:
                    return await self._change(lambda: fights_sql.update(channel_id, change, self))
                except Unreadable as unreadable:
                    # Rolled back; set aside in a transaction of its own, so it stays set aside whatever
                    # the change then does with no fight (a command refusing with NoFight, say).
                    await self._set_aside(channel_id, unreadable)
                except StaleEncounter:
                    if not self.RETRIES_STALE or attempt >= attempts:
                        raise
                    attempt += 1

    async def _move_aside(self, unreadable: Unreadable, channel_id: int) -> int | None:
        return await self._write(lambda: fights_sql.move_aside(unreadable, channel_id))

    # ------------------------------------------------------------------------------ ended fights

    async def ended_encounters(self, channel_id: int, limit: int = ENDED_KEPT) -> list[EndedEncounter]:
        return await self._read(lambda: fights_sql.ended_encounters(channel_id, limit))

    async def _ended_document(self, ended_id: int) -> tuple[EndedEncounter, str] | None:
        return await self._read(lambda: fights_sql.ended_document(ended_id))

    async def _reopen(self, ended: EndedEncounter, events: Sequence[LogEntry]) -> str:
        rows = log_sql.log_rows(events)
        return await self._write(lambda: fights_sql.reopen(ended, rows))

    # ---------------------------------------------------------------------- the running fight's history

    async def history(self, channel_id: int, steps: int = HISTORY_KEPT) -> list[HistoryStep]:
        return await self._read(lambda: fights_sql.history(channel_id, steps))

    async def redoable(self, channel_id: int) -> Redoable | None:
        return await self._read(lambda: fights_sql.redoable(channel_id))

    async def undo(
        self,
        channel_id: int,
        steps: int,
        expected_version: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        if steps < 1:
            raise ValueError(f"an undo takes back at least one step, not {steps}")
        async with self.lock(channel_id):
            saved, undone = await self._write(
                lambda: fights_sql.undo(channel_id, steps, expected_version, restore, line)
            )
        announce(FightChanged(saved))
        return saved, undone

    async def redo(
        self,
        channel_id: int,
        undo_id: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        async with self.lock(channel_id):
            saved, redone = await self._write(lambda: fights_sql.redo(channel_id, undo_id, restore, line))
        announce(FightChanged(saved))
        return saved, redone

    # ------------------------------------------------------------------------------ fights set aside

    async def set_aside_fight(self, channel_id: int) -> tuple[SetAsideFight, str] | None:
        return await self._read(lambda: fights_sql.set_aside_fight(channel_id))

    async def _restore_aside(
        self, set_aside_id: int, encounter: Encounter, document: str, events: Sequence[LogEntry]
    ) -> None:
        rows = log_sql.log_rows(events)
        await self._write(lambda: fights_sql.restore_aside(set_aside_id, encounter, document, rows))

    async def pending_set_aside(self, channel_id: int) -> SetAsideFight | None:
        return await self._read(lambda: fights_sql.pending_set_aside(channel_id))

    async def acknowledge_set_aside(self, set_aside_id: int) -> bool:
        return await self._write(lambda: fights_sql.acknowledge_set_aside(set_aside_id))

    # ------------------------------------------------------------------------------ the log

    async def append_logs(self, entries: Sequence[LogEntry]) -> list[LogEntry]:
        rows = log_sql.log_rows(entries)
        ids = await self._write(lambda: log_sql.insert_log(rows))
        return [entry.model_copy(update={"id": id_}) for entry, id_ in zip(entries, ids, strict=True)]

    async def read_log(
        self,
        *,
        channel_id: int | None = None,
        guild_id: int | None = None,
        after_id: int = 0,
        limit: int = 100,
    ) -> list[LogEntry]:
        check_page(limit)
        return await self._read(
            lambda: log_sql.read_log(channel_id=channel_id, guild_id=guild_id, after_id=after_id, limit=limit)
        )

    async def read_log_backwards(
        self,
        *,
        channel_id: int | None = None,
        guild_id: int | None = None,
        user_id: int | None = None,
        kinds: Sequence[str] = (),
        before_id: int | None = None,
        limit: int = 100,
    ) -> list[LogEntry]:
        check_page(limit)
        return await self._read(
            lambda: log_sql.read_log_backwards(
                channel_id=channel_id,
                guild_id=guild_id,
                user_id=user_id,
                kinds=kinds,
                before_id=before_id,
                limit=limit,
            )
        )

    async def tally_d20(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        user_id: int | None = None,
        since: datetime | None = None,
        through_id: int | None = None,
        viewer: int | None = None,
        gm: bool = False,
    ) -> DiceTally:
        return await self._read(
            lambda: log_sql.tally_d20(
                guild_id=guild_id,
                channel_id=channel_id,
                user_id=user_id,
                since=since,
                through_id=through_id,
                viewer=viewer,
                gm=gm,
            ),
            long=True,
        )

    # ------------------------------------------------------------------------------ characters

    async def save_character(
        self, guild_id: int, user_id: int, character: Character, *, replacing: str | None = None
    ) -> None:
        document = character_document(character)
        old_key = name_key(replacing) if replacing is not None else None
        await self._write(
            lambda: guilds_sql.save_character(guild_id, user_id, character.key, document, old_key)
        )

    async def create_character(self, guild_id: int, user_id: int, character: Character) -> None:
        document = character_document(character)
        await self._write(lambda: guilds_sql.create_character(guild_id, user_id, character, document))

    async def replace_character(
        self, guild_id: int, user_id: int, before: Character, after: Character
    ) -> None:
        document = character_document(after)
        await self._write(lambda: guilds_sql.replace_character(guild_id, user_id, before, after, document))

    async def character(self, guild_id: int, user_id: int, name: str) -> Character | None:
        return await self._read(lambda: guilds_sql.character(guild_id, user_id, name_key(name), name))

    async def characters(self, guild_id: int, user_id: int) -> list[Character]:
        return await self._read(lambda: guilds_sql.characters(guild_id, user_id))

    async def delete_character(self, guild_id: int, user_id: int, name: str) -> bool:
        return await self._write(lambda: guilds_sql.delete_character(guild_id, user_id, name_key(name)))

    # ------------------------------------------------------------------------------ guild settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._read(lambda: guilds_sql.guild_settings(guild_id))

    async def save_guild_settings(self, settings: GuildSettings, *, events: Sequence[LogEntry] = ()) -> None:
        document = settings_document(settings)
        rows = log_sql.log_rows(events)
        await self._write(lambda: guilds_sql.save_guild_settings(settings.guild_id, document, rows))

    # ------------------------------------------------------------------------------ a server's homebrew

    async def homebrew(self, guild_id: int) -> CatalogLayer:
        return await self._read(lambda: guilds_sql.homebrew(guild_id))

    async def change_homebrew(
        self, guild_id: int, change: Callable[[CatalogLayer], tuple[CatalogLayer, T]]
    ) -> T:
        return await self._write(lambda: guilds_sql.change_homebrew(guild_id, change))

    # ------------------------------------------------------------------------------ a server's data

    async def forget_guild(self, guild_id: int) -> ForgottenGuild:
        return await self._write(lambda: guilds_sql.forget_guild(guild_id))

    async def guild_left(self, guild_id: int, at: datetime) -> None:
        await self._write(lambda: guilds_sql.guild_left(guild_id, at))

    async def guild_returned(self, guild_id: int) -> None:
        await self._write(lambda: guilds_sql.guild_returned(guild_id))

    async def guilds_left_before(self, cutoff: datetime) -> list[int]:
        return await self._read(lambda: guilds_sql.guilds_left_before(cutoff))
