"""The fights' transactions and reads, written once for both stores (see :mod:`bot.store.sql`): the
compare-and-set of a fight, its change, its end, its history and undo/redo, the ended fights kept and
reopened, and the fights set aside."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ..encounter.document import Encounter
from ..encounter.due import DUE_AT_ONCE, next_due, next_timer
from .errors import EndedGone, NothingToRedo, NothingToUndo, SetAsideGone, StaleEncounter
from .log_sql import LogRow, insert_log, log_rows
from .records import (
    ENDED_KEPT,
    HISTORY_KEPT,
    DueFight,
    EncounterChange,
    EndedEncounter,
    HistoryStep,
    LogEntry,
    Redoable,
    SetAsideFight,
)
from .shared import Unreadable, checked_change, past_fight, readable_fight, step_user, undone_fight
from .sql import Routine, Sql, Steps, moment, placeholders


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class FightAhead:
    """A fight as a change of this process wrote it: its version and document, the fight read back from
    that document in the check before it was written (given that version: nobody else holds it), and
    (PostgreSQL) the transaction that wrote its row (``xmin``), by which the server tells that no other
    write came since without sending the document."""

    version: int
    document: str
    fight: Encounter
    writer: int | None = None


class ReadAhead(Protocol):
    """Where a change finds the stored fight parsed, and tells of the fight it wrote (the last ones
    written, :data:`~bot.store.sql_store.FIGHTS_READ_AHEAD`, both stores)."""

    def fight_ahead(self, channel_id: int) -> FightAhead | None:
        """The channel's fight read ahead, taken out (put back only by a write)."""
        ...

    def fight_as_read(
        self, channel_id: int, version: int, document: str | None, ahead: FightAhead | None
    ) -> Encounter:
        """The stored fight (``version``, ``document``; None: left out as ``ahead``'s) for a change to make
        its own."""
        ...

    def fight_written(self, channel_id: int, written: FightAhead) -> None: ...


_STORED = "SELECT version, document FROM encounters WHERE channel_id = $1"


def stored_fight(channel_id: int) -> Steps[tuple[int, str] | None]:
    row = yield Sql(_STORED, (channel_id,), "one")
    return None if row is None else (int(row[0]), row[1])


def fight_channels() -> Steps[list[int]]:
    rows = yield Sql("SELECT channel_id FROM encounters", (), "rows")
    return [int(row[0]) for row in rows]


def due_fights(through: datetime | None, timers: bool) -> Steps[list[DueFight]]:
    """The fights with something due (by ``through``, if given), soonest first, along the index of due
    times (``timers``: of a defense's timer alone): an idle fight is not even looked at."""
    column = "timer_at" if timers else "due_at"
    until = "" if through is None else f" AND {column} <= $1"
    rows = yield Sql(
        f"SELECT channel_id, guild_id, version, {column} FROM encounters"
        f" WHERE {column} IS NOT NULL{until} ORDER BY {column}",
        () if through is None else (through.astimezone(UTC),),
        "rows",
    )
    return [DueFight(int(row[0]), row[1], int(row[2]), moment(row[3])) for row in rows]


def recheck_due(encounter: Encounter) -> Steps[bool]:
    """Write the fight's due times as worked out from ``encounter``, if its version is still the one
    stored: bookkeeping of the index, not a change of the fight (its version stays)."""
    changed = yield Sql(
        "UPDATE encounters SET due_at = $1, timer_at = $2 WHERE channel_id = $3 AND version = $4",
        (next_due(encounter), next_timer(encounter), encounter.channel_id, encounter.version),
        "count",
    )
    return bool(changed)


def _stale(encounter: Encounter) -> Steps[StaleEncounter]:
    """The refusal of a compare-and-set that matched no row, saying which version is stored."""
    found = yield Sql(
        "SELECT version FROM encounters WHERE channel_id = $1", (encounter.channel_id,), "value"
    )
    return StaleEncounter(encounter.channel_id, encounter.version, None if found is None else int(found))


