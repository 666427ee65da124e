"""The scheduler of every timer: keyed one-shot jobs, repeating jobs, cancelling, closing.

Time is injected: the scheduler reads a fake clock and waits on a fake ``sleep`` that returns only when
the test lets it, so nothing here depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.scheduler import Scheduler

START = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
HANG_GUARD = 30.0
"""Only so a broken test fails instead of hanging: every wait below ends on an event, long before."""


class FakeTime:
    """A wall clock that stands still, and a ``sleep`` that returns when :meth:`wake` says so."""

    def __init__(self) -> None:
        self.now = START
        self.sleeping: list[tuple[float, asyncio.Future[None]]] = []
        self.asleep = asyncio.Event()

    def clock(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sleeping.append((seconds, woken))
        self.asleep.set()
        await woken

    async def next_sleep(self) -> float:
        """The seconds of the next sleep begun (waiting until one is)."""
        await asyncio.wait_for(self.asleep.wait(), HANG_GUARD)
        self.asleep.clear()
        return self.sleeping[-1][0]

    def wake(self) -> None:
        seconds, woken = self.sleeping.pop(0)
        self.now += timedelta(seconds=seconds)
        woken.set_result(None)


@pytest.fixture
def time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def scheduler(time: FakeTime) -> Scheduler:
    return Scheduler("test", now=time.clock, sleep=time.sleep)


class Job:
    """A job that records that it ran, and may wait (``hold``) or fail (``fails``)."""

    def __init__(self, *, fails: bool = False, hold: bool = False) -> None:
        self.runs = 0
        self.fails = fails
        self.started = asyncio.Event()
        self.done = asyncio.Event()
        self.release = asyncio.Event()
        if not hold:
            self.release.set()

    async def __call__(self) -> None:
        self.runs += 1
        self.started.set()
        try:
            await self.release.wait()
            if self.fails:
                raise ValueError("the job broke")
        finally:
            self.done.set()


def closed(work: Coroutine[Any, Any, None]) -> bool:
    """Closed without running on: no "coroutine was never awaited" warning comes of it."""
    return inspect.getcoroutinestate(work) == inspect.CORO_CLOSED


async def done(job: Job) -> None:
    await asyncio.wait_for(job.done.wait(), HANG_GUARD)
    job.done.clear()


async def stopped(scheduler: Scheduler, key: object) -> None:
    """Until the scheduler no longer holds ``key`` (its job's task has ended)."""
    for _ in range(100):
        if key not in scheduler:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{key!r} is still held")


async def test_a_job_runs_when_its_time_comes_and_frees_its_key(time: FakeTime, scheduler: Scheduler) -> None:
    job = Job()
    assert scheduler.schedule_at(START + timedelta(seconds=90), ("defense", 1, 2), job())
    assert ("defense", 1, 2) in scheduler
    assert scheduler.held() == [("defense", 1, 2)]
    assert await time.next_sleep() == 90.0
    assert job.runs == 0
    time.wake()
    await done(job)
    assert job.runs == 1
    await stopped(scheduler, ("defense", 1, 2))
    assert len(scheduler) == 0


async def test_a_time_already_past_runs_at_once(time: FakeTime, scheduler: Scheduler) -> None:
    job = Job()
    scheduler.schedule_at(START - timedelta(hours=1), "late", job())
    await done(job)
    assert job.runs == 1
    assert time.sleeping == []


async def test_a_job_cancelled_before_its_time_never_runs_and_is_closed(
    time: FakeTime, scheduler: Scheduler
) -> None:
    job = Job()
    work = job()
    scheduler.schedule_later(60.0, "key", work)
    await time.next_sleep()
    scheduler.cancel("key")
    assert "key" not in scheduler
    await asyncio.sleep(0)  # the cancelled task ends
    await asyncio.sleep(0)
    assert job.runs == 0
    assert closed(work)
    scheduler.cancel("key")  # a key not held: nothing to do


async def test_a_key_holds_one_job_at_a_time(time: FakeTime, scheduler: Scheduler) -> None:
    first, second = Job(), Job()
    assert scheduler.schedule_later(10.0, "key", first())
    refused: Coroutine[Any, Any, None] = second()
    assert not scheduler.schedule_later(1.0, "key", refused)
    assert closed(refused)  # closed unrun
    await time.next_sleep()
    time.wake()
    await done(first)
    await stopped(scheduler, "key")
    assert scheduler.schedule("key", second())  # free again once the first is done
    await done(second)
    assert (first.runs, second.runs) == (1, 1)


async def test_a_job_s_exception_is_logged_with_its_key(
    scheduler: Scheduler, caplog: pytest.LogCaptureFixture
) -> None:
    job = Job(fails=True)
    with caplog.at_level(logging.ERROR, logger="bot.scheduler"):
        scheduler.schedule(("defense", 7, 3), job())
        await done(job)
        await stopped(scheduler, ("defense", 7, 3))
    [record] = caplog.records
    assert "('defense', 7, 3)" in record.getMessage()
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], ValueError)


