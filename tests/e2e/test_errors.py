"""The one error path, end to end: a refusal always reaches the user, within Discord's limits."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Coroutine
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.app import Pommel
from bot.interactions import answering as interactions
from bot.rules.errors import RulesError

from .fake_discord import World
from .fights import button_id, fight_of, seed_fight, tracker_message
from .harness import HANG_GUARD, InteractionResult, RunningBot


async def refuse_at_length(interaction: discord.Interaction) -> None:
    raise RulesError("That name is far too long: " + "x" * 3000)


def add_long_refusal(bot: Pommel) -> None:
    bot.tree.add_command(
        app_commands.Command(
            name="e2e-long-refusal", description="Refuse at length", callback=refuse_at_length
        )
    )


async def test_a_refusal_longer_than_discord_allows_is_cut_not_lost(world: World, start_bot: Any) -> None:
    pommel = await start_bot(setup=add_long_refusal)
    result = await pommel.slash("e2e-long-refusal", user=world.player)
    assert result.ephemeral
    assert result.content.startswith("That name is far too long: xxx")
    assert len(result.content) == 2000
    assert result.content.endswith("…")


# ---------------------------------------------------------------------------------- after the commit

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"


async def alice_in_a_fight(world: World, start_bot: Any) -> RunningBot:
    """#table's fight with Alice (the player's, HP 14) and its tracker posted."""
    pommel: RunningBot = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    await pommel.slash("init show", user=world.gm)
    return pommel


async def hurt_alice(pommel: RunningBot, world: World, timeout: float = HANG_GUARD) -> InteractionResult:
    return await pommel.slash(
        "combatant hp", user=world.player, options={"who": "Alice", "change": "-2"}, timeout=timeout
    )


async def test_a_dropped_connection_on_the_tracker_edit_leaves_the_answer_as_it_is(
    world: World, start_bot: Any
) -> None:
    """aiohttp's ServerDisconnectedError on the tracker edit (not a discord.HTTPException) came after the
    normal answer as "Something went wrong, nothing was changed"; the change was saved."""
    pommel = await alice_in_a_fight(world, start_bot)
    pommel.fake.fail("PATCH", MESSAGE, "disconnect")
    result = await hurt_alice(pommel, world)
    assert not result.ephemeral
    assert "HP 14 → **12**/14" in result.content
    assert result.interaction.followups == []  # no second answer
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 12


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "disconnect"},
        {"kind": "status", "status": 429, "body": {"message": "You are being blocked", "code": 0}},
    ],
    ids=["dropped connection", "429 without Via"],
)
async def test_a_reply_discord_did_not_take_after_the_change_says_it_was_saved(
    world: World, start_bot: Any, fault: dict[str, Any]
) -> None:
    """The reply itself failed after the change was saved: the user read "nothing was changed", retried,
    and the change applied twice. Now the answer says it was saved."""
    pommel = await alice_in_a_fight(world, start_bot)
    pommel.fake.fail("POST", CALLBACK, **fault)
    result = await hurt_alice(
        pommel,
        world,
    )
    assert result.ephemeral
    assert result.content.startswith("✅ Saved: Alice: Alice HP 14 → 12 (\\-2). But I could not show it here")
    assert "don't do it again" in result.content
    assert "nothing was changed" not in result.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 12


async def test_a_reply_that_reaches_discord_too_late_is_told_in_the_channel(
    world: World, start_bot: Any
) -> None:
    """Discord forgets an interaction not answered within 3 s: the user saw "This interaction failed"
    with the change saved. Now a message in the channel tells them it was saved."""
    pommel = await alice_in_a_fight(world, start_bot)
    pommel.fake.fail("POST", CALLBACK, "delay", delay=3.2)
    before = len(world.table.history)
    await pommel.slash(
        "combatant hp",
        user=world.player,
        options={"who": "Alice", "change": "-2"},
        expect_errors=True,
        expect_response=False,  # Discord has forgotten the interaction: no answer can reach it
    )
    told = [
        m for m in world.table.history[before:] if m.content.startswith(f"<@{world.player.id}>: ✅ Saved")
    ]
    assert len(told) == 1, [m.content for m in world.table.history[before:]]
    assert [user.id for user in told[0].mentions] == [world.player.id]
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 12
    late = pommel.fake.take_problems("rejected")  # the late reply, the deferral, the private reply
    assert late
    assert all("Unknown interaction" in problem.detail for problem in late)


