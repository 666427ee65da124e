"""Scaling out: CPU per change, interactions per second and p50/p99 latency of 1, 2 and 3 Pommel
processes on PostgreSQL, against 1 process on SQLite, in the same run, as ratios.

Run on demand (``.venv/bin/python bench/scale_out.py``; it needs ``POMMEL_TEST_DATABASE_URL``, e.g.
``postgresql://127.0.0.1:5432/test``, and makes a schema of its own there), never as a pass/fail test.

Each bot is a real process (``python -m bot`` through ``tests/e2e/bot_process.py``) against the fake
Discord, which has six shards with ``--guilds`` halls on each. Every hall has a fight of 60 fighters;
the workload is the GM's ``/combatant hp who:Fighter n change:-1``: load the fight, change it, save it
with its log line (one transaction), answer. ``--clients`` users act at once, each sending its next
interaction as soon as the last was answered (a closed loop), spread over every hall. (With few halls
the clients queue on the same fights, whose changes are serialized, and no process count helps.)

1. SQLite, one process serving every shard (the default deployment);
2. PostgreSQL, one process serving every shard;
3. PostgreSQL, two processes, three shards each;
4. PostgreSQL, three processes, two shards each.

The CPU per change is the bot processes' CPU time over the timed load (``/proc``), all together, per
interaction answered: with no lock shared between processes it stays flat as processes are added (issue
29, goal 7), whatever the throughput this machine allows.

Latency is from sending INTERACTION_CREATE to the answer being there (the response message with its
content). The fake Discord, every client and the measuring all run in this one Python process, which
shares the machine's cores with the bots and the database: on a small machine it is a bottleneck of
its own, so a figure says more as a ratio to the others of the same run than on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import add_discord_options, discord_options, rate_limited

from bot.encounter.document import Encounter
from bot.store import open_store
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeUser, build_world
from tests.e2e.processes import BotProcess, send, slash
from tests.e2e.test_shards import hall
from tests.postgres import SESSION, URL_VARIABLE, with_search_path
from tests.sheets import character

SEATS = 60
SHARDS = 6


@dataclass
class Figures:
    name: str
    rate: float
    p50: float
    p99: float
    answered: int
    sent: int
    bots_cpu: float
    """CPU seconds the bot processes used during the timed load, all together."""
    driver_cpu: float
    """CPU seconds this process (the fake Discord and the clients) used meanwhile."""
    wall: float


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def seed(database: str, tables: list[FakeChannel], gm: FakeUser) -> None:
    store = await open_store(database)
    try:
        for table in tables:
            assert table.guild is not None
            encounter = Encounter(channel_id=table.id, guild_id=table.guild.id, gm_id=gm.id)
            for n in range(SEATS):
                encounter.join(1000 + n, character(f"Fighter {n + 1}", hp=999), None)
            await store.save_encounter(encounter)
    finally:
        await store.close()


async def load(
    fake: FakeDiscord, tables: list[FakeChannel], gm: FakeUser, clients: int, per_client: int
) -> tuple[list[float], int, float]:
    """The closed loop: latencies of the answered interactions, how many were sent, the wall time."""
    latencies: list[float] = []
    counter = itertools.count()

    async def client(number: int) -> None:
        for _ in range(per_client):
            n = next(counter)
            table = tables[(number + n) % len(tables)]
            inter = slash(
                fake,
                "combatant hp",
                user=gm,
                channel=table,
                options={"who": f"Fighter {n % SEATS + 1}", "change": "-1"},
            )
            started = time.perf_counter()
            if await send(fake, inter, timeout=30):
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(client(number) for number in range(clients)))
    return latencies, clients * per_client, time.perf_counter() - started


async def scene(
    name: str,
    fake: FakeDiscord,
    database: str,
    layout: list[list[int]],
    tables: list[FakeChannel],
    gm: FakeUser,
    args: argparse.Namespace,
    logs: Path,
) -> Figures:
    await seed(database, tables, gm)
    processes = [
        BotProcess(fake, database, shards, SHARDS, logs / f"{name.replace(' ', '_')}_{n}.log")
        for n, shards in enumerate(layout)
    ]
    try:
        for process in processes:  # one after the other: the first syncs the commands
            await process.start()
        for table in tables:  # every hall answers before the clock starts
            probe = slash(fake, "roll dice", user=gm, channel=table, options={"expression": "1d1"})
            assert await send(fake, probe, timeout=30), f"{name}: no answer in #{table.name}"
        await load(fake, tables, gm, args.clients, args.warmup)
        pids = [process.process.pid for process in processes if process.process is not None]
        bots_before, driver_before = sum(map(cpu_seconds, pids)), time.process_time()
        latencies, sent, wall = await load(fake, tables, gm, args.clients, args.interactions)
        bots_cpu, driver_cpu = sum(map(cpu_seconds, pids)) - bots_before, time.process_time() - driver_before
    finally:
        for process in processes:
            await process.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    return Figures(
        name,
        len(latencies) / wall,
        statistics.median(latencies) if latencies else float("nan"),
        p99,
        len(latencies),
        sent,
        bots_cpu,
        driver_cpu,
        wall,
    )


async def main(args: argparse.Namespace) -> list[Figures]:
    url = os.environ.get(URL_VARIABLE)
    if not url:
        sys.exit(f"set {URL_VARIABLE} (e.g. postgresql://127.0.0.1:5432/test): the bench needs PostgreSQL")
    import asyncpg

    admin = await asyncpg.connect(url)
    schemas = [f"{SESSION}_bench_{n}" for n in range(3)]
    figures: list[Figures] = []
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder)
        try:
            async with FakeDiscord(
                validate_requests=False, validate_responses=False, **discord_options(args)
            ) as fake:
                fake.shard_count = SHARDS
                world = build_world(fake)
                halls = [hall(fake, world, shard) for shard in range(SHARDS) for _ in range(args.guilds)]
                tables = [h.text_channels[0] for h in halls]
                every = list(range(SHARDS))
                scenes = [
                    ("SQLite, 1 process", str(logs / "pommel.sqlite3"), [every]),
                    ("PostgreSQL, 1 process", schemas[0], [every]),
                    ("PostgreSQL, 2 processes", schemas[1], [every[:3], every[3:]]),
                    ("PostgreSQL, 3 processes", schemas[2], [every[:2], every[2:4], every[4:]]),
                ]
                for name, where, layout in scenes:
                    database = where
                    if not where.endswith(".sqlite3"):
                        await admin.execute(f'CREATE SCHEMA "{where}"')
                        database = with_search_path(url, where)
                    figures.append(await scene(name, fake, database, layout, tables, world.gm, args, logs))
                    print(f"  {name}: done", file=sys.stderr)
                print(rate_limited(fake))
        finally:
            for schema in schemas:
                await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            await admin.close()
    report(figures, args)
    return figures


def cpu_per_change(figures: Figures) -> float:
    """Milliseconds of the bots' CPU per interaction answered."""
    return figures.bots_cpu / figures.answered * 1000 if figures.answered else float("nan")


