"""discord.py's rate-limit buckets, swept for the idle ones seldom rather than at every new one.

discord.py keeps one bucket per route and channel (``HTTPClient._buckets``) and, once it holds 256, looks
through all of them for idle ones (none for 5 minutes) each time it makes a new one. A bot drawing
trackers in a thousand channels makes a new bucket for each, and none of them is idle yet: every new
one is a walk over thousands, for nothing (about 4.5 million checks in ``bench/burst.py``'s burst of
1,000 channels, the most costly line of the bot's own process there). A bucket idle for 5 minutes can
as well wait :data:`SWEEP_EVERY` more."""

from __future__ import annotations

import time

from discord.http import HTTPClient

SWEEP_EVERY = 60.0
"""Seconds between two sweeps of the idle buckets (discord.py: at every new bucket past 256)."""

_CHECKED_FROM = 256
"""discord.py's own threshold: with fewer buckets it does not sweep."""


def sweep_seldom(http: HTTPClient, *, every: float = SWEEP_EVERY) -> None:
    """Make ``http`` sweep its idle rate-limit buckets at most once every ``every`` seconds."""
    sweep = http._try_clear_expired_ratelimits
    next_sweep = 0.0

    def seldom() -> None:
        nonlocal next_sweep
        if len(http._buckets) < _CHECKED_FROM:
            return
        now = time.monotonic()
        if now < next_sweep:
            return
        next_sweep = now + every
        sweep()

    http._try_clear_expired_ratelimits = seldom  # type: ignore[method-assign]
