"""The pictures of the README, drawn by the bot itself, and how long each chart takes to draw.

Run on demand (``make bench``; ``--write docs`` to refresh ``docs/*.png``), never as a pass/fail test.
The real bot answers through the fake Discord (which checks every upload against Discord's spec), and the
PNGs are the files it attached: ``/stats dice`` on a fair sample (seeded ``random``: 700 Martial Pool rolls
of 1 to 3 d20s in #table) and on a biased one (the same in #lobby, from a die that shows 20 one time in
ten and 1 half as often as it should), and ``/odds target:Bandit dice:2`` in a fight (Ansel, +5 at
Onset, against a Bandit's passive 10 and active 2 dice +5). Then each chart is drawn ``--runs`` times
straight (no Discord), and the median and the slowest are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from bot.dice_stats import FACES, fairness
from bot.rules.odds import attack_odds
from bot.store import LogEntry
from bot.ui.charts import Chart, PlannedDefense, dice_chart, odds_chart
from tests.e2e.fake_discord import FakeChannel, FakeDiscord, FakeUser, build_world
from tests.e2e.fights import seed_fight
from tests.e2e.harness import BotRunner, InteractionResult, RunningBot

ROLLS = 700
LOADED = [0.5] + [1.0] * 18 + [2.0]
"""The biased die: 20 twice as likely as a fair face, 1 half as likely."""


def pools(rng: random.Random, weights: list[float] | None) -> list[list[int]]:
    return [rng.choices(list(FACES), weights=weights, k=rng.randint(1, 3)) for _ in range(ROLLS)]


async def seed(
    pommel: RunningBot, guild_id: int, channel: FakeChannel, user: FakeUser, rolls: list[list[int]]
) -> None:
    await pommel.bot.store.append_logs(
        [
            LogEntry(
                at=datetime.now(UTC),
                guild_id=guild_id,
                channel_id=channel.id,
                user_id=user.id,
                kind="roll",
                text=f"a pool of {len(faces)}d20",
                data={"faces": faces, "private": False},
            )
            for faces in rolls
        ]
    )


def attached(result: InteractionResult) -> bytes:
    assert result.message is not None, result.text
    [picture] = result.message.attachments
    print(f"  {picture.filename}: {len(picture.data):,} bytes; alt text: {picture.description}")
    return picture.data


def timed(what: str, draw: Callable[[], Chart], runs: int) -> None:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        draw()
        times.append(time.perf_counter() - began)
    print(f"{what:<34} median {statistics.median(times) * 1000:6.0f} ms   max {max(times) * 1000:6.0f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="the folder to write the PNGs to (docs)")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(15)
    fair, biased = pools(rng, None), pools(rng, LOADED)
    pictures: dict[str, bytes] = {}
    async with FakeDiscord() as fake:
        world = build_world(fake)
        with tempfile.TemporaryDirectory() as scratch:
            async with BotRunner(
                fake, Path(scratch) / "charts.sqlite3", default_channel=world.table
            ) as runner:
                pommel = await runner.start_bot()
                await seed(pommel, world.guild.id, world.table, world.player, fair)
                await seed(pommel, world.guild.id, world.lobby, world.player2, biased)
                for name, channel in (("dice-fair.png", world.table), ("dice-biased.png", world.lobby)):
                    result = await pommel.slash(
                        "stats dice", user=world.player, channel=channel, options={"of": "channel"}
                    )
                    print(f"/stats dice in #{channel.name}: answered in {result.latency * 1000:.0f} ms")
                    pictures[name] = attached(result)
                await seed_fight(
                    pommel, world, players=[(world.player, "Ansel")], npcs=[("bandit", 1, "Bandit")]
                )
                result = await pommel.slash(
                    "odds", user=world.player, options={"target": "Bandit", "dice": 2}
                )
                print(f"/odds target:Bandit dice:2: answered in {result.latency * 1000:.0f} ms")
                pictures["odds-plan.png"] = attached(result)
        assert not fake.problems, fake.problem_report()
    if args.write:
        for name, data in pictures.items():
            (args.write / name).write_bytes(data)
            print(f"wrote {args.write / name}")

    fair_result = fairness(dict.fromkeys(FACES, 0) | {f: sum(r.count(f) for r in fair) for f in FACES}, ROLLS)
    timed("dice chart", lambda: dice_chart(fair_result, "Rolls in #table"), args.runs)
    plan = [
        PlannedDefense(
            "if Bandit defends passively",
            False,
            tuple((n, attack_odds(attack_dice=n, attack_bonus=5, passive_defense=10)) for n in range(1, 5)),
        ),
        PlannedDefense(
            "if Bandit defends actively",
            True,
            tuple(
                (n, attack_odds(attack_dice=n, attack_bonus=5, defense_dice=2, defense_bonus=5))
                for n in range(1, 5)
            ),
        ),
    ]
    timed("odds plan, two defenses", lambda: odds_chart("Ansel → Bandit", plan, asked=2), args.runs)
    timed("odds plan, one defense", lambda: odds_chart("Odds of an attack +5", plan[:1], asked=2), args.runs)


if __name__ == "__main__":
    asyncio.run(main())
