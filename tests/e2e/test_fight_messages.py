"""Every message that shows a step of a fight tells the truth for its whole life: the fight knows each
one, and every change (a click, an undo, a redo, a roll, the end) leaves on it exactly the buttons the
fight would accept. A request that Discord never delivered, or that a moderator deleted, is posted
again with its ping, and the tracker and ``/encounter show`` say what the fight waits for, with links.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.encounter.document import Encounter
from bot.fight_messages import MISSING_REQUEST
from bot.table_options import DefensePolicy, TableOptions
from bot.ui.attack_views.request import ASKED_AGAIN
from bot.ui.waiting import WAITING_TITLE

from .fake_discord import FakeMessage, World
from .fights import (
    StackedDice,
    button_id,
    dealt_fight,
    exchange_action,
    exchange_button,
    fight_of,
    seed_fight,
    start,
    tracker_message,
)
from .harness import RunningBot
from .test_undo import redo_button, undo

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
MISSING_PERMISSIONS = {"message": "Missing Permissions", "code": 50013}
UNKNOWN_INTERACTION = {"message": "Unknown interaction", "code": 10062}
BANDIT_FIRST = ("2C", "3C", "KS")
"""Alice's, Bob's and the Bandit's cards: the Bandit acts first, and Alice is asked to defend."""


def play_by_post(encounter: Encounter) -> None:
    """No defense timeout: the fight waits for each defense as long as it takes."""
    encounter.table = TableOptions(defense_timeout_minutes=0)


def posted_since(world: World, count: int, start: str) -> list[FakeMessage]:
    return [m for m in world.table.history[count:] if m.content.startswith(start)]


def not_turns(message: FakeMessage) -> list[str]:
    """A message's buttons but the turn's Next a result may offer."""
    return [custom_id for custom_id in message.custom_ids() if not custom_id.startswith("pommel:turn:")]


def link_to(world: World, message: FakeMessage) -> str:
    return f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{message.id}"


async def test_with_no_timeout_an_undo_and_a_redo_leave_no_message_that_contradicts_the_fight(
    world: World, start_bot: Any
) -> None:
    """Timeout 0 (play-by-post): the undone result still read "Miss" and kept its place; after the redo,
    the "waits for its defense again" request kept live buttons that were refused as stale."""
    pommel = await dealt_fight(world, start_bot, faces=[3], edit=play_by_post)
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert asked.message is not None
    result = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert "**Miss**" in result.content

    posted = len(world.table.history)
    await undo(pommel, world)
    [again] = posted_since(world, posted, ASKED_AGAIN)
    assert "Put back: the defense is asked again" in asked.message.content
    assert "**Miss**" not in asked.message.content
    assert asked.message.custom_ids() == []
    assert exchange_button(again, "passive")  # the live request is the new one

    _, done = await undo_and_redo(pommel, world)
    assert "Redone" in again.content
    assert again.custom_ids() == []  # nothing left to click: the defense is decided again
    fight = await fight_of(pommel, world)
    assert not any(exchange.pending for exchange in fight.exchanges)
    assert done


async def undo_and_redo(pommel: RunningBot, world: World) -> tuple[str, Any]:
    """The redo of the last undo, through the undo's own note (the undo already happened)."""
    asked = await pommel.slash("encounter redo", user=world.gm)
    assert asked.ephemeral, asked.content
    return asked.content, await pommel.click(asked, redo_button(asked), user=world.gm)


async def test_a_request_whose_reply_discord_dropped_is_posted_again_with_its_ping_and_timeout(
    world: World, start_bot: Any
) -> None:
    """The /attack reply was refused after the change was saved: the user read "Saved", but no message
    carried the defense buttons, Alice's player was never pinged and no timeout was set. (Discord has
    forgotten the interaction, so "Saved" is told in the channel: a second reply would be refused too.)"""
    pommel = await dealt_fight(world, start_bot, faces=[15, 4], cards=BANDIT_FIRST)
    pommel.fake.fail("POST", CALLBACK, "status", status=404, body=UNKNOWN_INTERACTION)
    posted = len(world.table.history)
    await pommel.slash(
        "attack", user=world.gm, options={"target": "Alice"}, expect_errors=True, expect_response=False
    )
    told = [m for m in world.table.history[posted:] if m.content.startswith(f"<@{world.gm.id}>: ✅ Saved")]
    assert len(told) == 1
    pommel.fake.take_problems()
    [request] = posted_since(world, posted, MISSING_REQUEST)
    assert f"<@{world.player.id}>: how does **Alice** defend?" in request.content
    assert [user.id for user in request.mentions] == [world.player.id]
    assert "If nobody picks by" in request.content
    fight = await fight_of(pommel, world)
    [exchange] = fight.exchanges
    assert exchange.pending
    assert exchange.message_id == request.id
    combat: Any = pommel.bot.get_cog("Attack")
    assert (world.table.id, exchange.id) in combat.timers  # its timeout runs, from the attack

    tracker = tracker_message(world.table)
    assert WAITING_TITLE in tracker.embed_text
    assert link_to(world, request) in tracker.embed_text
    shown = await pommel.slash("encounter show", user=world.gm)
    assert "**Alice**'s defense against **Bandit**'s attack" in shown.message.embed_text  # type: ignore[union-attr]
    assert link_to(world, request) in shown.message.embed_text  # type: ignore[union-attr]

    answered = await pommel.click(request, exchange_button(request, "passive"), user=world.player)
    assert not answered.ephemeral, answered.content