def report(figures: list[Figures], args: argparse.Namespace) -> None:
    base = figures[0]
    print(
        f"/combatant hp, {args.clients} clients in a closed loop, {args.interactions} interactions each, "
        f"{SHARDS * args.guilds} halls on {SHARDS} shards (same run; ratios to {base.name})"
    )
    print(
        f"{'':26}{'answered':>10}{'per s':>9}{'p50 ms':>9}{'p99 ms':>9}{'rate x':>8}{'p50 x':>7}{'p99 x':>7}"
        f"{'bots cpu':>10}{'fake cpu':>10}{'cpu/change':>12}"
    )
    for f in figures:
        print(
            f"{f.name:26}{f'{f.answered}/{f.sent}':>10}{f.rate:9.1f}{f.p50 * 1000:9.1f}{f.p99 * 1000:9.1f}"
            f"{f.rate / base.rate:8.2f}{f.p50 / base.p50:7.2f}{f.p99 / base.p99:7.2f}"
            f"{f.bots_cpu / f.wall:10.0%}{f.driver_cpu / f.wall:10.0%}{cpu_per_change(f):9.2f} ms"
        )
    print(
        "(cpu: the share of one core over the timed load; the fake Discord and the clients are one process)"
    )
    postgres = figures[1:]
    one = postgres[0]
    print(
        "goal 7, CPU per change with 1, 2, 3 processes on PostgreSQL (target: flat): "
        + ", ".join(
            f"{cpu_per_change(f):.2f} ms (x{cpu_per_change(f) / cpu_per_change(one):.2f})" for f in postgres
        )
    )
    print(
        "throughput with 1, 2, 3 processes on PostgreSQL: "
        + ", ".join(f"{f.rate:.1f}/s (x{f.rate / one.rate:.2f})" for f in postgres)
        + " (what this machine allows: the processes share its cores with the fake and PostgreSQL)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16, help="users acting at once")
    parser.add_argument("--interactions", type=int, default=25, help="timed interactions per client")
    parser.add_argument("--warmup", type=int, default=5, help="untimed interactions per client first")
    parser.add_argument("--guilds", type=int, default=3, help=f"halls on each of the {SHARDS} shards")
    add_discord_options(parser)
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main(parser.parse_args()))