def write_fight(encounter: Encounter, document: str, rows: Sequence[LogRow]) -> Steps[list[int]]:
    """Compare-and-set: create the fight (version 0) or replace the version it was read at; log ``rows``."""
    # The index of due times, kept by the write of the fight.
    due_at, timer_at = next_due(encounter), next_timer(encounter)
    if encounter.version == 0:
        written = yield Sql(
            "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at, due_at, timer_at)"
            " VALUES ($1, $2, 1, $3, $4, $5, $6) ON CONFLICT (channel_id) DO NOTHING RETURNING version",
            (encounter.channel_id, encounter.guild_id, document, _now(), due_at, timer_at),
            "value",
        )
    else:
        written = yield Sql(
            "UPDATE encounters SET guild_id = $1, version = $2, document = $3, updated_at = $4,"
            " due_at = $5, timer_at = $6 WHERE channel_id = $7 AND version = $8 RETURNING version",
            (
                encounter.guild_id,
                encounter.version + 1,
                document,
                _now(),
                due_at,
                timer_at,
                encounter.channel_id,
                encounter.version,
            ),
            "value",
        )
    if written is None:
        raise (yield from _stale(encounter))
    if encounter.version == 0:
        yield Sql("DELETE FROM encounter_history WHERE channel_id = $1", (encounter.channel_id,))
        yield Sql("DELETE FROM encounter_undos WHERE channel_id = $1", (encounter.channel_id,))
    return (yield from insert_log(rows))


def _keep_step(channel_id: int, version: int, document: str, user_id: int, log_ids: list[int]) -> Steps[None]:
    """Keep the running fight as it was before a change (at ``version``), with who made the change and
    the log lines it wrote; the channel keeps its last :data:`HISTORY_KEPT` steps."""
    yield Sql(
        "INSERT INTO encounter_history"
        " (channel_id, version, document, user_id, at, first_log_id, last_log_id)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        (channel_id, version, document, user_id, _now(), min(log_ids, default=0), max(log_ids, default=0)),
    )
    # A new step of the fight: what was undone can no longer be redone. A step is marked undone only by
    # an undo that keeps a row in encounter_undos, and unmarked by the redo that takes that row out (each
    # in one transaction): with no such row, the usual case, no step of the channel is marked undone.
    if (yield Sql("DELETE FROM encounter_undos WHERE channel_id = $1", (channel_id,), "count")):
        yield Sql(
            "DELETE FROM encounter_history WHERE channel_id = $1 AND undone_by IS NOT NULL", (channel_id,)
        )
    # The step HISTORY_KEPT back from the newest, and any older (at most one, steps being kept one by one),
    # found along the channel's index: nothing when the channel has no more than that.
    yield Sql(
        "DELETE FROM encounter_history WHERE channel_id = $1 AND id <="
        " (SELECT id FROM encounter_history WHERE channel_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
        (channel_id, HISTORY_KEPT),
    )


_PUT_FIGHT = f"CALL pommel_put_fight({placeholders(1, 16)})"


def change_fight(
    encounter: Encounter, document: str, rows: Sequence[LogRow], before: str, keeper: int | None
) -> Routine:
    """The write of a change of a running fight read ``FOR UPDATE`` (as ``before``): its compare-and-set
    (:func:`write_fight`) with its log lines, and the step of its history kept for ``keeper`` (the user
    who made it; None for none) if it logged any. PostgreSQL runs it as one call
    (``pommel_change_fight``, migration 0011), in one round trip."""
    channel_id, version = encounter.channel_id, encounter.version

    def steps() -> Steps[int | None]:
        log_ids = yield from write_fight(encounter, document, rows)
        if keeper is not None and log_ids:
            yield from _keep_step(channel_id, version, before, keeper, log_ids)
        return None

    def read(row: Sequence[Any]) -> int | None:
        if not row[0]:
            raise StaleEncounter(channel_id, version, None if row[1] is None else int(row[1]))
        return int(row[3])

    log = list(zip(*rows, strict=True)) if rows else [()] * 7
    call = Sql(
        _PUT_FIGHT,
        (
            channel_id,
            encounter.guild_id,
            version,
            document,
            _now(),
            next_due(encounter),
            next_timer(encounter),
            *(list(column) for column in log),
            keeper,
            HISTORY_KEPT,
        ),
        "one",
    )
    return Routine(steps, call, read, releases=True)


