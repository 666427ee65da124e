"""``pommel backup``, ``pommel restore`` and ``pommel check``: the database's upkeep, beside a running bot.

A backup of SQLite goes through SQLite's online backup API, in one step: it reads the database as one
transaction, so the copy holds every change committed before it began, including those still in the
write-ahead log (``<database>-wal``) that a plain copy of the main file misses, and the bot keeps writing
meanwhile. The copy is checked, made a single self-contained file, and only then given its name.

PostgreSQL has ``pg_dump`` for backups; ``pommel check`` reads its migrations.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .config import Settings
from .heartbeat import STALE_SECONDS, heartbeat_age
from .store import is_postgres_url
from .store.schema import Plan, bundled_migrations, short


class MaintenanceError(Exception):
    """What the command could not do, in one line for the person running it."""


@dataclass(frozen=True)
class Checked:
    """What :func:`check` found: ``healthy`` is the exit status's 0, ``lines`` what it says."""

    healthy: bool
    lines: list[str]


# --------------------------------------------------------------------------------------------- backup


def backup(settings: Settings, target: Path) -> str:
    """Copy the running database to ``target`` (a new file); one line saying what was written."""
    if is_postgres_url(settings.database):
        raise MaintenanceError(
            "DATABASE_URL is a PostgreSQL database: back it up with pg_dump "
            "(pg_dump --format=custom --file=pommel.dump <the URL>); see docs/OPERATIONS.md."
        )
    source = _existing(settings.database_path)
    if target.exists():
        raise MaintenanceError(f"{target} already exists: name a new file, so that no backup is overwritten.")
    if not target.parent.is_dir():
        raise MaintenanceError(f"The folder {target.parent} does not exist: create it, or name another.")
    partial = target.with_name(target.name + ".partial")
    try:
        with _connected(source) as db, _connected(partial) as copy:
            db.backup(copy)  # every page in one step: one read transaction, one consistent snapshot
            copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
            version = _schema_version(copy)
            problems = _integrity(copy)
        if problems:
            raise MaintenanceError(
                f"The copy of {source} failed its check ({problems[0]}); nothing was kept."
            )
        partial.replace(target)
    except sqlite3.Error as error:
        raise MaintenanceError(f"Could not back up {source} to {target}: {error}.") from None
    finally:
        partial.unlink(missing_ok=True)
    return (
        f"Backed up {source} to {target} ({target.stat().st_size:,} bytes, schema version {version}, "
        "checked): restore it with `pommel restore` while Pommel is stopped."
    )


# -------------------------------------------------------------------------------------------- restore


def restore(settings: Settings, backup_file: Path) -> str:
    """Put ``backup_file`` in place of the database, Pommel being stopped; the database it replaces (and
    its ``-wal`` and ``-shm``, which would otherwise be replayed onto the backup) is moved aside."""
    if is_postgres_url(settings.database):
        raise MaintenanceError(
            "DATABASE_URL is a PostgreSQL database: restore it with pg_restore; see docs/OPERATIONS.md."
        )
    backup_file = _existing(backup_file)
    with _connected(backup_file) as copy:
        problems = _integrity(copy)
        version = _schema_version(copy)
        found = None if problems else _sqlite_plan(copy)
    if problems or found is None:
        raise MaintenanceError(f"{backup_file} is damaged ({problems[0]}): restore another backup.")
    if found.unknown:
        known = bundled_migrations()[-1].version
        unknown = ", ".join(entry.name for entry in found.unknown)
        raise MaintenanceError(
            f"{backup_file} has schema version {found.found}, with migrations this Pommel does not know "
            f"({unknown}); this Pommel knows versions up to {known} only: restore it with the newer Pommel "
            "that made it."
        )
    database = settings.database_path
    from .store.sqlite import _lock_beside, _unlock

    lock = _lock_beside(str(database))  # DatabaseInUse while a Pommel has it open
    try:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        aside = []
        for suffix in ("", "-wal", "-shm"):
            current = Path(f"{database}{suffix}")
            if current.exists():
                moved = Path(f"{database}.before-restore-{stamp}{suffix}")
                current.replace(moved)
                aside.append(moved)
        shutil.copyfile(backup_file, database)
    finally:
        _unlock(lock)
    kept = f"; the database it replaced is kept as {aside[0]}" if aside else ""
    return f"Restored {backup_file} to {database} (schema version {version}){kept}. Start Pommel."


