"""The bot in a process of its own, the fake Discord and its users in this one.

In ``bench/latency.py`` and the first scenes of ``bench/burst.py`` the fake Discord runs on the bot's
own event loop: what it does for every request (parsing it, keeping the message, answering, sending the
next interaction) takes the bot's time, as a real Discord never would. For one interaction at a time that
is a fair share of both the baseline and the command; for a thousand at once it is not: the fake's half
of the work delays the bot's answers, and the pong baseline itself misses Discord's 3 s.

Here the bot runs as Pommel runs in production, alone in its process (``bench/apart_bot.py``: ``python
-m bot`` with the benchmarks' pong and set-up commands, started and stopped by :class:`BotApart`), on a
real SQLite file, with its own dice, catalog and tracker spacing, and the benchmark's users click and
type in the fake Discord of this process, on the machine's other core. Latency is still from the fake
sending INTERACTION_CREATE to it receiving the first callback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from tests.e2e.fake_discord import (
    DispatchError,
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    RecordedRequest,
    World,
)
from tests.e2e.processes import BotProcess, click, slash

READY_SECONDS = 60.0
QUIET_SECONDS = 1.5
"""Longer than a tracker's spacing: the bot is done when the fake has had no request for this long."""


class BotApart:
    """Pommel in a process of its own (:class:`~tests.e2e.processes.BotProcess` running this file),
    connected to ``fake`` over 127.0.0.1, on the SQLite file ``database`` (seed it before: the process
    opens it at login, and keeps it to itself), its log in ``log``."""

    def __init__(self, fake: FakeDiscord, world: World, database: Path, log: Path) -> None:
        self.fake = fake
        self.world = world
        self.process = BotProcess(
            fake, str(database), [0], 1, log, program=[str(Path(__file__).with_name("apart_bot.py"))]
        )

    async def __aenter__(self) -> BotApart:
        await self.process.start(timeout=READY_SECONDS)
        await self._until_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.process.close()

    async def _until_ready(self) -> None:
        """Until the bot has synced its commands and answers a pong in the world's first channel."""
        deadline = time.monotonic() + READY_SECONDS
        channel = self.world.guild.text_channels[0]
        while time.monotonic() < deadline:
            try:
                answered = await self.slash("bench-ping", user=self.world.gm, channel=channel, timeout=1.0)
            except DispatchError:  # its commands are not synced yet
                answered = None
            if answered is not None and answered.callback is not None:
                return
            await asyncio.sleep(0.2)
        raise RuntimeError(f"the bot was not ready within {READY_SECONDS:.0f} s: {self.process.log_tail()}")

    async def slash(
        self,
        command: str,
        *,
        user: FakeUser,
        channel: FakeChannel,
        options: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
    ) -> FakeInteraction:
        """``/command`` as ``user`` in ``channel``; returns the interaction once its first callback came
        (or ``timeout`` passed: then it has none)."""
        inter = slash(self.fake, command, user=user, channel=channel, options=options)
        return await self._send(inter, timeout)

    async def click(
        self, message: FakeMessage, custom_id: str, *, user: FakeUser, timeout: float = 120.0
    ) -> FakeInteraction:
        return await self._send(click(self.fake, message, custom_id, user=user), timeout)

    async def _send(self, inter: FakeInteraction, timeout: float) -> FakeInteraction:
        await self.fake.send_interaction(inter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inter.answered.wait(), timeout)
        return inter

    def cpu_seconds(self) -> float:
        """The bot's process's user and system CPU seconds so far (all its threads; Linux ``/proc``): a
        figure of its own work that other programs on the machine slow down far less than its answers."""
        assert self.process.process is not None
        fields = Path(f"/proc/{self.process.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def quiet(self) -> None:
        """Until the bot has sent the fake nothing for :data:`QUIET_SECONDS` (its follow-ups, its
        bookkeeping and its trackers done)."""
        seen = -1
        while len(self.fake.requests) != seen:
            seen = len(self.fake.requests)
            await asyncio.sleep(QUIET_SECONDS)


def message_with_buttons(inter: FakeInteraction) -> FakeMessage | None:
    """The message of an answer that carries buttons: the response, or a follow-up after a deferral."""
    return next((m for m in [inter.original, *inter.followups] if m is not None and m.custom_ids()), None)


def first_answers(interactions: Sequence[FakeInteraction]) -> list[float]:
    """Seconds from each interaction sent to its first callback, for those that had one."""
    return [
        inter.callback.at - inter.dispatched_at
        for inter in interactions
        if inter.callback is not None and inter.dispatched_at is not None
    ]


def whole_answers(interactions: Sequence[FakeInteraction]) -> list[float]:
    """Seconds from each interaction sent to its answer itself: its first callback, or after a deferral,
    the follow-up (a command's) or the edit of its message (a click's); for those that had one."""
    out = []
    for inter in interactions:
        if inter.callback is None or inter.dispatched_at is None:
            continue
        if inter.callback.type not in (5, 6):
            out.append(inter.callback.at - inter.dispatched_at)
            continue
        edits = [edit.at for edit in inter.edits if edit.target == "@original"]
        came = [m.created_at for m in inter.followups] if inter.callback.type == 5 else []
        if came or edits:
            out.append(min(came or edits) - inter.dispatched_at)
    return out


def busiest_second(requests: Sequence[RecordedRequest]) -> int:
    """The most requests of the bot's in any one second that count against Discord's global limit of
    50 a second (all but answers to interactions: their callbacks and their webhooks)."""
    times = sorted(r.at for r in requests if not r.path.startswith(("/interactions/", "/webhooks/")))
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


def add_discord_options(parser: argparse.ArgumentParser) -> None:
    """The fake Discord's round trip and rate limits, for every benchmark that runs one."""
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        help="round trip between the bot and Discord added to every request (e.g. 80; default 0)",
    )
    parser.add_argument(
        "--no-rate-limits", action="store_true", help="switch Discord's rate limits off in the fake Discord"
    )


