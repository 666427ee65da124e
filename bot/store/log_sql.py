"""The log's transactions and reads, written once for both stores (see :mod:`bot.store.sql`): lines
appended, read forwards and backwards, and the d20 faces counted."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
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


@lru_cache(maxsize=16)
def _insert_lines(count: int) -> str:
    """The INSERT of ``count`` log rows, written once per count (most changes log one line)."""
    values = ", ".join(f"({placeholders(1 + 7 * n, 7)})" for n in range(count))
    columns = "at, guild_id, channel_id, user_id, kind, text, data"
    return f"INSERT INTO log ({columns}) VALUES {values} RETURNING id"


def insert_log(rows: Sequence[LogRow]) -> Steps[list[int]]:
    """Insert the rows, a few hundred to a statement; their ids, which grow in the order given."""
    ids: list[int] = []
    for start in range(0, len(rows), _LINES_AT_ONCE):
        chunk = rows[start : start + _LINES_AT_ONCE]
        inserted = yield Sql(
            _insert_lines(len(chunk)),
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


class _Where:
    """Conditions joined by AND, each with its parameter numbered as it comes."""

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.parameters: list[Any] = []

    def parameter(self, value: Any) -> str:
        """``value`` as the next parameter: its placeholder."""
        self.parameters.append(value)
        return f"${len(self.parameters)}"

    def test(self, test: str, value: Any) -> None:
        """``test`` (a column and an operator) against ``value``, unless ``value`` is None."""
        if value is not None:
            self.conditions.append(f"{test} {self.parameter(value)}")

    def __str__(self) -> str:
        return " AND ".join(self.conditions) or "1 = 1"


def _page(where: _Where, order: str, limit: int) -> Steps[list[LogEntry]]:
    last = where.parameter(limit)
    rows = yield Sql(
        f"SELECT {_LOG_COLUMNS} FROM log WHERE {where} ORDER BY id{order} LIMIT {last}",
        where.parameters,
        "rows",
    )
    return [_entry(row) for row in rows]


def read_log(
    *, channel_id: int | None, guild_id: int | None, after_id: int, limit: int
) -> Steps[list[LogEntry]]:
    where = _Where()
    where.test("id >", after_id)
    where.test("channel_id =", channel_id)
    where.test("guild_id =", guild_id)
    return (yield from _page(where, "", limit))


def read_log_backwards(
    *,
    channel_id: int | None,
    guild_id: int | None,
    user_id: int | None,
    kinds: Sequence[str],
    before_id: int | None,
    limit: int,
) -> Steps[list[LogEntry]]:
    where = _Where()
    where.test("id <", before_id)
    where.test("channel_id =", channel_id)
    where.test("guild_id =", guild_id)
    where.test("user_id =", user_id)
    if kinds:
        where.conditions.append(f"kind IN ({', '.join(where.parameter(kind) for kind in kinds)})")
    return (yield from _page(where, " DESC", limit))


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
    where = _Where()
    where.test("guild_id =", guild_id)
    where.test("channel_id =", channel_id)
    where.test("user_id =", user_id)
    where.test("log_id <=", through_id)
    where.test("at >=", since.astimezone(UTC) if since is not None else None)
    # A roll's user_id is never NULL; a viewer of None sees the private rolls only as the GM.
    visible = (
        f"(NOT private OR CAST({where.parameter(gm)} AS BOOLEAN)"
        f" OR COALESCE(user_id = CAST({where.parameter(viewer)} AS BIGINT), FALSE))"
    )
    sums = ", ".join(f"SUM(f{face}) FILTER (WHERE {visible})" for face in _FACES)
    row = yield Sql(
        f"SELECT COUNT(*) FILTER (WHERE {visible}), COUNT(*) FILTER (WHERE NOT {visible}), {sums}"
        f" FROM log_d20 WHERE {where}",
        where.parameters,
        "one",
    )
    return DiceTally(tuple(int(row[1 + face] or 0) for face in _FACES), int(row[0]), int(row[1]))
