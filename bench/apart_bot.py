"""The bot's process for ``bench/apart.py``: ``python -m bot`` as :mod:`tests.e2e.bot_process` runs it
(pointed at the fake, the settings from the environment, served until SIGTERM), with the benchmarks' own
commands (from ``bench/latency.py``) beside Pommel's. A script of its own, so that ``apart.py``, which
``latency.py`` imports, does not import ``latency.py`` back.

The bot of a commit from before a package discord.py picks up by itself (orjson) was pinned runs without
it (``POMMEL_BENCH_WITHOUT``, set by ``bench/cpu.py --against``): otherwise that commit's figures would be
of a bot it never was. So the bot's modules are imported only once those packages are blocked."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.e2e when run as a script


def without_unpinned() -> None:
    """``import`` of each package ``POMMEL_BENCH_WITHOUT`` names raises ModuleNotFoundError from now on."""
    for name in filter(None, os.environ.get("POMMEL_BENCH_WITHOUT", "").split(",")):
        sys.modules[name] = None  # type: ignore[assignment]


def count_work(path: str) -> None:
    """Count what the bot's process does, exactly (``POMMEL_BENCH_COUNTS``, for ``bench/counts.py``): the
    SQL statements its SQLite connections run (by their first words) and the garbage collector's passes
    (by generation). Each SIGUSR1 writes the counts so far to ``path`` as JSON, with a serial number."""
    import collections
    import gc
    import json
    import signal
    import sqlite3

    counts: collections.Counter[str] = collections.Counter()
    serial = [0]
    connect = sqlite3.connect

    def statement(sql: str) -> None:
        counts["sql " + " ".join(sql.split()[:4])] += 1  # GIL-atomic enough for a count

    def counted(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection: sqlite3.Connection = connect(*args, **kwargs)
        connection.set_trace_callback(statement)
        return connection

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            counts[f"gc generation {info['generation']}"] += 1
            counts["gc objects collected"] += info["collected"]

    def write(*_: object) -> None:
        serial[0] += 1
        Path(path + ".part").write_text(json.dumps({"serial": serial[0], "counts": dict(counts)}))
        os.replace(path + ".part", path)

    sqlite3.connect = counted  # type: ignore[assignment]
    gc.callbacks.append(collected)
    signal.signal(signal.SIGUSR1, write)


def sample_cpu(to: str) -> None:
    """Where the bot's CPU goes, for finding costs (``POMMEL_BENCH_PROFILE``): every half millisecond of
    the process's CPU (``ITIMER_PROF``), each thread's CPU since the last sample (its own clock) is added
    to the stack that thread is in now. Unlike cProfile, nothing is slowed per call (Python code is not
    made to look dearer than C) and the database's thread is seen too; the main thread's samples are
    exact (the signal interrupts it), another thread's CPU lands on where it is at the sample.

    Each SIGUSR2 ends a period named by the file ``<to>.label`` (written by the bench before it
    signals): its stacks go to ``<to>.<label>.<serial>`` as JSON (``"thread;outer;...;inner"`` to CPU
    seconds), read by ``bench/profile_report.py``."""
    import collections
    import json
    import signal
    import threading

    stacks: dict[str, float] = collections.defaultdict(float)
    last: dict[int, float] = {}
    serial = itertools.count(1)

    def stack_of(frame: Any) -> list[str]:
        names = []
        while frame is not None:
            code = frame.f_code
            where = code.co_filename.split("site-packages/")[-1].removeprefix(str(ROOT) + "/")
            names.append(f"{code.co_name} ({where}:{code.co_firstlineno})")
            frame = frame.f_back
        return names[::-1]

    def sample(_: int, here: Any) -> None:
        frames = sys._current_frames()
        frames[threading.main_thread().ident or 0] = here  # the frame it interrupted, not the handler
        for thread in threading.enumerate():
            if thread.ident is None or thread.ident not in frames:
                continue
            try:
                now = time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
            except OSError:  # it ended meanwhile
                continue
            spent = now - last.get(thread.ident, now)
            last[thread.ident] = now
            if spent > 0:
                name = thread.name.split(" ")[0]
                stacks[";".join([name, *stack_of(frames[thread.ident])])] += spent

    def period_ended(*_: object) -> None:
        label = Path(to + ".label").read_text().strip()
        Path(f"{to}.{label}.{next(serial)}").write_text(json.dumps(stacks))
        stacks.clear()

    signal.signal(signal.SIGPROF, sample)
    signal.signal(signal.SIGUSR2, period_ended)
    signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)


def bot_main() -> int:
    from latency import add_baseline, add_setup_commands

    import bot.__main__ as entry_point
    from bot.app import Pommel
    from bot.config import Settings

    settings = Settings()  # from the environment BotProcess sets
    logging.basicConfig(level=logging.WARNING)
    bot = Pommel(settings)
    bot._connection.guild_ready_timeout = 0.01
    add_baseline(bot)
    add_setup_commands(bot)
    if profile_to := os.environ.get("POMMEL_BENCH_PROFILE"):
        sample_cpu(profile_to)
    # The event loop ``python -m bot`` runs on (uvloop's), or asyncio's for a commit from before it.
    run = getattr(entry_point, "run", asyncio.run)
    run(entry_point.serve(bot, settings.discord_token.get_secret_value()))
    return 0


if __name__ == "__main__":
    without_unpinned()
    if counts_to := os.environ.get("POMMEL_BENCH_COUNTS"):
        count_work(counts_to)
    from tests.e2e.bot_process import point_at_the_fake

    point_at_the_fake(sys.argv[1:])
    sys.exit(bot_main())
