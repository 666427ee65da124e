"""The bot in a process of its own, the fake Discord and its users in this one.

In ``bench/latency.py`` and the first scenes of ``bench/burst.py`` the fake Discord runs on the bot's
own event loop: what it does for every request (parsing it, keeping the message, answering, sending the
next interaction) takes the bot's time, as a real Discord never would. For one interaction at a time that
is a fair share of both the baseline and the command; for a thousand at once it is not: the fake's half
of the work delays the bot's answers, and the pong baseline itself misses Discord's 3 s.

Here the bot runs as Pommel runs in production, alone in its process (``python bench/apart.py --bot
...``, started and stopped by :class:`BotApart`), on a real SQLite file, with the bot's own tracker
spacing, and the benchmark's users click and type in the fake Discord of this process, on the machine's
other core. Latency is still from the fake sending INTERACTION_CREATE to it receiving the first callback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import discord
import yarl
from discord.gateway import DiscordWebSocket

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from tests.e2e.fake_discord import (
    DispatchError,
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    World,
)
from tests.e2e.payloads import command_data, component_data

READY_SECONDS = 60.0
QUIET_SECONDS = 1.5
"""Longer than a tracker's spacing: the bot is done when the fake has had no request for this long."""


class BotApart:
    """Pommel in a child process, connected to ``fake`` (this process's) over 127.0.0.1, on the SQLite
    file ``database`` (seed it before: the child opens it at login)."""

    def __init__(self, fake: FakeDiscord, world: World, database: Path) -> None:
        self.fake = fake
        self.world = world
        self.database = database
        self.process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> BotApart:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--bot",
            "--api-base",
            self.fake.api_base,
            "--gateway",
            self.fake.gateway_url,
            "--token",
            self.fake.token,
            "--database",
            str(self.database),
        )
        await self._until_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()

    async def _until_ready(self) -> None:
        """Until the bot has synced its commands and answers a pong in the world's first channel."""
        deadline = time.monotonic() + READY_SECONDS
        channel = self.world.guild.text_channels[0]
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.returncode is not None:
                raise RuntimeError(
                    f"the bot's process ended at start-up (exit code {self.process.returncode})"
                )
            try:
                answered = await self.slash("bench-ping", user=self.world.gm, channel=channel, timeout=1.0)
            except DispatchError:  # its commands are not synced yet
                answered = None
            if answered is not None and answered.callback is not None:
                return
            await asyncio.sleep(0.2)
        raise RuntimeError(f"the bot's process was not ready within {READY_SECONDS:.0f} s")

    async def slash(
        self,
        command: str,
        *,
        user: FakeUser,
        channel: FakeChannel,
        options: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
    ) -> FakeInteraction:
        """``/command`` as ``user`` in ``channel``; returns the interaction once its first callback came
        (or ``timeout`` passed: then it has none)."""
        root, *path = command.split()
        synced = self.fake.find_command(root, channel.guild)
        data = command_data(self.fake, synced, path, options or {}, channel)
        inter = self.fake.new_interaction(type=2, user=user, channel=channel, data=data, command_name=command)
        return await self._send(inter, timeout)

    async def click(
        self, message: FakeMessage, custom_id: str, *, user: FakeUser, timeout: float = 120.0
    ) -> FakeInteraction:
        data = component_data(message, custom_id, None, message.channel)
        inter = self.fake.new_interaction(
            type=3, user=user, channel=message.channel, data=data, message=message
        )
        return await self._send(inter, timeout)

    async def _send(self, inter: FakeInteraction, timeout: float) -> FakeInteraction:
        await self.fake.send_interaction(inter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inter.answered.wait(), timeout)
        return inter

    async def quiet(self) -> None:
        """Until the bot has sent the fake nothing for :data:`QUIET_SECONDS` (its follow-ups, its
        bookkeeping and its trackers done)."""
        seen = -1
        while len(self.fake.requests) != seen:
            seen = len(self.fake.requests)
            await asyncio.sleep(QUIET_SECONDS)


def message_with_buttons(inter: FakeInteraction) -> FakeMessage | None:
    """The message of an answer that carries buttons: the response, or a follow-up after a deferral."""
    return next((m for m in [inter.original, *inter.followups] if m is not None and m.custom_ids()), None)


def first_answers(interactions: Sequence[FakeInteraction]) -> list[float]:
    """Seconds from each interaction sent to its first callback, for those that had one."""
    return [
        inter.callback.at - inter.dispatched_at
        for inter in interactions
        if inter.callback is not None and inter.dispatched_at is not None
    ]


def whole_answers(interactions: Sequence[FakeInteraction]) -> list[float]:
    """Seconds from each interaction sent to its answer itself: its first callback, or after a deferral,
    the follow-up (a command's) or the edit of its message (a click's); for those that had one."""
    out = []
    for inter in interactions:
        if inter.callback is None or inter.dispatched_at is None:
            continue
        if inter.callback.type not in (5, 6):
            out.append(inter.callback.at - inter.dispatched_at)
            continue
        edits = [edit.at for edit in inter.edits if edit.target == "@original"]
        came = [m.created_at for m in inter.followups] if inter.callback.type == 5 else []
        if came or edits:
            out.append(min(came or edits) - inter.dispatched_at)
    return out


# ---------------------------------------------------------------------------------- the bot's process


async def run_bot(api_base: str, gateway: str, token: str, database: Path) -> None:
    """Pommel as in production, pointed at the fake Discord, with the benchmarks' pong commands."""
    from latency import add_baseline

    from bot.app import Pommel
    from bot.config import Settings
    from bot.rules.dice import RandomDice

    discord.http.Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    settings = Settings(_env_file=None, discord_token=token, database_path=database, dev_guild_id=None)
    bot = Pommel(settings, dice=RandomDice.seeded(7))
    bot._connection.guild_ready_timeout = 0.01
    bot.http.http_trace = _local_only()
    add_baseline(bot)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    await bot.start(token)


def _local_only() -> aiohttp.TraceConfig:
    """Refuse any request not aimed at 127.0.0.1 (a benchmark never leaves the machine)."""

    async def on_request_start(session: aiohttp.ClientSession, context: Any, params: Any) -> None:
        if params.url.host != "127.0.0.1":
            raise RuntimeError(f"benchmarks must not reach {params.url}")

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_request_start)
    return trace


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The bot's half of a benchmark (started by BotApart)")
    parser.add_argument("--bot", action="store_true", required=True)
    parser.add_argument("--api-base", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", type=Path, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(run_bot(args.api_base, args.gateway, args.token, args.database))
