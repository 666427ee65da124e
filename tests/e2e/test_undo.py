"""``/encounter undo`` end to end: the GM sees what would be undone, confirms, and the fight goes back
as a new version; the undone lines stay in the log, marked, beside the undo's own line."""

from __future__ import annotations

from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.rules.errors import RulesError
from bot.table_options import TableOptions
from bot.ui.attack_views.request import ASKED_AGAIN
from bot.ui.fight_log import UNDONE_NOTE

from .fake_discord import World
from .fights import (
    button_id,
    channel_log,
    dealt_fight,
    exchange_button,
    fight_of,
    join,
    start,
    stored_tracker,
    tracker_message,
)
from .harness import InteractionResult, RunningBot


def undo_button(asked: InteractionResult) -> str:
    assert asked.message is not None, asked.content
    [custom_id] = [c for c in asked.message.custom_ids() if c.startswith("pommel:undo:")]
    return custom_id


async def undo(pommel: RunningBot, world: World, steps: int = 1) -> tuple[str, InteractionResult]:
    """The GM's /encounter undo, what it showed, and the click on its "Undo"."""
    asked = await pommel.slash("encounter undo", user=world.gm, options={"steps": steps})
    assert asked.ephemeral, asked.content
    shown = asked.content
    done = await pommel.click(asked, undo_button(asked), user=world.gm)
    return shown, done


