"""The work on documents around the store's SQL (:class:`DocumentStore`): reading (and upgrading) a
stored document, checking one before it is written, and setting aside a fight that no longer reads, so
that every store keeps the promises of :mod:`bot.store.base` the same way. The SQL itself, written once
for SQLite and PostgreSQL, is :class:`~bot.store.sql_store.SqlStore`'s."""

from __future__ import annotations

import dataclasses
import json
import logging
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from pydantic import BaseModel, ValidationError

from ..catalog import ENTRY_MODELS, CatalogLayer, EntryKind
from ..characters import Character
from ..encounter.document import Encounter
from ..events import FightChanged, FightReopened, announce
from ..guild_settings import GuildSettings
from ..rules.errors import RulesError
from .base import (
    MAX_LOG_PAGE,
    Store,
)
from .documents import checked, problems
from .errors import (
    NewerSettings,
    PastUnreadable,
    StaleEncounter,
    UnreadableCharacter,
)
from .records import (
    EncounterChange,
    EndedEncounter,
    LogEntry,
    SetAsideFight,
)
from .upgrades import CHARACTER, FIGHT, SETTINGS, Kind, TooNew, UnknownVersion, current_json, stamped

logger = logging.getLogger("bot.store")

Model = TypeVar("Model", bound=BaseModel)


class NotRead(Exception):
    """A stored document that does not read, even upgraded: ``reason`` says why, in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read(kind: Kind, model: type[Model], document: str) -> Model:
    """A stored document of ``kind`` as ``model``, upgraded first when an older Pommel wrote it
    (:mod:`bot.store.upgrades`); :class:`NotRead` when it does not read even so, or a newer Pommel
    wrote it."""
    try:
        upgraded = current_json(kind, document)
    except (TooNew, UnknownVersion) as error:
        raise NotRead(str(error)) from None
    try:
        return model.model_validate_json(upgraded)
    except ValidationError as error:
        raise NotRead("; ".join(problems(error, upgraded, kind.what))) from None


def fight_from(version: int, document: str) -> Encounter:
    """A stored fight, with its version (kept in a column of its own, never in the document); raises
    :class:`NotRead`."""
    return read(FIGHT, Encounter, document).model_copy(update={"version": version})


def reads_fight(document: str) -> bool:
    """Whether this Pommel reads a stored fight's ``document`` (upgrading it if need be)."""
    try:
        fight_from(0, document)
    except NotRead:
        return False
    return True


def fight_document(encounter: Encounter) -> tuple[str, Encounter]:
    """A fight's document as stored (without its version, which has a column of its own), checked by
    reading back the very JSON to be written; and that reading, a copy that shares nothing (reading JSON
    is several times faster than deep-copying the models), without its version."""
    document = encounter.model_dump_json(exclude={"version"})
    return stamped(FIGHT, document), checked(Encounter, FIGHT.what, document)


class Unreadable(Exception):
    """A stored fight that does not read, met inside a transaction (which it rolls back)."""

    def __init__(self, version: int, document: str, reason: str) -> None:
        super().__init__(f"unreadable fight at version {version}")
        self.version = version
        self.document = document
        self.reason = reason
        """Why it does not read, in plain words."""

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
    except NotRead as error:
        raise Unreadable(version, document, error.reason) from None


def past_fight(version: int, document: str) -> Encounter:
    """A fight the history kept (before a change, or before an undo), which an undo or a redo is to put
    back: :class:`PastUnreadable` when it no longer reads, so nothing is changed."""
    try:
        return fight_from(version, document)
    except NotRead:
        raise PastUnreadable() from None


def character_document(character: Character) -> str:
    """The character's document as stored, checked before it is written."""
    document = character.model_dump_json()
    checked(Character, CHARACTER.what, document)
    return stamped(CHARACTER, document)


def character_from(document: str, name: str) -> Character:
    """A stored character, upgraded if need be; :class:`UnreadableCharacter` (named ``name``, as the
    player asked for it) when it does not read."""
    try:
        return read(CHARACTER, Character, document)
    except NotRead as error:
        try:
            stored_name = json.loads(document).get("name")
        except (ValueError, AttributeError):
            stored_name = None
        raise UnreadableCharacter(
            stored_name if isinstance(stored_name, str) else name, error.reason
        ) from None


def homebrew_from(guild_id: int, rows: Sequence[tuple[str, str, str]]) -> CatalogLayer:
    """A server's entries from their rows (kind, key, document); one that no longer reads is left out,
    logged, so the rest of the server's homebrew still works."""
    layer = CatalogLayer()
    for kind, key, document in rows:
        table = layer.table(cast("EntryKind", kind))
        try:
            table[key] = ENTRY_MODELS[cast("EntryKind", kind)].model_validate_json(document)
        except (ValidationError, KeyError) as error:
            logger.warning("guild %s: homebrew %s %r does not read, left out: %s", guild_id, kind, key, error)
    return layer


def characters_from(documents: Sequence[str], guild_id: int, user_id: int) -> list[Character]:
    """A player's stored characters that read; any that does not is left out (kept as it is), with a
    warning, so the player's other characters stay at hand."""
    characters = []
    for document in documents:
        try:
            characters.append(read(CHARACTER, Character, document))
        except NotRead as error:
            logger.warning(
                "A character of user %d in guild %d could not be read and is left out: %s",
                user_id,
                guild_id,
                error.reason,
            )
    return characters


