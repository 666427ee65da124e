"""Bursts on one channel, and a write blocked by another program: where Discord's 3 s window is kept.

Run on demand (``.venv/bin/python bench/burst.py``), never as a pass/fail test. The real bot, on a real
SQLite file, against the fake Discord (its spec validation off, as in ``bench/latency.py``).

1. **A burst on one channel**: N players' ``/combatant hp`` on one fight, all at once (a voice table
   where everyone clicks together). For each N: how many first answers came later than 3 s after the
   interaction was sent (Discord would have forgotten those: "This interaction failed"), how many were
   deferred in time (the "thinking" answer, then the reply), and the slowest first answer. Beside it, the
   same number of "pong" baselines at once.
2. **A stalled write**: another program holds the database's write lock for 4 s. Meanwhile, in another
   channel, ``/odds target: chart:False`` (a read) and the pong baseline are timed; and the blocked
   write's own first answer (its deferral) and final answer.
3. **A burst of many channels at once** (1,000 by default): one interaction in each channel, all sent
   together: the pong baseline, then the GM's ``/attack`` in a duel (asking the defense), the click on
   Passive in each, and ``/init next`` in fights of eight NPC groups (the workloads of
   ``bench/latency.py``). For each: how many first answers came after 3 s, how many were deferred, and
   when the answer itself came (after a deferral, its follow-up or edit). Here the bot runs in a process
   of its own (``bench/apart.py``), as in production: on the bot's loop, the fake's half of a thousand
   requests at once made even the pong baseline miss Discord's window (20 to 60 % of them).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import (
    BotApart,
    add_discord_options,
    busiest_second,
    discord_options,
    felt,
    first_answers,
    message_with_buttons,
    percentile,
    rate_limited,
    tracker_shown,
    tracker_updates,
    whole_answers,
)
from latency import add_baseline, seeded_database

from bot.drawing_budget import TRACKER_DRAWS_PER_SECOND
from bot.encounter.document import Encounter
from bot.rules.dice import RandomDice
from bot.trackers import TRACKER_SPACING
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, FakeUser, build_world
from tests.e2e.harness import BotRunner, InteractionResult, RunningBot
from tests.sheets import character

WINDOW = 3.0
SEATS = 60


@dataclass
class Burst:
    """A workload of scene 3: the answers themselves (seconds), how many were sent, the 429s."""

    answers: list[float]
    sent: int
    rate_limited: int
    cpu: float
    """The bot's process's CPU seconds from the first interaction sent to the last request of what
    followed (its trackers too)."""

    @property
    def p99(self) -> float:
        return percentile(self.answers, 0.99) if self.answers else float("inf")


def first_answer(result: InteractionResult) -> float:
    """Seconds from sending the interaction to the bot's first callback (its answer or its deferral)."""
    return result.latency


async def seed(pommel: RunningBot, channel: FakeChannel, gm: FakeUser, players: list[FakeUser]) -> None:
    encounter = Encounter(
        channel_id=channel.id, guild_id=channel.guild.id if channel.guild else None, gm_id=gm.id
    )
    for n, player in enumerate(players[:SEATS]):
        encounter.join(player.id, character(f"Fighter {n + 1}", hp=999), None)
    await pommel.bot.store.save_encounter(encounter)


async def burst(
    pommel: RunningBot, channel: FakeChannel, gm: FakeUser, players: list[FakeUser]
) -> list[InteractionResult]:
    return list(
        await asyncio.gather(
            *(
                pommel.slash(
                    "combatant hp",
                    user=gm,  # the GM may change anyone's HP; a fight seats at most 60
                    channel=channel,
                    options={"who": f"Fighter {n % SEATS + 1}", "change": "-1"},
                    timeout=60,
                    expect_errors=True,
                    expect_response=False,
                )
                for n, _ in enumerate(players)
            )
        )
    )


async def pongs(pommel: RunningBot, channel: FakeChannel, players: list[FakeUser]) -> list[InteractionResult]:
    return list(
        await asyncio.gather(
            *(pommel.slash("bench-ping", user=p, channel=channel, timeout=60) for p in players)
        )
    )


def describe(label: str, results: list[InteractionResult]) -> str:
    firsts = [first_answer(r) for r in results if r.callback is not None]
    missed = sum(1 for r in results if r.callback is None) + sum(1 for t in firsts if t > WINDOW)
    deferred = sum(1 for r in results if r.callback_type in (5, 6))  # a command's, a click's
    return (
        f"{label:<34} {len(results):>5}  missed 3 s: {missed:>4}  deferred: {deferred:>4}  "
        f"first answer p50 {statistics.median(firsts) * 1e3:>7.1f} ms, max {max(firsts) * 1e3:>7.1f} ms"
    )