# ---------------------------------------------------------------------------------------------- check


def check(settings: Settings) -> Checked:
    """The database's integrity and its migrations: applied, pending (applied at the next start), or
    from a newer Pommel (which this one refuses to run on)."""
    if is_postgres_url(settings.database):
        import asyncio

        return asyncio.run(_check_postgres(str(settings.database)))
    source = _existing(settings.database_path)
    try:
        with _connected(source) as db:
            problems = _integrity(db)
            found = None if problems else _sqlite_plan(db)
    except sqlite3.DatabaseError as error:
        return Checked(False, [f"{source}: damaged or not a database ({error}): restore a backup."])
    if problems or found is None:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        return Checked(False, [f"{source}: damaged: {problems[0]}{more}. Restore a backup."])
    lines = [f"{source}: integrity check passed."]
    migrations_ok = _migrations_line(lines, found, bundled_migrations()[-1].version)
    return Checked(migrations_ok, lines)


async def _check_postgres(url: str) -> Checked:
    import asyncpg

    from .store.postgres import postgres_migrations, recorded_migrations, shown_url

    where = shown_url(url)
    try:
        db = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise MaintenanceError(f"Can't reach the PostgreSQL database {where}: {error}.") from None
    known = postgres_migrations()
    try:
        found = await recorded_migrations(db, known)
    finally:
        await db.close()
    lines = [f"{where}: reachable (PostgreSQL checks its own pages; back it up with pg_dump)."]
    return Checked(_migrations_line(lines, found, known[-1].version), lines)


def _migrations_line(lines: list[str], found: Plan, known: int) -> bool:
    """Says where the schema stands against this Pommel's migrations; False for a newer database."""
    if found.unknown:
        unknown = ", ".join(entry.name for entry in found.unknown)
        lines.append(
            f"Schema version {found.found}, with migrations this Pommel does not know ({unknown}); it "
            f"knows versions up to {known} only: the database was written by a newer Pommel, which this one "
            "refuses to run on. Run the newer Pommel, or restore a backup made by this one."
        )
        return False
    applied = [migration for migration, _ in found.applied]
    last = f" (last: {applied[-1].name})" if applied else ""
    lines.append(f"Schema version {found.found} of {known}{last}.")
    if found.adopted:
        lines.append("Its migrations are recorded by count: Pommel records them by name at its next start.")
    for entry, migration in found.renamed:
        lines.append(
            f"Migration {entry.name} is this Pommel's {migration.name}, renumbered: it is not applied again, "
            "and Pommel records its new name at its next start."
        )
    for entry, migration in found.edited:
        lines.append(
            f"Migration {migration.name} was changed after it was applied (checksum {short(entry.checksum)} "
            f"then, {short(migration.checksum)} now): it is not applied again."
        )
    pending = found.pending
    if pending:
        lines.append(
            f"{len(pending)} migration(s) not applied yet ({', '.join(m.name for m in pending)}): "
            "Pommel applies them at its next start."
        )
    return True


def alive(settings: Settings) -> Checked:
    """Whether the bot wrote its heartbeat file lately (it does every 30 s while connected)."""
    path = settings.heartbeat_path
    if path is None:
        raise MaintenanceError(
            "HEARTBEAT_PATH is not set: set it (e.g. HEARTBEAT_PATH=/tmp/pommel.alive) for the bot and for "
            "this check."
        )
    age = heartbeat_age(path)
    if age is None:
        return Checked(False, [f"No heartbeat at {path}: Pommel is not running, or not connected yet."])
    if age > STALE_SECONDS:
        return Checked(
            False,
            [f"The last heartbeat at {path} is {age:.0f} s old: Pommel is hung or lost its connection."],
        )
    return Checked(True, [f"Alive: Pommel wrote {path} {age:.0f} s ago."])


# ---------------------------------------------------------------------------------------------- sqlite


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise MaintenanceError(f"There is no database at {path}: check DATABASE_PATH (or the path given).")
    return path


@contextlib.contextmanager
def _connected(path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        yield db
    finally:
        db.close()


def _integrity(db: sqlite3.Connection) -> list[str]:
    found = [str(row[0]) for row in db.execute("PRAGMA integrity_check")]
    return [] if found == ["ok"] else found


def _sqlite_plan(db: sqlite3.Connection) -> Plan:
    from .store.sqlite import recorded_migrations

    return recorded_migrations(db, bundled_migrations())


def _schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])
