"""The log's transactions and reads, written once for both stores (see :mod:`bot.store.sql`): lines
appended, read forwards and backwards, and the d20 faces counted."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import JsonValue, TypeAdapter

from .records import DiceTally, LogEntry
from .sql import Sql, Steps, moment, placeholders

_LOG_DATA: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(dict[str, JsonValue])

LogRow = tuple[datetime, int | None, int, int, str, str, str]
"""A line for the log table: ``at, guild_id, channel_id, user_id, kind, text, data`` (as JSON text)."""

_LINES_AT_ONCE = 500
"""Lines inserted by one statement at most (7 parameters each: well under either database's limit)."""

_LOG_COLUMNS = (
    "id, at, guild_id, channel_id, user_id, kind, text, CAST(data AS TEXT),"
    " (SELECT undo_log_id FROM log_undone WHERE log_undone.log_id = log.id)"
)

_FACES = range(1, 21)


def log_rows(entries: Iterable[LogEntry]) -> list[LogRow]:
    """Rows for the log table, serialized on the event loop before the transaction starts."""
    return [
        (
            entry.at,
            entry.guild_id,
            entry.channel_id,
            entry.user_id,
            entry.kind,
            entry.text,
            _LOG_DATA.dump_json(entry.data).decode(),
        )
        for entry in entries
    ]


def insert_log(rows: Sequence[LogRow]) -> Steps[list[int]]:
    """Insert the rows, a few hundred to a statement; their ids, which grow in the order given."""
    ids: list[int] = []
    for start in range(0, len(rows), _LINES_AT_ONCE):
        chunk = rows[start : start + _LINES_AT_ONCE]
        values = ", ".join(f"({placeholders(1 + 7 * n, 7)})" for n in range(len(chunk)))
        inserted = yield Sql(
            f"INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data) VALUES {values}"
            " RETURNING id",
            [value for row in chunk for value in row],
            "rows",
        )
        ids += sorted(int(row[0]) for row in inserted)
    return ids


def _entry(row: Sequence[Any]) -> LogEntry:
    """A row of the log table (:data:`_LOG_COLUMNS`) as an entry."""
    return LogEntry(
        id=row[0],
        at=moment(row[1]),
        guild_id=row[2],
        channel_id=row[3],
        user_id=row[4],
        kind=row[5],
        text=row[6],
        data=_LOG_DATA.validate_json(row[7]),
        undone_by=row[8],
    )


def read_log(
    *, channel_id: int | None, guild_id: int | None, after_id: int, limit: int
) -> Steps[list[LogEntry]]:
    conditions = ["id > $1"]
    parameters: list[Any] = [after_id]
    for column, value in (("channel_id", channel_id), ("guild_id", guild_id)):
        if value is not None:
            parameters.append(value)
            conditions.append(f"{column} = ${len(parameters)}")
    parameters.append(limit)
    rows = yield Sql(
        f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id"
        f" LIMIT ${len(parameters)}",
        parameters,
        "rows",
    )
    return [_entry(row) for row in rows]


def read_log_backwards(
    *,
    channel_id: int | None,
    guild_id: int | None,
    user_id: int | None,
    kinds: Sequence[str],
    before_id: int | None,
    limit: int,
) -> Steps[list[LogEntry]]:
    conditions = ["1 = 1"]
    parameters: list[Any] = []
    for column, value in (
        ("id <", before_id),
        ("channel_id =", channel_id),
        ("guild_id =", guild_id),
        ("user_id =", user_id),
    ):
        if value is not None:
            parameters.append(value)
            conditions.append(f"{column} ${len(parameters)}")
    if kinds:
        conditions.append(f"kind IN ({placeholders(len(parameters) + 1, len(kinds))})")
        parameters.extend(kinds)
    parameters.append(limit)
    rows = yield Sql(
        f"SELECT {_LOG_COLUMNS} FROM log WHERE {' AND '.join(conditions)} ORDER BY id DESC"
        f" LIMIT ${len(parameters)}",
        parameters,
        "rows",
    )
    return [_entry(row) for row in rows]


def tally_d20(
    *,
    guild_id: int,
    channel_id: int | None,
    user_id: int | None,
    since: datetime | None,
    through_id: int | None,
    viewer: int | None,
    gm: bool,
) -> Steps[DiceTally]:
    # log_d20 (migration 0005) has one row per roll, its faces counted when it was logged.
    conditions = ["guild_id = $1"]
    parameters: list[Any] = [guild_id]
    for column, value in (("channel_id", channel_id), ("user_id", user_id), ("log_id", through_id)):
        if value is not None:
            parameters.append(value)
            conditions.append(f"{column} {'<=' if column == 'log_id' else '='} ${len(parameters)}")
    if since is not None:
        parameters.append(since.astimezone(UTC))
        conditions.append(f"at >= ${len(parameters)}")
    parameters += [gm, viewer]
    # A roll's user_id is never NULL; a viewer of None sees no private roll but the GM's view.
    visible = (
        f"(NOT private OR CAST(${len(parameters) - 1} AS BOOLEAN)"
        f" OR COALESCE(user_id = CAST(${len(parameters)} AS BIGINT), FALSE))"
    )
    sums = ", ".join(f"SUM(f{face}) FILTER (WHERE {visible})" for face in _FACES)
    row = yield Sql(
        f"SELECT COUNT(*) FILTER (WHERE {visible}), COUNT(*) FILTER (WHERE NOT {visible}), {sums}"
        f" FROM log_d20 WHERE {' AND '.join(conditions)}",
        parameters,
        "one",
    )
    return DiceTally(tuple(int(row[1 + face] or 0) for face in _FACES), int(row[0]), int(row[1]))
