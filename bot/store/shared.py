"""What the SQLite and the PostgreSQL stores share (their migrations are :mod:`.schema`): the work on
documents around their SQL (:class:`DocumentStore`), so that both keep the promises of
:mod:`bot.store.base` the same way and only the statements differ."""

from __future__ import annotations

import dataclasses
import json
import logging
from abc import abstractmethod
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from ..characters import Character
from ..encounter.document import Encounter
from ..rules.errors import RulesError
from .base import (
    MAX_LOG_PAGE,
    EncounterChange,
    EndedEncounter,
    LogEntry,
    PastUnreadable,
    StaleEncounter,
    Store,
)
from .documents import checked, problems

logger = logging.getLogger("bot.store")

FIGHT = "a fight"


def fight_from(version: int, document: str) -> Encounter:
    """A stored fight, with its version (kept in a column of its own, never in the document)."""
    return Encounter.model_validate_json(document).model_copy(update={"version": version})


class Unreadable(Exception):
    """A stored fight that does not validate, met inside a transaction (which it rolls back)."""

    def __init__(self, version: int, document: str, error: ValidationError) -> None:
        super().__init__(f"unreadable fight at version {version}")
        self.version = version
        self.document = document
        self.error = error

    @property
    def reason(self) -> str:
        """Why it does not read, in plain words."""
        return "; ".join(problems(self.error, self.document, FIGHT))

    @property
    def gm_id(self) -> int | None:
        """The GM's id as far as the document still tells it."""
        try:
            data = json.loads(self.document)
        except (TypeError, ValueError):
            return None
        gm_id = data.get("gm_id") if isinstance(data, dict) else None
        return gm_id if isinstance(gm_id, int) and not isinstance(gm_id, bool) else None


def readable_fight(version: int, document: str) -> Encounter:
    """:func:`fight_from`, raising :class:`Unreadable` for a document that does not validate."""
    try:
        return fight_from(version, document)
    except ValidationError as error:
        raise Unreadable(version, document, error) from None


def past_fight(version: int, document: str) -> Encounter:
    """A fight the history kept (before a change, or before an undo), which an undo or a redo is to put
    back: :class:`PastUnreadable` when it no longer reads, so nothing is changed."""
    try:
        return fight_from(version, document)
    except ValidationError:
        raise PastUnreadable() from None


def character_document(character: Character) -> str:
    """The character's JSON, checked before it is written."""
    document = character.model_dump_json()
    checked(Character, "a character", document)
    return document


def checked_change(channel_id: int, wanted: EncounterChange) -> tuple[str, Encounter] | None:
    """The checked document of the fight a change of the channel wants saved, and the fight read back
    from it in the check (a copy that shares nothing, without its version); None when it saves none (it
    ends the fight, or there is none). A fight of another channel is a bug."""
    if wanted.encounter is None:
        return None
    if wanted.encounter.channel_id != channel_id:
        other = wanted.encounter.channel_id
        raise ValueError(f"a change of channel {channel_id} returned the fight of {other}")
    document = wanted.encounter.model_dump_json(exclude={"version"})
    return document, checked(Encounter, FIGHT, document)


def step_user(wanted: EncounterChange) -> int:
    """Who made a change, for the fight's history: its user, or its first event's."""
    if wanted.user_id is not None:
        return wanted.user_id
    return wanted.events[0].user_id if wanted.events else 0


def undone_fight(
    restore: Callable[[Encounter, Encounter], Encounter], earlier: Encounter, current: Encounter
) -> tuple[Encounter, str, Encounter]:
    """An undo's fight to write over ``current`` (at its version), its checked document, and the fight
    as it will read once saved (at the next version)."""
    fight = restore(earlier, current).model_copy(update={"version": current.version})
    document = fight.model_dump_json(exclude={"version"})
    saved = checked(Encounter, FIGHT, document)
    return fight, document, saved.model_copy(update={"version": current.version + 1})


def check_page(limit: int) -> None:
    if not 1 <= limit <= MAX_LOG_PAGE:
        raise ValueError(f"limit must be 1 to {MAX_LOG_PAGE}, not {limit}")