def take_fight(channel_id: int, ahead: FightAhead | None) -> Routine:
    """The read of a fight a change starts from, ``(version, document, writer)`` or None: ``FOR UPDATE``
    in a transaction (SQLite: inside ``BEGIN IMMEDIATE``), so no other process writes it before the
    change's own write. PostgreSQL takes the fight's lock instead and reads it in one call
    (``pommel_take_fight``, migration 0012), leaving the document out (None) when it is the one ``ahead``
    wrote; the lock is let go by :func:`change_fight`'s call, or by the driver."""

    def steps() -> Steps[tuple[int, str | None, int | None] | None]:
        row = yield Sql(_STORED + " FOR UPDATE", (channel_id,), "one")
        return None if row is None else (int(row[0]), row[1], None)

    def read(row: Sequence[Any]) -> tuple[int, str | None, int | None] | None:
        return None if row[0] is None else (int(row[0]), row[1], int(row[2]))

    known = (ahead.version, ahead.writer) if ahead is not None and ahead.writer is not None else (None, None)
    call = Sql("SELECT version, document, writer FROM pommel_take_fight($1, $2, $3)", (channel_id, *known))
    release = Sql("SELECT pg_advisory_unlock(pommel_fight_lock($1))", (channel_id,))
    return Routine(steps, call, read, holds=release)


def delete_fight(encounter: Encounter, rows: Sequence[LogRow]) -> Steps[None]:
    """End the fight (compare-and-set on its version) and log ``rows``; the fight, its document as
    stored, is kept in ``ended_encounters`` with the channel's last log id, and the channel keeps its
    last :data:`ENDED_KEPT` ended fights."""
    yield from insert_log(rows)
    channel_id, version = encounter.channel_id, encounter.version
    last_log_id = yield Sql(
        "SELECT COALESCE(MAX(id), 0) FROM log WHERE channel_id = $1", (channel_id,), "value"
    )
    ended_at = rows[-1][0] if rows else _now()
    # The DELETE is the compare-and-set (in PostgreSQL it waits for a writer of the row and checks again).
    gone = yield Sql(
        "DELETE FROM encounters WHERE channel_id = $1 AND version = $2 RETURNING guild_id, document",
        (channel_id, version),
        "one",
    )
    if gone is None:
        raise (yield from _stale(encounter))
    yield Sql(
        "INSERT INTO ended_encounters"
        " (channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id, document)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        (
            channel_id,
            gone[0],
            encounter.gm_id,
            encounter.started_at,
            ended_at,
            encounter.initiative.round,
            version,
            last_log_id,
            gone[1],
        ),
    )
    yield Sql("DELETE FROM encounter_history WHERE channel_id = $1", (channel_id,))
    yield Sql("DELETE FROM encounter_undos WHERE channel_id = $1", (channel_id,))
    yield Sql(
        "DELETE FROM ended_encounters WHERE channel_id = $1 AND id NOT IN"
        " (SELECT id FROM ended_encounters WHERE channel_id = $1 ORDER BY id DESC LIMIT $2)",
        (channel_id, ENDED_KEPT),
    )


