"""Memory of one Pommel process against the fights it has touched: RSS at start, after 1, 1,000 and
10,000 fights touched once.

Run on demand (``.venv/bin/python bench/memory.py``), never as a pass/fail test. The bot is a real process
of its own (``python -m bot`` through ``tests/e2e/bot_process.py``) on a SQLite file, against the fake
Discord in this process, so its RSS (``/proc/<pid>/status``) is the bot's alone. Every channel and its
fight exist before the bot starts (discord.py caches the channels from GUILD_CREATE: that is in the
figure at start). Touching a fight is the GM's ``/combatant hp who:Fighter change:-1``: load, change,
save with its log line, answer, and post its tracker (a message with buttons). What a process keeps per
fight touched (views, locks, drawn trackers) shows as RSS growth; the goal is within +20 % of the start.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from bot.encounter.document import Encounter
from bot.store import open_store
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeUser, build_world
from tests.e2e.processes import BotProcess, send, slash
from tests.sheets import character

MARKS = (1, 1_000, 10_000)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def seed(path: Path, tables: list[FakeChannel], gm: FakeUser) -> None:
    store = await open_store(path)
    try:
        for table in tables:
            assert table.guild is not None
            encounter = Encounter(channel_id=table.id, guild_id=table.guild.id, gm_id=gm.id)
            encounter.join(gm.id + 1, character("Fighter", hp=999), None)
            await store.save_encounter(encounter)
    finally:
        await store.close()


async def touch(fake: FakeDiscord, tables: list[FakeChannel], gm: FakeUser, clients: int) -> None:
    """Each fight of ``tables`` touched once, ``clients`` at a time."""
    queue = list(tables)

    async def client() -> None:
        while queue:
            table = queue.pop()
            inter = slash(
                fake, "combatant hp", user=gm, channel=table, options={"who": "Fighter", "change": "-1"}
            )
            assert await send(fake, inter, timeout=30), f"no answer in #{table.name}"

    await asyncio.gather(*(client() for _ in range(clients)))


async def run(fights: int, clients: int) -> float:
    """Prints the RSS at each mark; returns the growth at the last, as a fraction of the start."""
    growth = 0.0
    async with FakeDiscord(validate_requests=False, validate_responses=False) as fake:
        world = build_world(fake)
        tables = [world.guild.create_text_channel(f"fight-{n}") for n in range(fights)]
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "memory.sqlite3"
            began = time.perf_counter()
            await seed(path, tables, world.gm)
            print(f"{fights} fights seeded in {time.perf_counter() - began:.0f} s")
            bot = BotProcess(fake, str(path), [0], 1, Path(scratch) / "bot.log")
            try:
                await bot.start(timeout=120)
                assert bot.process is not None
                pid = bot.process.pid
                probe = slash(
                    fake, "roll dice", user=world.gm, channel=world.lobby, options={"expression": "1d1"}
                )
                assert await send(fake, probe, timeout=30)
                await asyncio.sleep(1)
                start = rss_mib(pid)
                print(f"RSS at start (ready, {fights} channels cached): {start:.1f} MiB")
                done = 0
                for mark in MARKS:
                    if mark > fights:
                        break
                    began = time.perf_counter()
                    await touch(fake, tables[done:mark], world.gm, clients)
                    spent = time.perf_counter() - began
                    done = mark
                    fake_messages = sum(len(t.history) for t in tables)
                    for table in tables:  # what the fake keeps is not the bot's; this process needs no more
                        table.messages.clear()
                    gc.collect()
                    await asyncio.sleep(1)
                    now = rss_mib(pid)
                    growth = now / start - 1
                    print(
                        f"after {mark:>6} fights touched: RSS {now:7.1f} MiB ({now / start - 1:+6.1%}),"
                        f" touched in {spent:.1f} s, {fake_messages} messages posted"
                    )
            finally:
                await bot.close()
    return growth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=MARKS[-1])
    parser.add_argument("--clients", type=int, default=10, help="fights touched at a time (default 10)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args.fights, args.clients))


if __name__ == "__main__":
    main()
