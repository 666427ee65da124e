"""Pytest fixtures for end-to-end tests: thin wrappers over ``fake_discord/`` and ``harness.py``.

* ``fake_discord`` - a started :class:`FakeDiscord`, with Discord's rate limits (no latency); at teardown
  the test fails if the fake recorded problems (spec violations, unhandled routes, requests Discord would
  refuse, a 429 the bot ran into) that the test did not take with ``fake_discord.take_problems(...)``.
* ``world`` - the default cast (guild, #table, #lobby, GM/Admin roles, gm, player, player2, admin).
* ``bot_runner`` - a :class:`BotRunner` bound to the fake and to ``tmp_path / "pommel.sqlite3"``; at
  teardown it closes every bot it started and fails the test if the bot logged errors outside handlers.
* ``start_bot`` - ``await start_bot(setup=..., settings=..., **pommel_kwargs)`` -> :class:`RunningBot`;
  call it again after ``await bot.close()`` to restart on the same database file.
* ``pommel`` - a bot started with the defaults.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import pytest_runtest_makereport

from .fake_discord import FakeDiscord, World, build_world
from .harness import BotRunner, RunningBot

__all__ = ["pytest_runtest_makereport"]  # folds the skips of the PostgreSQL tests into one line


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    if fake.problems:
        pytest.fail(fake.problem_report(), pytrace=False)


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:
    return build_world(fake_discord)


@pytest.fixture
async def bot_runner(fake_discord: FakeDiscord, world: World, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake_discord, tmp_path / "pommel.sqlite3", default_channel=world.table)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.close()
    failures = runner.failures(include_problems=False)  # the fake_discord fixture reports those
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


@pytest.fixture
def start_bot(bot_runner: BotRunner) -> Any:
    """The factory: ``bot = await start_bot(setup=add_my_commands)``."""
    return bot_runner.start_bot


@pytest.fixture
async def pommel(bot_runner: BotRunner) -> RunningBot:
    return await bot_runner.start_bot()
