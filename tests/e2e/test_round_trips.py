"""Round trips to Discord in sequence before an answer (issue 29, goal 2): the answer the user waits for
is the first request the bot sends for it (nothing waited for before it), and what follows it (the
channel told, the summary, the tracker) goes beside one another, not one after the other. Counted from
the requests the fake Discord recorded, never timed: a request the fake is told to answer slowly shows
whether the next one waited for it.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.interactions import answering
from bot.rules.dice import ScriptedDice
from bot.table_options import DefensePolicy, TableOptions
from bot.ui.fight_log import UNDONE_NOTE

from .fake_discord import RecordedRequest, World
from .fights import dealt_fight, fight_of, join, seed_fight, start, stored_tracker
from .harness import InteractionResult, RunningBot
from .test_attack_durability import alice_and_the_bandit
from .test_encounter import end_button
from .test_undo import undo_button

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
FOLLOW_UP = "/webhooks/{webhook_id}/{webhook_token}"
ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
SLOW = 0.5
"""Seconds the fake waits before taking a request it is told to take slowly."""


def sent(requests: list[RecordedRequest]) -> list[tuple[str, str | None]]:
    return [(r.method, r.template) for r in requests]


def waited_for(requests: list[RecordedRequest], request: RecordedRequest) -> list[RecordedRequest]:
    """The requests answered before ``request`` was sent: those it may have waited for."""
    return [r for r in requests if r is not request and 0 < r.answered_at <= request.at]


def the(
    requests: list[RecordedRequest], method: str, template: str, path: str | None = None
) -> RecordedRequest:
    found = [r for r in requests if r.method == method and r.template == template and path in (None, r.path)]
    assert len(found) == 1, sent(requests)
    return found[0]


async def hp_change(pommel: RunningBot, world: World, **options: Any) -> InteractionResult:
    return await pommel.slash(
        "combatant hp", user=world.player, options={"who": "Alice", "change": "-2"}, **options
    )


async def test_a_command_in_time_is_answered_by_its_first_request_without_asking_it_back(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    await pommel.slash("init show", user=world.gm)
    result = await hp_change(pommel, world)
    assert sent(result.requests)[:2] == [("POST", CALLBACK), ("PATCH", MESSAGE)]  # the answer, the tracker
    answer = result.requests[0]
    assert answer.body["type"] == 4
    assert "with_response" not in answer.query  # its message id is not needed: Discord need not echo it
    assert waited_for(result.requests, answer) == []


async def test_an_attack_that_asks_a_defense_asks_for_its_message_back(world: World, start_bot: Any) -> None:
    """The fight remembers the request's message (its deadline edits it): the one answer whose message
    Discord sends back."""
    pommel = await dealt_fight(world, start_bot, faces=[3])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert not asked.ephemeral, asked.content
    answer = asked.requests[0]
    assert (answer.method, answer.template) == ("POST", CALLBACK)
    assert answer.query.get("with_response") in ("1", "true", "True")
    assert (await fight_of(pommel, world)).messages  # remembered by its id


async def test_a_deferred_commands_public_answer_is_one_request_once_its_wait_is_over(
    world: World, start_bot: Any
) -> None:
    """Deferred privately, the answer for everyone was two requests in sequence (the "thinking" message
    edited, then the answer); now the thinking message shows a note while the command waits, and the
    answer is the first request once the wait is over."""
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    await pommel.slash("init show", user=world.gm)
    async with pommel.bot.store.lock(world.table.id):  # another command holds the channel
        waiting = asyncio.create_task(hp_change(pommel, world))
        await asyncio.sleep(answering.DEFER_AFTER + 0.5)
        released = time.perf_counter()
    result = await waiting
    before = [r for r in result.requests if r.answered_at and r.answered_at < released]
    assert sent(before) == [("POST", CALLBACK), ("PATCH", ORIGINAL)]  # deferred, the note: meanwhile
    assert result.requests[1].body["content"] == answering.WAITING_NOTE
    after = result.requests[len(before) :]
    assert sent(after)[0] == ("POST", FOLLOW_UP)  # the answer, first
    assert "HP 14 → **12**/14" in after[0].body["content"]
    assert result.content == answering.LATE_PUBLIC_NOTE  # then the note says where it is
    assert result.followups[0].content == after[0].body["content"]
    assert not result.followups[0].ephemeral


async def test_a_deferred_commands_private_answer_takes_the_notes_place(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    async with pommel.bot.store.lock(world.table.id):
        waiting = asyncio.create_task(
            pommel.slash(
                "combatant hp",
                user=world.player,
                options={"who": "Nobody", "change": "-2"},
                expect_errors=True,
            )
        )
        await asyncio.sleep(answering.DEFER_AFTER + 0.5)
        released = time.perf_counter()
    result = await waiting
    after = [r for r in result.requests if r.at >= released]
    assert sent(after) == [("PATCH", ORIGINAL)]  # the refusal, in one request
    assert result.ephemeral
    assert result.content != answering.WAITING_NOTE
    assert result.followups == []


async def test_undo_answers_first_and_tells_the_channel_beside_the_tracker(
    world: World, start_bot: Any
) -> None:
    """The Undo click was three round trips in sequence: its answer, then the channel told, then the
    tracker. The tracker no longer waits for the channel's message (here slow to be taken)."""
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "-4"})
    asked = await pommel.slash("encounter undo", user=world.gm)
    pommel.fake.fail("POST", FOLLOW_UP, "delay", delay=SLOW)
    done = await pommel.click(asked, undo_button(asked), user=world.gm)
    assert done.content == UNDONE_NOTE
    answer = done.requests[0]
    assert (answer.method, answer.template, answer.body["type"]) == ("POST", CALLBACK, 7)
    told = the(done.requests, "POST", FOLLOW_UP)
    tracker = stored_tracker(world, await fight_of(pommel, world))
    drawn = the(done.requests, "PATCH", MESSAGE, f"/channels/{world.table.id}/messages/{tracker.id}")
    assert told not in waited_for(done.requests, drawn)  # beside it, not after it
    assert "HP 14/14" in tracker.embed_text


