"""A file the bot rewrites every half minute while it is connected to Discord, for a supervisor to watch
(``pommel check --alive``, the Docker image's HEALTHCHECK): a process that hangs, or stays up without a
gateway connection, stops rewriting it and is seen as unhealthy within a minute and a half.

``HEARTBEAT_PATH`` names the file; without it there is none. A clean stop removes the file, so a bot that
was stopped is not taken for a live one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from .scheduler import Scheduler

log = logging.getLogger(__name__)

BEAT_SECONDS = 30.0
"""How often the file is rewritten while the bot is connected."""
STALE_SECONDS = 3 * BEAT_SECONDS
"""A file older than this means the bot is not alive: two beats missed, and a margin for a reconnect."""
POLL_SECONDS = 1.0
"""How often the bot looks at its connection: the first beat comes within a second of being ready."""


class Heartbeat:
    """Rewrites ``path`` every ``every`` seconds while ``connected()`` says so, from :meth:`start` to
    :meth:`stop`: a repeating job of ``scheduler`` (the bot's; one of its own when none is given)."""

    KEY = "heartbeat"

    def __init__(
        self,
        path: Path,
        connected: Callable[[], bool],
        *,
        every: float = BEAT_SECONDS,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.path = path
        self.connected = connected
        self.every = every
        self.scheduler = scheduler if scheduler is not None else Scheduler("heartbeat")
        self._last = float("-inf")
        self._failing = False

    def start(self) -> None:
        self.scheduler.every(POLL_SECONDS, self.KEY, self._beat)

    async def stop(self) -> None:
        await self.scheduler.stop(self.KEY)
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            log.warning("could not remove the heartbeat file %s", self.path, exc_info=True)

    async def _beat(self) -> None:
        now = time.monotonic()
        if now - self._last >= self.every and self.connected():
            self._last = now
            await asyncio.to_thread(self._write)

    def _write(self) -> None:
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            partial.write_text(f"{datetime.now(UTC).isoformat(timespec='seconds')} pid {os.getpid()}\n")
            os.replace(partial, self.path)
        except OSError:
            if not self._failing:  # once, not every half minute
                log.warning("could not write the heartbeat file %s", self.path, exc_info=True)
            self._failing = True
        else:
            self._failing = False


def heartbeat_age(path: Path) -> float | None:
    """Seconds since the bot last wrote ``path``; None when there is no such file."""
    try:
        written = path.stat().st_mtime
    except FileNotFoundError:
        return None
    return max(0.0, time.time() - written)
