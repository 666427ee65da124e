"""The commands and clicks in progress, which shutdown lets finish first (a failure's one answer is in
:mod:`.failures`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from discord import app_commands

from ..rules.errors import RulesError

log = logging.getLogger(__name__)

DRAIN_SECONDS = 5.0
"""At shutdown, how long the commands and clicks in progress may take to finish (and answer) before the
bot disconnects: nearly all take well under a second; one waiting for the database gives up sooner."""


class ShuttingDown(RulesError, app_commands.CheckFailure):
    """A command or click that arrives once shutdown has begun: refused, changing nothing (a check
    failure, so that discord.py hands it to ``tree.on_error``)."""

    def __init__(self) -> None:
        super().__init__("Pommel is restarting, so nothing was done: try again in a minute.")


class InFlight:
    """The commands and clicks running, so that shutdown lets them finish first: a change they commit
    is then answered, not left unanswered by a connection to Discord closed under them. Once
    :meth:`drain` has begun, a new one is refused (:meth:`refuse_if_closing`)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closing = False

    def __len__(self) -> int:
        return len(self._tasks)

    def refuse_if_closing(self) -> None:
        if self.closing:
            raise ShuttingDown()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around a command's or a click's whole work (its answer, and what follows it)."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Refuse new commands from now on, and wait up to ``timeout`` seconds for those running."""
        self.closing = True
        running = [task for task in self._tasks if task is not asyncio.current_task()]
        if not running:
            return
        log.info("waiting for %d commands in progress to finish", len(running))
        _, left = await asyncio.wait(running, timeout=timeout)
        if left:
            log.warning("%d commands were still running at shutdown; their answers may be lost", len(left))