class DocumentStore(Store):
    """The store's work on documents, around a few statements each store writes in its own SQL."""

    @abstractmethod
    async def _stored_fight(self, channel_id: int) -> tuple[int, str] | None:
        """The channel's fight as stored, ``(version, document)``, or None."""

    @abstractmethod
    async def _save_fight(self, encounter: Encounter, document: str, events: Sequence[LogEntry]) -> None:
        """The compare-and-set of ``encounter`` (version 0: a new fight) as ``document``, with ``events``,
        in one transaction; :class:`StaleEncounter` when it did not start from the stored version."""

    @abstractmethod
    async def _move_aside(self, unreadable: Unreadable, channel_id: int) -> int | None:
        """Move the channel's fight to ``set_aside_encounters`` if it is still ``unreadable``'s version
        and document; the id of its row, or None when it was set aside or written anew meanwhile."""

    @abstractmethod
    async def _ended_document(self, ended_id: int) -> tuple[EndedEncounter, str] | None:
        """An ended fight as kept, and its document, or None."""

    @abstractmethod
    async def _reopen(self, ended: EndedEncounter, events: Sequence[LogEntry]) -> str:
        """Bring the ended fight back, in one transaction; its document. :class:`StaleEncounter` when the
        channel has a fight, :class:`~bot.store.base.EndedGone` when it is no longer kept."""

    async def load_encounter(self, channel_id: int) -> Encounter | None:
        while True:  # once more after setting an unreadable fight aside, for whatever is stored then
            stored = await self._stored_fight(channel_id)
            if stored is None:
                return None
            version, document = stored
            try:
                return fight_from(version, document)
            except ValidationError as error:
                await self._set_aside(channel_id, Unreadable(version, document, error))

    async def save_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> Encounter:
        if encounter.version < 0:
            raise ValueError(f"an encounter's version is never negative (got {encounter.version})")
        # The version lives in its own column only, so the document cannot disagree with it.
        document = encounter.model_dump_json(exclude={"version"})
        # Checked by reading back the very JSON to be written, before writing it. The copy returned is
        # that reading: it shares nothing with the argument, and reading JSON is several times faster
        # than deep-copying the models.
        saved = checked(Encounter, FIGHT, document)
        try:
            await self._save_fight(encounter, document, events)
        except StaleEncounter:
            # A new fight where one is stored: if that one is unreadable, loading it sets it aside (or it
            # ended meanwhile), and this one starts after all.
            if encounter.version != 0 or await self.load_encounter(encounter.channel_id) is not None:
                raise
            await self._save_fight(encounter, document, events)
        return saved.model_copy(update={"version": encounter.version + 1})

    async def _set_aside(self, channel_id: int, unreadable: Unreadable) -> None:
        """Move the channel's unreadable fight aside, if it is still the one stored, with a warning."""
        moved = await self._move_aside(unreadable, channel_id)
        if moved is not None:
            logger.warning(
                "The fight in channel %d could not be read and was set aside (set_aside_encounters id %d)"
                " so the channel can start a new one: %s",
                channel_id,
                moved,
                unreadable.reason,
            )

    async def ended_encounter(self, ended_id: int) -> EndedEncounter | None:
        kept = await self._ended_document(ended_id)
        if kept is None:
            return None
        ended, document = kept
        try:
            encounter = fight_from(ended.version, document)
        except ValidationError as error:
            reason = "; ".join(problems(error, document, FIGHT))
            unreadable = f"That ended fight was kept in a form that no longer reads ({reason})."
            raise RulesError(unreadable) from None
        return dataclasses.replace(ended, encounter=encounter)

    async def reopen_encounter(self, ended: EndedEncounter, *, events: Sequence[LogEntry] = ()) -> Encounter:
        try:
            document = await self._reopen(ended, events)
        except StaleEncounter:
            # As for a new fight: an unreadable one in the way is set aside by loading it, then this goes on.
            if await self.load_encounter(ended.channel_id) is not None:
                raise
            document = await self._reopen(ended, events)
        return fight_from(ended.version + 1, document)

    async def append_log(self, entry: LogEntry) -> LogEntry:
        [appended] = await self.append_logs([entry])
        return appended


# ---------------------------------------------------------------------------- forgetting a server

_GUILD_CHANNELS = (
    "SELECT channel_id FROM log WHERE guild_id = {g}"
    " UNION SELECT channel_id FROM encounters WHERE guild_id = {g}"
    " UNION SELECT channel_id FROM set_aside_encounters WHERE guild_id = {g}"
    " UNION SELECT channel_id FROM ended_encounters WHERE guild_id = {g}"
)
_GUILD_LOG = "SELECT id FROM log WHERE guild_id = {g}"

FORGET_GUILD_FIRST = (
    f"DELETE FROM encounter_history WHERE channel_id IN ({_GUILD_CHANNELS})",
    f"DELETE FROM encounter_undos WHERE channel_id IN ({_GUILD_CHANNELS})",
    f"DELETE FROM log_undone WHERE log_id IN ({_GUILD_LOG}) OR undo_log_id IN ({_GUILD_LOG})",
    "DELETE FROM log_d20 WHERE guild_id = {g}",
    "DELETE FROM guild_departures WHERE guild_id = {g}",
)
"""What refers to a server's log lines and fights, deleted before them (``{g}``: the guild's parameter,
``:g`` in SQLite, ``$1`` in PostgreSQL). A channel belongs to one guild, so its history is the guild's."""

FORGET_GUILD_COUNTED = {
    "fights": ("encounters", "set_aside_encounters"),
    "ended": ("ended_encounters",),
    "characters": ("characters",),
    "settings": ("guild_settings",),
}
"""The tables of a server's own rows (by ``guild_id``), by what :class:`~bot.store.ForgottenGuild`
counts of them; its log lines go last (:data:`FORGET_GUILD_LOG`)."""

FORGET_GUILD_LOG = (
    "INSERT INTO guilds_being_forgotten (guild_id) VALUES ({g})",
    "DELETE FROM log WHERE guild_id = {g}",
    "DELETE FROM guilds_being_forgotten WHERE guild_id = {g}",
)
"""The log is append-only but for a server forgotten: marked while its lines are deleted (the second
statement, whose count is the lines')."""