async def test_the_gm_undoes_a_players_hp_change(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    changed = await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-4"})
    assert not changed.ephemeral, changed.content
    before = await fight_of(pommel, world)
    assert before.combatant("Alice").hp == 10

    refused = await pommel.slash("encounter undo", user=world.player)
    assert refused.ephemeral
    assert "Only the GM" in refused.content
    shown_first, done = await undo(pommel, world)
    assert shown_first.splitlines() == [
        "**Undo the last change?** The fight goes back to how it was before:",
        f"- ~~Alice: Alice HP 14 → 10 (-4)~~ (by <@{world.player.id}>)",
        "Their log lines stay in the log, marked undone.",
    ]
    assert done.content == UNDONE_NOTE
    [told] = done.followups
    assert not told.ephemeral
    assert told.content.splitlines()[0] == "↩️ Gamemaster undid the last change:"

    after = await fight_of(pommel, world)
    assert after.version == before.version + 1
    assert after.combatant("Alice").hp == 14
    assert "HP 14/14" in stored_tracker(world, after).embed_text
    log = await channel_log(pommel, world)
    assert log[-2].text == "Alice: Alice HP 14 → 10 (-4)"
    assert log[-2].undone_by == log[-1].id
    assert log[-1].text == "Gamemaster undid the last change: Alice: Alice HP 14 → 10 (-4)"
    shown = await pommel.slash("encounter log", user=world.gm)
    assert "~~Alice: Alice HP 14 → 10 (-4)~~ *(undone)*" in shown.embeds[0]["description"]


async def test_an_undo_shown_before_another_change_undoes_nothing(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-4"})
    asked = await pommel.slash("encounter undo", user=world.gm)
    await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-1"})
    before = await fight_of(pommel, world)
    late = await pommel.click(asked, undo_button(asked), user=world.gm)
    assert late.ephemeral
    assert "nothing was undone" in late.content
    assert await fight_of(pommel, world) == before


async def test_the_gm_undoes_a_deal(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    before = await fight_of(pommel, world)
    dealt = await pommel.slash("init deal", user=world.gm)
    assert not dealt.ephemeral, dealt.content
    assert (await fight_of(pommel, world)).initiative.round == 1

    drawn = tracker_message(world.table)
    next_after_the_deal = button_id(drawn, "next")

    _, done = await undo(pommel, world)
    after = await fight_of(pommel, world)
    assert after.initiative == before.initiative
    # The tracker is drawn anew for the restored fight: its buttons carry a step past any drawn before,
    # so a turn button of the undone deal (or of the state before it) can never act again.
    assert next_after_the_deal not in drawn.custom_ids()
    assert (
        button_id(tracker_message(world.table), "deal") == f"pommel:turn:deal:{after.flow.step}:{after.tag}"
    )
    assert after.flow.step > int(next_after_the_deal.split(":")[3])
    log = await channel_log(pommel, world)
    dealt_lines = [entry for entry in log if entry.undone_by is not None]
    assert dealt_lines
    assert all(entry.undone_by == log[-1].id for entry in dealt_lines)
    assert log[-1].text.startswith("Gamemaster undid the last change: ")
    assert done.followups


async def test_an_undone_attack_s_request_loses_its_buttons_and_its_timeout_is_refused(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert not asked.ephemeral, asked.content
    attacked = await fight_of(pommel, world)
    assert attacked.exchanges
    passive = exchange_button(asked, "passive")

    await undo(pommel, world)
    after = await fight_of(pommel, world)
    assert not after.exchanges
    assert after.next_exchange == attacked.next_exchange
    assert asked.message is not None
    assert "Undone" in asked.message.content
    assert asked.message.custom_ids() == []  # its buttons went with the attack
    assert passive.startswith(f"pommel:x:{after.tag}:")
    combat: Any = pommel.bot.get_cog("Attack")
    with pytest.raises(RulesError):  # what its defense timeout does when it comes: refused (and ignored)
        await combat.run_timeout(world.table.id, attacked.exchanges[0].id)
    assert await fight_of(pommel, world) == after
    log = await channel_log(pommel, world)
    rolled = [entry for entry in log if entry.undone_by is not None]
    assert rolled  # the attack's roll stays in the log, marked undone
    assert log[-1].text.startswith("Gamemaster undid the last change: ")


async def test_an_undone_defense_leaves_the_attack_waiting_and_its_result_buttons_stale(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    waiting = await fight_of(pommel, world)
    defended = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert not defended.ephemeral, defended.content
    resolved = await fight_of(pommel, world)

    await undo(pommel, world)
    after = await fight_of(pommel, world)
    [exchange] = after.exchanges
    assert exchange.pending
    assert after.combatant("Bandit").hp == waiting.combatant("Bandit").hp
    assert exchange.step > max(waiting.exchanges[0].step, resolved.exchanges[0].step)
    log = await channel_log(pommel, world)
    resolution = "Alice → Bandit: attack 3 = 8 vs passive = 10: miss (R13)"
    assert [(entry.text, entry.undone_by) for entry in log] == [
        ("Alice attacks Bandit: 3 = 8; awaiting the defense", None),
        (resolution, log[-1].id),
        (f"Gamemaster undid the last change: {resolution}", None),
    ]


BANDIT_FIRST = ("2C", "3C", "KS")
"""Alice's, Bob's and the Bandit's cards: the Bandit acts first, and Alice is asked to defend."""


def timed_defenses(encounter: Encounter) -> None:
    encounter.table = TableOptions(defense_timeout_minutes=5)


async def test_an_undone_defense_is_asked_again_with_its_whole_time_and_the_old_message_says_so(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3, 3], cards=BANDIT_FIRST, edit=timed_defenses)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    assert "If nobody picks by" in asked.content
    waiting = await fight_of(pommel, world)
    [first_deadline] = [exchange.deadline for exchange in waiting.exchanges]
    assert first_deadline is not None
    defended = await pommel.click(asked, exchange_button(asked, "passive"), user=world.player)
    assert not defended.ephemeral, defended.content
    combat: Any = pommel.bot.get_cog("Attack")
    assert not combat.timers

    posted = len(world.table.history)
    await undo(pommel, world)
    await world.guild.fake.wait_for(
        lambda: any(m.content.startswith(ASKED_AGAIN) for m in world.table.history[posted:]),
        what="the request posted anew",
    )
    [again] = [m for m in world.table.history[posted:] if m.content.startswith(ASKED_AGAIN)]
    lines = again.content.splitlines()
    assert lines[0] == ASKED_AGAIN
    assert f"🛡️ <@{world.player.id}>: how does **Alice** defend? Passive" in again.content
    assert [user.id for user in again.mentions] == [world.player.id]
    after = await fight_of(pommel, world)
    [exchange] = after.exchanges
    assert exchange.pending
    assert exchange.deadline is not None
    assert exchange.deadline > first_deadline  # the whole time again
    assert f"<t:{int(exchange.deadline.timestamp())}:t>" in again.content
    await world.guild.fake.wait_for(
        lambda: list(combat.timers) == [(world.table.id, exchange.id)], what="the timer"
    )

    old = world.table.messages[asked.message.id]
    await world.guild.fake.wait_for(lambda: "↩️ Put back" in old.content, what="the old message marked")
    assert old.custom_ids() == []  # nobody answers from the message of the undone steps
    link = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{again.id}"
    assert (
        old.content.splitlines()[-1] == f"↩️ Put back: the defense is asked again, in [this message]({link})."
    )
    answered = await pommel.click(again, exchange_button(again, "passive"), user=world.player)
    assert not answered.ephemeral, answered.content
    assert "**Miss**" in answered.content
    assert not (await fight_of(pommel, world)).exchanges[0].pending
    assert not combat.timers


async def test_an_undone_attack_s_request_says_it_no_longer_stands_and_its_timer_is_gone(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3], cards=BANDIT_FIRST, edit=timed_defenses)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    combat: Any = pommel.bot.get_cog("Attack")
    assert list(combat.timers) == [(world.table.id, 1)]

    posted = len(world.table.history)
    await undo(pommel, world)
    old = world.table.messages[asked.message.id]
    await world.guild.fake.wait_for(lambda: "↩️ Undone" in old.content, what="the request marked undone")
    assert old.custom_ids() == []
    assert old.content.splitlines()[-1] == (
        "↩️ Undone: this attack no longer stands; the fight went back to before it."
    )
    assert not combat.timers
    assert not [m for m in world.table.history[posted:] if m.content.startswith(ASKED_AGAIN)]


def redo_button(result: InteractionResult) -> str:
    assert result.message is not None, result.content
    [custom_id] = [c for c in result.message.custom_ids() if c.startswith("pommel:redo:")]
    return custom_id


async def alice_hurt(world: World, start_bot: Any) -> RunningBot:
    """#table's fight with Alice (the player's), whose player took 4 HP off her: 14 → 10."""
    pommel: RunningBot = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    changed = await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-4"})
    assert not changed.ephemeral, changed.content
    return pommel


async def test_the_undo_s_note_redoes_it_until_the_next_change(world: World, start_bot: Any) -> None:
    pommel = await alice_hurt(world, start_bot)
    _, done = await undo(pommel, world)
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14

    refused = await pommel.slash("encounter redo", user=world.player)
    assert refused.ephemeral
    assert "Only the GM of this fight" in refused.content
    redone = await pommel.click(done, redo_button(done), user=world.gm)
    assert redone.content == "Redone; the tracker is brought up to date."
    [told] = redone.followups
    assert told.content.splitlines() == [
        "↪️ Gamemaster redid the last change:",
        f"- Alice: Alice HP 14 → 10 (-4) (by <@{world.player.id}>)",
    ]
    after = await fight_of(pommel, world)
    assert after.combatant("Alice").hp == 10
    assert "HP 10/14" in stored_tracker(world, after).embed_text
    log = await channel_log(pommel, world)
    assert [(entry.text, entry.undone_by) for entry in log[-3:]] == [
        ("Alice: Alice HP 14 → 10 (-4)", None),  # it stands again
        ("Gamemaster undid the last change: Alice: Alice HP 14 → 10 (-4)", None),
        ("Gamemaster redid the last change: Alice: Alice HP 14 → 10 (-4)", None),
    ]
    nothing = await pommel.slash("encounter redo", user=world.gm)
    assert nothing.ephemeral
    assert nothing.content.startswith("There is nothing to redo")

    _, done = await undo(pommel, world)  # the redone change can be undone again
    await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-1"})
    late = await pommel.click(done, redo_button(done), user=world.gm)
    assert late.ephemeral
    assert "nothing was redone" in late.content
    assert (await pommel.slash("encounter redo", user=world.gm)).content.startswith(
        "There is nothing to redo"
    )
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 13


async def test_encounter_redo_shows_what_comes_back_and_asks(world: World, start_bot: Any) -> None:
    pommel = await alice_hurt(world, start_bot)
    await undo(pommel, world)
    asked = await pommel.slash("encounter redo", user=world.gm)
    assert asked.ephemeral
    assert asked.content.splitlines() == [
        "**Redo the last undo?** This change stands again:",
        f"- Alice: Alice HP 14 → 10 (-4) (by <@{world.player.id}>)",
        "Their log lines are no longer marked undone.",
    ]
    await pommel.click(asked, redo_button(asked), user=world.gm)
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 10


async def test_a_player_undoes_their_own_last_change_only_when_the_fight_allows_it(
    world: World, start_bot: Any
) -> None:
    pommel = await alice_hurt(world, start_bot)
    refused = await pommel.slash("encounter undo", user=world.player)
    assert refused.ephemeral
    assert "`/encounter options players_undo:True`" in refused.content
    allowed = await pommel.slash("encounter options", user=world.gm, options={"players_undo": True})
    assert not allowed.ephemeral, allowed.content
    gms = await pommel.slash("encounter undo", user=world.player)  # the last change is the GM's
    assert gms.ephemeral
    assert f"<@{world.gm.id}> made one of them" in gms.content
    await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-3"})

    asked = await pommel.slash("encounter undo", user=world.player)
    assert asked.ephemeral, asked.content
    done = await pommel.click(asked, undo_button(asked), user=world.player)
    assert done.content == UNDONE_NOTE
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 10
    log = await channel_log(pommel, world)
    assert log[-1].text == "Alice undid the last change: Alice: Alice HP 10 → 7 (-3)"
    redone = await pommel.click(done, redo_button(done), user=world.player)  # and may redo it
    assert redone.content == "Redone; the tracker is brought up to date."
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 7

    await pommel.slash("combatant hp", user=world.gm, options={"who": "Alice", "change": "-2"})
    theirs = await pommel.slash("encounter undo", user=world.player)
    assert theirs.ephemeral
    assert f"<@{world.gm.id}> made one of them" in theirs.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 5


async def test_a_redone_defense_stands_again_and_the_request_posted_after_the_undo_says_so(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3], cards=BANDIT_FIRST, edit=timed_defenses)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    await pommel.click(asked, exchange_button(asked, "passive"), user=world.player)
    resolved = await fight_of(pommel, world)
    posted = len(world.table.history)
    _, done = await undo(pommel, world)
    await world.guild.fake.wait_for(
        lambda: any(m.content.startswith(ASKED_AGAIN) for m in world.table.history[posted:]),
        what="the request posted anew",
    )
    [again] = [m for m in world.table.history[posted:] if m.content.startswith(ASKED_AGAIN)]
    combat: Any = pommel.bot.get_cog("Attack")
    await world.guild.fake.wait_for(lambda: bool(combat.timers), what="the timer of the defense asked again")
    await world.guild.fake.wait_for(
        lambda: world.table.messages[asked.message.id].custom_ids() == []  # type: ignore[union-attr]
    )
    undone = await fight_of(pommel, world)

    await pommel.click(done, redo_button(done), user=world.gm)
    await world.guild.fake.wait_for(lambda: "↪️ Redone" in again.content, what="the request marked redone")
    assert again.custom_ids() == []
    assert again.content.splitlines()[-1] == (
        "↪️ Redone: this attack's result, as first rolled, stands again (see `/encounter log`)."
    )
    after = await fight_of(pommel, world)
    [exchange] = after.exchanges
    assert not exchange.pending
    assert exchange.step > undone.exchanges[0].step
    assert after.combatant("Alice").model_dump() == resolved.combatant("Alice").model_dump()
    assert not combat.timers
