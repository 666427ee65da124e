"""CPU per action in the bot's own process (issue 29, goal 4).

Run on demand (``make bench``), never as a pass/fail test. The bot runs alone in its process
(``bench/apart.py``), on a real SQLite file; the fake Discord and its users run in this one. One action
at a time, over many channels (so that no tracker's spacing coalesces two of them): the GM's ``/attack``
in a duel of two NPCs (the policy asks the GM to defend), the GM's click on Passive that answers it, and
``/init next`` in fights of eight NPC groups (where a round is over, the next is dealt first, untimed);
and, for scale, the floor of any command that saves something (one commit, a one-word answer).
After each series the bot is left to finish what follows its answers (its bookkeeping, its trackers)
until it sends nothing more.

``--against REV`` measures the same actions with the bot of an earlier commit too (issue 29's "before" is
``e4c8bfb``), run for run, interleaved (which goes first alternating): that commit's ``bot/`` (and what
else it holds) with this tree's ``bench/`` and ``tests/`` around it, in a scratch directory, each run a
process of its own.

CPU is read from ``/proc``: the whole process (every thread: the database's too) and its main thread
alone (the event loop: discord.py, the commands, the trackers), per action, what the action costs after
its answer included. The quiet the bench waits for after each series costs CPU too (the heartbeat, the
timers): it is measured alone first and taken off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import BotApart, message_with_buttons
from latency import INIT_NEXT, bench_world, refused_answer, seeded_database

from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, World

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
ATTACK = "/attack (asks the GM's defense)"
DEFEND = "defense click (Passive)"
FLOOR = "floor (pong + 1 commit)"
"""For scale, not a goal: what discord.py's handling of a command costs with one durable commit and a
one-word answer (``bench/latency.py``'s floor), measured alike."""


def cpu_of(pid: int, tid: int | None = None) -> float:
    """User and system CPU seconds of a process (all its threads), or of one of its threads, so far."""
    where = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def end_profiled_period(pid: int, label: str) -> None:
    """With ``POMMEL_BENCH_PROFILE``, the bot's CPU samples since the last period go to a file named by
    ``label`` (``bench/apart_bot.py``'s :func:`sample_cpu`, read by ``bench/profile_report.py``)."""
    if profile_to := os.environ.get("POMMEL_BENCH_PROFILE"):
        Path(profile_to + ".label").write_text(label)
        os.kill(pid, signal.SIGUSR2)
        time.sleep(0.05)  # for the handler to read the label before the next period writes its own


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
        end_profiled_period(self.pid, "between")
        whole, main, started = self.read()
        answered = []
        for send in sends:
            inter = await send()
            assert inter.callback is not None, f"{label}: not answered"
            answered.append(inter)
        quiet_from = time.perf_counter()
        await bot.quiet()
        whole_now, main_now, now = self.read()
        end_profiled_period(self.pid, label.split(" ")[0].strip("/"))
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
                for first in range(0, actions, channels):  # a pass of one in each channel at a time
                    await deal_where_over(bot, world, tables)
                    passing = [
                        init_next(tables[n % channels]) for n in range(first, min(actions, first + channels))
                    ]
                    for inter in await meter.series(bot, INIT_NEXT, passing):
                        assert not refused_answer(inter), f"refused, so not measured: {inter.original}"

                def floor(channel: FakeChannel) -> Callable[[], Awaitable[FakeInteraction]]:
                    return lambda: bot.slash("bench-floor", user=world.gm, channel=channel)

                everywhere = tables + duels
                await warm_up.series(bot, FLOOR, [floor(channel) for channel in everywhere])
                floors = [floor(everywhere[n % len(everywhere)]) for n in range(actions)]
                await meter.series(bot, FLOOR, floors)
                return meter.per_action()


async def deal_where_over(bot: BotApart, world: World, tables: list[FakeChannel]) -> None:
    """Untimed: a new round dealt in each table whose round is over (eight turns, so the ninth
    ``/init next`` in a round would measure a refusal, not the command)."""
    for table in tables:
        state = await bot.slash("bench-round", user=world.gm, channel=table)
        if state.original is not None and state.original.content == "over":
            await bot.slash("init deal", user=world.gm, channel=table)


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


def earlier_tree(revision: str, scratch: Path) -> Path:
    """A commit's tree with this tree's ``bench/`` and ``tests/`` in place of its own."""
    tree = scratch / revision
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True)
    tree.mkdir()
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    for part in ("bench", "tests"):
        shutil.rmtree(tree / part, ignore_errors=True)
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


PICKED_UP = ("orjson",)
"""Packages discord.py uses by themselves when they are installed: a tree whose ``pyproject.toml`` does
not pin one runs without it (``bench/apart_bot.py``), as that commit's bot did."""


def not_pinned(tree: Path) -> list[str]:
    pinned = (tree / "pyproject.toml").read_text()
    return [name for name in PICKED_UP if f'"{name}==' not in pinned]


