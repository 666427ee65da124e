"""The store as the cogs see it, with nothing of SQLite or PostgreSQL in it (``sqlite.py``, ``postgres.py``).

Four promises every implementation keeps:

* every state change is one transaction: a saved fight and the log lines that tell of it are written
  together or not at all;
* only documents that validate are written (:class:`InvalidDocument` otherwise), and one stored
  document that no longer reads is set aside instead of stopping the bot (:class:`SetAsideFight`);
* a write of a fight is a compare-and-set on its version, so a stale or concurrent write is refused
  (:class:`StaleEncounter`) instead of silently overwriting another; a player's change to a character
  is one on the character as read (:class:`StaleCharacter`), and a new one never replaces an old one
  (:class:`CharacterTaken`);
* a method returns only after its transaction is committed, so an acknowledged action survives a
  crash of the bot.

:meth:`Store.lock` serializes commands on one channel inside the process, so they queue instead of
failing; the compare-and-set covers whatever the lock cannot see (another process, a caller that
skipped the lock). :meth:`Store.update_encounter` combines the two and is what most commands want.
One process at a time has a SQLite database open (:class:`DatabaseInUse` for a second one); several
share a PostgreSQL one, each serving its own shards (:meth:`Store.claim_shards`, :class:`ShardTaken`).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from ..catalog import CatalogLayer
from ..characters import Character
from ..encounter.document import Encounter
from ..encounter.done import D20_KEY, Done
from ..encounter.errors import NoFight
from ..encounter.lifecycle import EndedFight
from ..events import FightChanged, FightEnded, announce
from ..guild_settings import GuildSettings
from .bookkeeping import Bookkeeping, Carried
from .errors import (
    StaleEncounter,
)
from .receipts import mark_committed
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

log = logging.getLogger(__name__)

Result = TypeVar("Result")

MAX_LOG_PAGE = 1000
"""The most log entries :meth:`Store.read_log` returns at once; page on with ``after_id``."""


class Store(ABC):
    """Fights, the log, characters and guild settings; see the module's docstring for the promises.

    Methods that read return copies: changing a returned object changes nothing stored until it is
    saved.
    """

    def __init__(self) -> None:
        # Weak values: a channel's lock lives while someone holds or awaits it, so idle channels cost
        # nothing, and anyone asking while it is in use gets that same lock.
        self._channel_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self.bookkeeping = Bookkeeping()
        """The fights' bookkeeping not yet written (:mod:`bot.store.bookkeeping`): the next
        :meth:`change` of each fight writes it in its own transaction, :meth:`write_notes` what none
        carried."""

    def lock(self, channel_id: int) -> asyncio.Lock:
        """The lock that serializes commands on one channel (or thread) in this process.

        Hold it across a load and the save that follows (``async with store.lock(channel_id):``) so a
        second command waits for the first instead of failing with :class:`StaleEncounter`. It is not
        reentrant: do not call :meth:`update_encounter` while holding it.
        """
        channel_lock = self._channel_locks.get(channel_id)
        if channel_lock is None:
            channel_lock = asyncio.Lock()
            self._channel_locks[channel_id] = channel_lock
        return channel_lock

    async def update_encounter(
        self,
        channel_id: int,
        change: Callable[[Encounter | None], EncounterChange],
        *,
        attempts: int = 3,
    ) -> Encounter | None:
        """Load the channel's fight, apply ``change`` and write what it returns, under :meth:`lock`.

        ``change`` gets the fight as stored (None when there is none) and may change it in place. It may
        be called more than once, each time with a freshly loaded fight: a write from outside this
        process makes the save stale, and it is retried up to ``attempts`` times in all before the
        :class:`StaleEncounter` is raised. When ``change`` raises (a :class:`RulesError`, say) nothing is
        written and the error propagates.

        Returns the fight as saved (with its new version), or None when it was ended or there is none.
        """
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")
        async with self.lock(channel_id):
            for attempt in range(1, attempts + 1):
                current = await self.load_encounter(channel_id)
                wanted = change(current)
                try:
                    return await self._write_change(channel_id, current, wanted)
                except StaleEncounter:
                    if attempt == attempts:
                        raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def change(
        self,
        channel_id: int,
        user_id: int,
        operation: Callable[[Encounter], Done[Result]],
    ) -> tuple[Encounter, Result]:
        """Run one operation on the channel's encounter and save it with its log lines, atomically.

        What happened is announced once committed (:func:`bot.events.announce`): the fight changed (its
        tracker posted anew when the operation's ``Done`` says ``repost``), or ended. A change that logs
        nothing (where a message is, a reminder marked) is bookkeeping, as in the history: no news on its
        own, only the latest state of a change announced with it.

        ``operation`` is plain work on the document (it may run on the database thread, between the
        read and the write of one transaction, and more than once on a retry): it must not await,
        touch Discord or the event loop. A :class:`~bot.rules.errors.RulesError` it raises leaves
        everything as it was. Returns the encounter as saved (for an ended one: as it was last) and
        the operation's result. Raises :class:`~bot.encounter.errors.NoFight` when there is none.

        The fight's unwritten bookkeeping (:attr:`bookkeeping`) is applied to it first, in the same
        transaction, and taken off once that committed: one write, not two, for a change and what was
        noted of the messages after the one before. An end keeps the fight as stored, without them:
        ``/encounter end`` writes them when it asks (:meth:`write_notes`), so a reopened fight knows its
        messages.
        """
        done: list[tuple[Encounter, Done[Result]]] = []
        carried: list[Carried | None] = []

        def apply(current: Encounter | None) -> EncounterChange:
            if current is None:
                raise NoFight()
            carried.append(self.bookkeeping.apply(current))  # before the operation: it sees them
            outcome = operation(current)
            done.append((current, outcome))
            events = tuple(log_entries(outcome, current.guild_id, channel_id, user_id))
            return EncounterChange(None if outcome.end else current, events, user_id)

        saved = await self.update_encounter(channel_id, apply)
        self.bookkeeping.taken(carried[-1])
        encounter, outcome = done[-1]
        mark_committed(list(outcome.log))
        if saved is None:
            if isinstance(outcome.result, EndedFight):
                announce(FightEnded(encounter, outcome.result))
        else:  # a change that logs nothing is bookkeeping, no step of the fight: no news on its own
            announce(FightChanged(saved, repost=outcome.repost, bookkeeping=not outcome.log))
        return (saved if saved is not None else encounter), outcome.result

    async def write_notes(self, *, older_than: float = 0.0, channel_id: int | None = None) -> int:
        """Write the bookkeeping no change carried (:attr:`bookkeeping`) that has waited ``older_than``
        seconds (of one channel when given), each channel's in a transaction of its own that changes
        nothing else (no step of the fight's history, no news); notes of a fight that is no longer its
        channel's go. Returns how many fights were written. A channel whose write fails keeps its notes
        for the next time."""
        written = 0
        for channel, tag in self.bookkeeping.waiting(older_than, channel_id):
            try:
                written += await self.bookkeeping.write_alone(channel, tag, self.update_encounter)
            except Exception:
                log.warning("could not write the bookkeeping of channel %s", channel, exc_info=True)
        return written

    async def _write_change(
        self, channel_id: int, current: Encounter | None, wanted: EncounterChange
    ) -> Encounter | None:
        if wanted.encounter is not None:
            if wanted.encounter.channel_id != channel_id:
                other = wanted.encounter.channel_id
                raise ValueError(f"a change of channel {channel_id} returned the fight of channel {other}")
            return await self.save_encounter(wanted.encounter, events=wanted.events)
        if current is not None:
            await self.delete_encounter(current, events=wanted.events)
        elif wanted.events:
            await self.append_logs(wanted.events)
        return None

    # ------------------------------------------------------------------------------ lifetime

    @abstractmethod
    async def close(self) -> None:
        """Finish the transaction in progress and release the database; a second call does nothing."""

    async def claim_shards(  # noqa: B027 (not abstract: most stores have nothing to claim)
        self, shard_count: int, shard_ids: Sequence[int], *, on_lost: Callable[[], None] | None = None
    ) -> None:
        """Claim this process's shards for as long as the store is open, or raise :class:`ShardTaken`.

        ``on_lost`` is called when the claim ends without :meth:`close` (the database went away): the
        process must then stop serving those shards. A store that one process at a time can open (SQLite,
        see :class:`DatabaseInUse`) has nothing to claim.
        """

    # ------------------------------------------------------------------------------ fights

    @abstractmethod
    async def load_encounter(self, channel_id: int) -> Encounter | None:
        """The channel's fight with ``version`` set to the stored version, or None when there is none; with
        its bookkeeping not yet written applied (:attr:`bookkeeping`), so a reader sees its messages as
        they are.

        A stored fight that no longer reads is set aside (see :meth:`pending_set_aside`), with a warning
        in the log naming the channel, and None is returned: one bad document never stops the bot.
        """

    @abstractmethod
    async def fight_channels(self) -> list[int]:
        """The channels (and threads) that have a fight stored, in no particular order.

        Their documents are not read here: :meth:`load_encounter` of a channel listed returns None when
        its fight turns out unreadable (and sets it aside), so loading each of them is always safe.
        """

    @abstractmethod
    async def due_fights(self, through: datetime | None = None, *, timers: bool = False) -> list[DueFight]:
        """The fights with something due (a defense's deadline, a reminder: see
        :func:`bot.encounter.due.next_due`), by ``through`` if given, soonest first, from the index of due
        times that every write of a fight keeps; no document is read, and an idle fight costs nothing.
        ``timers``: the fights with a defense's timer to keep (:func:`~bot.encounter.due.next_timer`), by
        the timer's deadline.

        A fight is due at :data:`~bot.encounter.due.DUE_AT_ONCE` when its due times are yet to be worked
        out from its document (stored before the index, or reopened): :meth:`recheck_due` writes them.
        """

    @abstractmethod
    async def recheck_due(self, encounter: Encounter) -> bool:
        """Write the fight's due times, worked out from ``encounter`` (as loaded), if its version is still
        the one stored (True): the index's bookkeeping, not a change of the fight."""

    @abstractmethod
    async def save_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> Encounter:
        """Write ``encounter`` and log ``events`` in one transaction, if nobody wrote it since it was loaded.

        ``encounter.version`` 0 creates the channel's fight (refused if it has one; an unreadable one is
        set aside instead); any other version must be the stored one. Raises :class:`StaleEncounter`
        otherwise, and :class:`InvalidDocument` for a fight that does not validate, writing nothing.
        Returns a copy with the new version; the argument is never changed.
        """

    @abstractmethod
    async def delete_encounter(self, encounter: Encounter, *, events: Sequence[LogEntry] = ()) -> None:
        """End the channel's fight and log ``events`` in one transaction, if ``encounter`` is not stale; the
        fight is kept among the channel's ended ones (:meth:`ended_encounters`) in that transaction.

        Raises :class:`StaleEncounter` when the stored version is not ``encounter.version`` (or the
        fight is gone), writing nothing.
        """

    @abstractmethod
    async def ended_encounters(self, channel_id: int, limit: int = ENDED_KEPT) -> list[EndedEncounter]:
        """The channel's ended fights, newest first, at most ``limit``, without their documents.

        :meth:`delete_encounter` (and an end through :meth:`update_encounter`) keeps the fight it ends, in
        its transaction; a channel keeps its last :data:`ENDED_KEPT`.
        """

    @abstractmethod
    async def ended_encounter(self, ended_id: int) -> EndedEncounter | None:
        """One ended fight with its document read back (``encounter``), or None when it is not kept.

        Raises :class:`~bot.rules.errors.RulesError` when the kept document no longer reads."""

    @abstractmethod
    async def reopen_encounter(self, ended: EndedEncounter, *, events: Sequence[LogEntry] = ()) -> Encounter:
        """Bring an ended fight back as its channel's fight, exactly as it ended, at the version after the
        one it ended at, and log ``events``, in one transaction; it is no longer among the ended ones.

        Raises :class:`StaleEncounter` (``expected`` 0) when the channel has a fight, and
        :class:`EndedGone` when that ended fight is no longer kept, writing nothing. Returns the fight
        as saved.
        """

    @abstractmethod
    async def history(self, channel_id: int, steps: int = HISTORY_KEPT) -> list[HistoryStep]:
        """The last ``steps`` changes of the channel's running fight, newest first (at most
        :data:`HISTORY_KEPT` are kept); empty when there is no fight or none of its changes is kept."""

    @abstractmethod
    async def redoable(self, channel_id: int) -> Redoable | None:
        """The channel's last undo, as long as it can be redone (no change of the fight logged anything
        since), or None."""

    @abstractmethod
    async def undo(
        self,
        channel_id: int,
        steps: int,
        expected_version: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        """Take the fight back ``steps`` changes, in one transaction, as a new version.

        Refuses with :class:`StaleEncounter` unless the fight is still at ``expected_version``, and with
        :class:`NothingToUndo` when fewer steps are kept. ``restore(earlier, current)`` makes the fight
        to save from the document as it was ``steps`` changes back (pure work, see
        :func:`bot.encounter.history.restored`); it is saved as ``expected_version + 1``. The log lines
        of the undone steps are marked undone by ``line(steps)``, the undo's own line, which is logged;
        those steps leave the history, kept for a :meth:`redo` until the fight's next step. Refuses with
        :class:`PastUnreadable` when the kept document no longer reads. Returns the fight as saved and
        the steps undone, newest first.
        """

    @abstractmethod
    async def redo(
        self,
        channel_id: int,
        undo_id: int,
        restore: Callable[[Encounter, Encounter], Encounter],
        line: Callable[[Sequence[HistoryStep]], LogEntry],
    ) -> tuple[Encounter, list[HistoryStep]]:
        """Take the channel's last undo (``undo_id``, :attr:`Redoable.undo_id`) back, in one transaction,
        as a new version: the fight as it was before that undo (through
        ``restore(before_the_undo, current)``), its steps back in the history, their log lines no longer
        marked undone, and ``line(steps)`` logged.

        The undo, not a version, is what must still hold: a change that logs nothing (a message id kept
        after the undo) leaves it redoable. Refuses with :class:`NothingToRedo` unless ``undo_id`` is
        the channel's last undo and still redoable (no change logged since), and with
        :class:`PastUnreadable`. Returns the fight as saved and the steps redone, newest first.
        """

    @abstractmethod
    async def set_aside_fight(self, channel_id: int) -> tuple[SetAsideFight, str] | None:
        """The channel's latest fight set aside (told or not), with its document exactly as it was kept;
        None when none is kept aside."""

    @abstractmethod
    async def restore_set_aside(
        self, set_aside: SetAsideFight, document: str, *, events: Sequence[LogEntry] = ()
    ) -> Encounter:
        """Bring a fight set aside (``document`` as :meth:`set_aside_fight` gave it) back as its channel's
        running fight, now that this Pommel reads it: written at the current schema as a new fight
        (version 1) and no longer kept aside, with ``events``, in one transaction.

        Refuses with a :class:`RulesError` saying why when it still does not read, :class:`StaleEncounter`
        when the channel has a fight, :class:`SetAsideGone` when it was brought back meanwhile.
        """

    @abstractmethod
    async def pending_set_aside(self, channel_id: int) -> SetAsideFight | None:
        """The channel's latest fight that was set aside as unreadable and not yet acknowledged, or None.

        A fight is set aside when it is read (:meth:`load_encounter`, :meth:`update_encounter`, or a new
        fight saved over it): the channel then has no fight, so a command answers as without one and
        ``/encounter start`` begins a new one. The document is kept as it was (see :meth:`set_aside_fight`).
        """

    @abstractmethod
    async def acknowledge_set_aside(self, set_aside_id: int) -> bool:
        """Note that the channel was told of that set-aside fight, so :meth:`pending_set_aside` no longer
        returns it. True the first time; False when it was already acknowledged (so of two commands
        racing to tell, one does)."""

    # ------------------------------------------------------------------------------ the log

    @abstractmethod
    async def append_log(self, entry: LogEntry) -> LogEntry:
        """Add one line to the log; returns it with its ``id``."""

    @abstractmethod
    async def append_logs(self, entries: Sequence[LogEntry]) -> list[LogEntry]:
        """Add several lines to the log in one transaction; returns them with their ids, in order."""

    @abstractmethod
    async def read_log(
        self,
        *,
        channel_id: int | None = None,
        guild_id: int | None = None,
        after_id: int = 0,
        limit: int = 100,
    ) -> list[LogEntry]:
        """Log lines with an id above ``after_id``, oldest first, at most ``limit`` (up to
        :data:`MAX_LOG_PAGE`), of one channel and/or guild when given. There is no way to change or
        remove a line: the log is append-only.
        """

    # ------------------------------------------------------------------------------ characters

    @abstractmethod
    async def save_character(
        self, guild_id: int, user_id: int, character: Character, *, replacing: str | None = None
    ) -> None:
        """Create the player's character, or replace the one with the same name ignoring case.

        ``replacing`` names the character this one renames: it is deleted in the same transaction, so a
        rename never leaves both, or neither.

        This overwrites whatever is stored, unchecked: a command acting for a player wants
        :meth:`create_character` or :meth:`replace_character`, which refuse to lose another's write.
        """

    @abstractmethod
    async def create_character(self, guild_id: int, user_id: int, character: Character) -> None:
        """Add a new character for the player, in one transaction with the check that its name is free.

        Raises :class:`CharacterTaken` (naming the stored character) when the player already has one of
        that name, ignoring case, and writes nothing: of two creates racing, one wins and the other is
        told.
        """

    @abstractmethod
    async def replace_character(
        self, guild_id: int, user_id: int, before: Character, after: Character
    ) -> None:
        """Compare-and-set: store ``after`` in place of ``before``, if ``before`` is exactly what is stored.

        ``before`` is the character as the caller read it. When the store holds another version of it
        (an edit that won a race) or none (deleted, or renamed away), raises :class:`StaleCharacter` and
        writes nothing, so no edit is lost and nothing deleted comes back. A rename (``after.key`` is not
        ``before.key``) removes the old name and adds the new one in the same transaction, and raises
        :class:`CharacterTaken` when the new name is another of the player's characters.
        """

    @abstractmethod
    async def character(self, guild_id: int, user_id: int, name: str) -> Character | None:
        """The player's character of that name (ignoring case), or None."""

    @abstractmethod
    async def characters(self, guild_id: int, user_id: int) -> list[Character]:
        """All the player's characters in the guild, sorted by name."""

    @abstractmethod
    async def delete_character(self, guild_id: int, user_id: int, name: str) -> bool:
        """Remove the player's character of that name (ignoring case); False when there was none."""

    # ------------------------------------------------------------------------------ guild settings

    @abstractmethod
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults when it never saved any."""

    @abstractmethod
    async def save_guild_settings(self, settings: GuildSettings, *, events: Sequence[LogEntry] = ()) -> None:
        """Replace the guild's settings, and log ``events`` in the same transaction."""

    # ------------------------------------------------------------------------------ a server's homebrew

    @abstractmethod
    async def homebrew(self, guild_id: int) -> CatalogLayer:
        """The server's own catalog entries (none when it has not imported any)."""

    @abstractmethod
    async def change_homebrew(
        self, guild_id: int, change: Callable[[CatalogLayer], tuple[CatalogLayer, Result]]
    ) -> Result:
        """Read the server's entries, let ``change`` make them anew, and write the difference, in one
        transaction; ``change`` may refuse by raising, and then nothing is written."""

    # ------------------------------------------------------------------------------ a server's data

    @abstractmethod
    async def forget_guild(self, guild_id: int) -> ForgottenGuild:
        """Delete every row of the guild, in one transaction: its running fights (and those set aside),
        their undo history, its ended fights, its whole log (rolls included), its players' characters,
        its settings, its homebrew and its departure. Nothing of another guild (a channel belongs to one
        guild)."""

    @abstractmethod
    async def guild_left(self, guild_id: int, at: datetime) -> None:
        """Pommel was removed from the guild at ``at``: its data goes after :data:`KEPT_AFTER_LEAVING`
        (an earlier departure not yet swept keeps its date)."""

    @abstractmethod
    async def guild_returned(self, guild_id: int) -> None:
        """Pommel is in the guild again: its data is kept."""

    @abstractmethod
    async def guilds_left_before(self, cutoff: datetime) -> list[int]:
        """The guilds Pommel left before ``cutoff`` and has not come back to."""

    # ------------------------------------------------------------------------------ the log, newest first

    @abstractmethod
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
        """Log lines with an id below ``before_id`` (the newest when None), newest first, at most ``limit``
        (up to :data:`MAX_LOG_PAGE`), of one channel, guild and/or user and of these kinds when given;
        page on with the last id read as ``before_id``."""

    # ------------------------------------------------------------------------------ the d20 faces rolled

    @abstractmethod
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
        """How often each face of the d20 came up in the guild's rolls: its log lines of the kinds in
        :data:`D20_ROLL_KINDS` that list d20 faces (1 to 20) under the keys of :data:`D20_FACE_KEYS`, of
        one channel and/or user when given, logged at ``since`` or later and with an id up to
        ``through_id`` when given.

        A line marked private (``data["private"]`` true) counts only for the GM (``gm``) and for the
        user who logged it (``viewer``); the others that would have counted are ``hidden``. A year of a
        server's rolls must add up in well under a second: count as the lines are logged, not by reading
        them all back (the SQLite store keeps a table of faces per roll, filled by a trigger).
        """

    async def tally_fight_d20(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int | None = None,
        since: datetime | None = None,
        through_id: int | None = None,
    ) -> DiceTally:
        """The d20 faces a fight's own steps rolled, which :meth:`tally_d20` does not count: the attacks,
        defenses, counterattacks, Will saves, morale checks and spiritual attacks of its channel's log
        lines of the kinds in :data:`FIGHT_D20_KINDS` (their faces under :data:`D20_KEY`), by ``user_id``
        when given, logged at ``since`` or later and with an id up to ``through_id`` when given. Lines
        of undone steps count: their dice were rolled. A fight's lines are read back (a fight logs a
        few thousand at most); none of them is private."""
        faces = [0] * 20
        rolls = 0
        before = through_id + 1 if through_id is not None else None
        while True:
            page = await self.read_log_backwards(
                guild_id=guild_id,
                channel_id=channel_id,
                user_id=user_id,
                kinds=FIGHT_D20_KINDS,
                before_id=before,
                limit=MAX_LOG_PAGE,
            )
            for entry in page:
                if since is not None and entry.at < since:
                    return DiceTally(tuple(faces), rolls, 0)
                rolled = entry.data.get(D20_KEY)
                counted = (
                    [face for face in rolled if type(face) is int and 1 <= face <= 20]
                    if isinstance(rolled, list)
                    else []
                )
                for face in counted:
                    faces[face - 1] += 1
                rolls += bool(counted)
            if len(page) < MAX_LOG_PAGE:
                return DiceTally(tuple(faces), rolls, 0)
            before = page[-1].id


KEPT_AFTER_LEAVING = timedelta(days=30)
"""How long a server's data is kept after Pommel was removed from it (in case it is invited back)."""


D20_ROLL_KINDS = ("roll", "save")
"""The kinds of log lines :meth:`Store.tally_d20` counts: ``/roll dice | pool`` and ``/save``."""
FIGHT_D20_KINDS = ("attack", "morale", "spirit")
"""The kinds of a fight's log lines whose d20 faces (under :data:`D20_KEY`) :meth:`Store.tally_fight_d20`
counts."""
D20_FACE_KEYS = ("faces", "d20")
"""Where such a line lists its d20 faces: ``faces`` for a pool (``/roll pool``, ``/save``), ``d20`` for the
d20s of ``/roll dice`` (logged since ``/stats dice`` came; older ones list none)."""