async def test_a_request_a_moderator_deleted_is_posted_again_when_the_fight_is_looked_at(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15], cards=BANDIT_FIRST)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    await pommel.fake.delete_by_moderator(asked.message)
    posted = len(world.table.history)
    shown = await pommel.slash("encounter show", user=world.gm)
    [request] = posted_since(world, posted, MISSING_REQUEST)
    assert [user.id for user in request.mentions] == [world.player.id]
    assert link_to(world, request) in shown.message.embed_text  # type: ignore[union-attr]
    assert (await fight_of(pommel, world)).exchanges[0].message_id == request.id


async def test_a_defense_whose_answer_discord_dropped_still_shows_its_result_on_the_request(
    world: World, start_bot: Any
) -> None:
    """The click was saved but its answer refused: the request went on asking, with its timeout and
    live buttons, and the result was only in the log."""
    pommel = await dealt_fight(world, start_bot, faces=[3], cards=BANDIT_FIRST)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    pommel.fake.fail("POST", CALLBACK, "status", status=404, body=UNKNOWN_INTERACTION)
    await pommel.click(
        asked,
        exchange_button(asked, "passive"),
        user=world.player,
        expect_errors=True,
        expect_response=False,  # Discord has forgotten the click: no reply can reach it
    )
    pommel.fake.take_problems()
    assert "**Miss**" in asked.message.content
    assert "If nobody picks by" not in asked.message.content
    assert not_turns(asked.message) == []
    assert not (await fight_of(pommel, world)).exchanges[0].pending


async def test_roll_morale_goes_from_the_result_once_the_check_is_rolled(
    world: World, start_bot: Any
) -> None:
    def bandits_led_by_the_first(encounter: Encounter) -> None:
        leader = encounter.combatant("Bandit 1")
        leader.leader, leader.hp = True, 2
        encounter.table = TableOptions(defense_policy=DefensePolicy.PASSIVE)

    pommel = await dealt_fight(
        world, start_bot, faces=[15, 6, 14], npcs=[("bandit", 2, "Bandits")], edit=bandits_led_by_the_first
    )
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert result.message is not None
    roll = f"pommel:morale:1:{(await fight_of(pommel, world)).tag}"
    assert not_turns(result.message) == [roll]
    listed = await pommel.slash("morale proposals", user=world.gm)
    assert listed.message is not None, listed.content
    assert listed.message.custom_ids()
    rolled = await pommel.click(result, roll, user=world.gm)
    assert not rolled.ephemeral, rolled.content
    assert not_turns(result.message) == []
    assert listed.message.custom_ids() == []


async def test_a_stale_tracker_of_an_ended_fight_does_not_move_the_channels_next_fight(
    world: World, start_bot: Any
) -> None:
    """Discord refused the edit that closed the ended fight's tracker, and the new fight reached the same
    step: the old Next moved the new fight."""
    pommel = await start_bot()
    old = await seed_fight(pommel, world, players=[(world.player, "Alice")], npcs=[("bandit", 1, "Bandit")])
    old.deal(StackedDice(["KS", "2C"]))
    old = await pommel.bot.store.save_encounter(old)
    await pommel.slash("init show", user=world.gm)
    old_tracker = tracker_message(world.table)
    old_next = button_id(old_tracker, "next")
    asked = await pommel.slash("encounter end", user=world.gm)
    assert asked.message is not None, asked.content
    pommel.fake.fail("PATCH", MESSAGE, "status", status=403, body=MISSING_PERMISSIONS, times=5)
    await pommel.click(asked, asked.message.custom_ids()[0], user=world.gm)  # "End the fight"
    pommel.fake.faults.clear()
    pommel.fake.take_problems()
    assert old_next in old_tracker.custom_ids()  # the close was refused: the old Next is still there

    await asyncio.sleep(0.002)  # the next fight starts at another millisecond
    new = await seed_fight(pommel, world, players=[(world.player, "Alice")], npcs=[("bandit", 1, "Bandit")])
    new.deal(StackedDice(["KS", "2C"]))
    new.flow.step = old.flow.step
    new = await pommel.bot.store.save_encounter(new)
    refused = await pommel.click(old_tracker, old_next, user=world.gm)
    assert refused.ephemeral
    assert "earlier fight" in refused.content
    assert (await fight_of(pommel, world)).initiative == new.initiative