def started_in(tree: Path, script: str, *options: str) -> subprocess.Popen[str]:
    """The benchmark ``bench/<script>`` started with ``--json``, the bot of ``tree`` in a process of its
    own (without what ``tree`` does not pin)."""
    return subprocess.Popen(
        [sys.executable, str(tree / "bench" / script), "--json", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), "POMMEL_BENCH_WITHOUT": ",".join(not_pinned(tree))},
    )


def finished(process: subprocess.Popen[str]) -> Any:
    """What a benchmark of :func:`started_in` printed on its last line, once it is done."""
    out, err = process.communicate()
    if process.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-15:])
        raise RuntimeError(f"{process.args!r} failed ({process.returncode}):\n{tail}")
    return json.loads(out.strip().splitlines()[-1])


def run_in(tree: Path, script: str, *options: str) -> Any:
    """One run of the benchmark ``bench/<script>`` (:func:`started_in`): what its last line printed."""
    return finished(started_in(tree, script, *options))


def started_with(tree: Path, actions: int, channels: int) -> subprocess.Popen[str]:
    """One run of this benchmark with the bot of ``tree``, in a process of its own, started."""
    return started_in(tree, "cpu.py", "--runs", "1", "--actions", str(actions), "--channels", str(channels))


def figures_of(process: subprocess.Popen[str]) -> dict[str, tuple[float, float]]:
    figures: dict[str, list[float]] = finished(process)
    return {label: (whole, main) for label, (whole, main) in figures.items()}


def paired(
    revision: str, actions: int, channels: int, runs: int, *, together: bool = False
) -> tuple[list[dict[str, tuple[float, float]]], list[dict[str, tuple[float, float]]]]:
    """Runs of this tree and of ``revision``, one after the other, which goes first alternating from pair
    to pair (this tree's in the first): a machine that slows down or speeds up over the runs (a shared
    host, a virtual machine's CPU credits) then does not always favour the same tree. ``together``: the
    two of a pair run at the same time instead, so that they meet the same machine (each bot's CPU is
    its own; the two share the cores, which costs both alike)."""
    now: list[dict[str, tuple[float, float]]] = []
    before: list[dict[str, tuple[float, float]]] = []
    with tempfile.TemporaryDirectory() as scratch:
        tree = earlier_tree(revision, Path(scratch))
        for run in range(runs):
            order = (ROOT, tree) if run % 2 == 0 else (tree, ROOT)
            if together:
                started = {each: started_with(each, actions, channels) for each in order}
                figures = {each: figures_of(process) for each, process in started.items()}
            else:  # one after the other, in that order
                figures = {each: figures_of(started_with(each, actions, channels)) for each in order}
            now.append(figures[ROOT])
            before.append(figures[tree])
    return now, before


def cells(runs: list[dict[str, tuple[float, float]]], label: str) -> list[str]:
    out = []
    for index in (0, 1):
        values = [run[label][index] for run in runs]
        out.append(f"{statistics.median(values):6.2f} [{min(values):.2f}-{max(values):.2f}]")
    return out


def ratios(
    now: list[dict[str, tuple[float, float]]], before: list[dict[str, tuple[float, float]]], label: str
) -> tuple[float, float]:
    """Each run's figure over its pair's, the median of those (whole process, main thread)."""
    return (
        statistics.median(n[label][0] / b[label][0] for n, b in zip(now, before, strict=True)),
        statistics.median(n[label][1] / b[label][1] for n, b in zip(now, before, strict=True)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=400, help="of each kind (default 400)")
    parser.add_argument("--channels", type=int, default=40, help="to spread them over (default 40)")
    parser.add_argument("--runs", type=int, default=3, help="runs; each figure's median [min-max]")
    parser.add_argument("--against", metavar="REV", help="an earlier commit to measure beside, e.g. e4c8bfb")
    parser.add_argument(
        "--together", action="store_true", help="with --against: the two runs of a pair at the same time"
    )
    parser.add_argument("--json", action="store_true", help="print one run's figures as JSON (for --against)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.json:
        print(json.dumps(asyncio.run(measure(args.actions, args.channels))))
        return
    if args.against:
        runs, before = paired(args.against, args.actions, args.channels, args.runs, together=args.together)
    else:
        runs = [asyncio.run(measure(args.actions, args.channels)) for _ in range(args.runs)]
    print(
        f"CPU per action in the bot's own process, ms ({args.actions} of each over {args.channels} channels;"
        f" {args.runs} runs: median [min-max])"
    )
    print(f"{'action':<34} {'whole process':>22} {'main thread':>22}")
    for label in runs[0]:
        whole, main = cells(runs, label)
        print(f"{label:<34} {whole:>22} {main:>22}")
        if args.against:
            whole, main = cells(before, label)
            print(f"{'  at ' + args.against:<34} {whole:>22} {main:>22}")
            whole_ratio, main_ratio = ratios(runs, before, label)
            goal = "no goal: for scale" if label == FLOOR else "goal: at most 0.67"
            print(f"{'  ratio (' + goal + ')':<34} {whole_ratio:>15.2f}x {main_ratio:>21.2f}x")


if __name__ == "__main__":
    main()