async def test_end_answers_first_and_closes_the_tracker_beside_the_summary(
    world: World, start_bot: Any
) -> None:
    """End was its answer, then the summary with the log, then the tracker closed: the tracker no longer
    waits for the summary (here slow to be taken)."""
    pommel = await start_bot()
    await start(pommel, world)
    tracker = stored_tracker(world, await fight_of(pommel, world))
    asked = await pommel.slash("encounter end", user=world.gm)
    pommel.fake.fail("POST", FOLLOW_UP, "delay", delay=SLOW)
    ended = await pommel.click(asked, end_button(asked), user=world.gm)
    answer = ended.requests[0]
    assert (answer.method, answer.template, answer.body["type"]) == ("POST", CALLBACK, 7)
    summary = the(ended.requests, "POST", FOLLOW_UP)
    closed = the(ended.requests, "PATCH", MESSAGE, f"/channels/{world.table.id}/messages/{tracker.id}")
    assert summary not in waited_for(ended.requests, closed)
    assert world.table.messages[tracker.id].embeds[0]["title"] == "⚔️ Fight over"
    assert ended.followups[0].attachments  # the summary with its log


async def test_a_defense_timeout_posts_first(world: World, start_bot: Any) -> None:
    """A defense's time ran out: the result is posted first (nothing waited for before it), then the
    request is closed and the tracker drawn. (Those two are edits in one channel: discord.py sends them
    one at a time until Discord's headers tell it the bucket's size, which this fake does not send.)"""
    pommel = await start_bot(dice=ScriptedDice([15, 4]))
    await alice_and_the_bandit(pommel, world, cards=("2C", "KS"))  # the Bandit's turn
    fight = await fight_of(pommel, world)
    fight.table = TableOptions(defense_policy=DefensePolicy.PASSIVE, defense_timeout_minutes=5)
    await pommel.bot.store.save_encounter(fight)
    await pommel.slash("init show", user=world.gm)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice"})
    assert asked.message is not None
    assert "If nobody picks by" in asked.content
    fight = await fight_of(pommel, world)
    fight.exchanges[0].deadline = datetime.now(UTC) - timedelta(seconds=1)
    await pommel.bot.store.save_encounter(fight)
    first = len(pommel.fake.requests)
    combat: Any = pommel.bot.get_cog("Attack")
    await combat.run_timeout(world.table.id, fight.exchanges[0].id)
    requests = pommel.fake.requests[first:]
    posted = requests[0]
    assert (posted.method, posted.template) == ("POST", MESSAGES)
    assert "Nobody picked a defense in time" in posted.body["content"]
    assert waited_for(requests, posted) == []
    the(requests, "PATCH", MESSAGE, f"/channels/{world.table.id}/messages/{asked.message.id}")  # closed
    tracker = stored_tracker(world, await fight_of(pommel, world))
    the(requests, "PATCH", MESSAGE, f"/channels/{world.table.id}/messages/{tracker.id}")  # drawn
    assert "If nobody picks by" not in world.table.messages[asked.message.id].content
