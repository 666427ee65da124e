"""What the tracker board remembers of the fights it drew, and for how long."""

from __future__ import annotations

import asyncio
import gc

import discord

from bot.trackers import Recent, TrackerBoard


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_recent_forgets_what_was_last_set_longer_ago_than_it_keeps() -> None:
    clock = Clock()
    recent: Recent[str, int] = Recent(10.0, clock)
    recent.set("a", 1)
    clock.now = 6
    recent.set("b", 2)
    assert (recent.get("a"), recent.get("b")) == (1, 2)
    clock.now = 11
    assert recent.get("a") is None  # gone to a reader at once
    assert len(recent) == 2  # and from memory at the next set
    recent.set("c", 3)
    assert len(recent) == 2
    clock.now = 15
    recent.set("b", 4)  # set again: kept from now
    clock.now = 22
    recent.set("d", 5)
    assert (recent.get("b"), recent.get("c"), recent.get("d")) == (4, None, 5)
    assert len(recent) == 2
    recent.pop("b")
    recent.pop("nothing")
    assert (recent.get("b"), len(recent)) == (None, 1)


def test_a_channel_s_drawing_lock_lives_only_while_in_use() -> None:
    async def run() -> None:
        board = TrackerBoard(discord.Client(intents=discord.Intents.none()), lambda: None)  # type: ignore[arg-type, return-value]
        lock = board._lock(1)
        assert board._lock(1) is lock
        async with lock:
            assert board._lock(1) is lock
        del lock
        gc.collect()
        assert len(board._locks) == 0

    asyncio.run(run())
