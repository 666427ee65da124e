"""``/stats dice`` end to end: the faces of the server's rolls counted, the chart uploaded with its alt
text through the fake Discord (which checks the multipart body and its payload against the spec), the
private rolls only in the roller's and the GM's answer, and a chart that never delays another command."""

from __future__ import annotations

import asyncio
import struct
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.rules.dice import ScriptedDice
from bot.store import LogEntry
from bot.ui import charts

from .fake_discord import FakeUser, World
from .fights import dealt_fight, exchange_button, fight_of, start
from .harness import HANG_GUARD, InteractionResult, RunningBot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the first, right after the signature)."""
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def the_chart(result: InteractionResult, filename: str) -> str:
    """The one picture attached to the answer: a PNG of the stated size, not empty, with alt text (which
    is returned)."""
    assert result.message is not None, result.text
    [picture] = result.message.attachments
    assert picture.filename == filename
    assert len(picture.data) > 10_000
    assert png_size(picture.data) == (charts.WIDTH, charts.HEIGHT)
    alt_text = picture.description
    assert alt_text
    assert len(alt_text) <= charts.ALT_TEXT_LIMIT
    return alt_text


async def seed(
    pommel: RunningBot,
    world: World,
    faces: list[list[int]],
    *,
    user: FakeUser | None = None,
    private: bool = False,
    at: datetime | None = None,
    key: str = "faces",
) -> None:
    """Rolls logged as ``/roll pool`` logs them (straight into the store: a test needs hundreds)."""
    who = user or world.player
    await pommel.bot.store.append_logs(
        [
            LogEntry(
                at=at or datetime.now(UTC),
                guild_id=world.guild.id,
                channel_id=world.table.id,
                user_id=who.id,
                kind="roll",
                text="a roll",
                data={key: roll, "private": private},
            )
            for roll in faces
        ]
    )


EVEN = [[face] for face in range(1, 21)] * 6
"""120 dice, every face 6 times: as even as dice come."""


async def test_the_servers_faces_come_as_a_chart_with_alt_text(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([20, 20, 3]))
    await pommel.slash("roll pool", user=world.player, options={"dice": 2})  # 20, 20
    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20+2"})  # 3
    await seed(pommel, world, EVEN)
    result = await pommel.slash("stats dice", user=world.player)
    assert not result.ephemeral
    assert "**Rolls in the server**: 123 d20s from 122 rolls." in result.content
    assert "Nothing here suggests uneven dice: fair dice often roll like this (p = " in result.content
    assert "each face comes up about 6.2 times, 95% of the time 2 to 11" in result.content
    alt_text = the_chart(result, "d20-faces.png")
    assert alt_text.startswith("Bar chart of how often each face of the d20 came up.")
    assert "Rolls in the server: 123 d20s from 122 rolls" in alt_text
    assert "1: 6, 2: 6, 3: 7," in alt_text
    assert "20: 8." in alt_text
    assert "Chi-square test against fair dice: p = " in alt_text
    # The command deferred at once (the chart takes a moment) and the upload went in its follow-up,
    # through the multipart body Discord takes: the file, and its description in the payload's
    # attachments (the fake validated it against the spec; no problem was recorded).
    assert result.callback_type == 5
    [upload] = [r for r in result.requests if r.method == "POST" and r.path.startswith("/webhooks/")]
    assert upload.files
    assert upload.body["attachments"] == [{"id": 0, "filename": "d20-faces.png", "description": alt_text}]


async def test_a_loaded_die_is_called_very_uneven(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await seed(pommel, world, EVEN + [[20]] * 40)
    result = await pommel.slash("stats dice", user=world.player)
    assert (
        "These faces are very uneven: fair dice are this uneven less than 0.1% of the time" in result.content
    )
    assert "Outside it: 20 (46)" in result.content
    alt_text = the_chart(result, "d20-faces.png")
    assert "Outside the band: 20." in alt_text


async def test_a_few_rolls_are_too_few_to_tell(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await seed(pommel, world, [[20]] * 30)
    result = await pommel.slash("stats dice", user=world.player)
    assert "30 d20s from 30 rolls" in result.content
    assert "That is too few to tell: the test needs at least 100 d20s" in result.content
    assert "Too few dice for the test." in the_chart(result, "d20-faces.png")
    empty = await pommel.slash("stats dice", user=world.player, options={"member": world.gm})
    assert "**Gamemaster's rolls in the server**: 0 d20s from 0 rolls." in empty.content
    assert "No d20 was rolled." in empty.content
    the_chart(empty, "d20-faces.png")


async def test_private_rolls_count_only_in_the_rollers_and_the_gms_answer(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await seed(pommel, world, [[10]] * 5)
    await seed(pommel, world, [[1]] * 3, user=world.player, private=True)
    await seed(pommel, world, [[2]] * 2, user=world.player2, private=True)

    public = await pommel.slash("stats dice", user=world.player)
    assert not public.ephemeral
    assert "5 d20s from 5 rolls" in public.content
    assert (
        "5 private rolls are not counted in a public answer; `private:true` counts your own" in public.content
    )

    own = await pommel.slash("stats dice", user=world.player, options={"private": True})
    assert own.ephemeral
    assert "8 d20s from 8 rolls" in own.content
    assert "Your own private rolls are counted: this answer is yours alone." in own.content
    assert "2 private rolls of other members are not counted (only the GM sees them)." in own.content
    assert "1: 3, 2: 0," in the_chart(own, "d20-faces.png")

    gm = await pommel.slash("stats dice", user=world.admin, options={"private": True})  # Manage Server
    assert gm.ephemeral
    assert "10 d20s from 10 rolls" in gm.content
    assert "Private rolls are counted: this answer is yours alone." in gm.content
    assert "not counted" not in gm.content
    # A GM's public answer still counts only the public rolls.
    assert "5 d20s from 5 rolls" in (await pommel.slash("stats dice", user=world.admin)).content


async def test_a_member_a_channel_and_a_time_span(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([7]))
    await seed(pommel, world, [[4]] * 2, user=world.player2)
    await seed(pommel, world, [[5]], at=datetime.now(UTC) - timedelta(days=40))
    await pommel.slash("roll dice", user=world.player, channel=world.lobby, options={"expression": "1d20"})

    bob = await pommel.slash("stats dice", user=world.player, options={"member": world.player2})
    assert "**Bob's rolls in the server**: 2 d20s from 2 rolls." in bob.content
    lobby = await pommel.slash(
        "stats dice", user=world.player, channel=world.lobby, options={"of": "channel"}
    )
    assert "**Rolls in \\#lobby**: 1 d20 from 1 roll." in lobby.content
    recent = await pommel.slash("stats dice", user=world.player, options={"days": 30})
    assert "**Rolls in the server over the last 30 days**: 3 d20s from 3 rolls." in recent.content
    assert "Rolls in the server over the last 30 days: 3 d20s" in the_chart(recent, "d20-faces.png")


async def test_a_fights_rolls_are_those_made_in_its_channel_since_it_started(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=ScriptedDice([12, 12, 13]))
    none = await pommel.slash("stats dice", user=world.player, options={"of": "fight"})
    assert none.ephemeral
    assert "No fight has run in this channel" in none.content
    await seed(pommel, world, [[1]] * 4, at=datetime.now(UTC) - timedelta(hours=2))  # before the fight
    await start(pommel, world)
    await pommel.slash("roll pool", user=world.player, options={"dice": 2})
    running = await pommel.slash("stats dice", user=world.player, options={"of": "fight"})
    assert "**Rolls in the fight in \\#table**: 2 d20s from 1 roll." in running.content
    asked = await pommel.slash("encounter end", user=world.gm)
    [end] = [c for c in asked.message.custom_ids() if c.endswith(":end")] if asked.message else []
    await pommel.click(asked, end, user=world.gm)
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 after"})  # 13
    ended = await pommel.slash("stats dice", user=world.player, options={"of": "fight"})
    assert "**Rolls in the last fight in \\#table**: 2 d20s from 1 roll." in ended.content
    channel = await pommel.slash("stats dice", user=world.player, options={"of": "channel"})
    assert "7 d20s from 6 rolls" in channel.content


async def test_a_fights_attacks_defenses_and_counterattacks_count_with_who_rolled_them_undone_or_not(
    world: World, start_bot: Any
) -> None:
    """Alice attacks (15), the GM defends the Bandit with 1 die (20: a miss, R14.4), the Bandit
    counterattacks (12) and Alice defends passively (a hit, 3 damage); the GM undoes the counterattack
    and its defense. Every d20 was rolled, so every one counts: 3 from 3 rolls, Alice's player's one."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 20, 12, 3])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    result = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.gm)
    counter = await pommel.click(result, exchange_button(result, "counter:1"), user=world.gm)
    hit = await pommel.click(counter, exchange_button(counter, "passive"), user=world.player)
    assert "HP 14 → **11**/14" in hit.content, hit.content
    undo = await pommel.slash("encounter undo", user=world.gm, options={"steps": 2})
    [confirm] = [c for c in undo.message.custom_ids() if c.startswith("pommel:undo:")] if undo.message else []
    await pommel.click(undo, confirm, user=world.gm)
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14

    fight = await pommel.slash("stats dice", user=world.player, options={"of": "fight"})
    assert "**Rolls in the fight in \\#table**: 3 d20s from 3 rolls." in fight.content, fight.content
    assert "and the fight's attacks, defenses, counterattacks" in fight.content
    alice = await pommel.slash("stats dice", user=world.gm, options={"of": "fight", "member": world.player})
    assert "1 d20 from 1 roll" in alice.content, alice.content
    gm = await pommel.slash("stats dice", user=world.gm, options={"of": "fight", "member": world.gm})
    assert "2 d20s from 2 rolls" in gm.content, gm.content