def first_answer_figures(firsts: list[float]) -> str:
    if not firsts:
        return "no first answer at all"
    return f"first answer p50 {statistics.median(firsts) * 1e3:>7.1f} ms, max {max(firsts) * 1e3:>7.1f} ms"


def describe_apart(label: str, interactions: list[FakeInteraction], fake: FakeDiscord) -> str:
    """As :func:`describe`, for interactions sent to :class:`BotApart`: and the answer itself (after a
    deferral, its follow-up or edit) and the tracker showing the change, at p50, p99 and max, in round
    trips of the fake's latency; and the 429s the fake sent since the last line."""
    latency = fake.latency
    firsts = first_answers(interactions)
    missed = sum(1 for i in interactions if i.callback is None) + sum(1 for t in firsts if t > WINDOW)
    deferred = sum(1 for i in interactions if i.callback is not None and i.callback.type in (5, 6))
    whole = whole_answers(interactions)
    shown = tracker_shown(fake, interactions)
    return (
        f"{label:<34} {len(interactions):>5}  missed 3 s: {missed:>4}  deferred: {deferred:>4}  "
        f"{first_answer_figures(firsts)}\n"
        f"{'':<37}{felt('the answer itself', whole, latency, len(interactions))}\n"
        f"{'':<37}{felt('the tracker showing it', shown, latency, len(interactions))}\n"
        f"{'':<37}{rate_limited(fake)}"
    )


async def many_channels(count: int, discord: dict[str, Any], *, forgets: bool = False) -> dict[str, Burst]:
    """Scene 3: one interaction in each of ``count`` channels, all at once, the bot in a process of its
    own (:mod:`apart`): the fake's half of a thousand requests would otherwise run on the bot's loop.
    With ``forgets``, the fake refuses a first answer that comes after 3 s, as Discord does (10062), and
    what the users of those interactions saw is counted. Returns each workload's figures."""
    figures: dict[str, Burst] = {}

    cpu_from = 0.0

    def report(label: str, interactions: list[FakeInteraction]) -> None:
        nonlocal cpu_from
        hits = len(fake.rate_limit_hits)
        cpu, cpu_from = bot.cpu_seconds() - cpu_from, bot.cpu_seconds()
        print(describe_apart(f"   {label}", interactions, fake))
        each = cpu / max(1, len(interactions)) * 1e3
        print(f"{'':<37}the bot's CPU: {cpu:.2f} s ({each:.2f} ms an interaction)")
        if forgets:
            print(f"{'':<37}{forgotten(interactions, fake)}")
        figures[label] = Burst(whole_answers(interactions), len(interactions), hits, cpu)
        fake.rate_limit_hits.clear()

    deadline = WINDOW if forgets else None
    fake = FakeDiscord(
        validate_requests=False, validate_responses=False, callback_deadline=deadline, **discord
    )
    async with fake:
        world = build_world(fake)
        guild, gm = world.guild, world.gm
        tables = [guild.create_text_channel(f"many-{n}") for n in range(count)]
        duels = [guild.create_text_channel(f"many-duel-{n}") for n in range(count)]
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "burst.sqlite3"
            targets = await seeded_database(path, gm, guild.id, tables, duels, deal=True)
            async with BotApart(fake, world, path, Path(scratch) / "bot.log") as bot:
                limits = "on" if fake.rate_limits.enabled else "off"
                print(
                    f"\n3. {'one interaction in each channel':<31} {'N':>5}   (the bot in its own process; "
                    f"round trip {fake.latency * 1e3:.0f} ms, rate limits {limits})"
                )
                fake.rate_limit_hits.clear()  # those of starting up (a command sync) are not the burst's
                cpu_from = bot.cpu_seconds()
                pongs = await asyncio.gather(*(bot.slash("bench-ping", user=gm, channel=t) for t in tables))
                await bot.quiet()  # the deferred answers posted too
                report("pong (baseline)", list(pongs))
                asked = await asyncio.gather(
                    *(
                        bot.slash("attack", user=gm, channel=d, options={"target": targets[d.id]})
                        for d in duels
                    )
                )
                await bot.quiet()
                report("/attack (GM, asks defense)", list(asked))
                clicks = []
                for request in asked:
                    message = message_with_buttons(request)
                    if message is not None:
                        passive = next(i for i in message.custom_ids() if i.endswith(":passive"))
                        clicks.append(bot.click(message, passive, user=gm))
                answered = await asyncio.gather(*clicks)
                await bot.quiet()
                report("defense click (Passive)", list(answered))
                nexts = await asyncio.gather(*(bot.slash("init next", user=gm, channel=t) for t in tables))
                await bot.quiet()
                report("/init next (GM, 8 groups)", list(nexts))
                print(
                    f"   requests outside interactions (trackers...): at most {busiest_second(fake.requests)}"
                    " in any second (Discord allows a bot 50)"
                )
        fake.take_problems()
    return figures


