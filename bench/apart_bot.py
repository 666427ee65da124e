"""The bot's process for ``bench/apart.py``: ``python -m bot`` as :mod:`tests.e2e.bot_process` runs it
(pointed at the fake, the settings from the environment, served until SIGTERM), with the benchmarks' own
commands (from ``bench/latency.py``) beside Pommel's. A script of its own, so that ``apart.py``, which
``latency.py`` imports, does not import ``latency.py`` back.

The bot of a commit from before a package discord.py picks up by itself (orjson) was pinned runs without
it (``POMMEL_BENCH_WITHOUT``, set by ``bench/cpu.py --against``): otherwise that commit's figures would be
of a bot it never was. So the bot's modules are imported only once those packages are blocked."""

from __future__ import annotations

import asyncio
import cProfile
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script


def without_unpinned() -> None:
    """``import`` of each package ``POMMEL_BENCH_WITHOUT`` names raises ModuleNotFoundError from now on."""
    for name in filter(None, os.environ.get("POMMEL_BENCH_WITHOUT", "").split(",")):
        sys.modules[name] = None  # type: ignore[assignment]


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
    profile_to = os.environ.get("POMMEL_BENCH_PROFILE")  # a cProfile of the whole run, for finding costs
    profiler = cProfile.Profile() if profile_to else None
    if profiler is not None:
        profiler.enable()
    try:
        # The event loop ``python -m bot`` runs on (uvloop's), or asyncio's for a commit from before it.
        run = getattr(entry_point, "run", asyncio.run)
        run(entry_point.serve(bot, settings.discord_token.get_secret_value()))
    finally:
        if profiler is not None and profile_to:
            profiler.disable()
            profiler.dump_stats(profile_to)
    return 0


if __name__ == "__main__":
    without_unpinned()
    from tests.e2e.bot_process import point_at_the_fake

    point_at_the_fake(sys.argv[1:])
    sys.exit(bot_main())