async def test_drawing_a_chart_never_delays_another_command(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chart is drawn on its own thread: while a slow one draws, a roll is answered at once. The
    chart is held until the roll is answered (not slept for a time): drawn on the event loop, it would
    hold the roll up until the hang guard, and the chart would be done first."""
    pommel = await start_bot(dice=ScriptedDice([9]))
    drawing = charts.dice_chart
    started, release = threading.Event(), threading.Event()

    def slow(*args: Any) -> charts.Chart:
        started.set()
        release.wait(HANG_GUARD)
        return drawing(*args)

    monkeypatch.setattr(pommel.bot.extensions["cogs.stats"], "dice_chart", slow)
    stats = asyncio.create_task(pommel.slash("stats dice", user=world.player))
    try:
        assert await asyncio.to_thread(started.wait, HANG_GUARD)  # the chart is being drawn
        roll = await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20"})
        assert "1d20 (9)" in roll.content
        assert not stats.done()
    finally:
        release.set()
    the_chart(await stats, "d20-faces.png")


async def test_a_command_drawing_a_chart_defers_at_once_as_its_answer_will_be_seen(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chart slower than the 2 s automatic deferral: the command deferred at once, publicly (the
    answer is for everyone), and its answer replaced the "thinking" message with the chart in place."""
    pommel = await start_bot()
    drawing = charts.dice_chart

    def slow(*args: Any) -> charts.Chart:
        time.sleep(2.3)
        return drawing(*args)

    monkeypatch.setattr(pommel.bot.extensions["cogs.stats"], "dice_chart", slow)
    stats = await pommel.slash("stats dice", user=world.player)
    assert stats.callback_type == 5  # deferred
    assert stats.callback is not None
    assert not stats.callback.data.get("flags")  # publicly
    assert not stats.ephemeral
    assert "Rolls in the server" in stats.content
    assert stats.interaction.followups == [stats.message]  # the answer is the thinking message, replaced
    the_chart(stats, "d20-faces.png")


async def test_a_chart_that_fails_after_a_public_deferral_says_why_privately_not_to_everyone(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pommel = await start_bot()

    def broken(*args: Any) -> charts.Chart:
        raise RuntimeError("the chart could not be drawn")

    monkeypatch.setattr(pommel.bot.extensions["cogs.stats"], "dice_chart", broken)
    stats = await pommel.slash("stats dice", user=world.player, expect_errors=True)
    assert stats.callback_type == 5
    assert not stats.ephemeral
    assert stats.content == "⚠️ This command did not finish; whoever used it was told why, privately."
    [why] = stats.followups
    assert why.ephemeral
    assert why.content.startswith("Something went wrong, nothing was changed.")
    assert "RuntimeError" not in why.content


async def test_stats_is_refused_in_direct_messages(world: World, start_bot: Any, fake_discord: Any) -> None:
    pommel = await start_bot()
    synced = fake_discord.find_command("stats", world.guild)
    assert synced["contexts"] == [0]  # servers only: Discord offers it nowhere else
    assert {option["name"] for option in synced["options"]} == {"dice"}
    assert pommel.bot.get_cog("Stats") is not None
