"""Issue 29's goals, each figure beside its target: ``make bench`` ends with this, ``make bench-quick``
(or ``BENCH_QUICK=1``) runs it alone, small, in a few minutes.

Run on demand, never as a pass/fail test. Every figure is measured ``--runs`` times (3 by default, 1 in
the quick mode) and printed as the median [min-max]. The machine these run on is usually shared: the
absolute figures move with its load, the ratios (to the pong baseline and to the floor of a durable
reply, measured in the same run) much less.

1. the fake Discord's rate limits and latency: the 429s the benchmarks below met with Discord's limits
   on (target 0), and the user-felt time in round trips (80 ms each) with ten interactions in flight;
2. round trips in sequence before the answer (the user-felt time above, the bot's own time aside);
3. a 1,000-channel burst on one process with 80 ms of latency: the answers themselves at p99 (target
   within 3 s) and the 429s (target 0) (``--burst-channels``; ``bench/burst.py --channels 5000
   --sizes ''`` for a 5,000-channel one);
4. CPU per action in the bot's own process against the bot of ``e4c8bfb`` (before issue 29), run for
   run (``bench/cpu.py --against``): each action's figure over its pair's, whole process and main
   thread (target at most 0.67: down by a third); needs the git history of this checkout;
5. start-up with 100,000 stored fights (10,000 in the quick mode), 90 % ended or idle: the time to
   connect on SQLite, and on PostgreSQL where it is set (target under 5 s), and the CPU of one
   reminders' sweep with nothing due (``bench/startup.py``);
6. PostgreSQL's CPU per change, its server's included, over SQLite's (target at most 1.5x;
   ``bench/store_cpu.py``; needs ``POMMEL_TEST_DATABASE_URL``);
7. scale-out: the bots' CPU per change with 1, 2 and 3 processes on PostgreSQL, flat (needs
   ``POMMEL_TEST_DATABASE_URL``; skipped without);
8. regression guards: ``/attack`` p50 within 2.2x the floor in-process and 2.0x with the bot apart, its
   throughput with ten in flight at least 0.4x the floor's (measured as they were set: no latency, no
   rate limits), memory within +20 % at 10,000 fights touched, and an exact ``/odds`` under 1 ms cold;
   beside the in-process guards, the same figures of ``e4c8bfb``'s bot measured alike
   (``bench/guards.py``), for what the levels read today on the commit they were set on.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

import burst
import cpu
import latency
import memory
import scale_out
import startup
import store_cpu
from apart import percentile, tracker_shown, whole_answers

from bot.rules.odds import attack_odds, counting_die_ways
from tests.e2e.fake_discord import FakeDiscord
from tests.postgres import URL_VARIABLE

FELT_LATENCY = 0.080
TIMED = (latency.ATTACK, latency.DEFEND, latency.INIT_NEXT)
BEFORE = "e4c8bfb"
"""The commit before issue 29, goal 4's measure."""


@dataclass
class Goal:
    number: str
    what: str
    target: str
    unit: str
    meets: Callable[[float], bool]
    figures: list[float] = field(default_factory=list)

    def line(self) -> str:
        if not self.figures:
            return f"{self.number:>3}  {self.what:<58} {'not measured':<30} {self.target}"
        median = statistics.median(self.figures)
        spread = f" [{min(self.figures):.{self.digits}f}-{max(self.figures):.{self.digits}f}]"
        figure = f"{median:.{self.digits}f}{spread if len(self.figures) > 1 else ''} {self.unit}"
        verdict = "ok" if self.meets(median) else "MISSED"
        return f"{self.number:>3}  {self.what:<58} {figure:<30} {self.target:<22} {verdict}"

    @property
    def digits(self) -> int:
        return 0 if self.unit in ("429s", "%") else 2


@dataclass
class Sizes:
    interactions: int
    apart_interactions: int
    burst_channels: int
    scale_clients: int
    scale_interactions: int
    memory_fights: int
    cpu_actions: int
    stored_fights: int
    store_changes: int


