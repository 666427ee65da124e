"""Every timer of the bot, in one place: one-shot jobs keyed by what they are for (a defense's timeout,
keyed by its channel and exchange), and repeating jobs (the sweeps of reminders and of the servers
Pommel left, the heartbeat).

One instance lives on the bot (``bot.scheduler``); closing the bot cancels whatever is still scheduled
or running. A key holds one job at a time: scheduling a key already held is refused, cancelling one not
held does nothing, and a job done (or cancelled) frees its key. A job's exception is logged with its key
and goes no further; a repeating job runs again at its next turn.

Repeating jobs are the scheduler's too, rather than ``discord.ext.tasks`` loops: one way for every timer,
one place that cancels them all at shutdown, and one clock and one ``sleep`` that tests replace (a
``tasks.loop`` sleeps on the event loop's own clock, and stops for good at its first unexpected error).

Nothing is stored: what must outlive a restart is in the fights, and is scheduled again from them when
the bot starts (the defenses' deadlines), or is found by the first sweep.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger(__name__)

Job = Coroutine[Any, Any, None]
"""A one-shot job: a coroutine, run once when its time comes (closed unrun if cancelled first)."""


def wall_clock() -> datetime:
    return datetime.now(UTC)


class Scheduler:
    """Keyed one-shot jobs (:meth:`schedule_at`, :meth:`schedule_later`) and repeating jobs
    (:meth:`every`), all cancelled by :meth:`close`.

    ``now`` is the wall clock a time is measured from, ``sleep`` how a job waits: tests inject both.
    """

    def __init__(
        self,
        name: str,
        *,
        now: Callable[[], datetime] = wall_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.name = name
        self._now = now
        self._sleep = sleep
        self._jobs: dict[Hashable, asyncio.Task[None]] = {}
        self._closed = False

    def __contains__(self, key: Hashable) -> bool:
        return key in self._jobs

    def __len__(self) -> int:
        return len(self._jobs)

    def held(self) -> list[Hashable]:
        """The keys held, oldest first."""
        return list(self._jobs)

    def schedule(self, key: Hashable, job: Job) -> bool:
        """Run ``job`` now, under ``key``; False (and the job closed unrun) if the key is held already or
        the scheduler is closed."""
        return self.schedule_later(0.0, key, job)

    def schedule_at(self, when: datetime, key: Hashable, job: Job) -> bool:
        """Run ``job`` at ``when`` (an aware time; at once if it is past), under ``key``."""
        return self.schedule_later((when - self._now()).total_seconds(), key, job)

    def schedule_later(self, delay: float, key: Hashable, job: Job) -> bool:
        """Run ``job`` in ``delay`` seconds, under ``key``."""
        if self._closed or key in self._jobs:
            log.debug("%s: %r is scheduled already (or the scheduler is closed): not again", self.name, key)
            job.close()
            return False
        self._start(key, self._once(key, max(0.0, delay), job))
        return True

    def every(
        self,
        seconds: float,
        key: Hashable,
        job: Callable[[], Awaitable[object]],
        *,
        first: Callable[[], Awaitable[object]] | None = None,
    ) -> bool:
        """Run ``job()`` now (once ``first()`` is done, e.g. the bot ready), then every ``seconds`` after
        each run ends, until cancelled; False if the key is held already or the scheduler is closed."""
        if self._closed or key in self._jobs:
            return False
        self._start(key, self._repeat(key, seconds, job, first))
        return True

    def cancel(self, key: Hashable) -> None:
        """Cancel the job under ``key``, if any. A job cancelling its own key only frees it: it runs on."""
        task = self._jobs.pop(key, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def stop(self, key: Hashable) -> None:
        """Cancel the job under ``key``, if any, and wait until it has stopped."""
        task = self._jobs.get(key)
        self.cancel(key)
        if task is not None and task is not asyncio.current_task():
            await asyncio.gather(task, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every job, and wait until they have stopped; nothing is scheduled after."""
        self._closed = True
        tasks = list(self._jobs.values())
        self._jobs.clear()
        current = asyncio.current_task()
        tasks = [task for task in tasks if task is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _start(self, key: Hashable, work: Coroutine[Any, Any, None]) -> None:
        self._jobs[key] = asyncio.get_running_loop().create_task(work, name=f"{self.name}: {key!r}")

    def _forget(self, key: Hashable) -> None:
        if self._jobs.get(key) is asyncio.current_task():
            del self._jobs[key]

    async def _once(self, key: Hashable, delay: float, job: Job) -> None:
        started = False
        try:
            if delay > 0:
                await self._sleep(delay)
            started = True
            await job
        except Exception:
            log.exception("%s: the job %r failed", self.name, key)
        finally:
            if not started:
                job.close()  # cancelled before its time: never awaited, and no warning that it was not
            self._forget(key)

    async def _repeat(
        self,
        key: Hashable,
        seconds: float,
        job: Callable[[], Awaitable[object]],
        first: Callable[[], Awaitable[object]] | None,
    ) -> None:
        try:
            if first is not None:
                await first()
            while True:
                try:
                    await job()
                except Exception:
                    log.exception("%s: the job %r failed", self.name, key)
                await self._sleep(seconds)
        finally:
            self._forget(key)
