"""Pommel processes of their own against the fake Discord, driven as users would, from outside.

The in-process harness (:mod:`tests.e2e.harness`) watches the bot's own tasks to know when it is done;
a process of its own can only be watched the way Discord sees it: an interaction is answered when its
response message has content. :class:`BotProcess` starts ``python -m tests.e2e.bot_process`` with
its shards and database, and stops it (SIGTERM) or kills it (SIGKILL: no close, no cleanup).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from bot.store import is_postgres_url

from .fake_discord import FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from .payloads import command_data, component_data

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ("DATABASE_URL", "DATABASE_PATH", "SHARD_COUNT", "SHARD_IDS", "DEV_GUILD_ID", "DISCORD_TOKEN")
"""Pommel's settings, never inherited from the environment the tests run in."""


class BotProcess:
    """One Pommel process serving ``shard_ids`` of ``shard_count``, its log in ``log_path``; ``database``
    is a ``postgresql://`` URL or a SQLite file's path."""

    def __init__(
        self,
        fake: FakeDiscord,
        database: str,
        shard_ids: Sequence[int],
        shard_count: int,
        log_path: Path,
        *,
        program: Sequence[str] = ("-m", "tests.e2e.bot_process"),
    ) -> None:
        """``program`` is what ``python`` runs, given the fake's REST base and gateway after it: by
        default :mod:`tests.e2e.bot_process` (``python -m bot`` pointed at the fake)."""
        self.program = list(program)
        self.fake = fake
        self.database = database
        self.shard_ids = list(shard_ids)
        self.shard_count = shard_count
        self.log_path = log_path
        self.process: asyncio.subprocess.Process | None = None
        self._log: TextIO | None = None

    @property
    def name(self) -> str:
        return f"the process of shards {self.shard_ids}"

    async def start(self, *, timeout: float = 60.0) -> None:
        """Start it and wait until each of its shards has identified (its cogs are loaded by then)."""
        assert self.process is None or self.process.returncode is not None, f"{self.name} is running"
        known = len(self.fake.sessions)
        inherited = {k: v for k, v in os.environ.items() if k not in SETTINGS}
        env = {
            **inherited,
            "DISCORD_TOKEN": self.fake.token,
            ("DATABASE_URL" if is_postgres_url(self.database) else "DATABASE_PATH"): self.database,
            "SHARD_COUNT": str(self.shard_count),
            "SHARD_IDS": ",".join(map(str, self.shard_ids)),
            "LOG_LEVEL": "INFO",
            "PYTHONPATH": str(ROOT),
        }
        self._log = self.log_path.open("a")
        self._log.write(f"---- start {self.name}\n")
        self._log.flush()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            *self.program,
            self.fake.api_base,
            self.fake.gateway_url,
            cwd=str(ROOT),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
        )
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            identified = {s.shard[0] for s in self.fake.sessions[known:] if s.connection is not None}
            if set(self.shard_ids) <= identified:
                return
            if self.process.returncode is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}: {self.log_tail()}")
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{self.name} did not identify within {timeout} s: {self.log_tail()}")
            await asyncio.sleep(0.05)

    async def kill(self) -> None:
        """SIGKILL: the process dies at once, whatever it was doing."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, and wait for the clean shutdown; its exit status."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), timeout)

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                await self.stop()
            except TimeoutError:
                await self.kill()
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 30) -> str:
        if self._log is not None:
            self._log.flush()
        return "\n".join(self.log_path.read_text().splitlines()[-lines:])


def slash(
    fake: FakeDiscord,
    command: str,
    *,
    user: FakeUser,
    channel: FakeChannel,
    options: Mapping[str, Any] | None = None,
) -> FakeInteraction:
    """``/command option:value`` as ``user`` in ``channel``, ready to send."""
    root, *path = command.split()
    synced = fake.find_command(root, channel.guild)
    data = command_data(fake, synced, path, options or {}, channel)
    return fake.new_interaction(type=2, user=user, channel=channel, data=data, command_name=command)


def click(fake: FakeDiscord, message: FakeMessage, custom_id: str, *, user: FakeUser) -> FakeInteraction:
    """``user`` clicks ``custom_id`` on ``message``, ready to send."""
    data = component_data(message, custom_id, None, message.channel)
    return fake.new_interaction(type=3, user=user, channel=message.channel, data=data, message=message)


def answered(inter: FakeInteraction) -> bool:
    """Whether the user saw an answer: a response message with content (a deferred one, once it was
    edited in), or an update of the clicked message."""
    if inter.callback is None:
        return False
    if inter.callback.type in (6, 7):  # the clicked message updated (or to be)
        return inter.callback.type == 7 or bool(inter.edits)
    return inter.original is not None and bool(inter.original.content)


async def send(fake: FakeDiscord, inter: FakeInteraction, *, timeout: float = 60.0) -> bool:
    """Send the interaction; True once it is answered, False when no answer came within ``timeout`` (by
    default a hang guard, generous for a loaded machine: pass a shorter one only where no answer is a
    possible outcome)."""
    await fake.send_interaction(inter)
    deadline = asyncio.get_running_loop().time() + timeout
    while not answered(inter):
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True
