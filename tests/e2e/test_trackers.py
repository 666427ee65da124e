"""The tracker board through Discord: a burst of commands on one table costs a few edits of its tracker,
the last one showing how the fight stands."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.trackers import TRACKER_SPACING

from .fake_discord import World
from .fights import fight_of, join, start, stored_tracker


async def test_a_burst_on_one_table_edits_its_tracker_a_few_times_and_shows_the_end(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(tracker_spacing=TRACKER_SPACING)  # the bot's own spacing, not the suite's
    await start(pommel, world)
    await pommel.bot.trackers.idle()  # the tracker posted (the command does not wait for it)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit"})
    tracker = (await fight_of(pommel, world)).tracker
    assert tracker is not None
    first = len(pommel.fake.requests)
    hurt = [
        pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit", "change": "-1"})
        for _ in range(10)
    ]
    results = await asyncio.gather(*hurt)
    assert all(not result.ephemeral for result in results)
    await pommel.bot.trackers.idle()  # the last state is drawn once the spacing is out
    edits = [
        request
        for request in pommel.fake.requests[first:]
        if request.method == "PATCH"
        and request.path.endswith(f"/channels/{tracker.channel_id}/messages/{tracker.message_id}")
    ]
    assert 1 <= len(edits) <= 2, f"{len(edits)} edits of the tracker for 10 commands"
    if len(edits) == 2:
        assert edits[1].at - edits[0].at >= TRACKER_SPACING - 0.05
    fight = await fight_of(pommel, world)
    assert fight.combatant("Bandit").hp == 1
    assert "Bandit · ●● · HP 1/11" in stored_tracker(world, fight).embed_text


async def test_a_change_that_shows_nothing_new_on_the_tracker_costs_no_edit(
    world: World, start_bot: Any
) -> None:
    """A miss, a note kept, a reminder marked: the tracker would show what it shows already, and every
    such edit counted against Discord's limits for nothing. Now only a tracker that shows something new
    is edited."""
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    fight = await fight_of(pommel, world)
    tracker = fight.tracker
    assert tracker is not None
    await pommel.bot.trackers.publish(fight)  # Alice joined: shown

    def edits() -> int:
        return sum(
            1
            for request in pommel.fake.requests
            if request.method == "PATCH" and request.path.endswith(f"/messages/{tracker.message_id}")
        )

    before = edits()
    await pommel.bot.trackers.publish(fight.model_copy(update={"version": fight.version + 1}))
    assert edits() == before  # the same fight, later: nothing new to show
    fight.combatant("Alice").hp -= 3
    await pommel.bot.trackers.publish(fight.model_copy(update={"version": fight.version + 2}))
    assert edits() == before + 1
    assert "HP 11/14" in stored_tracker(world, await fight_of(pommel, world)).embed_text