async def test_a_command_that_waits_is_deferred_and_still_answers(world: World, start_bot: Any) -> None:
    """A command stuck behind others on its channel (or waiting for the database) ended in "This
    interaction failed" with its change saved. After 2 s it is deferred (privately), and its answer,
    which is for everyone, comes as a message of its own when the wait is over."""
    pommel = await alice_in_a_fight(world, start_bot)
    before = len(world.table.history)
    async with pommel.bot.store.lock(world.table.id):  # another command holds the channel for 3 s
        waiting = asyncio.create_task(hurt_alice(pommel, world))
        await asyncio.sleep(3.0)
    result = await waiting
    assert result.callback_type == 5  # deferred in time, "thinking" shown to the player only
    assert result.ephemeral
    assert result.content == "✅ Done; it took a moment, so the answer is the message below."
    [public] = [m for m in world.table.history[before:] if "HP 14 → **12**/14" in m.content]
    assert not public.flags & 64
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 12


async def test_with_many_interactions_waiting_their_turn_one_more_is_deferred_at_once(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst over 1,000 channels left most answers past Discord's 3 s: the 2 s timers fired late on
    the busy event loop. Interactions now work a few at a time (:data:`bot.interactions.answering.AT_ONCE`),
    the others waiting their turn, and one with so many ahead of it that its turn would come after 2 s
    is deferred as it arrives (here one at a time, a turn taking 1 s until measured: eight commands on
    one channel make a burst)."""
    pommel = await alice_in_a_fight(world, start_bot)
    turns = interactions._Turns(1, asyncio.get_running_loop())
    turns.seconds_each = 1.0
    monkeypatch.setattr(interactions._load, "turns", turns)
    # The suite draws every state at once (no spacing): eight tracker edits in #table within a second,
    # which the bot's own spacing coalesces; Discord's 5 edits per 5 s would hold the last ones back.
    pommel.fake.rate_limits.per_route = False
    before = len(world.table.history)
    results = await asyncio.gather(*(hurt_alice(pommel, world) for _ in range(8)))
    deferred = [result for result in results if result.callback_type == 5]
    assert deferred, "none was deferred"
    assert all(result.latency < 1.0 for result in deferred)  # at once, not after DEFER_AFTER
    assert all(result.content == interactions.LATE_PUBLIC_NOTE for result in deferred)
    public = [m for m in world.table.history[before:] if m.content.startswith("❤️ **Alice**")]
    assert len(public) == 8  # every answer, deferred or not, for the table to read
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14 - 8 * 2  # every change saved
    assert interactions._load.in_progress == 0
    assert (turns.free, len(turns.waiting)) == (1, 0)  # every turn given back


def alice_hurt_unanswered(pommel: RunningBot, world: World) -> Coroutine[Any, Any, InteractionResult]:
    """The player's ``/combatant hp`` on Alice, sent expecting no answer (Discord has forgotten it)."""
    return pommel.slash(
        "combatant hp",
        user=world.player,
        options={"who": "Alice", "change": "-2"},
        expect_errors=True,
        expect_response=False,
    )


async def test_a_command_whose_deferral_came_too_late_is_not_run(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a burst over 5,000 channels the deferrals themselves reached Discord after its 3 s: it had
    forgotten those interactions (their users saw "This interaction failed"), yet their commands ran
    later, saved their changes, and could not say so. Now one whose deferral Discord refused as too late
    is not run when its turn comes, and nothing more is sent for it."""
    pommel = await alice_in_a_fight(world, start_bot)
    turns = interactions._Turns(1, asyncio.get_running_loop())
    turns.seconds_each = 10.0  # a long queue: the next one is deferred as it arrives
    monkeypatch.setattr(interactions._load, "turns", turns)
    monkeypatch.setattr(interactions, "TURN_HELD", 60.0)
    holder, waiter = interactions._Answering(asyncio.Lock()), interactions._Answering(asyncio.Lock())
    await turns.take(holder)
    waiting = asyncio.create_task(turns.take(waiter))
    await asyncio.sleep(0)
    pommel.fake.fail("POST", CALLBACK, "delay", delay=3.2)  # the deferral reaches Discord too late
    before, requests = len(world.table.history), len(pommel.fake.requests)
    hurt = asyncio.create_task(alice_hurt_unanswered(pommel, world))
    await pommel.fake.wait_for(
        lambda: any(r.status == 404 for r in pommel.fake.requests[requests:]), what="the deferral refused"
    )
    turns.give_back(holder)
    await waiting
    turns.give_back(waiter)  # its turn comes: Discord has forgotten it
    result = await hurt
    assert result.interaction.callback is None  # "This interaction failed", as Discord shows it
    assert [r.template for r in pommel.fake.requests[requests:]] == [CALLBACK]  # its deferral alone
    assert world.table.history[before:] == []
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14  # nothing was done
    assert [problem.detail for problem in pommel.fake.take_problems("rejected")] != []


async def test_a_command_counts_as_in_progress_until_it_has_answered_not_until_it_ends(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a command does after its answer (its bookkeeping, its tracker) made the next ones look
    queued behind it: a burst deferred more than it had to, each deferral costing two more requests.
    Here the first command's tracker edit hangs for 1.5 s after its answer; with one turn at a time,
    the command has given its turn back, and the next command is answered at once, not deferred."""
    pommel = await alice_in_a_fight(world, start_bot)
    turns = interactions._Turns(1, asyncio.get_running_loop())
    monkeypatch.setattr(interactions._load, "turns", turns)
    fault = pommel.fake.fail("PATCH", MESSAGE, "delay", delay=1.5)
    first = asyncio.create_task(hurt_alice(pommel, world))
    while fault.times:  # until its tracker edit is under way (and hangs), so the command has answered
        assert not first.done()
        await asyncio.sleep(0.02)
    assert interactions._load.in_progress == 0
    assert turns.free == 1
    second = await hurt_alice(pommel, world)
    assert second.callback_type == 4
    assert not second.ephemeral
    assert (await first).callback_type == 4
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14 - 2 * 2


async def test_a_write_blocked_by_another_program_stalls_no_other_channel_and_is_refused(
    world: World, start_bot: Any, bot_runner: Any
) -> None:
    """Another program holding the database's write lock stalled every command in every channel,
    even an /odds that only reads, and the blocked write ended in "This interaction failed". Now reads
    go on meanwhile, and the write that cannot start is refused (deferred first), nothing saved."""
    pommel = await alice_in_a_fight(world, start_bot)
    holder = sqlite3.connect(bot_runner.database_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # an outside program takes the write lock and keeps it
    try:
        blocked = asyncio.create_task(hurt_alice(pommel, world))
        await asyncio.sleep(0.5)  # the write under way (on a loaded machine perhaps not yet: no harm)
        odds = await pommel.slash(
            "odds", user=world.player, options={"target": "Alice", "who": "Alice"}, expect_errors=True
        )
        # Ordered, not timed: the read is answered while the write still waits for the lock (its
        # busy_timeout, 5 s, then refused), however slow the machine.
        read_first = not blocked.done()
        result = await blocked
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert read_first, "/odds waited behind the blocked write"
    assert odds.content  # answered (here: Alice cannot attack herself), while the write waited
    assert result.ephemeral
    assert "The database is busy (another program is writing to it), so nothing was saved." in result.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14


# ---------------------------------------------------------------------------------- one answer each


async def refuse_while_deferred(interaction: discord.Interaction) -> None:
    """Refuse once the automatic deferral is on its way to Discord."""
    while interaction.extras["pommel_answer"].deferral is None:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    raise RulesError("Nobody by that name is in this fight.")


def add_refusal_racing_the_deferral(bot: Pommel) -> None:
    bot.tree.add_command(
        app_commands.Command(
            name="e2e-racing-refusal",
            description="Refuse as the deferral goes",
            callback=refuse_while_deferred,
        )
    )


async def test_a_refusal_made_while_the_deferral_is_on_its_way_is_still_the_answer(
    world: World, start_bot: Any
) -> None:
    """A command refused just as its automatic deferral (at 2 s) was on its way to Discord: the refusal
    was sent too, after the deferral, and Discord answered it "already acknowledged"; the user saw
    "thinking…" for ever. Now the refusal waits its turn behind the deferral, then replaces the
    "thinking" message."""
    pommel = await start_bot(setup=add_refusal_racing_the_deferral)
    pommel.fake.fail("POST", CALLBACK, "delay", delay=0.6)  # the deferral: Discord is slow to take it
    result = await pommel.slash("e2e-racing-refusal", user=world.player)
    assert result.callback_type == 5
    assert result.ephemeral
    assert result.content == "Nobody by that name is in this fight."
    assert not result.message.loading
    assert pommel.fake.take_problems("rejected") == []  # no second acknowledgement was tried


async def test_a_click_refused_while_its_deferral_is_on_its_way_is_still_answered(
    world: World, start_bot: Any
) -> None:
    """The same race for a click: a player's Deal waited for the channel past 2 s, was deferred (the
    deferral slow to reach Discord) and refused meanwhile; the refusal came "already acknowledged" and
    the click seemed to do nothing. Now the refusal follows the deferral, privately."""
    pommel = await alice_in_a_fight(world, start_bot)
    tracker = tracker_message(world.table)
    fault = pommel.fake.fail("POST", CALLBACK, "delay", delay=0.6)
    async with pommel.bot.store.lock(world.table.id):  # another command holds the channel
        clicking = asyncio.create_task(pommel.click(tracker, button_id(tracker, "deal"), user=world.player))
        while fault.times:  # until the deferral is on its way to Discord
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
    result = await clicking
    assert result.callback_type == 6  # deferred as an update of the tracker
    [refusal] = result.followups
    assert refusal.ephemeral
    assert "GM" in refusal.content
    assert pommel.fake.take_problems("rejected") == []


async def test_an_answer_refused_as_too_late_is_not_logged_as_a_bug_nor_sent_again(
    world: World, start_bot: Any
) -> None:
    """An answer Discord refused as unknown (it came after 3 s) was taken for a bug (an error logged with
    its traceback, "something went wrong" sent) and the reply tried again, refused again: in a burst
    over 5,000 channels that doubled the bot's work for the interactions already lost. Now the change
    saved is told in the channel, once, and nothing else is sent."""
    pommel = await alice_in_a_fight(world, start_bot)
    pommel.fake.fail("POST", CALLBACK, "delay", delay=3.2)
    requests = len(pommel.fake.requests)
    result = await pommel.slash(
        "combatant hp",
        user=world.player,
        options={"who": "Alice", "change": "-2"},
        expect_errors=True,
        expect_response=False,
    )
    assert not [record for record in result.errors if record.levelname == "ERROR"]
    callbacks = [r for r in pommel.fake.requests[requests:] if r.template == CALLBACK]
    assert len(callbacks) == 1  # the answer; no refusal sent after it
    told = [m for m in result.channel_messages if m.content.startswith(f"<@{world.player.id}>: ✅ Saved")]
    assert len(told) == 1
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 12
    pommel.fake.take_problems("rejected")


async def test_a_command_whose_turn_comes_after_discord_forgot_it_is_not_run(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past 3 s since it arrived, unacknowledged, an interaction is forgotten by Discord whatever the bot
    does: its command is not run when its turn comes, nor is a deferral sent for it (here "3 s" is
    0.3 s, and no deferral is due before)."""
    pommel = await alice_in_a_fight(world, start_bot)
    turns = interactions._Turns(1, asyncio.get_running_loop())
    monkeypatch.setattr(interactions._load, "turns", turns)
    monkeypatch.setattr(interactions, "TURN_HELD", 60.0)
    monkeypatch.setattr(interactions, "LOOK_AGAIN", 60.0)
    monkeypatch.setattr(interactions, "FORGOTTEN_AFTER", 0.3)
    holder = interactions._Answering(asyncio.Lock())
    await turns.take(holder)
    requests = len(pommel.fake.requests)
    hurt = asyncio.create_task(alice_hurt_unanswered(pommel, world))
    while not turns.waiting:  # until it waits for its turn
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.4)  # longer than FORGOTTEN_AFTER: however slow the machine, it has passed
    turns.give_back(holder)
    result = await hurt
    assert result.interaction.callback is None
    assert [r.template for r in pommel.fake.requests[requests:]] == []  # nothing sent for it
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14  # nothing was done
