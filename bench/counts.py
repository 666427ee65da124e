"""Work per action in the bot's own process, counted exactly (issue 29, goal 4's "why").

Run on demand, never as a pass/fail test. ``bench/cpu.py``'s timings are noisy on a shared machine; these
counts are not. The same actions as ``bench/cpu.py`` (the GM's ``/attack`` in the duels, the Passive
click that answers it, ``/init next`` in fights of eight NPC groups), the bot alone in its process, and
per action: the requests it sent the fake Discord (by route), the SQL statements its SQLite connections
ran (by their first words) and the garbage collector's passes, each series up to the bot's quiet after it
(what follows an answer counts with it; what a timer does later, with whatever runs then).

``--against REV`` counts the bot of an earlier commit too, as ``bench/cpu.py --against`` runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import BotApart
from cpu import Meter, deal_where_over, duel_round, earlier_tree, run_in
from latency import INIT_NEXT, bench_world, refused_answer, seeded_database

from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeInteraction

ROOT = Path(__file__).resolve().parents[1]
Counts = dict[str, dict[str, float]]


def route(method: str, path: str) -> str:
    shape = re.sub(r"/interactions/\d+/[^/]+/", "/interactions/{id}/{token}/", path)
    return f"request {method} " + re.sub(r"\d{6,}", "{id}", shape)


class BotCounts:
    """The bot's counts (``POMMEL_BENCH_COUNTS``, ``bench/apart_bot.py``) read at a moment: SIGUSR1, then
    the file it writes."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path, self.serial = pid, path, 0

    async def read(self) -> Counter[str]:
        self.serial += 1
        os.kill(self.pid, signal.SIGUSR1)
        for _ in range(500):
            await asyncio.sleep(0.01)
            if self.path.exists():
                written = json.loads(self.path.read_text())
                if written["serial"] >= self.serial:
                    return Counter(written["counts"])
        raise TimeoutError("the bot did not write its counts")


async def counted(actions: int, channels: int) -> Counts:
    async with FakeDiscord(validate_requests=False, validate_responses=False) as fake:
        world, tables, duels, _ = bench_world(fake, channels, 1)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "bench.sqlite3"
            targets = await seeded_database(path, world.gm, world.guild.id, tables, duels, deal=True)
            counts_file = Path(scratch) / "counts.json"
            os.environ["POMMEL_BENCH_COUNTS"] = str(counts_file)
            async with BotApart(fake, world, path, Path(scratch) / "bot.log") as bot:
                process = bot.process.process
                assert process is not None
                await bot.quiet()
                counter, meter = BotCounts(process.pid, counts_file), Meter(process.pid)
                await duel_round(bot, world, duels, targets, meter)  # the first of each, uncounted
                per_action: Counts = {}

                async def work_of(run: Awaitable[object]) -> Counter[str]:
                    requests, before = len(fake.requests), await counter.read()
                    await run
                    work = await counter.read() - before
                    work.update(route(r.method, r.path) for r in fake.requests[requests:])
                    return work

                def per(work: Counter[str]) -> dict[str, float]:
                    return {k: round(v / actions, 3) for k, v in sorted(work.items())}

                rounds = max(1, actions // channels)

                async def duel_rounds() -> None:
                    for _ in range(rounds):
                        await duel_round(bot, world, duels, targets, meter)

                # The attacks and the clicks alternate round by round: counted together, per pair.
                per_action["/attack + defense click (per pair)"] = per(await work_of(duel_rounds()))

                def init_next(channel: FakeChannel) -> Callable[[], Awaitable[FakeInteraction]]:
                    return lambda: bot.slash("init next", user=world.gm, channel=channel)

                await meter.series(bot, INIT_NEXT, [init_next(table) for table in tables])  # uncounted
                # As bench/cpu.py: in passes of one per channel, a new round dealt (uncounted) where one is
                # over, so that every /init next counted moves a turn (none is "Round 1 is over").
                init_work: Counter[str] = Counter()
                for first in range(0, actions, channels):
                    await deal_where_over(bot, world, tables)
                    passing = [
                        init_next(tables[n % channels]) for n in range(first, min(actions, first + channels))
                    ]
                    answered = meter.series(bot, INIT_NEXT, passing)
                    init_work += await work_of(refused_none(answered))
                per_action[INIT_NEXT] = per(init_work)
                return per_action


async def refused_none(answered: Awaitable[list[FakeInteraction]]) -> None:
    for inter in await answered:
        assert not refused_answer(inter), f"refused, so not counted: {inter.original}"


def counted_in(tree: Path, actions: int, channels: int) -> Counts:
    result: Counts = run_in(tree, "counts.py", "--actions", str(actions), "--channels", str(channels))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200, help="of each kind (default 200)")
    parser.add_argument("--channels", type=int, default=40, help="to spread them over (default 40)")
    parser.add_argument("--against", metavar="REV", help="an earlier commit to count beside, e.g. e4c8bfb")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(asyncio.run(counted(args.actions, args.channels))))
        return
    now = counted_in(ROOT, args.actions, args.channels)
    before: Counts = {}
    if args.against:
        with tempfile.TemporaryDirectory() as scratch:
            before = counted_in(earlier_tree(args.against, Path(scratch)), args.actions, args.channels)
    print(f"Work per action in the bot's own process ({args.actions} of each over {args.channels} channels)")
    for label, counts in now.items():
        heading = f"{'this tree':>10}{'at ' + args.against:>13}" if args.against else ""
        print(f"\n{label:<62}{heading}")
        earlier = before.get(label, {})
        for key in sorted(set(counts) | set(earlier)):
            then = f"{earlier.get(key, 0):>13.3f}" if args.against else ""
            print(f"  {key[:60]:<60}{counts.get(key, 0):>10.3f}{then}")


if __name__ == "__main__":
    main()
