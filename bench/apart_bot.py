"""The bot's process for ``bench/apart.py``: ``python -m bot`` as :mod:`tests.e2e.bot_process` runs it
(pointed at the fake, the settings from the environment, served until SIGTERM), with the benchmarks' own
commands (from ``bench/latency.py``) beside Pommel's. A script of its own, so that ``apart.py``, which
``latency.py`` imports, does not import ``latency.py`` back."""

from __future__ import annotations

import asyncio
import cProfile
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from latency import add_baseline, add_setup_commands

from bot.__main__ import serve
from bot.app import Pommel
from bot.config import Settings
from tests.e2e.bot_process import point_at_the_fake


def bot_main() -> int:
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
        asyncio.run(serve(bot, settings.discord_token.get_secret_value()))
    finally:
        if profiler is not None and profile_to:
            profiler.disable()
            profiler.dump_stats(profile_to)
    return 0


if __name__ == "__main__":
    point_at_the_fake(sys.argv[1:])
    sys.exit(bot_main())
