"""The migrations of both stores: one sequence of numbered scripts, each in its two dialects side by side
(``migrations/NNNN_name.sqlite.sql`` and ``NNNN_name.postgres.sql``), and what a database's record of
them says is left to do.

A database records each migration applied to it by name and checksum (its ``schema_migrations`` table),
not by count. So a migration renumbered after it was applied (two branches merged, one renumbered) is
known by its checksum and not applied twice, and one edited after it was applied is named at start-up;
a migration the record names that this Pommel does not know comes from a newer one, which this one
refuses to run on. Databases from before (SQLite's ``PRAGMA user_version``, PostgreSQL's
``schema_migrations`` by number) are adopted into the record as the scripts they ran
(:func:`legacy_sqlite`, :func:`legacy_postgres`). The stores keep the number of the last migration where
older Pommels looked for it, so those still refuse a database this one migrated further.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Literal

Dialect = Literal["sqlite", "postgres"]
DIALECTS: tuple[Dialect, ...] = ("sqlite", "postgres")
MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(sqlite|postgres)\.sql$")


def checksum_of(sql: str) -> str:
    """The SHA-256 of a script, its line endings made ``\\n`` (a checkout on Windows changes nothing)."""
    return hashlib.sha256(sql.replace("\r\n", "\n").encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Migration:
    """One schema script of one dialect: ``version`` is its number, ``name`` (``0006_redo``) what the
    database records it by, with :attr:`checksum`."""

    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return checksum_of(self.sql)

    @property
    def does_nothing(self) -> bool:
        """Only comments: a dialect with nothing to do (PostgreSQL refuses an empty query)."""
        without_blocks = re.sub(r"/\*.*?\*/", "", self.sql, flags=re.DOTALL)
        return not re.sub(r"--[^\n]*", "", without_blocks).replace(";", "").strip()


@dataclass(frozen=True)
class Recorded:
    """A migration as a database records it. ``checksum`` None: adopted from a record by count, which
    kept no checksum (it ran the script this Pommel ships under that name)."""

    version: int
    name: str
    checksum: str | None = None
    applied_at: str | None = None


def bundled_migrations(dialect: Dialect = "sqlite", folder: Traversable | None = None) -> list[Migration]:
    """The scripts of ``dialect`` shipped in ``bot/store/migrations`` (or ``folder``), in order, numbered
    1, 2, 3... without gaps, each with its other dialect beside it under the same name."""
    found: dict[Dialect, dict[int, str]] = {"sqlite": {}, "postgres": {}}
    texts: dict[int, str] = {}
    for entry in (folder or files(__package__).joinpath("migrations")).iterdir():
        matched = MIGRATION_FILE.match(entry.name)
        if matched is None:
            if entry.name.endswith(".sql"):  # a script in the layout of before would never run
                raise ValueError(
                    f"migration {entry.name} is not named NNNN_<name>.sqlite.sql or NNNN_<name>.postgres.sql"
                )
            continue
        version, name = int(matched[1]), f"{matched[1]}_{matched[2]}"
        kind: Dialect = "sqlite" if matched[3] == "sqlite" else "postgres"
        if version in found[kind]:
            raise ValueError(f"two {kind} migrations are numbered {version:04d}: renumber one")
        found[kind][version] = name
        if kind == dialect:
            texts[version] = entry.read_text(encoding="utf-8")
    for version in sorted(found["sqlite"].keys() | found["postgres"].keys()):
        names = {kind: found[kind].get(version) for kind in DIALECTS}
        if names["sqlite"] != names["postgres"]:
            raise ValueError(
                f"migration {version:04d} needs both dialects under one name, found sqlite {names['sqlite']}"
                f" and postgres {names['postgres']}: write {version:04d}_<name>.sqlite.sql and "
                f"{version:04d}_<name>.postgres.sql"
            )
    migrations = [Migration(version, found[dialect][version], texts[version]) for version in sorted(texts)]
    check_numbering(migrations)
    return migrations


def check_numbering(migrations: Sequence[Migration]) -> None:
    """A gap or a duplicate would skip or repeat a script on some databases; refuse both."""
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise ValueError(f"migration {migration.name} should be number {expected:04d}")


@dataclass(frozen=True)
class Plan:
    """What a database's record says, against this Pommel's migrations."""

    applied: list[tuple[Migration, Recorded]]
    """This Pommel's migrations the database has, with their record (under whatever name it was)."""
    pending: list[Migration]
    """This Pommel's migrations the database lacks, in order: applied at the next start."""
    renamed: list[tuple[Recorded, Migration]] = field(default_factory=list)
    """Applied under another name (renumbered): the same script, known by its checksum."""
    edited: list[tuple[Recorded, Migration]] = field(default_factory=list)
    """Applied, but the script changed since (another checksum): not applied again."""
    unknown: list[Recorded] = field(default_factory=list)
    """Recorded migrations this Pommel does not know: a newer Pommel's, which this one refuses."""
    adopted: bool = False
    """The record was by count: the store writes it by name."""

    @property
    def rewrite(self) -> bool:
        """The record must be written again (under today's names and checksums) before the pending."""
        return self.adopted or bool(self.renamed) or bool(self.edited)

    @property
    def found(self) -> int:
        """The highest migration number the database records."""
        recorded = [*(entry for _, entry in self.applied), *self.unknown]
        return max((entry.version for entry in recorded), default=0)