def settings_from(guild_id: int, document: str) -> GuildSettings:
    """A server's stored settings, upgraded if need be; the defaults, with a warning, when they do not
    read, so that no command of the server fails on them."""
    try:
        return read(SETTINGS, GuildSettings, document)
    except NotRead as error:
        logger.warning(
            "The settings of guild %d could not be read; the defaults apply until they are set again: %s",
            guild_id,
            error.reason,
        )
        return GuildSettings(guild_id=guild_id)


def refuse_newer_settings(stored: str | None) -> None:
    """A server's settings as stored (``stored``; None when there are none) are never overwritten when a
    newer Pommel wrote them: :class:`NewerSettings`."""
    if stored is None:
        return
    try:
        current_json(SETTINGS, stored)
    except TooNew as error:
        raise NewerSettings(str(error)) from None
    except UnknownVersion:
        return  # hand-edited: setting them again mends them


def settings_document(settings: GuildSettings) -> str:
    """A server's settings as stored, checked before they are written."""
    document = settings.model_dump_json()
    checked(GuildSettings, SETTINGS.what, document)
    return stamped(SETTINGS, document)


def checked_change(channel_id: int, wanted: EncounterChange) -> tuple[str, Encounter] | None:
    """The checked document of the fight a change of the channel wants saved, and the fight read back
    from it in the check (a copy that shares nothing, without its version); None when it saves none (it
    ends the fight, or there is none). A fight of another channel is a bug."""
    if wanted.encounter is None:
        return None
    if wanted.encounter.channel_id != channel_id:
        other = wanted.encounter.channel_id
        raise ValueError(f"a change of channel {channel_id} returned the fight of {other}")
    return fight_document(wanted.encounter)


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
    document, saved = fight_document(fight)
    return fight, document, saved.model_copy(update={"version": current.version + 1})


def check_page(limit: int) -> None:
    if not 1 <= limit <= MAX_LOG_PAGE:
        raise ValueError(f"limit must be 1 to {MAX_LOG_PAGE}, not {limit}")


class DocumentStore(Store):
    """The store's work on documents, around a few statements :class:`~bot.store.sql_store.SqlStore` runs."""

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
    async def _restore_aside(
        self, set_aside_id: int, encounter: Encounter, document: str, events: Sequence[LogEntry]
    ) -> None:
        """Write ``encounter`` (version 0) as the channel's new fight and delete set-aside row
        ``set_aside_id``, in one transaction: :class:`StaleEncounter` when the channel has a fight,
        :class:`~bot.store.base.SetAsideGone` when the row is gone."""

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
                fight = fight_from(version, document)
            except NotRead as error:
                await self._set_aside(channel_id, Unreadable(version, document, error.reason))
                continue
            self.bookkeeping.apply(fight)  # as it is: with what is noted of its messages, not yet written
            return fight

    async def save_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> Encounter:
        if encounter.version < 0:
            raise ValueError(f"an encounter's version is never negative (got {encounter.version})")
        # The version lives in its own column only, so the document cannot disagree with it; checked
        # before it is written, and the copy returned is that check's reading.
        document, saved = fight_document(encounter)
        try:
            await self._save_fight(encounter, document, events)
        except StaleEncounter:
            # A new fight where one is stored: if that one is unreadable, loading it sets it aside (or it
            # ended meanwhile), and this one starts after all.
            if encounter.version != 0 or await self.load_encounter(encounter.channel_id) is not None:
                raise
            await self._save_fight(encounter, document, events)
        saved = saved.model_copy(update={"version": encounter.version + 1})
        announce(FightChanged(saved, bookkeeping=not events))  # as a change that logs nothing
        return saved

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

    async def restore_set_aside(
        self, set_aside: SetAsideFight, document: str, *, events: Sequence[LogEntry] = ()
    ) -> Encounter:
        try:
            fight = fight_from(0, document)
        except NotRead as error:
            raise RulesError(
                f"This version of Pommel still can't read that fight ({error.reason}), so it stays set aside;"
                " download it with `/encounter recover` to keep a copy."
            ) from None
        if fight.channel_id != set_aside.channel_id:
            raise RulesError("That fight was set aside from another channel; bring it back there.")
        written, saved = fight_document(fight)
        try:
            await self._restore_aside(set_aside.id, fight, written, events)
        except StaleEncounter:
            # A fight in the way that no longer reads is set aside by loading it; then this goes on.
            if await self.load_encounter(set_aside.channel_id) is not None:
                raise
            await self._restore_aside(set_aside.id, fight, written, events)
        saved = saved.model_copy(update={"version": 1})
        announce(FightChanged(saved, repost=True))  # brought back: its tracker at the bottom of the channel
        return saved

    async def ended_encounter(self, ended_id: int) -> EndedEncounter | None:
        kept = await self._ended_document(ended_id)
        if kept is None:
            return None
        ended, document = kept
        try:
            encounter = fight_from(ended.version, document)
        except NotRead as error:
            unreadable = f"That ended fight was kept in a form this Pommel cannot read ({error.reason})."
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
        reopened = fight_from(ended.version + 1, document)
        announce(FightReopened(reopened))
        return reopened

    async def append_log(self, entry: LogEntry) -> LogEntry:
        [appended] = await self.append_logs([entry])
        return appended
