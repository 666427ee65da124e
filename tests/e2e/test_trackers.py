"""The tracker board through Discord: a burst of commands on one table costs a few edits of its tracker,
the last one showing how the fight stands."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot import trackers
from bot.encounter.document import Encounter, TrackerMessage
from bot.trackers import TRACKER_SPACING

from .fake_discord import World
from .fights import fight_of, join, start, stored_tracker
from .test_encounter import end_fight
from .test_errors import alice_in_a_fight, hurt_alice


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


# ---------------------------------------------------------------------------------- Discord's faults

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"


def tracker_edits(requests: list[Any], tracker: TrackerMessage) -> list[Any]:
    return [
        request
        for request in requests
        if request.method == "PATCH" and request.path.endswith(f"/messages/{tracker.message_id}")
    ]


async def test_the_tracker_is_drawn_when_the_reply_was_not_taken(world: World, start_bot: Any) -> None:
    """The change was saved, the reply failed, and the tracker kept showing the fight before it: the
    command never reached its drawing. Now the failure's answer draws it all the same."""
    pommel = await alice_in_a_fight(world, start_bot)
    pommel.fake.fail("POST", CALLBACK, "disconnect")
    result = await hurt_alice(pommel, world)
    assert result.content.startswith("✅ Saved: Alice: Alice HP 14 → 12")
    await pommel.bot.trackers.idle()
    fight = await fight_of(pommel, world)
    assert fight.combatant("Alice").hp == 12
    assert "HP 12/14" in stored_tracker(world, fight).embed_text


async def test_a_tracker_edit_that_failed_is_tried_again_until_it_shows_the_fight(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tracker edit Discord failed (a dropped connection, twice here) was logged and forgotten: the
    tracker showed the fight as it was until the next change. Now it is tried again after a while,
    each wait twice the last, until it is drawn."""
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.2)
    pommel = await alice_in_a_fight(world, start_bot)
    tracker = (await fight_of(pommel, world)).tracker
    assert tracker is not None
    fault = pommel.fake.fail("PATCH", MESSAGE, "disconnect", times=2)
    before = len(pommel.fake.requests)
    tried: list[float] = []
    draw = pommel.bot.trackers._draw

    async def timed_draw(encounter: Any, *, repost: bool) -> None:
        tried.append(asyncio.get_running_loop().time())
        await draw(encounter, repost=repost)

    pommel.bot.trackers._draw = timed_draw  # type: ignore[method-assign]
    result = await hurt_alice(pommel, world)
    assert "HP 14 → **12**/14" in result.content
    await pommel.bot.trackers.idle()
    assert fault.times == 0
    assert len(tried) == 3
    slack = 0.05  # the waits run from each drawing's start, a little before its edit
    assert tried[1] - tried[0] >= 0.2 - slack
    assert tried[2] - tried[1] >= 0.4 - slack  # the wait doubles
    assert len(tracker_edits(pommel.fake.requests[before:], tracker)) == 1  # the failed ones never arrived
    assert "HP 12/14" in stored_tracker(world, await fight_of(pommel, world)).embed_text


async def test_a_tracker_in_a_channel_discord_refuses_pommel_is_not_tried_again(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Missing Permissions is not a fault that passes: the edit is not tried again (the board's
    ``cannot_draw`` is told, once), and the next change tries once more."""
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.1)
    pommel = await alice_in_a_fight(world, start_bot)
    refused = {"message": "Missing Permissions", "code": 50013}
    fault = pommel.fake.fail("PATCH", MESSAGE, "status", status=403, body=refused, times=10)
    told: list[int] = []
    cannot_draw = pommel.bot.trackers.cannot_draw

    async def tell(encounter: Encounter, error: BaseException) -> None:
        told.append(encounter.channel_id)
        await cannot_draw(encounter, error)

    pommel.bot.trackers.cannot_draw = tell  # type: ignore[method-assign]
    await hurt_alice(pommel, world)
    await pommel.bot.trackers.idle()
    await asyncio.sleep(0.5)  # five first waits: a retry would have come
    assert fault.times == 9  # one try
    assert told == [world.table.id]
    await hurt_alice(pommel, world)
    await pommel.bot.trackers.idle()
    assert fault.times == 8


async def test_the_closing_of_an_ended_fight_s_tracker_is_tried_again(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edit that closes an ended fight's tracker failed on a dropped connection: the tracker kept
    the fight as it was, with its buttons. Now it is tried again until it reads "Fight over"."""
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.2)
    pommel = await alice_in_a_fight(world, start_bot)
    tracker = stored_tracker(world, await fight_of(pommel, world))
    assert tracker.custom_ids()
    fault = pommel.fake.fail("PATCH", MESSAGE, "disconnect")
    await end_fight(pommel, world)
    assert fault.times == 0
    await pommel.bot.trackers.idle()
    assert tracker.embeds[0]["title"] == "⚔️ Fight over"
    assert tracker.custom_ids() == []
