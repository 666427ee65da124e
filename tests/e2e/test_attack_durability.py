"""Nothing is lost while a defender decides: a restart keeps the pending defense and its buttons, a
double click resolves once, and a timeout that ran out while the bot was down is applied on start.

Alice (player, arming sword) holds K♠ and has the turn, the Bandit (GM's NPC, messer, light gambeson)
holds 2♣; the bot's dice are scripted.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.rules.dice import ScriptedDice
from bot.store import open_store
from bot.table_options import DefensePolicy, TableOptions

from .fake_discord import World
from .fights import StackedDice, exchange_button, fight_of, seed_fight
from .harness import BotRunner, RunningBot

MESSAGE = "/channels/{channel_id}/messages/{message_id}"


async def alice_and_the_bandit(
    pommel: RunningBot, world: World, *, cards: tuple[str, ...] = ("KS", "2C")
) -> None:
    encounter = await seed_fight(
        pommel, world, players=[(world.player, "Alice")], npcs=[("bandit", 1, "Bandit")]
    )
    encounter.deal(StackedDice(list(cards)))
    await pommel.bot.store.save_encounter(encounter)


async def test_r14_a_defense_pending_across_a_restart_resolves_on_the_old_button_and_only_once(
    world: World, start_bot: Any
) -> None:
    # Alice's attack 14, ~~7~~; after the restart the Bandit defends with one die: 9; damage 6.
    first = await start_bot(dice=ScriptedDice([14, 7]))
    await alice_and_the_bandit(first, world)
    asked = await first.slash("attack", user=world.player, options={"target": "Bandit", "dice": 2})
    assert asked.message is not None
    assert "how does **Bandit** defend?" in asked.content
    pending = await fight_of(first, world)
    assert [e.pending for e in pending.exchanges] == [True]
    assert pending.combatant("Alice").pool.remaining == 1  # the attack's dice were spent before the restart
    await first.close()

    second = await start_bot(dice=ScriptedDice([9, 6]))
    active = exchange_button(asked.message, "active:1")
    # A double click: both arrive before either is answered; one resolves, the other is refused.
    clicks = await asyncio.gather(
        second.click(asked.message, active, user=world.gm), second.click(asked.message, active, user=world.gm)
    )
    answered = [c for c in clicks if not c.ephemeral]
    refused = [c for c in clicks if c.ephemeral]
    assert len(answered) == len(refused) == 1, [c.content for c in clicks]
    clicked = answered[0]
    assert "🛡️ Active defense, 1 die: **9** +1 Prowess +1 Dex +3 Sword, Messer = **14**" in clicked.content
    assert "💥 **Hit** — totals compared (R14.7)" in clicked.content
    assert "❤️ **Bandit**: HP 11 → **8**/11" in clicked.content
    assert "earlier moment of this attack" in refused[0].content
    fight = await fight_of(second, world)
    bandit = fight.combatant("Bandit")
    assert (bandit.hp, bandit.pool.remaining) == (8, 1)  # one die spent, one blow taken: once


async def test_a_player_who_lets_the_timeout_run_out_while_the_bot_is_down_gets_the_policy_on_start(
    world: World, start_bot: Any, bot_runner: BotRunner
) -> None:
    # The Bandit's turn (K♠ to the Bandit): it attacks Alice, who is asked; she never answers.
    first = await start_bot(dice=ScriptedDice([15]))
    await alice_and_the_bandit(first, world, cards=("2C", "KS"))
    fight = await fight_of(first, world)
    fight.table = TableOptions(defense_policy=DefensePolicy.PASSIVE, defense_timeout_minutes=5)
    await first.bot.store.save_encounter(fight)
    asked = await first.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    assert f"<@{world.player.id}>" in asked.content
    assert "If nobody picks by" in asked.content
    assert "the defense is passive" in asked.content
    await first.close()

    passive = exchange_button(asked.message, "passive")
    # The deadline passed while the bot was down.
    store = await open_store(bot_runner.database_path)
    try:
        stored = await store.load_encounter(world.table.id)
        assert stored is not None
        stored.exchanges[0].deadline = datetime.now(UTC) - timedelta(seconds=1)
        await store.save_encounter(stored)
    finally:
        await store.close()
    before = len(world.table.history)
    second = await start_bot(dice=ScriptedDice([4]))  # the messer's damage: 15 + 1 + 3 > Alice's 11

    def posted() -> list[str]:
        return [m.content for m in world.table.history[before:] if "Nobody picked a defense" in m.content]

    # the timer fires as the bot starts; its message may be followed by others
    await second.fake.wait_for(lambda: bool(posted()), what="the timeout's result posted")
    result = posted()[0]
    assert "⏰ Nobody picked a defense in time: **passive** (the table's policy)." in result
    assert "🛡️ Passive defense (R13)" in result
    fight = await fight_of(second, world)
    assert fight.combatant("Alice").hp == 14 - 4
    assert not fight.exchanges[0].pending
    request = world.table.messages[asked.message.id]
    # the request is edited once the result is posted (it links to it)
    await second.fake.wait_for(lambda: "If nobody picks by" not in request.content, what="the request edited")
    assert passive not in request.custom_ids()  # the request lost its buttons
    assert "If nobody picks by" not in request.content  # and says what became of it
    assert "the table's policy defended (**passive**); the result is in [this message](" in request.content


async def test_with_ask_the_gm_a_timeout_pings_the_gm_whose_click_then_decides(
    world: World, start_bot: Any
) -> None:
    """The default policy: when Alice lets the timeout run out, the GM is pinged with the defense
    buttons (nothing is decided for her), the request says so and where, and loses its buttons (it
    used to keep them, and its "If nobody picks by …"); the GM's Passive resolves it."""
    pommel = await start_bot(dice=ScriptedDice([15, 4]))
    await alice_and_the_bandit(pommel, world, cards=("2C", "KS"))
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert "If nobody picks by" in asked.content
    assert "the GM is asked" in asked.content
    combat: Any = pommel.bot.get_cog("Attack")  # loaded as an extension: not this module's class
    assert combat is not None
    assert list(combat.timers) == [(world.table.id, 1)]  # the timer waits for the deadline
    fight = await fight_of(pommel, world)
    fight.exchanges[0].deadline = datetime.now(UTC) - timedelta(seconds=1)
    await pommel.bot.store.save_encounter(fight)
    before = len(world.table.history)
    await combat.run_timeout(world.table.id, 1)  # what the timer does when the deadline comes
    [notice] = world.table.history[before:]
    request = world.table.messages[asked.message.id]
    assert request.custom_ids() == []  # closed: Alice can no longer answer beside the GM
    assert "If nobody picks by" not in request.content
    link = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{notice.id}"
    assert f"the GM decides, in [this message]({link})" in request.content
    assert notice.content.startswith(
        f"⏰ <@{world.gm.id}>: time is up and nobody picked a defense; you decide."
    )
    assert [user.id for user in notice.mentions] == [world.gm.id]  # the GM is pinged, not Alice
    assert "If nobody picks by" not in notice.content  # the time is up: no deadline any more
    still = await fight_of(pommel, world)
    assert still.exchanges[0].pending
    assert still.exchanges[0].gm_pinged
    decided = await pommel.click(notice, exchange_button(notice, "passive"), user=world.gm)
    assert not decided.ephemeral, decided.content
    assert "❤️ **Alice**: HP 14 → **10**/14" in decided.content


