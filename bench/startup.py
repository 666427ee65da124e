"""Start-up and the reminders' sweep against the fights stored: time to connect with 1 / 10,000 / 100,000
stored fights on SQLite and PostgreSQL, and the CPU of one sweep (issue 29, goal 5: under 5 s at 100,000).

Run on demand (``.venv/bin/python bench/startup.py``; PostgreSQL needs ``POMMEL_TEST_DATABASE_URL``, e.g.
``postgresql://127.0.0.1:5432/test``, and makes a schema of its own there), never as a pass/fail test.

The fights are written straight into the tables (the store's own writes would take minutes at 100,000):
of every ten, about half ended (kept in ``ended_encounters``), four idle (running, nothing due: reminders
off, no defense asked) and one running with something due (a turn waiting, reminded after a day; one in
a hundred fights, a defense waiting with its timer due in a day). Three fighters each, the turn dealt.
Where the schema has the index of due times, each row gets its due times as Pommel computes them.

* **connect**: the bot is a real process (``python -m bot`` through ``tests/e2e/bot_process.py``) against
  the fake Discord; the time from starting it to its shard having identified (its cogs loaded: the
  defenses' timers rescheduled before that);
* **sweep**: one reminders' sweep (:meth:`cogs.reminders.Reminders.sweep`) in this process, at a moment
  when nothing is due yet, on a store of its own: the CPU this process spends (the store's threads
  included; PostgreSQL's server not counted), and its wall time.

Each figure is the median of ``--runs`` runs, with their [min-max]. The machine is shared: say so.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from bot.catalog import load_catalog
from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter
from bot.encounter.initiative import press
from bot.encounter.permissions import Actor
from bot.encounter.results import TurnAction
from bot.rules.dice import ScriptedDice
from bot.store import open_store
from bot.store.shared import fight_document
from bot.table_options import TableOptions
from cogs.reminders import Reminders
from tests.e2e.fake_discord import FakeDiscord, build_world
from tests.e2e.processes import BotProcess
from tests.postgres import SESSION, URL_VARIABLE, with_search_path
from tests.rules.conftest import deck_dealing
from tests.sheets import character

try:  # the index of due times (issue 29): absent from the Pommel before it
    from bot.encounter.due import next_due, next_timer
except ImportError:  # pragma: no cover - measuring the Pommel before
    next_due = next_timer = None  # type: ignore[assignment]

CATALOG = load_catalog()
SIZES = (1, 10_000, 100_000)
GM = 1


def dealt(guild_id: int, remind_after: int, cards: tuple[str, ...] = ("KS", "5H", "2C")) -> Encounter:
    """A fight of two players and a Bandit, dealt ``cards``: the first card's turn waits."""
    table = TableOptions(remind_after_hours=remind_after)
    encounter = Encounter(channel_id=1, guild_id=guild_id, gm_id=GM, table=table)
    encounter.join(11, character("Alice"), None)
    encounter.join(12, character("Bob"), None)
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing(*cards)
    press(encounter, TurnAction.DEAL, Actor(GM), ScriptedDice([]))
    return encounter


def defending(guild_id: int) -> Encounter:
    """A fight dealt whose Bandit attacked Alice: her defense waits, its timer due in a day."""
    encounter = dealt(guild_id, 24, ("2S", "5H", "KC"))
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    now = datetime.now(UTC)
    declare_attack(encounter, CATALOG, Actor(GM), bandit, alice, Declaration(dice=1), ScriptedDice([15]), now)
    encounter.exchanges[0].deadline = now + timedelta(days=1)
    return encounter


