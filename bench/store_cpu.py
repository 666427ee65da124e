"""CPU per change of a fight, SQLite against PostgreSQL (issue 29, goal 6: PostgreSQL at most 1.5x SQLite's),
and PostgreSQL's round trips per change.

Run on demand (``.venv/bin/python bench/store_cpu.py``; PostgreSQL needs ``POMMEL_TEST_DATABASE_URL``, e.g.
``postgresql://127.0.0.1:5432/test``, and makes a schema of its own there), never as a pass/fail test.

A change is what a command does to the store: :meth:`~bot.store.Store.update_encounter` of a fight of
eight fighters (one loses a hit point, with a log line; a step of the fight's history is kept), one
after the other over ``--fights`` channels, ``--changes`` in all. The CPU is this process's (the event
loop and the store's threads: SQLite's own work is in it) and, for PostgreSQL, its server process's
too (``/proc/<pid>/stat`` of the pool's one connection: the server runs on this machine), per change.
The round trips are the statements asyncpg sends (``BEGIN`` and ``COMMIT`` and a pool's reset of a
connection included), per change.

Each figure is the median of ``--runs`` runs, with their [min-max]; the stores run in turn (SQLite, then
PostgreSQL, each run), and the ratio is worked out run for run, then its median taken. The machine is
shared and loaded: the ratio of one run says more than its absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests when run as a script

from bot.encounter.document import Encounter
from bot.store import EncounterChange, LogEntry, Store, open_store
from bot.store.postgres import PostgresStore
from tests.postgres import SESSION, URL_VARIABLE, with_search_path
from tests.sheets import character

SEATS = 8
GUILD, GM = 10, 1
SENT: Counter[str] = Counter()
"""The statements asyncpg sent, by method, while counting."""


def count_round_trips() -> None:
    """Count every statement asyncpg's connections send (each is one round trip to the server)."""
    import asyncpg

    for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
        method = getattr(asyncpg.Connection, name)

        def counted(*args: Any, _method: Any = method, _name: str = name, **kwargs: Any) -> Any:
            SENT[_name] += 1
            return _method(*args, **kwargs)

        setattr(asyncpg.Connection, name, counted)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hurt(channel_id: int, n: int) -> Callable[[Encounter | None], EncounterChange]:
    def change(current: Encounter | None) -> EncounterChange:
        assert current is not None
        fighter = current.combatants[n % SEATS]
        fighter.hp -= 1
        text = f"{fighter.name} -1"
        line = LogEntry(guild_id=GUILD, channel_id=channel_id, user_id=GM, kind="hp", text=text)
        return EncounterChange(encounter=current, events=(line,))

    return change


async def run(store: Store, fights: int, changes: int, server_pid: int | None) -> tuple[float, float, float]:
    """CPU per change of this process and of the server's (0 for SQLite), round trips per change."""
    for channel in range(1, fights + 1):
        encounter = Encounter(channel_id=channel, guild_id=GUILD, gm_id=GM)
        for n in range(SEATS):
            encounter.join(1000 + n, character(f"Fighter {n + 1}", hp=999), None)
        await store.save_encounter(encounter)
    for n in range(fights):  # a first change each: what a running fight's changes find
        await store.update_encounter(n + 1, hurt(n + 1, n))
    SENT.clear()
    server = cpu_seconds(server_pid) if server_pid is not None else 0.0
    began = time.process_time()
    for n in range(changes):
        channel = n % fights + 1
        await store.update_encounter(channel, hurt(channel, n))
    mine = time.process_time() - began
    theirs = cpu_seconds(server_pid) - server if server_pid is not None else 0.0
    return mine / changes, theirs / changes, sum(SENT.values()) / changes


async def one(
    kind: str, args: argparse.Namespace, url: str | None, scratch: Path
) -> tuple[float, float, float]:
    if kind == "sqlite":
        store: Store = await open_store(scratch / f"cpu-{uuid.uuid4().hex[:6]}.sqlite3")
        try:
            return await run(store, args.fights, args.changes, None)
        finally:
            await store.close()
    assert url is not None
    import asyncpg

    schema = f"{SESSION}_cpu_{uuid.uuid4().hex[:6]}"
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        postgres = await PostgresStore.open(with_search_path(url, schema), pool_size=1)
        try:
            pid = int(await postgres._pool.fetchval("SELECT pg_backend_pid()"))
            return await run(postgres, args.fights, args.changes, pid)
        finally:
            await postgres.close()
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


def figure(values: list[float], scale: float = 1000, unit: str = "ms") -> str:
    m = statistics.median(values) * scale
    return f"{m:.2f} {unit} [{min(values) * scale:.2f}-{max(values) * scale:.2f}]"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fights", type=int, default=20)
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    url = os.environ.get(URL_VARIABLE, "").strip() or None
    count_round_trips()
    print("goal (issue 29, 6): PostgreSQL's CPU per change at most 1.5x SQLite's (a shared, loaded machine)")
    with tempfile.TemporaryDirectory() as scratch:
        if url is None:
            sqlite = [await one("sqlite", args, url, Path(scratch)) for _ in range(args.runs)]
            print(f"sqlite:   {figure([own for own, _, _ in sqlite])} CPU per change", flush=True)
            print(f"postgres: skipped (set {URL_VARIABLE})")
            return
        # The stores interleaved, run for run: each run's ratio compares two moments of one load.
        sqlite, postgres = [], []
        for _ in range(args.runs):
            sqlite.append(await one("sqlite", args, url, Path(scratch)))
            postgres.append(await one("postgres", args, url, Path(scratch)))
    print(f"sqlite:   {figure([own for own, _, _ in sqlite])} CPU per change", flush=True)
    own = [p for p, _, _ in postgres]
    server = [s for _, s, _ in postgres]
    total = [p + s for p, s, _ in postgres]
    trips = [t for _, _, t in postgres]
    print(
        f"postgres: {figure(own)} CPU per change in Pommel, {figure(server)} in the server,"
        f" {figure(total)} in all; {figure(trips, 1, 'round trips')} per change"
    )
    mine = [p / s for (p, _, _), (s, _, _) in zip(postgres, sqlite, strict=True)]
    both = [(p + t) / s for (p, t, _), (s, _, _) in zip(postgres, sqlite, strict=True)]
    print(
        f"ratio to SQLite, run for run: {figure(mine, 1, 'x')} in Pommel's process,"
        f" {figure(both, 1, 'x')} with the server's (goal: at most 1.5x)"
    )


if __name__ == "__main__":
    asyncio.run(main())