async def test_a_job_cancelling_its_own_key_runs_on(scheduler: Scheduler) -> None:
    finished = asyncio.Event()

    async def answered_in_time() -> None:
        scheduler.cancel("key")  # as a defense's click forgets its timer, from within the timer
        await asyncio.sleep(0)
        finished.set()

    scheduler.schedule("key", answered_in_time())
    await asyncio.wait_for(finished.wait(), HANG_GUARD)
    assert "key" not in scheduler


async def test_a_repeating_job_runs_once_ready_then_after_each_wait_even_after_failing(
    time: FakeTime, scheduler: Scheduler, caplog: pytest.LogCaptureFixture
) -> None:
    ready = asyncio.Event()
    job = Job(fails=True)
    assert scheduler.every(300.0, "sweep", job, first=ready.wait)
    assert not scheduler.every(1.0, "sweep", job)  # held
    await asyncio.sleep(0)
    assert job.runs == 0  # not before the bot is ready
    ready.set()
    with caplog.at_level(logging.ERROR, logger="bot.scheduler"):
        await done(job)
        assert await time.next_sleep() == 300.0
        assert job.runs == 1
        time.wake()
        await done(job)
        assert await time.next_sleep() == 300.0
    assert job.runs == 2
    assert len(caplog.records) == 2  # each failure logged; the sweep goes on
    await scheduler.stop("sweep")
    assert "sweep" not in scheduler


async def test_stopping_a_job_waits_until_it_has_stopped(scheduler: Scheduler) -> None:
    job = Job(hold=True)
    scheduler.schedule("key", job())
    await asyncio.wait_for(job.started.wait(), HANG_GUARD)
    await scheduler.stop("key")
    assert job.done.is_set()  # its cleanup ran before stop returned
    assert job.runs == 1
    await scheduler.stop("key")  # a key not held: nothing to wait for


async def test_closing_cancels_every_job_and_refuses_new_ones(time: FakeTime, scheduler: Scheduler) -> None:
    waiting, running, repeating = Job(), Job(hold=True), Job()
    waiting_work = waiting()
    scheduler.schedule_later(3600.0, ("defense", 1, 1), waiting_work)
    scheduler.schedule("running", running())
    scheduler.every(60.0, "sweep", repeating)
    await asyncio.wait_for(running.started.wait(), HANG_GUARD)
    await done(repeating)
    await scheduler.close()
    assert len(scheduler) == 0
    assert running.done.is_set()
    assert running.runs == 1
    assert waiting.runs == 0
    assert closed(waiting_work)
    late = Job()
    late_work = late()
    assert not scheduler.schedule("late", late_work)
    assert not scheduler.every(60.0, "sweep", late)
    assert closed(late_work)
    await scheduler.close()  # again: nothing left to do