def update(
    channel_id: int, change: Callable[[Encounter | None], EncounterChange], ahead: ReadAhead
) -> Steps[Encounter | None]:
    """The read, the change and the write of :meth:`~bot.store.base.Store.update_encounter`. The fight is
    read under its lock (:func:`take_fight`: the row ``FOR UPDATE``, or PostgreSQL's lock of the fight), so
    no other change writes it between the read and the commit and ``change`` runs once."""
    known = ahead.fight_ahead(channel_id)
    stored = yield take_fight(channel_id, known)
    current = None if stored is None else ahead.fight_as_read(channel_id, stored[0], stored[1], known)
    wanted = change(current)
    rows = log_rows(wanted.events)
    wanted_fight = checked_change(channel_id, wanted)
    if wanted.encounter is not None and wanted_fight is not None:
        document, read_back = wanted_fight
        writer = None
        # A change that logs nothing (a message id kept, a reminder marked) is bookkeeping, not a step of
        # the fight: an undo of the step before it takes it back too.
        if stored is not None and wanted.encounter.version > 0:
            before = stored[1]
            if before is None:  # left out: the one read ahead
                assert known is not None
                before = known.document
            keeper = step_user(wanted) if wanted.encounter.version == stored[0] else None
            writer = yield change_fight(wanted.encounter, document, rows, before, keeper)
        else:  # a new fight (refused as stale where one is stored): no step of history to keep
            yield from write_fight(wanted.encounter, document, rows)
        version = wanted.encounter.version + 1
        read_back.version = version  # in place: the reading is the store's alone, no copy needed
        ahead.fight_written(channel_id, FightAhead(version, document, read_back, writer))
        # The fight the change made was read inside this transaction and is nobody else's: it is
        # returned as saved (with its new version) instead of read back from its JSON.
        return wanted.encounter.model_copy(update={"version": wanted.encounter.version + 1})
    if current is not None:
        yield from delete_fight(current, rows)
    else:
        yield from insert_log(rows)
    return None


def move_aside(unreadable: Unreadable, channel_id: int) -> Steps[int | None]:
    """Move the fight aside if it is still that version and document; the id of its row, or None."""
    # The DELETE is the compare-and-set (in PostgreSQL it waits for a writer of the row and checks again).
    gone = yield Sql(
        "DELETE FROM encounters WHERE channel_id = $1 AND version = $2 AND document = $3 RETURNING guild_id",
        (channel_id, unreadable.version, unreadable.document),
        "one",
    )
    if gone is None:
        return None  # set aside by another, or written anew meanwhile
    moved = yield Sql(
        "INSERT INTO set_aside_encounters"
        " (channel_id, guild_id, gm_id, version, document, reason, set_aside_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        (
            channel_id,
            gone[0],
            unreadable.gm_id,
            unreadable.version,
            unreadable.document,
            unreadable.reason,
            _now(),
        ),
        "value",
    )
    return int(moved)


# ---------------------------------------------------------------------------- ended fights

_ENDED_COLUMNS = "id, channel_id, guild_id, gm_id, started_at, ended_at, rounds, version, last_log_id"


def _ended(row: Sequence[Any]) -> EndedEncounter:
    """A row of ``ended_encounters`` (:data:`_ENDED_COLUMNS` first), without its document."""
    return EndedEncounter(
        id=row[0],
        channel_id=row[1],
        guild_id=row[2],
        gm_id=row[3],
        started_at=moment(row[4]),
        ended_at=moment(row[5]),
        rounds=row[6],
        version=row[7],
        last_log_id=row[8],
    )


def ended_encounters(channel_id: int, limit: int) -> Steps[list[EndedEncounter]]:
    rows = yield Sql(
        f"SELECT {_ENDED_COLUMNS} FROM ended_encounters WHERE channel_id = $1 ORDER BY id DESC LIMIT $2",
        (channel_id, limit),
        "rows",
    )
    return [_ended(row) for row in rows]


def ended_document(ended_id: int) -> Steps[tuple[EndedEncounter, str] | None]:
    row = yield Sql(
        f"SELECT {_ENDED_COLUMNS}, document FROM ended_encounters WHERE id = $1", (ended_id,), "one"
    )
    return None if row is None else (_ended(row), row[9])


def reopen(ended: EndedEncounter, rows: Sequence[LogRow]) -> Steps[str]:
    kept = yield Sql("DELETE FROM ended_encounters WHERE id = $1 RETURNING document", (ended.id,), "value")
    if kept is None:
        raise EndedGone()
    # Due at once: what is due in it is worked out by the next sweep, from the document.
    inserted = yield Sql(
        "INSERT INTO encounters (channel_id, guild_id, version, document, updated_at, due_at, timer_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (channel_id) DO NOTHING RETURNING version",
        (ended.channel_id, ended.guild_id, ended.version + 1, kept, _now(), DUE_AT_ONCE),
        "value",
    )
    if inserted is None:
        running = yield Sql(
            "SELECT version FROM encounters WHERE channel_id = $1", (ended.channel_id,), "value"
        )
        raise StaleEncounter(ended.channel_id, 0, None if running is None else int(running))
    yield from insert_log(rows)
    return str(kept)