def plan(migrations: Sequence[Migration], recorded: Sequence[Recorded], *, adopted: bool = False) -> Plan:
    """Match the record to ``migrations``: by name first, then what is left by checksum (a renumbered
    script); what still matches nothing is unknown."""
    by_name = {migration.name: migration for migration in migrations}
    matched: dict[str, Recorded] = {}
    edited: list[tuple[Recorded, Migration]] = []
    renamed: list[tuple[Recorded, Migration]] = []
    left: list[Recorded] = []
    for entry in recorded:
        migration = by_name.get(entry.name)
        if migration is None or migration.name in matched:
            left.append(entry)
            continue
        matched[migration.name] = entry
        if entry.checksum is not None and entry.checksum != migration.checksum:
            edited.append((entry, migration))
    unknown = []
    for entry in left:
        same = next(
            (m for m in migrations if m.name not in matched and entry.checksum == m.checksum),
            None,
        )
        if same is None:
            unknown.append(entry)
        else:
            matched[same.name] = entry
            renamed.append((entry, same))
    return Plan(
        applied=[
            (migration, matched[migration.name]) for migration in migrations if migration.name in matched
        ],
        pending=[migration for migration in migrations if migration.name not in matched],
        renamed=renamed,
        edited=edited,
        unknown=unknown,
        adopted=adopted,
    )


# ------------------------------------------------------------------------ records by count, adopted

LEGACY_SQLITE = (
    "0001_initial",
    "0002_set_aside_encounters",
    "0003_ended_encounters",
    "0004_encounter_history",
    "0005_log_d20",
    "0006_redo",
    "0007_undone_steps_index",
    "0008_forget_guilds",
)
"""The scripts a SQLite database recorded by count (``PRAGMA user_version`` N) had run: the first N,
but for the stretch between two merges (commit 9c246bc to 0096217) whose fifth was ``0005_redo``."""

REDO_STRETCH = (*LEGACY_SQLITE[:4], "0006_redo")

LEGACY_POSTGRES: Mapping[str, tuple[str, ...]] = {
    "0001_initial.sql": (
        "0001_initial",
        "0002_set_aside_encounters",  # PostgreSQL's first schema had these tables already
        "0003_ended_encounters",
        "0004_encounter_history",
    ),
    "0002_shard_leases.sql": ("0009_shard_leases",),
    "0003_redo.sql": ("0006_redo",),
    "0004_log_d20.sql": ("0005_log_d20",),
    "0005_undone_steps_index.sql": ("0007_undone_steps_index",),
    "0006_forget_guilds.sql": ("0008_forget_guilds",),
}
"""PostgreSQL's scripts as they were named in its own sequence, recorded by number and name, and what
they are in the one sequence."""


def legacy_sqlite(user_version: int, *, has_log_d20: bool, has_redo: bool) -> list[Recorded]:
    """What a SQLite database recorded by count has run, as records. ``has_log_d20`` and ``has_redo``
    (its ``log_d20`` table, ``encounter_history.undone_by``) tell the redo stretch from the rest."""
    if user_version == 5 and has_redo and not has_log_d20:
        names: Sequence[str] = REDO_STRETCH
    else:
        names = LEGACY_SQLITE[:user_version]
    records = [Recorded(int(name[:4]), name) for name in names]
    if user_version > len(LEGACY_SQLITE):
        records.append(Recorded(user_version, f"up to number {user_version}, counted without names"))
    return records


def legacy_postgres(rows: Sequence[Recorded]) -> list[Recorded]:
    """A PostgreSQL record by number (no checksums), as records of the one sequence; a name it never
    had stays as it is (and is unknown)."""
    records = []
    for row in rows:
        names = LEGACY_POSTGRES.get(row.name)
        if names is None:
            records.append(Recorded(row.version, row.name, None, row.applied_at))
        else:
            records.extend(Recorded(int(name[:4]), name, None, row.applied_at) for name in names)
    return records


def told_of(done: Plan, where: str, logger: logging.Logger) -> None:
    """Log what a start did to the record and the schema: a renumbered or edited migration is a warning
    naming it (nothing was applied again), each migration applied one line."""
    if done.adopted:
        logger.info(
            "recorded the migrations of %s by name (it counted them): %s",
            where,
            ", ".join(migration.name for migration, _ in done.applied) or "none",
        )
    for entry, migration in done.renamed:
        logger.warning(
            "migration %s recorded in %s is this Pommel's %s (the same script, renumbered since): "
            "not applied again, recorded under its new name",
            entry.name,
            where,
            migration.name,
        )
    for entry, migration in done.edited:
        logger.warning(
            "migration %s was changed after it was applied to %s (checksum %s then, %s now): not applied "
            "again; the schema keeps what the earlier script made",
            migration.name,
            where,
            short(entry.checksum),
            short(migration.checksum),
        )
    for migration in done.pending:
        logger.info("applied migration %s to %s", migration.name, where)


def short(checksum: str | None) -> str:
    """The first characters of a checksum, enough to tell two apart in a message."""
    return (checksum or "none")[:12]
