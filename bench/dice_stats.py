"""How long ``/stats dice`` takes on a server with a year of rolls, and how long each chart takes to draw.

Run on demand (``make bench``), never as a pass/fail test. It writes a database of ``--lines`` log lines
(default 1,000,000) over the last 365 days of one server, through the store's own migrations: 60% are
rolls (``/roll pool`` with 1 to 4 d20s, ``/roll dice`` with one or two, ``/save``), one in ten of them
private, spread over 8 channels and 40 members; the rest are other lines of fights (attacks, moves).
Then it times the store's count (:meth:`Store.tally_d20`) for the whole server, one channel, one member
and the last 30 days, the statistics, and the drawing of the dice chart and of an ``/odds`` plan.
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
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.dice_stats import fairness
from bot.store import D20_ROLL_KINDS, open_store
from bot.store.sqlite import SqliteStore, bundled_migrations

GUILD = 10
CHANNELS = [1000 + n for n in range(8)]
MEMBERS = [5000 + n for n in range(40)]


def line(rng: random.Random, at: datetime) -> tuple[Any, ...]:
    """One log row as the store writes it: a roll 60% of the time, else another line of a fight."""
    user, channel = rng.choice(MEMBERS), rng.choice(CHANNELS)
    private = rng.random() < 0.1
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
        data |= {"private": private, "by": f"member {user}", "total": 17}
    return (
        at.isoformat(),
        GUILD,
        channel,
        user,
        kind,
        "a line of the log as the table saw it",
        json.dumps(data),
    )


def write(path: Path, lines: int, seed: int = 15) -> None:
    rng = random.Random(seed)
    start = datetime.now(UTC) - timedelta(days=365)
    step = timedelta(days=365) / lines
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (line(rng, start + step * n) for n in range(lines)),
        )


async def timed(what: str, call: Callable[[], Awaitable[Any]], runs: int) -> Any:
    times, result = [], None
    for _ in range(runs):
        began = time.perf_counter()
        result = await call()
        times.append(time.perf_counter() - began)
    print(f"{what:<44} median {statistics.median(times) * 1000:8.1f} ms   max {max(times) * 1000:8.1f} ms")
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "year.sqlite3"
        # The log as a Pommel before /stats dice kept it, so opening it times migration 0005 too.
        before = [migration for migration in bundled_migrations() if migration.name < "0005"]
        await (await SqliteStore.open(path, migrations=before)).close()
        began = time.perf_counter()
        write(path, args.lines)
        print(f"wrote {args.lines:,} log lines in {time.perf_counter() - began:.1f} s")
        began = time.perf_counter()
        store = await open_store(path)
        print(
            f"opened it, counting its rolls' faces (migration 0005), in {time.perf_counter() - began:.1f} s"
        )
        try:
            tally = await timed(
                "tally: the whole server, as its GM",
                lambda: store.tally_d20(guild_id=GUILD, viewer=MEMBERS[0], gm=True),
                args.runs,
            )
            print(f"  {tally.rolls:,} rolls, {sum(tally.faces):,} d20 faces")
            await timed(
                "tally: the whole server, as a player",
                lambda: store.tally_d20(guild_id=GUILD, viewer=MEMBERS[0]),
                args.runs,
            )
            await timed(
                "tally: one channel",
                lambda: store.tally_d20(guild_id=GUILD, channel_id=CHANNELS[0]),
                args.runs,
            )
            await timed(
                "tally: one member", lambda: store.tally_d20(guild_id=GUILD, user_id=MEMBERS[0]), args.runs
            )
            since = datetime.now(UTC) - timedelta(days=30)
            await timed(
                "tally: the last 30 days", lambda: store.tally_d20(guild_id=GUILD, since=since), args.runs
            )

            async def test() -> Any:
                return fairness(dict(zip(range(1, 21), tally.faces, strict=True)), tally.rolls)

            await timed("statistics (chi-square and bands)", test, args.runs)
        finally:
            await store.close()


if __name__ == "__main__":
    asyncio.run(main())
