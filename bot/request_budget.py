"""Discord's global limit on a bot's requests, kept where they leave: at most
:data:`REQUESTS_PER_SECOND` in any second, answers to interactions aside.

discord.py waits out a global 429 but does not pace itself before one. The tracker board's budget
(:mod:`bot.drawing_budget`) meters drawings when they start; their requests leave later, when
discord.py's per-channel buckets let them, and then together: in a busy minute over many tables 56
edits reached Discord within one second (its limit is 50). So every request (but the callbacks,
follow-ups and edits made with an interaction's token, which Discord does not count) takes its turn
here as it leaves: once aiohttp has its connection, after discord.py's own bucket has let it go.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import aiohttp

REQUESTS_PER_SECOND = 40
"""Below Discord's 50, leaving room for the jitter between leaving here and arriving there."""
EXEMPT_PATHS = ("/interactions/", "/webhooks/")
"""Interaction endpoints, which Discord's global limit does not bind (Pommel has no other webhook)."""


class RequestWindow:
    """At most ``per_second`` takings in any second (a sliding window); the takers wait in order."""

    def __init__(self, per_second: int = REQUESTS_PER_SECOND) -> None:
        if per_second < 1:
            raise ValueError(f"a window of {per_second} requests a second allows nothing")
        self.per_second = per_second
        self._taken: deque[float] = deque()
        self._lock = asyncio.Lock()

    async def take(self) -> None:
        async with self._lock:
            loop = asyncio.get_running_loop()
            while True:
                now = loop.time()
                while self._taken and self._taken[0] <= now - 1.0:
                    self._taken.popleft()
                if len(self._taken) < self.per_second:
                    self._taken.append(now)
                    return
                await asyncio.sleep(self._taken[0] + 1.0 - now)


def metered(window: RequestWindow) -> aiohttp.TraceConfig:
    """An aiohttp trace (discord.py's ``http_trace``) that makes each request bound by the global limit
    take its turn in ``window`` once its connection is ready, just before it is written."""

    async def on_request_start(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestStartParams
    ) -> None:
        context.bound = not any(part in params.url.path for part in EXEMPT_PATHS)

    async def on_connection_ready(session: aiohttp.ClientSession, context: Any, params: object) -> None:
        if getattr(context, "bound", False):
            await window.take()

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_request_start)
    trace.on_connection_create_end.append(on_connection_ready)
    trace.on_connection_reuseconn.append(on_connection_ready)
    return trace
