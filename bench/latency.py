"""Latency and throughput of Pommel's commands through discord.py, against the fake Discord.

Run on demand (``make bench``), never as a pass/fail test. The real bot runs on a real SQLite file;
interactions arrive over the fake gateway from many users in many channels, a batch at a time.
Beside each command, in the same run and interleaved with it, a baseline command that only replies
"pong" measures what discord.py's own handling costs, and the floor of a durable reply: one bare commit
on the bot's database (its connection, thread and ``synchronous=FULL``), then "pong". Every figure is
also printed as a ratio to both.

Latency is the time from sending INTERACTION_CREATE to receiving the bot's first callback.
Throughput is interactions answered per second while a batch of them is in flight. In one process, the
CPU this process spent meanwhile is shown too, per interaction: the bot's, its database thread's and the
fake Discord's, whose share grows with every request the bot makes.

The fake's spec validation is off here so that jsonschema's cost does not hide the bot's; the test
suite always validates. The fake and the harness keep every request and message they saw, which a
real Discord would not: between batches (untimed) the garbage collector moves them out of its way
(``gc.freeze``), or its full collections over that growing heap would show up as 100 ms pauses.

The initiative workload is the GM's ``/init next`` in fights of eight NPC groups: it loads the fight,
ends a turn and starts the next, saves the fight with its log line, and announces the turn with a
mention; after the reply, the tracker message is edited (that edit counts in throughput, not in
latency). When a channel's round is over, the bench deals the next round before the batch, untimed.

The combat workload is the GM's ``/attack`` in a duel between two NPCs, the table's policy asking the
GM to defend: it loads the fight, spends the die, rolls, saves the exchange awaiting its defense and
asks with the defense buttons and a mention; then the GM's click on Passive resolves it (judges, rolls
damage, applies it, saves) and edits the message into the result. Both count from the interaction to
the first callback; the tracker edit after each counts in throughput only. Before each batch
(untimed) the attacker's pool and the target's HP are restored, so every attack can be made, and the
round's blows are forgotten, as a new round would (so the fight stays the size of a real round's).

Trackers are drawn as the bot draws them in production (:mod:`bot.trackers`): a channel's at most once a
second, what comes meanwhile coalesced into one drawing of its latest state, by the channel's drawing
task and not by the command (which does not wait for it), over all channels at most 30 a second, and
not at all when it would show what it shows already.
The test suite draws every state at once instead (no spacing), so that a test reads the tracker of the
command it just sent; with that, every command here would pay for its tracker edit too.

Three scenes by default: one interaction at a time (a play-by-post table), ten in flight at once (a
voice session where everyone clicks together) and a hundred (a busy server; over a hundred channels).

With ``--apart`` the bot runs in a process of its own (``bench/apart.py``), as in production, and the
fake Discord with the benchmark's users in this one: the fake's work then runs on the other core instead
of the bot's loop. The pong baseline, the floor and the commands are measured so too, in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord

from bot.app import Pommel
from bot.catalog import Catalog, load_catalog
from bot.drawing_budget import TRACKER_DRAWS_PER_SECOND
from bot.encounter.document import Encounter
from bot.interactions.answering import answer
from bot.rules.dice import DiceSource, RandomDice
from bot.store import EncounterChange, Store, open_store
from bot.trackers import TRACKER_SPACING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart import (
    BotApart,
    add_discord_options,
    discord_options,
    felt,
    first_answers,
    message_with_buttons,
    rate_limited,
    tracker_shown,
    whole_answers,
)

from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, FakeUser, World, build_world
from tests.e2e.harness import BotRunner, RunningBot

BASELINE = "pong (baseline)"
FLOOR = "pong + 1 commit (floor)"


@dataclass(frozen=True)
class Workload:
    label: str
    command: str
    options: Mapping[str, Any]
    by_gm: bool = False
    """Sent by the GM of every fight instead of by the seat's player."""


INIT_NEXT = "/init next (GM, 8 groups)"
ATTACK = "/attack (GM, asks defense)"
DEFEND = "defense click (Passive)"
WORKLOADS = [
    Workload(BASELINE, "bench-ping", {}),
    Workload(FLOOR, "bench-floor", {}),
    Workload("/roll dice 4d20kh1+5", "roll dice", {"expression": "4d20kh1+5"}),
    Workload("/roll pool dice:3 bonus:5", "roll pool", {"dice": 3, "bonus": 5}),
    Workload(INIT_NEXT, "init next", {}, by_gm=True),
]
GROUPS_PER_FIGHT = 8