def discord_options(args: argparse.Namespace) -> dict[str, Any]:
    """``FakeDiscord``'s keywords for :func:`add_discord_options`'s options."""
    return {"latency": args.latency_ms / 1000, "rate_limits": not args.no_rate_limits}


def rate_limited(fake: FakeDiscord) -> str:
    """The 429s the fake sent (its rate-limit problems taken: a benchmark reports them, it does not
    fail on them)."""
    fake.take_problems("ratelimit")
    hits = fake.rate_limit_hits
    if not fake.rate_limits.enabled:
        return "429s: rate limits off"
    if not hits:
        return "429s: 0"
    scopes = Counter(hit.scope for hit in hits)
    routes = Counter(f"{hit.method} {hit.template}" for hit in hits).most_common(3)
    return (
        f"429s: {len(hits)} ({', '.join(f'{n} {s}' for s, n in scopes.items())}; "
        + ", ".join(f"{route} x{n}" for route, n in routes)
        + ")"
    )


def in_round_trips(seconds: float, latency: float) -> str:
    """Milliseconds, and round trips of ``latency`` seconds when there is one."""
    figure = f"{seconds * 1e3:7.1f} ms"
    return f"{figure} ({seconds / latency:4.1f} RT)" if latency else figure


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def tracker_updates(fake: FakeDiscord) -> dict[int, list[float]]:
    """Channel id -> arrival times of the bot's posts and edits of a tracker there (a message with the
    turn buttons), answered 2xx, in order."""
    out: dict[int, list[float]] = {}
    for request in fake.requests:
        if request.method not in ("POST", "PATCH") or not 200 <= request.status < 300:
            continue
        if request.template not in (
            "/channels/{channel_id}/messages",
            "/channels/{channel_id}/messages/{message_id}",
        ):
            continue
        response = request.response if isinstance(request.response, dict) else {}
        message = fake.messages.get(int(response.get("id", 0)))
        if message is not None and any(i.startswith("pommel:turn:") for i in message.custom_ids()):
            out.setdefault(message.channel.id, []).append(request.at)
    return out


def tracker_shown(fake: FakeDiscord, interactions: Iterable[FakeInteraction]) -> list[float]:
    """Seconds from each interaction reaching Discord to the first drawing of its channel's tracker that
    the bot sent after the interaction reached it (half a round trip each way: an earlier change's
    drawing still on its way does not count), for those whose tracker was drawn."""
    updates = tracker_updates(fake)
    out = []
    for inter in interactions:
        if inter.dispatched_at is None:
            continue
        sent_after = inter.dispatched_at + fake.latency
        later = [at for at in updates.get(inter.channel.id, []) if at >= sent_after]
        if later:
            out.append(later[0] - inter.dispatched_at)
    return out


def felt(label: str, seconds: Sequence[float], latency: float, of: int) -> str:
    """One line of user-felt times: p50, p99 and max, in ms and round trips, and how many had one."""
    if not seconds:
        return f"{label}: none of {of}"
    return (
        f"{label}: p50 {in_round_trips(statistics.median(seconds), latency)}, "
        f"p99 {in_round_trips(percentile(seconds, 0.99), latency)}, "
        f"max {in_round_trips(max(seconds), latency)} ({len(seconds)} of {of})"
    )