# ---------------------------------------------------------------------------- the running fight's history

_STEP_COLUMNS = "version, user_id, at, first_log_id, last_log_id"


def _with_lines(channel_id: int, rows: Sequence[Sequence[Any]]) -> Steps[list[HistoryStep]]:
    """History rows (:data:`_STEP_COLUMNS` first) with their log lines' texts."""
    lines = yield Sql(
        "SELECT id, text FROM log WHERE channel_id = $1 AND id BETWEEN $2 AND $3 ORDER BY id",
        (channel_id, min((r[3] for r in rows), default=0), max((r[4] for r in rows), default=0)),
        "rows",
    )
    steps = []
    for row in rows:
        first, last = int(row[3]), int(row[4])
        texts = tuple(str(text) for log_id, text in lines if first and first <= log_id <= last)
        steps.append(HistoryStep(version=int(row[0]), user_id=int(row[1]), at=moment(row[2]), lines=texts))
    return steps


def history(channel_id: int, steps: int) -> Steps[list[HistoryStep]]:
    rows = yield Sql(
        f"SELECT {_STEP_COLUMNS} FROM encounter_history"
        " WHERE channel_id = $1 AND undone_by IS NULL ORDER BY id DESC LIMIT $2",
        (channel_id, steps),
        "rows",
    )
    return (yield from _with_lines(channel_id, rows))


def redoable(channel_id: int) -> Steps[Redoable | None]:
    rows = yield Sql(
        f"SELECT {_STEP_COLUMNS}, undone_by FROM encounter_history"
        " WHERE undone_by = (SELECT max(undo_log_id) FROM encounter_undos WHERE channel_id = $1)"
        " ORDER BY id DESC",
        (channel_id,),
        "rows",
    )
    if not rows:
        return None
    return Redoable(int(rows[0][5]), (yield from _with_lines(channel_id, rows)))


def undo(
    channel_id: int,
    steps: int,
    expected_version: int,
    restore: Callable[[Encounter, Encounter], Encounter],
    line: Callable[[Sequence[HistoryStep]], LogEntry],
) -> Steps[tuple[Encounter, list[HistoryStep]]]:
    stored = yield Sql(_STORED + " FOR UPDATE", (channel_id,), "one")
    if stored is None or int(stored[0]) != expected_version:
        raise StaleEncounter(channel_id, expected_version, None if stored is None else int(stored[0]))
    current = readable_fight(int(stored[0]), stored[1])
    kept = yield Sql(
        f"SELECT {_STEP_COLUMNS}, id, document FROM encounter_history"
        " WHERE channel_id = $1 AND undone_by IS NULL ORDER BY id DESC LIMIT $2",
        (channel_id, steps),
        "rows",
    )
    if len(kept) < steps:
        raise NothingToUndo(len(kept))
    undone = yield from _with_lines(channel_id, kept)
    earlier = past_fight(int(kept[-1][0]), kept[-1][6])
    fight, document, saved = undone_fight(restore, earlier, current)
    (undo_id,) = yield from write_fight(fight, document, log_rows([line(undone)]))
    yield Sql(
        "INSERT INTO log_undone (log_id, undo_log_id) SELECT id, $1 FROM log"
        " WHERE channel_id = $2 AND id BETWEEN $3 AND $4 AND id NOT IN (SELECT log_id FROM log_undone)",
        many=[(undo_id, channel_id, r[3], r[4]) for r in kept if r[3]],
    )
    yield Sql(
        f"UPDATE encounter_history SET undone_by = $1 WHERE id IN ({placeholders(2, len(kept))})",
        [undo_id, *(r[5] for r in kept)],
    )
    yield Sql(
        "INSERT INTO encounter_undos (undo_log_id, channel_id, version, document) VALUES ($1, $2, $3, $4)",
        (undo_id, channel_id, int(stored[0]), stored[1]),
    )
    return saved, undone


