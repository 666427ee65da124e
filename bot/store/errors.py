"""What the store refuses, and why: the errors of :class:`~bot.store.base.Store` and its openings."""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.errors import RulesError, shown


class StaleEncounter(RulesError):
    """A write of a fight that did not start from the version the store holds; nothing was written.

    ``expected`` is the version the write started from (0 for a new fight); ``found`` is the version
    stored now, or None when the channel has no fight.
    """

    def __init__(self, channel_id: int, expected: int, found: int | None) -> None:
        if expected == 0:
            message = "A fight is already running in this channel; end it before starting another."
        elif found is None:
            message = "This fight ended while your command ran; nothing was changed."
        else:
            message = "This fight changed while your command ran; nothing was changed — try again."
        super().__init__(message)
        self.channel_id = channel_id
        self.expected = expected
        self.found = found


class CharacterTaken(RulesError):
    """A create or rename onto a name the player already uses in the guild (ignoring case); nothing was
    written. ``name`` is the stored character's name, as the player wrote it."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"You already have a character called {shown(name)}. "
            "Pick another name, or change that one with /character edit."
        )
        self.name = name


class StaleCharacter(RulesError):
    """A replace of a character that is no longer stored as it was read; nothing was written.

    ``deleted`` is True when no character of that name is stored any more (deleted, or renamed away).
    """

    def __init__(self, name: str, *, deleted: bool) -> None:
        if deleted:
            message = f"{shown(name)} was deleted or renamed while your command ran; nothing was changed."
        else:
            message = (
                f"{shown(name)} was changed by another command while yours ran; nothing was changed. "
                "Look at it with /character show and try again."
            )
        super().__init__(message)
        self.name = name
        self.deleted = deleted


class UnreadableCharacter(RulesError):
    """A stored character that does not read, even upgraded (hand-edited, or saved by a newer Pommel): it
    is kept as it is, and nothing reads or writes it. ``reason`` says why, in plain words."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(
            f"Your character {shown(name)} can't be read by this version of Pommel ({reason}), so it can be"
            " neither used nor changed for now; it is kept exactly as it was. Tell whoever runs the bot."
            " Your other characters are not affected."
        )
        self.name = name
        self.reason = reason


class NewerSettings(RulesError):
    """A change of a server's settings over ones a newer Pommel saved, which this one does not read: they
    are never overwritten (the newer Pommel's choices would be lost); nothing was written."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"This server's settings can't be changed by this version of Pommel ({reason}), so nothing was"
            " saved and they are kept as they are; until then fights here start with the defaults. Tell"
            " whoever runs the bot."
        )


class InvalidDocument(RulesError):
    """A write of a document that does not validate (a value out of its range, say); nothing was written.

    The models are not ``validate_assignment``, so a value changed in place is caught only here, before
    it could make the document unreadable. ``what`` is the kind of document ("a fight", "a character",
    "guild settings"); ``problems`` say what is wrong, each in plain words.
    """

    def __init__(self, what: str, problems: Sequence[str]) -> None:
        super().__init__(f"That would store {what} where {'; '.join(problems)}. Nothing was saved.")
        self.what = what
        self.problems = tuple(problems)


class EndedGone(RulesError):
    """A reopen of an ended fight that is no longer kept (reopened by another, or forgotten); nothing
    was written."""

    def __init__(self) -> None:
        super().__init__(
            "That ended fight is no longer kept (it was reopened meanwhile); nothing was changed."
        )


class NothingToUndo(RulesError):
    """An undo of more steps than the fight's history keeps; nothing was written."""

    def __init__(self, kept: int) -> None:
        if kept == 0:
            message = "There is nothing to undo: no change of this fight is kept."
        else:
            message = f"Only {kept} change{'s' if kept != 1 else ''} of this fight can be undone."
        super().__init__(message)
        self.kept = kept


class NothingToRedo(RulesError):
    """A redo with no undo to take back (none yet, or another change logged since); nothing was written."""

    def __init__(self) -> None:
        super().__init__(
            "There is nothing to redo: no undo was made since the fight's last change "
            "(a change after an undo keeps what it undid undone)."
        )


class SetAsideGone(RulesError):
    """A fight set aside that is no longer kept aside (brought back by another command meanwhile)."""

    def __init__(self) -> None:
        super().__init__(
            "That fight was already brought back (or is no longer kept aside); nothing was changed."
        )


class PastUnreadable(RulesError):
    """An undo or a redo of a fight the history kept that no longer reads (kept by an older Pommel whose
    documents this one does not read, or damaged); nothing was written."""

    def __init__(self) -> None:
        super().__init__(
            "That can no longer be put back: the fight as it was then was kept by an older version of "
            "Pommel and no longer reads. Nothing was changed; mend the fight by hand "
            "(`/combatant`, `/init`) if you must."
        )


class StoreBusy(RulesError):
    """A write that could not start in time: another program holds the database's write lock."""

    def __init__(self) -> None:
        super().__init__(
            "The database is busy (another program is writing to it), so nothing was saved. "
            "Try again in a moment; if it keeps happening, tell whoever runs the bot."
        )


class StoreUnavailable(RuntimeError):
    """The database can't be opened; the message names it and says what to check, in one line."""


class DatabaseInUse(StoreUnavailable):
    """Another Pommel process has the database open: two would apply every action twice."""

    def __init__(self, location: str, holder: int | None) -> None:
        who = f" (pid {holder})" if holder is not None else ""
        super().__init__(
            f"The database {location} is in use by another Pommel process{who}. Stop that one first, or "
            "give this one its own DATABASE_PATH."
        )
        self.holder = holder


class ShardTaken(StoreUnavailable):
    """Another running process has claimed one of this process's shards, or runs another shard count.

    Two processes on one shard would both get its guilds' commands and answer each of them twice."""


class DatabaseDamaged(StoreUnavailable):
    """The database file is damaged, or is not a database at all; it was left as it was.

    ``found`` is what SQLite said, or the first problem its check found.
    """

    def __init__(self, location: str, found: str, *, not_a_database: bool = False) -> None:
        if not_a_database:
            problem = f"The file {location} is not a database"
        else:
            problem = f"The database {location} is damaged ({found})"
        super().__init__(
            f"{problem}; Pommel left the file untouched. Check DATABASE_PATH, restore the database from a "
            "backup, or move the file away to start with an empty one."
        )
        self.found = found


class DatabaseTooNew(StoreUnavailable):
    """The database was migrated by a newer Pommel; this one refuses to run rather than damage it.

    ``unknown`` names the migrations it records that this Pommel does not know."""

    def __init__(self, location: str, found: int, known: int, unknown: Sequence[str] = ()) -> None:
        which = f", with migrations this Pommel does not know ({', '.join(unknown)})" if unknown else ""
        super().__init__(
            f"The database {location} has schema version {found}{which}, but this Pommel knows versions up "
            f"to {known} only. Run the newer Pommel that wrote it, or restore a backup made by this one."
        )
        self.found = found
        self.known = known
        self.unknown = tuple(unknown)


class MigrationFailed(StoreUnavailable):
    """A migration failed at start-up; all of that start's migrations were rolled back, so the database is
    as it was. The message names the migration and what the database said."""

    def __init__(self, location: str, migration: str, error: str) -> None:
        super().__init__(
            f"Migration {migration} failed on the database {location}: {error}. Nothing was changed (the "
            "database is as it was before this start) and Pommel did not start. Run the Pommel that last "
            "ran on this database, or report this message to Pommel's developers."
        )
        self.migration = migration
        self.error = error