def forgotten(interactions: list[FakeInteraction], fake: FakeDiscord) -> str:
    """What the users of the interactions Discord forgot (no first answer within 3 s) saw: "This
    interaction failed", and perhaps a message in the channel saying their change was saved all the same."""
    failed = {inter.channel.id for inter in interactions if inter.callback is None}
    told = sum(
        1
        for message in fake.messages.values()
        if message.channel.id in failed and message.content.startswith("<@") and "✅ Saved" in message.content
    )
    drawn = tracker_updates(fake)
    changed = sum(1 for channel in failed if channel in drawn)
    return (
        f"Discord forgot {len(failed)} ('This interaction failed'); of those, told in the channel as "
        f"saved: {told}; whose tracker was drawn all the same (a change saved): {changed}"
    )


async def main(sizes: list[int], hold: float, channels: int, discord: dict[str, Any], forgets: bool) -> None:
    if sizes:
        await one_channel(sizes, hold, discord)
    if channels:
        await many_channels(channels, discord, forgets=forgets)


async def one_channel(sizes: list[int], hold: float, discord: dict[str, Any]) -> None:
    """Scenes 1 and 2, the bot and the fake on one loop."""
    fake = FakeDiscord(validate_requests=False, validate_responses=False, callback_deadline=None, **discord)
    async with fake:
        world = build_world(fake)
        table = world.guild.create_text_channel("burst")
        other = world.guild.create_text_channel("elsewhere")
        players = [fake.create_user(f"player-{n}") for n in range(max(sizes))]
        for player in players:
            world.guild.add_member(player)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "burst.sqlite3"
            async with BotRunner(fake, path) as runner:
                pommel = await runner.start_bot(
                    setup=add_baseline,
                    dice=RandomDice.seeded(7),
                    tracker_spacing=TRACKER_SPACING,
                    tracker_budget=TRACKER_DRAWS_PER_SECOND,
                )
                await seed(pommel, table, world.gm, players)
                await seed(pommel, other, world.gm, players[:2])
                print(f"1. {'burst on one channel':<31} {'N':>5}")
                for n in sizes:
                    print(describe("   pong (baseline), at once", await pongs(pommel, other, players[:n])))
                    print(
                        describe(
                            "   /combatant hp, one fight, at once",
                            await burst(pommel, table, world.gm, players[:n]),
                        )
                    )
                print(f"\n2. another program holds the write lock for {hold:.1f} s")
                holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                holder.execute("BEGIN IMMEDIATE")
                blocked = asyncio.create_task(burst(pommel, table, world.gm, players[:1]))
                await asyncio.sleep(0.3)
                reads, baseline = [], []
                for _ in range(20):
                    odds = await pommel.slash(
                        "odds",
                        user=players[0],
                        channel=other,
                        options={"target": "Fighter 2", "who": "Fighter 1", "chart": False},  # a read only
                        timeout=60,
                    )
                    reads.append(first_answer(odds))
                    baseline.append(
                        first_answer(await pommel.slash("bench-ping", user=players[0], channel=other))
                    )
                released = asyncio.get_running_loop().call_later(hold, lambda: holder.execute("ROLLBACK"))
                [result] = await blocked
                released.cancel()
                holder.close()
                read, pong = statistics.median(reads), statistics.median(baseline)
                print(
                    f"   /odds in another channel meanwhile: p50 {read * 1e3:.1f} ms "
                    f"(pong {pong * 1e3:.1f} ms; x{read / pong:.2f})"
                )
                final = result.content.splitlines()[0] if result.content else "(no answer)"
                print(
                    f"   the blocked write: first answer after {first_answer(result):.2f} s "
                    f"(type {result.callback_type}), then: {final[:100]}"
                )
                fake.take_problems()
                print(f"   {rate_limited(fake)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="10,50,140,300,600",
        help="burst sizes of scenes 1 and 2 (default 10,50,140,300,600; empty: scene 3 alone)",
    )
    parser.add_argument("--hold", type=float, default=4.0, help="seconds the write lock is held (default 4)")
    parser.add_argument(
        "--channels", type=int, default=1000, help="channels of the burst of scene 3 (default 1000; 0: skip)"
    )
    parser.add_argument(
        "--discord-forgets",
        action="store_true",
        help="scene 3: the fake refuses a first answer after 3 s, as Discord does; what those users saw",
    )
    add_discord_options(parser)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    sizes = [int(n) for n in args.sizes.split(",") if n]
    asyncio.run(main(sizes, args.hold, args.channels, discord_options(args), args.discord_forgets))
