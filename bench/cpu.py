"""CPU per action in the bot's own process (issue 29, goal 4).

Run on demand (``make bench``), never as a pass/fail test. The bot runs alone in its process
(``bench/apart.py``), on a real SQLite file; the fake Discord and its users run in this one. One action
at a time, over many channels (so that no tracker's spacing coalesces two of them): the GM's ``/attack``
in a duel of two NPCs (the policy asks the GM to defend), the GM's click on Passive that answers it, and
``/init next`` in fights of eight NPC groups. After each series the bot is left to finish what follows
its answers (its bookkeeping, its trackers) until it sends nothing more.

CPU is read from ``/proc``: the whole process (every thread: the database's too) and its main thread
alone (the event loop: discord.py, the commands, the trackers), per action, what the action costs after
its answer included. The quiet the bench waits for after each series costs CPU too (the heartbeat, the
timers): it is measured alone first and taken off.
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
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import BotApart, message_with_buttons
from latency import INIT_NEXT, bench_world, seeded_database

from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, World

TICK = os.sysconf("SC_CLK_TCK")
ATTACK = "/attack (asks the GM's defense)"
DEFEND = "defense click (Passive)"


def cpu_of(pid: int, tid: int | None = None) -> float:
    """User and system CPU seconds of a process (all its threads), or of one of its threads, so far."""
    where = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Meter:
    """Sums the bot process's CPU (whole, and its main thread's) over the series of one kind of action,
    less the quiet's share."""

    def __init__(self, pid: int, idle: tuple[float, float] = (0.0, 0.0)) -> None:
        self.pid = pid
        self.idle = idle
        """CPU seconds a second of quiet costs (whole, main thread)."""
        self.totals: dict[str, list[float]] = {}

    def read(self) -> tuple[float, float, float]:
        return cpu_of(self.pid), cpu_of(self.pid, self.pid), time.perf_counter()

    async def series(
        self, bot: BotApart, label: str, sends: list[Callable[[], Awaitable[FakeInteraction]]]
    ) -> list[FakeInteraction]:
        """Send one action after the other (each once answered), then wait for the bot's quiet."""
        whole, main, started = self.read()
        answered = []
        for send in sends:
            inter = await send()
            assert inter.callback is not None, f"{label}: not answered"
            answered.append(inter)
        quiet_from = time.perf_counter()
        await bot.quiet()
        whole_now, main_now, now = self.read()
        quiet = now - quiet_from
        total = self.totals.setdefault(label, [0.0, 0.0, 0.0])
        total[0] += whole_now - whole - self.idle[0] * quiet
        total[1] += main_now - main - self.idle[1] * quiet
        total[2] += len(sends)
        del started
        return answered

    def per_action(self) -> dict[str, tuple[float, float]]:
        """Milliseconds per action (whole process, main thread)."""
        return {label: (w / n * 1e3, m / n * 1e3) for label, (w, m, n) in self.totals.items()}


async def measure(actions: int, channels: int) -> dict[str, tuple[float, float]]:
    async with FakeDiscord(validate_requests=False, validate_responses=False) as fake:
        world, tables, duels, _ = bench_world(fake, channels, 1)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "bench.sqlite3"
            targets = await seeded_database(path, world.gm, world.guild.id, tables, duels, deal=True)
            async with BotApart(fake, world, path, Path(scratch) / "bot.log") as bot:
                process = bot.process.process
                assert process is not None
                await bot.quiet()
                whole, main, started = Meter(process.pid).read()
                await asyncio.sleep(5.0)
                whole_now, main_now, now = Meter(process.pid).read()
                idle = ((whole_now - whole) / (now - started), (main_now - main) / (now - started))
                warm_up = Meter(process.pid, idle)
                meter = Meter(process.pid, idle)
                await duel_round(bot, world, duels, targets, warm_up)  # untimed: the first of each
                for _ in range(max(1, actions // channels)):
                    await duel_round(bot, world, duels, targets, meter)

                def init_next(channel: FakeChannel) -> Callable[[], Awaitable[FakeInteraction]]:
                    return lambda: bot.slash("init next", user=world.gm, channel=channel)

                await warm_up.series(bot, INIT_NEXT, [init_next(table) for table in tables])
                await meter.series(bot, INIT_NEXT, [init_next(tables[n % channels]) for n in range(actions)])
                return meter.per_action()


async def duel_round(
    bot: BotApart, world: World, duels: list[FakeChannel], targets: dict[int, str], meter: Meter
) -> None:
    """Every duel readied (untimed), one /attack in each, then the GM's Passive in each."""
    for channel in duels:
        readied = await bot.slash("bench-ready", user=world.gm, channel=channel)
        assert readied.original is not None
        targets[channel.id] = readied.original.content
    await bot.quiet()

    def attack(channel: FakeChannel) -> Callable[[], Awaitable[FakeInteraction]]:
        options = {"target": targets[channel.id]}
        return lambda: bot.slash("attack", user=world.gm, channel=channel, options=options)

    asked = await meter.series(bot, ATTACK, [attack(channel) for channel in duels])

    def passive(inter: FakeInteraction) -> Callable[[], Awaitable[FakeInteraction]]:
        message = message_with_buttons(inter)
        assert message is not None, f"/attack was refused: {inter.original}"
        button = next(i for i in message.custom_ids() if i.endswith(":passive"))
        return lambda: bot.click(message, button, user=world.gm)

    await meter.series(bot, DEFEND, [passive(inter) for inter in asked])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=400, help="of each kind (default 400)")
    parser.add_argument("--channels", type=int, default=40, help="to spread them over (default 40)")
    parser.add_argument("--runs", type=int, default=3, help="runs; each figure's median [min-max]")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    runs = [asyncio.run(measure(args.actions, args.channels)) for _ in range(args.runs)]
    print(
        f"CPU per action in the bot's own process, ms ({args.actions} of each over {args.channels} channels;"
        f" {args.runs} runs: median [min-max])"
    )
    print(f"{'action':<34} {'whole process':>22} {'main thread':>22}")
    for label in runs[0]:
        cells = []
        for index in (0, 1):
            values = [run[label][index] for run in runs]
            cells.append(f"{statistics.median(values):6.2f} [{min(values):.2f}-{max(values):.2f}]")
        print(f"{label:<34} {cells[0]:>22} {cells[1]:>22}")


if __name__ == "__main__":
    main()
