"""How long ``/stats dice`` takes on a server with a year of rolls.

Run on demand (``make bench``), never as a pass/fail test. It writes a database of ``--lines`` log lines
(default 1,000,000) over the last 365 days of one server, as a Pommel before ``/stats dice`` left it:
60% are rolls (``/roll pool`` with 1 to 4 d20s, ``/roll dice`` with one or two, ``/save``), one in ten
of them private, over 8 channels and 40 members; the rest are other lines of fights (attacks, moves).
Opening it applies migration 0005, which counts the faces of every roll already logged (timed). Then it
times the store's count (:meth:`Store.tally_d20`) for the whole server, one channel, one member and the
last 30 days, the statistics, the whole command through the real bot and the fake Discord (from the
interaction to the answer with its chart uploaded), and a ``/roll dice`` answered while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from bot.dice_stats import FACES, fairness
from bot.store import D20_ROLL_KINDS, open_store
from bot.store.sqlite import SqliteStore, bundled_migrations
from tests.e2e.fake_discord import FakeDiscord, FakeUser, build_world
from tests.e2e.harness import BotRunner


def line(
    rng: random.Random, at: datetime, guild: int, channels: Sequence[int], members: Sequence[int]
) -> tuple[Any, ...]:
    """One log row as the store writes it: a roll 60% of the time, else another line of a fight."""
    user, channel = rng.choice(members), rng.choice(channels)
    kind, data = "attack", dict[str, object]()
    pick = rng.random()
    if pick < 0.35:
        kind, data = "roll", {"faces": [rng.randint(1, 20) for _ in range(rng.randint(1, 4))]}
    elif pick < 0.5:
        kind, data = (
            "roll",
            {"expression": "1d20+5", "d20": [rng.randint(1, 20) for _ in range(rng.randint(1, 2))]},
        )
    elif pick < 0.6:
        kind, data = "save", {"faces": [rng.randint(1, 20) for _ in range(rng.randint(1, 3))]}
    elif pick < 0.8:
        kind = "move"
    if kind in D20_ROLL_KINDS:
        data |= {"private": rng.random() < 0.1, "by": f"member {user}", "total": 17}
    text = "a line of the log as the table saw it"
    return (at.isoformat(), guild, channel, user, kind, text, json.dumps(data))


def write(path: Path, lines: int, guild: int, channels: Sequence[int], members: Sequence[int]) -> None:
    rng = random.Random(15)
    start = datetime.now(UTC) - timedelta(days=365)
    step = timedelta(days=365) / lines
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (line(rng, start + step * n, guild, channels, members) for n in range(lines)),
        )


def report(what: str, times: list[float]) -> None:
    print(f"{what:<46} median {statistics.median(times) * 1000:7.0f} ms   max {max(times) * 1000:7.0f} ms")


async def timed(what: str, call: Callable[[], Awaitable[Any]], runs: int) -> Any:
    times, result = [], None
    for _ in range(runs):
        began = time.perf_counter()
        result = await call()
        times.append(time.perf_counter() - began)
    report(what, times)
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    async with FakeDiscord(validate_requests=False, validate_responses=False) as fake:
        world = build_world(fake)
        guild = world.guild.id
        channels = [world.table.id, world.lobby.id] + [fake.snowflake() for _ in range(6)]
        members = [world.player.id, world.player2.id] + [fake.snowflake() for _ in range(38)]
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "year.sqlite3"
            before = [migration for migration in bundled_migrations() if migration.name < "0005"]
            await (await SqliteStore.open(path, migrations=before)).close()
            began = time.perf_counter()
            write(path, args.lines, guild, channels, members)
            print(f"wrote {args.lines:,} log lines in {time.perf_counter() - began:.1f} s")
            began = time.perf_counter()
            store = await open_store(path)
            print(f"opened it, counting the faces (migration 0005), in {time.perf_counter() - began:.1f} s")
            try:
                tally = await timed(
                    "tally: the whole server, as its GM",
                    lambda: store.tally_d20(guild_id=guild, viewer=members[0], gm=True),
                    args.runs,
                )
                print(f"  {tally.rolls:,} rolls, {sum(tally.faces):,} d20 faces")
                await timed(
                    "tally: the whole server, public rolls",
                    lambda: store.tally_d20(guild_id=guild),
                    args.runs,
                )
                await timed(
                    "tally: one channel",
                    lambda: store.tally_d20(guild_id=guild, channel_id=channels[0]),
                    args.runs,
                )
                await timed(
                    "tally: one member",
                    lambda: store.tally_d20(guild_id=guild, user_id=members[0]),
                    args.runs,
                )
                since = datetime.now(UTC) - timedelta(days=30)
                await timed(
                    "tally: the last 30 days", lambda: store.tally_d20(guild_id=guild, since=since), args.runs
                )

                async def test() -> Any:
                    return fairness(dict(zip(FACES, tally.faces, strict=True)), tally.rolls)

                await timed("statistics (chi-square and bands)", test, args.runs)
            finally:
                await store.close()

            async with BotRunner(fake, path, default_channel=world.table) as runner:
                pommel = await runner.start_bot()
                asked: list[tuple[str, FakeUser, dict[str, Any]]] = [
                    ("/stats dice (the server, public)", world.player, {}),
                    ("/stats dice (the server, the GM's private)", world.admin, {"private": True}),
                    ("/stats dice of:channel", world.player, {"of": "channel"}),
                    ("/stats dice member: days:30", world.player, {"member": world.player2, "days": 30}),
                ]
                for what, user, options in asked:
                    times, first = [], []
                    for _ in range(args.runs):
                        began = time.perf_counter()
                        result = await pommel.slash("stats dice", user=user, options=options, timeout=60)
                        times.append(time.perf_counter() - began)
                        first.append(result.latency)
                        assert result.message is not None, result.text
                        assert result.message.attachments, result.text
                    report(f"{what}, answered", times)
                    report("  of which to the first callback", first)
                print(f"  e.g. {result.content.splitlines()[0]}")
                # Another command while the biggest count runs and its chart is drawn.
                alone, beside = [], []
                for _ in range(args.runs):
                    began = time.perf_counter()
                    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20"})
                    alone.append(time.perf_counter() - began)
                    stats = asyncio.create_task(pommel.slash("stats dice", user=world.player, timeout=60))
                    await asyncio.sleep(0.05)
                    began = time.perf_counter()
                    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20"})
                    beside.append(time.perf_counter() - began)
                    assert not stats.done(), "the /stats dice ended before the roll: nothing was measured"
                    await stats
                report("/roll dice alone, answered", alone)
                report("/roll dice during a server-wide /stats dice", beside)


if __name__ == "__main__":
    asyncio.run(main())
