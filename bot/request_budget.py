"""Every request Pommel sends to Discord under the bot's global limit takes a token from one budget,
at the moment it is sent; a command's answer goes first, background drawings wait.

Discord lets a bot make 50 requests a second over all its routes (the interaction endpoints aside: the
callback, and the follow-ups and edits made with an interaction's token). discord.py waits out each
route's bucket itself, so metering a tracker's drawing when it starts is not enough: the edits held
by their channels' buckets are released in bunches when the buckets reset. The budget is therefore
taken by the bot's HTTP connector (:class:`BudgetedConnector`) as each request — a retry included —
asks it for a connection to leave by, after discord.py's own waits. (Not in an aiohttp trace hook:
with any ``TraceConfig`` on the session, aiohttp builds and awaits half a dozen trace signals for every
request, though the budget needs one.)

A request is *background* when its task says so (:func:`in_background`: the tracker's drawings, the
fight's messages redrawn after a change): while a request of a command (its channel posts, a
timeout's post, a reminder) waits for a token, no background request gets one.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import deque
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import aiohttp

from .drawing_budget import TokenBucket

REQUESTS_PER_SECOND = 40.0
"""The budget's rate for all the processes sharing the bot's token: with :data:`REQUESTS_AT_ONCE` more
after a quiet while, at most 45 in any second, a tenth under Discord's 50 so that a request delayed on
its way (a busy loop, the network) does not make a second of 51 at arrival."""
REQUESTS_AT_ONCE = 5

_background: ContextVar[bool] = ContextVar("pommel_background_request", default=False)


@contextlib.contextmanager
def in_background() -> Iterator[None]:
    """The requests made meanwhile (in this task, and tasks it starts) wait while a command's wait."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


def background_task() -> None:
    """The rest of this task (and the tasks it starts) is background work (a tracker's drawing task)."""
    _background.set(True)


def is_background() -> bool:
    return _background.get()


def processes_sharing(shard_total: int, own_shards: tuple[int, ...]) -> int:
    """How many processes share the bot's token, assuming each serves as many shards as this one (the
    deployment's rule: ``SHARD_IDS`` split evenly); 1 without sharding."""
    return max(1, math.ceil(shard_total / max(1, len(own_shards))))


class PriorityBudget(TokenBucket):
    """A token bucket with two queues: a foreground taker waiting is served before every background
    one; each queue in order."""

    def __init__(self, per_second: float, at_once: int = REQUESTS_AT_ONCE) -> None:
        super().__init__(per_second, at_once)
        self._waiting: tuple[deque[asyncio.Future[None]], deque[asyncio.Future[None]]] = (deque(), deque())
        """Foreground takers, then background ones."""
        self._pump: asyncio.Task[None] | None = None
        self.taken = [0, 0]
        """Tokens taken: foreground, background."""
        self.overtaken = 0
        """Background takings granted while a foreground taker waited (the priority says: never)."""
        self.most_waiting = [0, 0]
        """The longest each queue was: foreground, background."""

    def waiting(self) -> tuple[int, int]:
        """Takers waiting now: foreground, background."""
        return len(self._waiting[0]), len(self._waiting[1])

    async def take(self, *, background: bool | None = None) -> None:
        """Wait for a token; ``background`` defaults to the task's (:func:`in_background`)."""
        kind = int(is_background() if background is None else background)
        self._refill()
        if not self._waiting[0] and (kind == 0 or not self._waiting[1]) and self._tokens >= 1:
            self._tokens -= 1
            self.taken[kind] += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting[kind]
        queue.append(turn)
        self.most_waiting[kind] = max(self.most_waiting[kind], len(queue))
        if self._pump is None:
            self._pump = asyncio.create_task(self._serve(), name="pommel-request-budget")
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted as it was cancelled: give the token back
                self._tokens += 1
                self.taken[kind] -= 1
            else:
                with contextlib.suppress(ValueError):
                    queue.remove(turn)
            raise

    async def _serve(self) -> None:
        """Hand out the tokens to the takers waiting, foreground first, as they come."""
        try:
            while any(self._waiting):
                self._refill()
                if self._tokens < 1:
                    await asyncio.sleep(self._wait())
                    continue
                kind = 0 if self._waiting[0] else 1
                turn = self._waiting[kind].popleft()
                if turn.done():  # cancelled while waiting
                    continue
                self._tokens -= 1
                self.taken[kind] += 1
                if kind == 1 and self._waiting[0]:
                    self.overtaken += 1
                turn.set_result(None)
        finally:
            self._pump = None


def exempt_from_global(url: Any, application_id: int | None) -> bool:
    """Whether a request is outside the bot's global limit: not Discord's REST API (the gateway, the
    CDN), or an interaction endpoint (the callback; a follow-up or edit with the interaction's token,
    a webhook whose id is the application's)."""
    path: str = url.path
    marker = path.find("/api/")
    if marker < 0:
        return True
    parts = path[marker:].split("/")  # "", "api", "v10", route...
    route = parts[3:]
    if route[:1] == ["interactions"]:
        return True
    return (
        route[:1] == ["webhooks"]
        and len(route) >= 3
        and application_id is not None
        and route[1] == str(application_id)
    )


class BudgetedConnector(aiohttp.TCPConnector):
    """The bot's connector: every request under the global limit takes from ``client.requests`` (a
    :class:`PriorityBudget`; None: no limit) just before it leaves (``client.application_id`` tells the
    interaction endpoints). aiohttp asks the connector for a connection once per request sent (a
    discord.py retry, a redirect, aiohttp's own retry on a stale keep-alive connection included), after
    every wait of discord.py's."""

    def __init__(self, client: Any, **options: Any) -> None:
        super().__init__(**options)
        self._client = client

    async def connect(
        self, req: aiohttp.ClientRequest, traces: list[Any], timeout: aiohttp.ClientTimeout
    ) -> Any:
        client = self._client
        budget: PriorityBudget | None = client.requests
        if budget is not None and not exempt_from_global(req.url, client.application_id):
            await budget.take()
        return await super().connect(req, traces, timeout)
