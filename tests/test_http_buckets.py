"""discord.py's rate-limit buckets swept seldom (bot/http_buckets.py)."""

from __future__ import annotations

import asyncio

from discord.http import HTTPClient

from bot.http_buckets import sweep_seldom


async def test_a_thousand_new_buckets_are_one_sweep_not_a_thousand() -> None:
    http = HTTPClient(asyncio.get_running_loop())
    sweeps = []
    http._try_clear_expired_ratelimits = lambda: sweeps.append(len(http._buckets))  # type: ignore[method-assign]
    sweep_seldom(http)
    for n in range(1000):
        http.get_ratelimit(f"PATCH /channels/{{channel_id}}/messages/{{message_id}}:{n}")
    assert sweeps == [256]  # discord.py's threshold, then not again within a minute


async def test_idle_buckets_are_still_swept() -> None:
    http = HTTPClient(asyncio.get_running_loop())
    sweep_seldom(http, every=0.0)
    buckets = [http.get_ratelimit(f"POST /channels/{{channel_id}}/messages:{n}") for n in range(300)]
    for bucket in buckets[:100]:
        bucket._last_request -= 301  # idle for more than discord.py's 5 minutes
    http.get_ratelimit("POST /channels/{channel_id}/messages:new")
    assert len(http._buckets) == 201