def population(count: int, guild_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """``count`` fights: rows for ``encounters`` (channel, guild, version, document, updated_at, due_at)
    and for ``ended_encounters`` (channel, guild, gm, started, ended, rounds, version, last log, document).
    """
    now = datetime.now(UTC)
    kinds = {"due": dealt(guild_id, 24), "idle": dealt(guild_id, 0), "defense": defending(guild_id)}
    rows = {
        kind: (
            fight_document(fight)[0],
            next_due(fight) if next_due is not None else None,
            next_timer(fight) if next_timer is not None else None,
        )
        for kind, fight in kinds.items()
    }
    running: list[tuple[Any, ...]] = []
    ended: list[tuple[Any, ...]] = []
    for n in range(count):
        channel = 10_000_000 + n
        if n % 10 == 0:  # one in ten with something due (the only one of a single fight)
            document, due_at, timer_at = rows["defense" if n % 100 == 0 else "due"]
            running.append((channel, guild_id, 3, document, now, due_at, timer_at))
        elif n % 10 < 6:
            ended.append((channel, guild_id, GM, now, now, 1, 3, 0, rows["idle"][0]))
        else:
            running.append((channel, guild_id, 3, rows["idle"][0], now, None, None))
    return running, ended


async def seed(database: str, count: int, guild_id: int) -> None:
    store = await open_store(database)  # the schema, as this Pommel makes it
    await store.close()
    running, ended = population(count, guild_id)
    if database.startswith("postgresql://"):
        import asyncpg

        connection = await asyncpg.connect(database)
        try:
            indexed = await connection.fetchval(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = 'encounters' AND column_name = 'due_at'"
            )
            columns = ["channel_id", "guild_id", "version", "document", "updated_at", "due_at", "timer_at"]
            await connection.copy_records_to_table(
                "encounters",
                records=running if indexed else [row[:5] for row in running],
                columns=columns if indexed else columns[:5],
            )
            await connection.copy_records_to_table(
                "ended_encounters",
                records=ended,
                columns=[
                    "channel_id",
                    "guild_id",
                    "gm_id",
                    "started_at",
                    "ended_at",
                    "rounds",
                    "version",
                    "last_log_id",
                    "document",
                ],
            )
            await connection.execute("ANALYZE")
        finally:
            await connection.close()
        return
    import sqlite3

    def iso(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(value.isoformat() if isinstance(value, datetime) else value for value in row)

    with sqlite3.connect(database) as db:
        indexed = any(row[1] == "due_at" for row in db.execute("PRAGMA table_info(encounters)"))
        if indexed:
            db.executemany("INSERT INTO encounters VALUES (?, ?, ?, ?, ?, ?, ?)", map(iso, running))
        else:
            db.executemany("INSERT INTO encounters VALUES (?, ?, ?, ?, ?)", (iso(r[:5]) for r in running))
        db.executemany(
            "INSERT INTO ended_encounters (channel_id, guild_id, gm_id, started_at, ended_at, rounds,"
            " version, last_log_id, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            map(iso, ended),
        )
    db.close()


async def connect_time(fake: FakeDiscord, database: str, log: Path) -> float:
    bot = BotProcess(fake, database, [0], 1, log)
    started = time.perf_counter()
    try:
        await bot.start(timeout=300)
        return time.perf_counter() - started
    finally:
        await bot.close()


async def sweep_cost(database: str, guild_id: int) -> tuple[float, float]:
    """CPU and wall seconds of one reminders' sweep, nothing being due."""
    store = await open_store(database)
    try:
        bot: Any = SimpleNamespace(store=store, owns=lambda guild: True, user=None)
        sweeper = Reminders(bot)
        cpu, wall = time.process_time(), time.perf_counter()
        await sweeper.sweep(datetime.now(UTC) + timedelta(minutes=1))
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await store.close()


def figure(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s [{min(values):.2f}-{max(values):.2f}]"


async def measure(
    kind: str, size: int, runs: int, scratch: Path, url: str | None
) -> tuple[list[float], list[tuple[float, float]]]:
    """Seed ``size`` fights, then ``runs`` times connect and sweep: the seconds to connect, and each
    sweep's CPU and wall seconds. Printed too."""
    async with FakeDiscord(validate_requests=False, validate_responses=False) as fake:
        world = build_world(fake)
        if kind == "sqlite":
            database = str(scratch / f"startup-{size}.sqlite3")
        else:
            assert url is not None
            schema = f"{SESSION}_startup_{uuid.uuid4().hex[:6]}"
            import asyncpg

            admin = await asyncpg.connect(url)
            await admin.execute(f'CREATE SCHEMA "{schema}"')
            database = with_search_path(url, schema)
        try:
            began = time.perf_counter()
            await seed(database, size, world.guild.id)
            seeded = time.perf_counter() - began
            connects = [await connect_time(fake, database, scratch / "bot.log") for _ in range(runs)]
            sweeps = [await sweep_cost(database, world.guild.id) for _ in range(runs)]
        finally:
            if kind == "postgres":
                await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
                await admin.close()
    print(
        f"{kind:8} {size:>7,} fights (seeded in {seeded:4.0f} s): connect {figure(connects)};"
        f" sweep CPU {figure([cpu for cpu, _ in sweeps])}, wall {figure([wall for _, wall in sweeps])}",
        flush=True,
    )
    return connects, sweeps


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    import os

    url = os.environ.get(URL_VARIABLE, "").strip() or None
    print("goal (issue 29, 5): connect under 5 s at 100,000 stored fights, both stores (a shared machine)")
    with tempfile.TemporaryDirectory() as scratch:
        for kind in args.stores.split(","):
            if kind == "postgres" and url is None:
                print(f"postgres: skipped (set {URL_VARIABLE})")
                continue
            for size in map(int, args.sizes.split(",")):
                await measure(kind, size, args.runs, Path(scratch), url)


if __name__ == "__main__":
    asyncio.run(main())
