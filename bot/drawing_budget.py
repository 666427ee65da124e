"""How many drawings Pommel starts a second over all channels together, within Discord's global limit
on a bot's requests: a token bucket the tracker board takes from before each drawing."""

from __future__ import annotations

import asyncio
import math

TRACKER_DRAWS_PER_SECOND = 30.0
"""Drawings a second over all channels together (and :data:`TRACKER_DRAWS_AT_ONCE` more at once after a
quiet while): at most 40 in any second. Discord lets a bot make 50 requests a second (answers to
interactions aside); a burst over hundreds of channels would otherwise edit hundreds of trackers at once
and run into its global 429s. The rest is left to announcements, reminders and timeouts. Channels waiting
their turn keep coalescing: each is drawn once, as its latest state."""
TRACKER_DRAWS_AT_ONCE = 10


class TokenBucket:
    """``per_second`` tokens a second, ``at_once`` of them at once after a quiet while, so at most
    ``per_second + at_once`` takings in any second (on the event loop's clock)."""

    def __init__(self, per_second: float, at_once: int) -> None:
        if per_second <= 0 or at_once < 1:
            raise ValueError(f"a budget of {per_second} a second, {at_once} at once, allows nothing")
        self.per_second = per_second
        self.at_once = at_once
        self._tokens = float(at_once)
        self._at: float | None = None

    def _refill(self) -> None:
        now = asyncio.get_running_loop().time()
        if self._at is not None:
            self._tokens = min(self.at_once, self._tokens + (now - self._at) * self.per_second)
        self._at = now

    def _wait(self) -> float:
        """Seconds until the next token, rounded up to a whole millisecond: uvloop's clock and timers
        count whole milliseconds, and a shorter sleep wakes at once to the same time, so a taker waiting
        for a token a fraction of a millisecond away would spin the loop until the clock ticks."""
        return math.ceil((1 - self._tokens) / self.per_second * 1000) / 1000


class Budget(TokenBucket):
    """A token bucket whose takers wait their turn in order (the lock is fair)."""

    def __init__(self, per_second: float, at_once: int = TRACKER_DRAWS_AT_ONCE) -> None:
        super().__init__(per_second, at_once)
        self._lock = asyncio.Lock()

    def available(self) -> bool:
        """Whether a taking now would not wait (nobody waiting before it, a token in the bucket)."""
        if self._lock.locked():
            return False
        self._refill()
        return self._tokens >= 1

    async def take(self) -> None:
        async with self._lock:
            while True:
                self._refill()
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await asyncio.sleep(self._wait())