@dataclass
class Measured:
    latencies: list[float] = field(default_factory=list)
    busy: float = 0.0
    """Seconds spent with a batch of this workload in flight."""
    cpu: float = 0.0
    """CPU seconds this process spent meanwhile (every thread: the bot's, its database's, and the fake
    Discord's when it runs here); 0 when not measured (the bot apart)."""
    sent: list[FakeInteraction] = field(default_factory=list)
    """The timed interactions (for the time to the tracker showing them)."""

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p99(self) -> float:
        return self.percentile(0.99)

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.busy

    @property
    def cpu_each(self) -> float:
        """CPU seconds an interaction, while in flight (see :attr:`cpu`)."""
        return self.cpu / len(self.latencies)


async def ping(interaction: discord.Interaction) -> None:
    """The baseline: what discord.py's own handling of an interaction costs, and nothing else. It
    answers through :func:`bot.interactions.answering.answer`, as every command does, so that it copes with a
    deferral (in a burst, ``bench/burst.py``), at the cost of one lock."""
    await answer(interaction, "pong")


def add_baseline(bot: Pommel) -> None:
    bot.tree.add_command(
        discord.app_commands.Command(
            name="bench-ping", description="Benchmark baseline: reply pong", callback=ping
        )
    )

    async def floor(interaction: discord.Interaction) -> None:
        """The floor of a durable reply: one bare commit on the bot's own database (the same
        connection, thread and ``synchronous=FULL`` as every change), then "pong"."""
        await bot.store._transaction(_bare_commit)  # type: ignore[attr-defined]
        await answer(interaction, "pong")

    bot.tree.add_command(
        discord.app_commands.Command(
            name="bench-floor", description="Benchmark floor: commit once, reply pong", callback=floor
        )
    )


