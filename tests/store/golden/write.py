"""Writes a golden database: ``python -m tests.store.golden.write tests/store/golden/schema-N.sqlite3``
from the worktree of the commit whose documents it keeps (then ``gzip -9 -n`` it; see docs/LAYOUT.md).

Two running fights of Alice against two Bandits (channel 100: an exchange answered and one awaiting its
defense; channel 300: just dealt), one that ended after an undo (channel 200), two characters and a
server's settings. It played the same at 82c3bea (``release-82c3bea``) and at schema 1 (``schema-1``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from bot.catalog import load_catalog
from bot.encounter.attacks import Declaration, ExchangeAction, answer, attack
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.history import restored
from bot.encounter.permissions import Actor
from bot.encounter.results import ExchangeReport
from bot.guild_settings import GuildSettings
from bot.rules.dice import ScriptedDice
from bot.store import HistoryStep, LogEntry, open_store
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GUILD = 10
GM = Actor(user_id=1)
NOW = datetime(2026, 12, 1, tzinfo=UTC)

Operation = Callable[[Encounter], Done[ExchangeReport]]


def duel(channel: int) -> Encounter:
    encounter = Encounter(channel_id=channel, guild_id=GUILD, gm_id=GM.user_id)
    sheet = character("Alice", shield="buckler")
    encounter.join(11, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=2, leader=True)
    encounter.initiative.deck = deck_dealing("KS", "2C")
    encounter.deal(ScriptedDice([]))
    return encounter


def attacking(target: str, faces: list[int]) -> Operation:
    declared = Declaration(dice=1)
    return lambda e: attack(
        e, CATALOG, GM, who="Alice", target=target, declared=declared, dice=ScriptedDice(faces), now=NOW
    )


def passive(exchange_id: int, step: int, faces: list[int]) -> Operation:
    return lambda e: answer(
        e,
        CATALOG,
        GM,
        fight=e.tag,
        exchange_id=exchange_id,
        step=step,
        action=ExchangeAction.PASSIVE,
        dice_committed=0,
        dice=ScriptedDice(faces),
    )


def undo_line(steps: Sequence[HistoryStep]) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=200, user_id=GM.user_id, kind="encounter", text="undone")


async def write(path: str) -> None:
    store = await open_store(path)
    await store.create_character(GUILD, 11, character("Alice", shield="buckler"))
    await store.create_character(GUILD, 12, character("Bors", prowess=3, hp=14))
    await store.save_guild_settings(GuildSettings(guild_id=GUILD))
    for channel in (100, 200, 300):
        await store.save_encounter(duel(channel))
    _, asked = await store.change(100, GM.user_id, attacking("Bandit 1", [15]))
    await store.change(100, GM.user_id, passive(asked.exchange_id, 0, [6]))
    await store.change(100, GM.user_id, attacking("Bandit 2", [12]))  # awaits its defense
    _, asked = await store.change(200, GM.user_id, attacking("Bandit 1", [15]))
    saved, _ = await store.change(200, GM.user_id, passive(asked.exchange_id, 0, [6]))
    await store.undo(200, 1, saved.version, restored, undo_line)
    await store.change(200, GM.user_id, lambda e: Done(None, log=["the fight ends"], end=True))
    await store.close()


if __name__ == "__main__":
    asyncio.run(write(sys.argv[1]))