FULL = Sizes(1000, 500, 1000, 16, 25, 10_000, 400, 100_000, 1000)
QUICK = Sizes(100, 60, 200, 8, 6, 1000, 80, 10_000, 300)


def odds_cold_ms() -> float:
    """An exact ``/odds`` (3 dice against 3) with the caches emptied first: the median of 50."""
    samples = []
    for _ in range(50):
        counting_die_ways.cache_clear()
        attack_odds.cache_clear()
        started = time.perf_counter()
        attack_odds(attack_dice=3, attack_bonus=6, defense_dice=3, defense_bonus=7)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def guards_of(revision: str, interactions: int) -> dict[str, float]:
    """Goal 8's in-process guards of an earlier commit's bot (``bench/guards.py``), measured as this
    tree's are: what the guards' levels read on the commit they were set on, today, on this machine."""
    with tempfile.TemporaryDirectory() as scratch:
        figures: dict[str, float] = cpu.run_in(
            cpu.earlier_tree(revision, Path(scratch)), "guards.py", "--interactions", str(interactions)
        )
        return figures


def round_trips(seconds: list[float]) -> float:
    return statistics.median(seconds) / FELT_LATENCY if seconds else float("nan")


async def measure_once(sizes: Sizes, goals: dict[str, Goal], *, scale: bool, mem: bool) -> None:
    limits = {"latency": 0.0, "rate_limits": True}
    felt = {"latency": FELT_LATENCY, "rate_limits": True}
    hits = 0

    def show(measured: dict[str, latency.Measured], fake: FakeDiscord, concurrency: int, n: int) -> None:
        print(latency.report(measured, fake, n, 20, concurrency), end="\n\n", flush=True)

    # The guards as they were set, before the fake had Discord's limits: in-process, the harness waits
    # for each command's tracker too, which Discord's per-channel buckets pace when a benchmark sends a
    # table more than one change a second.
    print("# goal 8: in-process, 1 and 10 in flight, no latency, no rate limits", flush=True)
    alone, fake = await latency.measure(sizes.interactions, 20, 1, latency.GUARDS)
    show(alone, fake, 1, sizes.interactions)
    ten, fake = await latency.measure(sizes.interactions, 20, 10, latency.GUARDS)
    show(ten, fake, 10, sizes.interactions)
    in_process = latency.guard_figures(alone, ten)
    goals["8a"].figures.append(in_process["8a"])
    goals["8c"].figures.append(in_process["8c"])

    print("# goal 8: the bot apart, 1 in flight, no latency, no rate limits", flush=True)
    apart, fake = await latency.measure_apart(sizes.apart_interactions, 20, 1, latency.GUARDS)
    show(apart, fake, 1, sizes.apart_interactions)
    goals["8b"].figures.append(apart[latency.ATTACK].p50 / apart[latency.FLOOR].p50)

    print("# goal 1: in-process, 10 in flight, Discord's rate limits (the 429s)", flush=True)
    limited, fake = await latency.measure(sizes.interactions, 20, 10, limits)
    show(limited, fake, 10, sizes.interactions)
    hits += len(fake.rate_limit_hits)

    print(f"# the bot apart, 10 in flight, {FELT_LATENCY * 1e3:.0f} ms round trips (goals 1, 2)")
    felt_run, fake = await latency.measure_apart(sizes.apart_interactions, 20, 10, felt)
    show(felt_run, fake, 10, sizes.apart_interactions)
    hits += len(fake.rate_limit_hits)
    for key, label in (("1a", latency.ATTACK), ("1b", latency.DEFEND), ("1c", latency.INIT_NEXT)):
        goals[key].figures.append(round_trips(whole_answers(felt_run[label].sent)))
    goals["1d"].figures.append(round_trips(tracker_shown(fake, felt_run[latency.ATTACK].sent)))
    goals["2"].figures.append(
        max(percentile(whole_answers(felt_run[label].sent), 0.99) for label in TIMED) / FELT_LATENCY
    )

    print(f"# {sizes.burst_channels}-channel burst, {FELT_LATENCY * 1e3:.0f} ms round trips (goal 3)")
    bursts = await burst.many_channels(sizes.burst_channels, felt)
    commands = [b for label, b in bursts.items() if label != "pong (baseline)"]
    goals["3a"].figures.append(max(b.p99 for b in commands))
    burst_hits = sum(b.rate_limited for b in bursts.values())
    goals["3b"].figures.append(burst_hits)
    hits += burst_hits

    if scale:
        print("# scale-out on PostgreSQL (goal 7)", flush=True)
        args = argparse.Namespace(
            clients=sizes.scale_clients,
            interactions=sizes.scale_interactions,
            warmup=2,
            guilds=1 if sizes is QUICK else 3,
            latency_ms=0.0,
            no_rate_limits=False,
        )
        figures = await scale_out.main(args)
        one = scale_out.cpu_per_change(figures[1])
        goals["7"].figures.append(max(scale_out.cpu_per_change(f) for f in figures[2:]) / one)
    if mem:
        print(f"# memory, {sizes.memory_fights} fights touched (goal 8)", flush=True)
        goals["8d"].figures.append(await memory.run(sizes.memory_fights, 10) * 100)
    url = os.environ.get(URL_VARIABLE, "").strip() or None
    print(f"# start-up with {sizes.stored_fights:,} stored fights (goal 5)", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        for kind, connect, sweep in (("sqlite", "5a", "5c"), ("postgres", "5b", "5d")):
            if kind == "postgres" and url is None:
                continue
            connects, sweeps = await startup.measure(kind, sizes.stored_fights, 1, Path(scratch), url)
            goals[connect].figures.append(connects[0])
            goals[sweep].figures.append(sweeps[0][0])
    if url is not None:
        print("# CPU per change, PostgreSQL against SQLite (goal 6)", flush=True)
        changes = argparse.Namespace(fights=20, changes=sizes.store_changes)
        with tempfile.TemporaryDirectory() as scratch:
            own, _, _ = await store_cpu.one("sqlite", changes, url, Path(scratch))
            mine, server, _ = await store_cpu.one("postgres", changes, url, Path(scratch))
        goals["6"].figures.append((mine + server) / own)
    goals["8e"].figures.append(odds_cold_ms())
    goals["1e"].figures.append(hits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", default=bool(os.environ.get("BENCH_QUICK")))
    parser.add_argument("--runs", type=int, default=None, help="measurements of each figure (3; quick: 1)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figure (the longest)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    sizes = QUICK if args.quick else FULL
    runs = args.runs or (1 if args.quick else 3)
    scale = bool(os.environ.get(URL_VARIABLE))

    def below(limit: float) -> Callable[[float], bool]:
        return lambda figure: figure <= limit

    rt = f"RT of {FELT_LATENCY * 1e3:.0f} ms"
    goals = {
        "1a": Goal("1", "/attack: to the answer, p50, 10 in flight", "<= 1 RT + bot time", rt, below(1.5)),
        "1b": Goal("1", "defense click: to the answer, p50", "<= 1 RT + bot time", rt, below(1.5)),
        "1c": Goal("1", "/init next: to the answer, p50", "<= 1 RT + bot time", rt, below(1.5)),
        "1d": Goal("1", "/attack: to the tracker showing it, p50", "reported", rt, lambda _: True),
        "1e": Goal("1", "429s over the benchmarks with Discord's limits on", "0", "429s", below(0)),
        "2": Goal(
            "2", "slowest answer (p99 of each command, the worst)", "<= 1 RT + bot time", rt, below(1.5)
        ),
        "3a": Goal(
            "3",
            f"{sizes.burst_channels}-channel burst: answers p99, worst command",
            "<= 3 s",
            "s",
            below(3.0),
        ),
        "3b": Goal("3", f"{sizes.burst_channels}-channel burst: 429s", "0", "429s", below(0)),
        "7": Goal("7", "CPU per change, 2 or 3 processes / 1 (PostgreSQL)", "flat (<= 1.2)", "x", below(1.2)),
        "8a": Goal("8", "/attack p50 / floor, in-process, 1 in flight", "<= 2.2", "x", below(2.2)),
        "8a0": Goal("8", f"  the same, {BEFORE}'s bot measured alike", "reported", "x", lambda _: True),
        "8b": Goal("8", "/attack p50 / floor, the bot apart", "<= 2.0", "x", below(2.0)),
        "8c": Goal("8", "/attack throughput / floor's, 10 in flight", ">= 0.4", "x", lambda f: f >= 0.4),
        "8c0": Goal("8", f"  the same, {BEFORE}'s bot measured alike", "reported", "x", lambda _: True),
        "8d": Goal("8", f"memory growth, {sizes.memory_fights} fights touched", "<= +20 %", "%", below(20)),
        "8e": Goal("8", "exact /odds, cold", "< 1 ms", "ms", lambda f: f < 1.0),
    }
    for short, key in (("/attack", "4a"), ("defense click", "4b"), ("/init next", "4c")):
        goals[key] = Goal(
            "4", f"{short}: CPU / {BEFORE}'s, the whole bot", "<= 0.67 (-1/3)", "x", below(0.67)
        )
        goals[key + "m"] = Goal("4", "  the same, the main thread alone", "<= 0.67 (-1/3)", "x", below(0.67))
    stored = f"{sizes.stored_fights:,} stored fights"
    for store, connect, sweep in (("SQLite", "5a", "5c"), ("PostgreSQL", "5b", "5d")):
        goals[connect] = Goal("5", f"connect with {stored}, {store}", "< 5 s", "s", below(5))
        goals[sweep] = Goal(
            "5", f"  a sweep's CPU, nothing due, {store}", "~0 per idle fight", "s", below(0.1)
        )
    goals["6"] = Goal("6", "CPU per change, PostgreSQL (server included) / SQLite", "<= 1.5", "x", below(1.5))
    for run in range(runs):
        print(f"## run {run + 1} of {runs}{' (quick)' if args.quick else ''}", flush=True)
        asyncio.run(measure_once(sizes, goals, scale=scale, mem=not args.no_memory))
        print(f"# CPU per action against {BEFORE}'s (goal 4)", flush=True)
        try:
            now, before = cpu.paired(BEFORE, sizes.cpu_actions, 20, 1)
        except (subprocess.CalledProcessError, FileNotFoundError) as error:
            print(f"goal 4 not measured: {error} (it needs this checkout's git history)", flush=True)
            continue
        for label, key in ((cpu.ATTACK, "4a"), (cpu.DEFEND, "4b"), (latency.INIT_NEXT, "4c")):
            ours, theirs = (" / ".join(cpu.cells(runs, label)) for runs in (now, before))
            print(f"{label} (whole / main thread): {ours} ms; at {BEFORE}: {theirs} ms", flush=True)
            whole, main_thread = cpu.ratios(now, before, label)
            goals[key].figures.append(whole)
            goals[key + "m"].figures.append(main_thread)
        print(f"# goal 8's in-process guards of {BEFORE}'s bot, measured alike", flush=True)
        try:
            set_on = guards_of(BEFORE, sizes.interactions)
        except (RuntimeError, subprocess.CalledProcessError) as error:
            print(f"{BEFORE}'s guards not measured: {error}", flush=True)
        else:
            print(f"at {BEFORE}: 8a {set_on['8a']:.2f}, 8c {set_on['8c']:.2f}", flush=True)
            goals["8a0"].figures.append(set_on["8a"])
            goals["8c0"].figures.append(set_on["8c"])
    print(
        f"\nissue 29's goals: median [min-max] of {runs} run(s){', quick sizes' if args.quick else ''}; "
        "on a shared machine the absolute figures move with its load"
    )
    for goal in sorted(goals.values(), key=lambda goal: goal.number):
        print(goal.line())
    if not scale:
        print(f"(goals 5 on PostgreSQL, 6 and 7 need {URL_VARIABLE}, e.g. postgresql://127.0.0.1:5432/test)")


if __name__ == "__main__":
    main()
