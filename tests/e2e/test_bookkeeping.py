"""An /attack, a click and /init next are one write each: what is learnt of the fight's messages after
the answer (the request's id, the buttons drawn) is bookkeeping, written by the fight's next change in
its own transaction (:mod:`bot.store.bookkeeping`). A clean restart writes what is still noted; a crash
loses at most that, never an action, and the fight goes on: the request's buttons still act, and
``/encounter show`` posts it again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.app import NOTES_JOB
from bot.fight_messages import MISSING_REQUEST
from bot.store import SqliteStore

from .fake_discord import World
from .fights import dealt_fight, exchange_button, fight_of
from .harness import BotRunner, RunningBot
from .test_fight_messages import BANDIT_FIRST, play_by_post, posted_since


def counting_writes(pommel: RunningBot) -> Callable[[], int]:
    """Counts the store's write transactions from now on; the count so far."""
    store: Any = pommel.bot.store
    write = store._write
    count = 0

    async def counted(work: Any) -> Any:
        nonlocal count
        count += 1
        return await write(work)

    store._write = counted
    return lambda: count


async def as_stored(path: Path, channel_id: int) -> Any:
    """The fight as written in the database, read apart from the bot."""
    store = await SqliteStore.open(str(path), exclusive=False)
    try:
        return await store.load_encounter(channel_id)
    finally:
        await store.close()


async def test_an_attack_and_the_click_that_answers_it_are_one_write_each(
    world: World, start_bot: Any, bot_runner: BotRunner
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 4], cards=BANDIT_FIRST, edit=play_by_post)
    assert NOTES_JOB in pommel.bot.scheduler  # what no change carries is written within a minute
    await pommel.slash("init show", user=world.gm)  # the tracker's first post saves where it is
    writes = counting_writes(pommel)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    assert writes() == 1
    fight = await fight_of(pommel, world)
    assert fight.exchanges[0].message_id == asked.message.id  # a read sees what is noted
    stored = await as_stored(bot_runner.database_path, world.table.id)
    assert stored.exchanges[0].message_id is None  # not written yet

    answered = await pommel.click(asked, exchange_button(asked, "passive"), user=world.player)
    assert not answered.ephemeral, answered.content
    assert writes() == 2
    stored = await as_stored(bot_runner.database_path, world.table.id)
    assert stored.exchanges[0].message_id == asked.message.id  # written with the click
    assert not stored.exchanges[0].pending


async def test_a_clean_restart_writes_what_is_noted(
    world: World, start_bot: Any, bot_runner: BotRunner
) -> None:
    first = await dealt_fight(world, start_bot, faces=[15], cards=BANDIT_FIRST, edit=play_by_post)
    await first.slash("init show", user=world.gm)  # the tracker's first post (a write) is behind
    asked = await first.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    stored = await as_stored(bot_runner.database_path, world.table.id)
    assert stored.exchanges[0].message_id is None  # noted, not written yet
    await first.close()
    stored = await as_stored(bot_runner.database_path, world.table.id)
    assert stored.exchanges[0].message_id == asked.message.id
    assert [m.id for m in stored.messages] == [asked.message.id]


async def test_a_crash_loses_no_action_and_the_fight_goes_on(
    world: World, start_bot: Any, bot_runner: BotRunner
) -> None:
    first = await dealt_fight(world, start_bot, faces=[15, 4], cards=BANDIT_FIRST, edit=play_by_post)
    await first.slash("init show", user=world.gm)  # the tracker's first post (a write) is behind
    asked = await first.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    first.bot.store.bookkeeping = type(first.bot.store.bookkeeping)()  # what a kill loses: the notes
    await first.close()
    stored = await as_stored(bot_runner.database_path, world.table.id)
    [exchange] = stored.exchanges
    assert exchange.pending  # the attack stands
    assert exchange.message_id is None  # its request's id was lost

    second = await start_bot()
    posted = len(world.table.history)
    await second.slash("encounter show", user=world.gm)
    [again] = posted_since(world, posted, MISSING_REQUEST)  # posted again, as a request lost
    assert (await fight_of(second, world)).exchanges[0].message_id == again.id
    answered = await second.click(asked, exchange_button(asked, "passive"), user=world.player)
    assert not answered.ephemeral, answered.content  # the first request's buttons still act
    assert not (await fight_of(second, world)).exchanges[0].pending