async def test_a_late_answer_tells_the_attackers_player_with_a_message_of_its_own(
    world: World, start_bot: Any
) -> None:
    """Play-by-post: Alice answers the Bandit's attack an hour later; the result replaces the request
    in place (an edit notifies nobody), so a new message pings the Bandit's GM. A quick answer does not."""
    pommel = await start_bot(dice=ScriptedDice([15, 4, 3, 15, 4]))
    await alice_and_the_bandit(pommel, world, cards=("2C", "KS"))
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    fight = await fight_of(pommel, world)
    fight.exchanges[0].asked_at = datetime.now(UTC) - timedelta(hours=1)
    await pommel.bot.store.save_encounter(fight)
    late = await pommel.click(asked.message, exchange_button(asked.message, "active:1"), user=world.player)
    assert "💥 **Hit**" in late.content
    [notice] = late.followups
    link = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{asked.message.id}"
    assert notice.content == (
        f"📬 <@{world.gm.id}>: **Alice** answered **Bandit**'s attack: a hit (see [the result]({link}))."
    )
    assert [user.id for user in notice.mentions] == [world.gm.id]

    quick = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    answered = await pommel.click(quick.message, exchange_button(quick.message, "passive"), user=world.player)
    assert "💥 **Hit**" in answered.content
    assert answered.followups == []


async def test_a_button_left_from_an_ended_fight_does_nothing_in_the_channels_next_fight(
    world: World, start_bot: Any
) -> None:
    """The new fight's first attack is exchange 1 at step 0 too: the old request's buttons carry the old
    fight's tag, so they are refused instead of defending in the new fight. (The end takes them away;
    here Discord refuses those edits, so they stay.)"""
    pommel = await start_bot(dice=ScriptedDice([15, 12]))
    await alice_and_the_bandit(pommel, world)
    old = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    asked = await pommel.slash("encounter end", user=world.gm)
    assert asked.message is not None, asked.content
    refused_edit = {"message": "Missing Permissions", "code": 50013}
    pommel.fake.fail("PATCH", MESSAGE, "status", status=403, body=refused_edit, times=5)
    ended = await pommel.click(asked, asked.message.custom_ids()[0], user=world.gm)  # "End the fight"
    pommel.fake.faults.clear()
    pommel.fake.take_problems()
    assert not ended.followups[0].ephemeral, ended.content
    await asyncio.sleep(0.002)  # the next fight starts at another millisecond
    await alice_and_the_bandit(pommel, world)
    new = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    stale = exchange_button(old.message, "passive")
    assert stale != exchange_button(new.message, "passive")
    refused = await pommel.click(old.message, stale, user=world.gm)
    assert refused.ephemeral
    assert "belongs to an earlier fight in this channel" in refused.content
    fight = await fight_of(pommel, world)
    assert [e.pending for e in fight.exchanges] == [True]


async def test_discord_py_keeps_no_view_of_the_messages_sent_and_their_buttons_still_act(
    world: World, start_bot: Any
) -> None:
    """Every button is a dynamic item acted on by its custom id, so the views are sent stopped and
    discord.py's view store does not grow by one view per message (it once kept them all, for good)."""
    pommel = await start_bot(dice=ScriptedDice([3]))
    await alice_and_the_bandit(pommel, world)
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert asked.message is not None
    answered = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert not answered.ephemeral, answered.content
    assert "**Miss**" in answered.content
    assert pommel.bot.trackers is not None
    store = pommel.bot._connection._view_store
    assert store._views == {}
    assert store._synced_message_views == {}