def redo(
    channel_id: int,
    undo_id: int,
    restore: Callable[[Encounter, Encounter], Encounter],
    line: Callable[[Sequence[HistoryStep]], LogEntry],
) -> Steps[tuple[Encounter, list[HistoryStep]]]:
    stored = yield Sql(_STORED + " FOR UPDATE", (channel_id,), "one")
    undone = yield Sql(
        "SELECT undo_log_id, version, document FROM encounter_undos WHERE channel_id = $1"
        " ORDER BY undo_log_id DESC LIMIT 1",
        (channel_id,),
        "one",
    )
    if stored is None or undone is None or int(undone[0]) != undo_id:
        raise NothingToRedo()
    current = readable_fight(int(stored[0]), stored[1])
    kept = yield Sql(
        f"SELECT {_STEP_COLUMNS} FROM encounter_history WHERE undone_by = $1 ORDER BY id DESC",
        (undo_id,),
        "rows",
    )
    redone = yield from _with_lines(channel_id, kept)
    later = past_fight(int(undone[1]), undone[2])
    fight, document, saved = undone_fight(restore, later, current)
    yield from write_fight(fight, document, log_rows([line(redone)]))
    yield Sql("UPDATE encounter_history SET undone_by = NULL WHERE undone_by = $1", (undo_id,))
    yield Sql("DELETE FROM log_undone WHERE undo_log_id = $1", (undo_id,))
    yield Sql("DELETE FROM encounter_undos WHERE undo_log_id = $1", (undo_id,))
    return saved, redone


# ---------------------------------------------------------------------------- fights set aside

_SET_ASIDE_COLUMNS = "id, channel_id, guild_id, gm_id, version, reason, set_aside_at, acknowledged_at"


def _set_aside(row: Sequence[Any]) -> SetAsideFight:
    return SetAsideFight(
        id=row[0],
        channel_id=row[1],
        guild_id=row[2],
        gm_id=row[3],
        version=row[4],
        reason=row[5],
        set_aside_at=moment(row[6]),
        acknowledged=row[7] is not None,
    )


def set_aside_fight(channel_id: int) -> Steps[tuple[SetAsideFight, str] | None]:
    row = yield Sql(
        f"SELECT {_SET_ASIDE_COLUMNS}, document FROM set_aside_encounters WHERE channel_id = $1"
        " ORDER BY id DESC LIMIT 1",
        (channel_id,),
        "one",
    )
    return None if row is None else (_set_aside(row), row[8])


def pending_set_aside(channel_id: int) -> Steps[SetAsideFight | None]:
    row = yield Sql(
        f"SELECT {_SET_ASIDE_COLUMNS} FROM set_aside_encounters"
        " WHERE channel_id = $1 AND acknowledged_at IS NULL"
        " ORDER BY id DESC LIMIT 1",
        (channel_id,),
        "one",
    )
    return None if row is None else _set_aside(row)


def restore_aside(
    set_aside_id: int, encounter: Encounter, document: str, rows: Sequence[LogRow]
) -> Steps[None]:
    yield from write_fight(encounter, document, rows)
    if (yield Sql("DELETE FROM set_aside_encounters WHERE id = $1", (set_aside_id,), "count")) != 1:
        raise SetAsideGone()


def acknowledge_set_aside(set_aside_id: int) -> Steps[bool]:
    # The channel was told of this one: the older ones of the channel need no telling either.
    acknowledged = yield Sql(
        "UPDATE set_aside_encounters SET acknowledged_at = $1 WHERE acknowledged_at IS NULL AND"
        " id <= $2 AND channel_id = (SELECT channel_id FROM set_aside_encounters WHERE id = $2)",
        (_now(), set_aside_id),
        "count",
    )
    return bool(acknowledged > 0)