def add_setup_commands(bot: Pommel) -> None:
    """Untimed set-up, for a bot in a process of its own (``--apart``; the fight's store is the bot's
    then): ``bench-ready`` readies the channel's duel (:func:`ready_duels`) and answers whom to attack;
    ``bench-round`` answers whether the channel's round is over ("over") or not ("running")."""

    async def ready(interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        targets = await ready_duels(bot.store, [interaction.channel_id])
        await answer(interaction, targets[interaction.channel_id])

    async def round_state(interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        encounter = await bot.store.load_encounter(interaction.channel_id)
        assert encounter is not None
        due = encounter.initiative.round == 0 or encounter.initiative.is_round_over
        await answer(interaction, "over" if due else "running")

    for name, callback in (("bench-ready", ready), ("bench-round", round_state)):
        bot.tree.add_command(
            discord.app_commands.Command(name=name, description="Benchmark set-up", callback=callback)
        )


def _bare_commit(db: Any) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS bench_floor (n INTEGER)")
    db.execute("INSERT INTO bench_floor (n) VALUES (1)")


async def seed_fights(
    store: Store,
    catalog: Catalog,
    gm: FakeUser,
    guild_id: int,
    tables: list[FakeChannel],
    *,
    deal: DiceSource | None = None,
) -> None:
    """A fight in every channel, run by ``gm``, with eight NPC groups of one (eight cards a round); its
    first round dealt with ``deal``'s dice when given."""
    template = catalog.monster("bandit")
    armor = catalog.armor(template.armor) if template.armor else None
    for table in tables:
        encounter = Encounter(channel_id=table.id, guild_id=guild_id, gm_id=gm.id)
        for n in range(GROUPS_PER_FIGHT):
            encounter.add_npcs(template, armor, count=1, name=f"Bandit {n + 1}")
        if deal is not None:
            encounter.deal(deal)
        await store.save_encounter(encounter)


async def deal_where_due(pommel: RunningBot, gm: FakeUser, seats: list[tuple[FakeUser, FakeChannel]]) -> None:
    """Untimed: deal a new round in each seat's channel whose round is over (or never started)."""
    for _, table in seats:
        encounter = await pommel.bot.store.load_encounter(table.id)
        assert encounter is not None
        if encounter.initiative.round == 0 or encounter.initiative.is_round_over:
            result = await pommel.slash("init deal", user=gm, channel=table)
            assert not result.ephemeral, result.content


async def seed_duels(
    store: Store, catalog: Catalog, dice: DiceSource, gm: FakeUser, guild_id: int, duels: list[FakeChannel]
) -> None:
    """A fight in every duel channel: a Raider and a Dummy (two bandits), round 1 dealt."""
    template = catalog.monster("bandit")
    armor = catalog.armor(template.armor) if template.armor else None
    for table in duels:
        encounter = Encounter(channel_id=table.id, guild_id=guild_id, gm_id=gm.id)
        for name in ("Raider", "Dummy"):
            encounter.add_npcs(template, armor, count=1, name=name)
        encounter.deal(dice)
        await store.save_encounter(encounter)


async def seeded_database(
    path: Path,
    gm: FakeUser,
    guild_id: int,
    tables: list[FakeChannel],
    duels: list[FakeChannel],
    *,
    deal: bool,
) -> dict[int, str]:
    """The SQLite file at ``path`` with the tables' fights (their first round dealt when ``deal``) and the
    duels, readied, closed again for a bot in a process of its own to open; whom to attack in each duel."""
    store = await open_store(path)
    try:
        catalog, dice = load_catalog(), RandomDice.seeded(7)
        await seed_fights(store, catalog, gm, guild_id, tables, deal=dice if deal else None)
        await seed_duels(store, catalog, dice, gm, guild_id, duels)
        return await ready_duels(store, [duel.id for duel in duels])
    finally:
        await store.close()


async def ready_duels(store: Store, channels: Iterable[int]) -> dict[int, str]:
    """Untimed: in each channel's duel, the one whose turn it is gets its dice back and the other its HP.
    Returns whom to attack in each channel. Done as a change of the fight, as a GM's command would be
    (so the store reads ahead what it wrote, as it does between two commands at a table)."""
    targets: dict[int, str] = {}

    def ready(encounter: Encounter | None) -> EncounterChange:
        assert encounter is not None
        assert encounter.initiative.turn_of is not None
        attacker = encounter.members(encounter.initiative.turn_of)[0]
        target = next(c for c in encounter.combatants if c.id != attacker.id)
        attacker.pool.remaining = attacker.pool.size
        target.hp, target.nonlethal = target.max_hp, 0
        encounter.reactions = []
        # The round never ends here; without this, every attack's blow (R25's count, cleared at each
        # deal) would pile up, a hundred in a round of 2,000 attacks over 20 duels, doubling the document.
        encounter.blows = []
        targets[encounter.channel_id] = target.name
        return EncounterChange(encounter)

    for channel in channels:
        await store.update_encounter(channel, ready)
    return targets


Timed = tuple[list[float], float, list[FakeInteraction], float]
"""First-answer latencies, seconds busy, the interactions, CPU seconds meanwhile (0: not measured)."""


async def run_duels(pommel: RunningBot, seats: list[tuple[FakeUser, FakeChannel]]) -> tuple[Timed, Timed]:
    """One batch of /attack, then one batch of the defender's clicks on Passive."""
    targets = await ready_duels(pommel.bot.store, [channel.id for _, channel in seats])
    started, cpu = time.perf_counter(), time.process_time()
    asked = await asyncio.gather(
        *(
            pommel.slash("attack", user=user, channel=channel, options={"target": targets[channel.id]})
            for user, channel in seats
        )
    )
    attack_busy, attack_cpu = time.perf_counter() - started, time.process_time() - cpu
    refused = [r.content for r in asked if r.ephemeral or r.message is None]
    assert not refused, f"/attack was refused, so it would not measure the command: {refused[0]}"
    clicks = []
    for (user, _), request in zip(seats, asked, strict=True):
        assert request.message is not None
        passive = next(i for i in request.message.custom_ids() if i.endswith(":passive"))
        clicks.append(pommel.click(request.message, passive, user=user))
    started, cpu = time.perf_counter(), time.process_time()
    answered = await asyncio.gather(*clicks)
    defend_busy, defend_cpu = time.perf_counter() - started, time.process_time() - cpu
    refused = [r.content for r in answered if r.ephemeral]
    assert not refused, f"the defense click was refused: {refused[0]}"
    return (
        ([r.latency for r in asked], attack_busy, [r.interaction for r in asked], attack_cpu),
        ([r.latency for r in answered], defend_busy, [r.interaction for r in answered], defend_cpu),
    )


async def run_batch(
    pommel: RunningBot, workload: Workload, seats: list[tuple[FakeUser, FakeChannel]]
) -> Timed:
    started, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(
        *(
            pommel.slash(workload.command, user=user, channel=channel, options=workload.options)
            for user, channel in seats
        )
    )
    busy, cpu = time.perf_counter() - started, time.process_time() - cpu
    refused = [r.content for r in results if r.ephemeral]
    assert not refused, f"{workload.label} was refused, so it would not measure the command: {refused[0]}"
    return [r.latency for r in results], busy, [r.interaction for r in results], cpu


def bench_world(
    fake: FakeDiscord, channels: int, concurrency: int
) -> tuple[World, list[FakeChannel], list[FakeChannel], list[FakeUser]]:
    """The guild, ``channels`` tables and as many duel channels, and a player for each interaction in
    flight."""
    world = build_world(fake)
    tables = [world.guild.create_text_channel(f"table-{n}") for n in range(channels)]
    duels = [world.guild.create_text_channel(f"duel-{n}") for n in range(channels)]
    players = [fake.create_user(f"player-{n}") for n in range(concurrency)]
    for player in players:
        world.guild.add_member(player)
    return world, tables, duels, players


def seats_of(
    workload: Workload, number: int, world: World, players: list[FakeUser], tables: list[FakeChannel]
) -> list[tuple[FakeUser, FakeChannel]]:
    """Batch ``number``'s seats: who sends the workload (the GM for the GM's commands), in which table,
    the batches taking the tables in turn."""
    concurrency = len(players)
    return [
        (world.gm if workload.by_gm else players[i], tables[(number * concurrency + i) % len(tables)])
        for i in range(concurrency)
    ]


async def measure(
    interactions: int, channels: int, concurrency: int, discord: Mapping[str, Any]
) -> tuple[dict[str, Measured], FakeDiscord]:
    measured = {w.label: Measured() for w in WORKLOADS} | {ATTACK: Measured(), DEFEND: Measured()}
    async with FakeDiscord(validate_requests=False, validate_responses=False, **discord) as fake:
        world, tables, duels, players = bench_world(fake, channels, concurrency)
        with tempfile.TemporaryDirectory() as scratch:
            async with BotRunner(fake, Path(scratch) / "bench.sqlite3") as runner:
                pommel = await runner.start_bot(
                    setup=add_baseline,
                    dice=RandomDice.seeded(7),
                    tracker_spacing=TRACKER_SPACING,
                    tracker_budget=TRACKER_DRAWS_PER_SECOND,
                )
                bot = pommel.bot
                if not fake.rate_limits.enabled:  # no limit to keep: the bot's own work is measured
                    bot.requests = None
                await seed_fights(bot.store, bot.catalog, world.gm, world.guild.id, tables)
                await seed_duels(bot.store, bot.catalog, bot.dice, world.gm, world.guild.id, duels)
                batches = max(1, interactions // concurrency)
                for number in range(-max(1, batches // 10), batches):  # the first tenth warms up
                    for workload in WORKLOADS:
                        seats = seats_of(workload, number, world, players, tables)
                        if workload.by_gm:
                            await deal_where_due(pommel, world.gm, seats)
                        latencies, busy, sent, cpu = await run_batch(pommel, workload, seats)
                        if number >= 0:
                            measured[workload.label].latencies += latencies
                            measured[workload.label].busy += busy
                            measured[workload.label].sent += sent
                            measured[workload.label].cpu += cpu
                        gc.collect()
                        gc.freeze()
                    duel_seats = [
                        (world.gm, duels[(number * concurrency + i) % channels]) for i in range(concurrency)
                    ]
                    duel = await run_duels(pommel, duel_seats)
                    for label, (latencies, busy, sent, cpu) in zip((ATTACK, DEFEND), duel, strict=True):
                        if number >= 0:
                            measured[label].latencies += latencies
                            measured[label].busy += busy
                            measured[label].sent += sent
                            measured[label].cpu += cpu
                    gc.collect()
                    gc.freeze()
                await pommel.bot.trackers.idle()
                fake.take_problems("ratelimit")  # reported, not failed on
                runner.check()
    return measured, fake


async def measure_apart(
    interactions: int, channels: int, concurrency: int, discord: Mapping[str, Any]
) -> tuple[dict[str, Measured], FakeDiscord]:
    """:func:`measure` with the bot in a process of its own (``bench/apart.py``): the same workloads and
    set-up (through the bot's ``bench-ready`` and ``bench-round``, the store being the bot's), timed to
    the first callback. A batch is busy until its last first callback: what the bot does after (its
    bookkeeping, its trackers) runs into the next batch, as it would between real interactions."""
    measured = {w.label: Measured() for w in WORKLOADS} | {ATTACK: Measured(), DEFEND: Measured()}
    async with FakeDiscord(validate_requests=False, validate_responses=False, **discord) as fake:
        world, tables, duels, players = bench_world(fake, channels, concurrency)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "bench.sqlite3"
            await seeded_database(path, world.gm, world.guild.id, tables, duels, deal=False)
            async with BotApart(fake, world, path, Path(scratch) / "bot.log") as bot:
                batches = max(1, interactions // concurrency)

                async def timed(sends: list[Coroutine[Any, Any, FakeInteraction]]) -> Timed:
                    started = time.perf_counter()
                    answered = await asyncio.gather(*sends)
                    busy = time.perf_counter() - started
                    refused = [i for i in answered if refused_answer(i)]
                    assert not refused, f"refused, so it would not measure the command: {refused[0].original}"
                    return first_answers(answered), busy, list(answered), 0.0

                for number in range(-max(1, batches // 10), batches):  # the first tenth warms up
                    for workload in WORKLOADS:
                        seats = seats_of(workload, number, world, players, tables)
                        if workload.by_gm:
                            for _, table in seats:
                                state = await bot.slash("bench-round", user=world.gm, channel=table)
                                if state.original is not None and state.original.content == "over":
                                    await bot.slash("init deal", user=world.gm, channel=table)
                        latencies, busy, sent, _ = await timed(
                            [
                                bot.slash(
                                    workload.command, user=user, channel=channel, options=workload.options
                                )
                                for user, channel in seats
                            ]
                        )
                        if number >= 0:
                            measured[workload.label].latencies += latencies
                            measured[workload.label].busy += busy
                            measured[workload.label].sent += sent
                        gc.collect()
                        gc.freeze()
                    duel_seats = [duels[(number * concurrency + i) % channels] for i in range(concurrency)]
                    targets = {}
                    for duel in duel_seats:
                        readied = await bot.slash("bench-ready", user=world.gm, channel=duel)
                        assert readied.original is not None
                        targets[duel.id] = readied.original.content
                    attacks = [
                        bot.slash("attack", user=world.gm, channel=d, options={"target": targets[d.id]})
                        for d in duel_seats
                    ]
                    started = time.perf_counter()
                    asked = await asyncio.gather(*attacks)
                    attack_busy = time.perf_counter() - started
                    await asyncio.sleep(0.005 * concurrency)  # the defender clicks a moment later
                    clicks = []
                    for request in asked:
                        message = message_with_buttons(request)
                        assert message is not None, "/attack was refused, so it would not measure the command"
                        passive = next(i for i in message.custom_ids() if i.endswith(":passive"))
                        clicks.append(bot.click(message, passive, user=world.gm))
                    click_latencies, click_busy, clicked, _ = await timed(clicks)
                    if number >= 0:
                        measured[ATTACK].latencies += first_answers(asked)
                        measured[ATTACK].busy += attack_busy
                        measured[ATTACK].sent += asked
                        measured[DEFEND].latencies += click_latencies
                        measured[DEFEND].busy += click_busy
                        measured[DEFEND].sent += clicked
                    gc.collect()
                    gc.freeze()
                await bot.quiet()
    return measured, fake


def refused_answer(inter: FakeInteraction) -> bool:
    """Whether the bot's answer (after a deferral: its follow-up) is private, i.e. it refused."""
    if inter.callback is not None and inter.callback.type == 5 and inter.followups:
        return inter.followups[0].ephemeral
    return inter.original is None or inter.original.ephemeral


GUARDS: dict[str, Any] = {"latency": 0.0, "rate_limits": False}
"""The fake Discord of issue 29's in-process regression guards, as they were set: no latency, no limits."""


def guard_figures(alone: Mapping[str, Measured], ten: Mapping[str, Measured]) -> dict[str, float]:
    """Issue 29's in-process guards from a run with one interaction in flight and one with ten (both under
    :data:`GUARDS`): ``8a``, ``/attack``'s p50 over the floor's; ``8c``, its throughput over the floor's."""
    return {
        "8a": alone[ATTACK].p50 / alone[FLOOR].p50,
        "8c": ten[ATTACK].throughput / ten[FLOOR].throughput,
    }


def report(
    measured: dict[str, Measured], fake: FakeDiscord, interactions: int, channels: int, concurrency: int
) -> str:
    base, floor = measured[BASELINE], measured[FLOOR]
    lines = [
        f"{interactions} interactions per command over {channels} channels, "
        f"{concurrency} in flight at a time; round trip {fake.latency * 1e3:.0f} ms; {rate_limited(fake)}",
        "",
        f"{'':<28} {'':>8} {'':>8} {'':>8}   {'to pong':^22}   {'to the floor':^22}",
        f"{'command':<28} {'p50 ms':>8} {'p99 ms':>8} {'per s':>8}"
        f"   {'p50 x':>6} {'p99 x':>6} {'per s x':>7}   {'p50 x':>6} {'p99 x':>6} {'per s x':>7}"
        + (f"   {'CPU ms':>6} {'x floor':>7}" if floor.cpu else ""),
    ]
    for label, m in measured.items():
        lines.append(
            f"{label:<28} {m.p50 * 1e3:>8.2f} {m.p99 * 1e3:>8.2f} {m.throughput:>8.0f}   "
            f"{m.p50 / base.p50:>6.2f} {m.p99 / base.p99:>6.2f} {m.throughput / base.throughput:>7.2f}   "
            f"{m.p50 / floor.p50:>6.2f} {m.p99 / floor.p99:>6.2f} {m.throughput / floor.throughput:>7.2f}"
            + (f"   {m.cpu_each * 1e3:>6.2f} {m.cpu_each / floor.cpu_each:>7.2f}" if floor.cpu else "")
        )
    if floor.cpu:
        lines += [
            "",
            "CPU ms: this process's CPU (every thread: the bot, its database, the fake Discord) while the",
            "command's batches were in flight, per interaction",
        ]
    lines += ["", "user-felt: from the interaction reaching Discord"]
    for label in (INIT_NEXT, ATTACK, DEFEND):
        m, of = measured[label], len(measured[label].sent)
        answers = felt("to the answer itself", whole_answers(m.sent), fake.latency, of)
        tracker = felt("to the tracker showing it", tracker_shown(fake, m.sent), fake.latency, of)
        lines += [f"  {label:<28} {answers}", f"  {'':<28} {tracker}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=2000, help="per command (default 2000)")
    parser.add_argument(
        "--channels",
        type=int,
        default=20,
        help="channels to spread them over (default 20; never fewer than in flight, so that no two"
        " interactions of a batch share a channel)",
    )
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 10, 100],
        help="interactions in flight, one scene per number (default 1,10,100)",
    )
    parser.add_argument(
        "--apart",
        action="store_true",
        help="run the bot in a process of its own (bench/apart.py), the fake Discord in this one",
    )
    add_discord_options(parser)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print("latency = INTERACTION_CREATE sent -> first callback received; x = ratio to the baseline")
    print(
        "the bot in a process of its own\n"
        if args.apart
        else "the bot and the fake Discord on one event loop\n"
    )
    for concurrency in args.concurrency:
        channels = max(args.channels, concurrency)
        run = measure_apart if args.apart else measure
        measured, fake = asyncio.run(run(args.interactions, channels, concurrency, discord_options(args)))
        print(report(measured, fake, args.interactions, channels, concurrency), end="\n\n")


if __name__ == "__main__":
    main()
