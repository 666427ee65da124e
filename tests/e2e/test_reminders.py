"""Reminders for play-by-post, through the fake Discord: a long wait pings whoever must act, once,
and a reminder that fell due while the bot was down is sent when it starts again.

Alice (player) and the Bandit (the GM's NPC) each hold a card; the fight reminds after 6 hours. The
tests call the cog's sweep with a clock moved on (the sweep task runs it every few minutes).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.rules.dice import ScriptedDice
from bot.store import open_store
from bot.table_options import TableOptions

from .fake_discord import World
from .fights import StackedDice, exchange_button, fight_of, seed_fight
from .harness import BotRunner, RunningBot

LATER = timedelta(hours=7)


async def alice_and_the_bandit(
    pommel: RunningBot, world: World, *, cards: tuple[str, ...] = ("KS", "2C"), hours: int = 6
) -> None:
    encounter = await seed_fight(
        pommel, world, players=[(world.player, "Alice")], npcs=[("bandit", 1, "Bandit")]
    )
    encounter.table = TableOptions(remind_after_hours=hours)
    encounter.deal(StackedDice(list(cards)))
    await pommel.bot.store.save_encounter(encounter)


def sweeper(pommel: RunningBot) -> Any:
    cog: Any = pommel.bot.get_cog("Reminders")  # loaded as an extension: not this module's class
    assert cog is not None
    return cog


def pinged(message: Any) -> list[int]:
    assert message.allowed_mentions is not None
    return [int(user) for user in message.allowed_mentions.get("users", [])]


async def test_a_turn_that_waited_long_pings_the_card_s_player_once(world: World, pommel: RunningBot) -> None:
    await alice_and_the_bandit(pommel, world)
    cog = sweeper(pommel)
    now = datetime.now(UTC)
    before = len(world.table.history)
    await cog.sweep(now)  # the turn was dealt outside a press: it counts from this sweep
    assert len(world.table.history) == before
    await cog.sweep(now + LATER)
    [reminder] = world.table.history[before:]
    assert reminder.content == (
        f"⏰ <@{world.player.id}>: it has been 7 hours since your turn (**Alice**, K♠) began; "
        "act with /attack, /move… or press **Next** on the tracker."
    )
    assert pinged(reminder) == [world.player.id]
    await cog.sweep(now + 2 * LATER)  # never twice for the same wait
    assert len(world.table.history) == before + 1
    assert (await fight_of(pommel, world)).reminded == ["turn:2"]


async def test_nothing_is_reminded_when_the_option_is_off(world: World, pommel: RunningBot) -> None:
    await alice_and_the_bandit(pommel, world, hours=0)
    cog = sweeper(pommel)
    before = len(world.table.history)
    now = datetime.now(UTC)
    await cog.sweep(now)
    await cog.sweep(now + timedelta(days=30))
    assert len(world.table.history) == before


async def test_a_defense_waiting_pings_the_defender_s_player(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([15]))
    await alice_and_the_bandit(pommel, world, cards=("2C", "KS"))  # the Bandit's turn
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    before = len(world.table.history)
    await sweeper(pommel).sweep(datetime.now(UTC) + LATER)
    [reminder] = world.table.history[before:]
    link = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{asked.message.id}"
    assert reminder.content == (
        f"⏰ <@{world.player.id}>: **Bandit**'s attack has waited 7 hours for **Alice**'s defense; "
        f"pick one with the buttons of [the attack]({link})."
    )
    assert pinged(reminder) == [world.player.id]


async def test_a_reminder_due_while_the_bot_was_down_is_sent_when_it_starts(
    world: World, start_bot: Any, bot_runner: BotRunner
) -> None:
    first = await start_bot()
    await alice_and_the_bandit(first, world)
    await sweeper(first).sweep()  # the turn counts from now
    assert (await fight_of(first, world)).waiting == "turn:2"
    await first.close()
    store = await open_store(bot_runner.database_path)  # the bot stays down for 7 hours
    try:
        stored = await store.load_encounter(world.table.id)
        assert stored is not None
        assert stored.waiting_since is not None
        stored.waiting_since -= LATER
        await store.save_encounter(stored)
    finally:
        await store.close()
    before = len(world.table.history)
    second = await start_bot()

    def posted() -> list[Any]:
        return [m for m in world.table.history[before:] if m.content.startswith("⏰")]

    await second.fake.wait_for(lambda: bool(posted()), what="the reminder")  # the first sweep, at start
    [reminder] = posted()
    assert "it has been 7 hours since your turn (**Alice**, K♠) began" in reminder.content
    assert pinged(reminder) == [world.player.id]
    await sweeper(second).sweep()
    assert [m for m in world.table.history[before:] if m.content.startswith("⏰")] == [reminder]


async def test_a_turn_waiting_on_the_gms_defense_reminds_the_gm_with_a_link_not_the_attacker(
    world: World, start_bot: Any
) -> None:
    """Alice attacked on her turn and the GM has not defended the Bandit: the reminder pings the GM for
    the defense, linking the attack's message; Alice, who can do nothing but wait, is not pinged. Once
    the GM answered, the turn is Alice's again, and its reminder links the tracker."""
    pommel = await start_bot(dice=ScriptedDice([15, 4]))
    await alice_and_the_bandit(pommel, world)
    cog = sweeper(pommel)
    now = datetime.now(UTC)
    await cog.sweep(now)  # Alice's turn counts from here
    tracker = await pommel.slash("init show", user=world.player)
    assert tracker.message is not None
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert asked.message is not None
    fight = await fight_of(pommel, world)
    fight.exchanges[0].asked_at = now
    await pommel.bot.store.save_encounter(fight)
    before = len(world.table.history)
    await cog.sweep(now + LATER)
    [reminder] = world.table.history[before:]
    link = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{asked.message.id}"
    assert reminder.content == (
        f"⏰ <@{world.gm.id}>: **Alice**'s attack has waited 7 hours for **Bandit**'s defense; "
        f"pick one with the buttons of [the attack]({link})."
    )
    assert pinged(reminder) == [world.gm.id]

    await pommel.click(asked.message, exchange_button(asked.message, "passive"), user=world.gm)
    before = len(world.table.history)
    await cog.sweep(now + LATER + timedelta(hours=1))
    [turn] = [m for m in world.table.history[before:] if m.content.startswith("⏰")]
    shown = (await fight_of(pommel, world)).tracker
    assert shown is not None
    board = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{shown.message_id}"
    assert turn.content == (
        f"⏰ <@{world.player.id}>: it has been 8 hours since your turn (**Alice**, K♠) began; "
        f"act with /attack, /move… or press **Next** on [the tracker]({board})."
    )
    assert pinged(turn) == [world.player.id]