async def test_the_actors_own_result_offers_next_while_the_turn_waits_for_nothing(
    world: World, start_bot: Any
) -> None:
    """Voice play: Next sat 2-4 messages up, on the tracker. Alice's result offers it once her attack
    waits for nothing; it moves the turn, and then goes from the result."""

    def passive_npcs(encounter: Encounter) -> None:
        encounter.table = TableOptions(defense_policy=DefensePolicy.PASSIVE)

    pommel = await dealt_fight(world, start_bot, faces=[3], edit=passive_npcs)
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert result.message is not None
    assert "**Miss**" in result.content
    fight = await fight_of(pommel, world)
    next_here = f"pommel:turn:next:{fight.flow.step}:{fight.tag}"
    assert next_here in result.message.custom_ids()
    moved = await pommel.click(result, next_here, user=world.player)
    assert not moved.ephemeral, moved.content
    after = await fight_of(pommel, world)
    assert after.initiative.turn_of != fight.initiative.turn_of
    assert next_here not in result.message.custom_ids()


async def test_a_request_offers_no_next_and_its_result_does_once_the_defense_is_in(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert asked.message is not None
    assert not [i for i in asked.message.custom_ids() if i.startswith("pommel:turn:")]
    await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert [i for i in asked.message.custom_ids() if i.startswith("pommel:turn:next:")]


async def test_a_desperation_defense_button_goes_at_the_next_deal(world: World, start_bot: Any) -> None:
    """R15: the choice belongs to its round; its button stayed live after the next deal."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 6])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    hit = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.gm)
    assert hit.message is not None
    assert exchange_button(hit, "desperate")
    for _ in range(3):  # Alice's, Bob's and the Bandit's turns end
        moved = await pommel.slash("init next", user=world.gm)
        assert not moved.ephemeral, moved.content
    dealt = await pommel.slash("init deal", user=world.gm)
    assert not dealt.ephemeral, dealt.content
    assert not_turns(hit.message) == []


async def test_roll_morale_goes_from_an_hp_change_once_rolled_from_the_proposals(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    added = await pommel.slash(
        "npc add",
        user=world.gm,
        options={"template": "bandit", "count": 3, "group": "Bandits", "leader": True},
    )
    assert not added.ephemeral, added.content
    hurt = await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit 1", "change": "-11"})
    assert hurt.message is not None
    roll = f"pommel:morale:1:{(await fight_of(pommel, world)).tag}"
    assert hurt.message.custom_ids() == [roll]
    listed = await pommel.slash("morale proposals", user=world.gm)
    assert listed.message is not None, listed.content
    rolled = await pommel.click(listed, roll, user=world.gm)
    assert not rolled.ephemeral, rolled.content
    assert hurt.message.custom_ids() == []
    assert listed.message.custom_ids() == []


async def test_a_reopened_fight_gives_its_messages_their_buttons_back(world: World, start_bot: Any) -> None:
    """The end took every button away; the reopen brought the fight back waiting for Alice's defense,
    listed on the tracker with a link to its request, which kept no button: nobody could answer it."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 4], cards=BANDIT_FIRST, edit=play_by_post)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    live = asked.message.custom_ids()
    assert exchange_button(asked, "passive") in live
    ending = await pommel.slash("encounter end", user=world.gm)
    [end] = [c for c in ending.message.custom_ids() if c.endswith(":end")]  # type: ignore[union-attr]
    await pommel.click(ending, end, user=world.gm)
    assert asked.message.custom_ids() == []

    reopened = await pommel.slash("encounter reopen", user=world.gm)
    assert not reopened.ephemeral, reopened.content
    assert asked.message.custom_ids() == live
    assert link_to(world, asked.message) in tracker_message(world.table).embed_text
    answered = await pommel.click(asked, exchange_button(asked, "passive"), user=world.player)
    assert not answered.ephemeral, answered.content
    assert not (await fight_of(pommel, world)).exchanges[0].pending


async def test_a_redone_defense_shows_its_choices_on_its_own_message_which_no_longer_says_asked_again(
    world: World, start_bot: Any
) -> None:
    """Alice's active defense failed, leaving her a desperation defense. After an undo and a redo, her
    first message still read "Put back: the defense is asked again, in this message" while carrying
    the result's buttons, and the message it pointed to said "Redone" and carried them too."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 3, 4, 2], cards=BANDIT_FIRST, edit=play_by_post)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    answered = await pommel.click(asked, exchange_button(asked, "active:2"), user=world.player)
    assert "desperation defense" in answered.content
    posted = len(world.table.history)
    await undo(pommel, world)
    [again] = posted_since(world, posted, ASKED_AGAIN)
    assert "asked again" in asked.message.content

    await undo_and_redo(pommel, world)
    assert "asked again" not in asked.message.content
    assert "Redone" in asked.message.content
    assert [exchange_action(c) for c in not_turns(asked.message)] == ["desperate"]
    assert "Redone" in again.content
    assert again.custom_ids() == []
    tracker = tracker_message(world.table)
    assert link_to(world, asked.message) in tracker.embed_text  # the choice still open, where it is
    assert f"🎯 <@{world.player.id}>: choices still open after **Bandit**'s attack on **Alice**" in (
        tracker.embed_text
    )  # and whose it is
