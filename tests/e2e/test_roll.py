"""``/roll`` end to end: the real bot through discord.py against the fake Discord.

Every request the bot sends is validated against Discord's OpenAPI spec by the fake; a violation
fails the test at teardown. Dice are fixed with :class:`ScriptedDice`.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.rules.dice import ScriptedDice

from .fake_discord import FakeDiscord, FakeMessage, World
from .fights import channel_log
from .harness import BotRunner


class ExplodingDice:
    """A dice source with a bug in it: the bot must not leak it to the user."""

    def roll(self, sides: int) -> int:
        raise ZeroDivisionError("the dice tower fell over")

    def shuffle(self, items: Any) -> None:
        raise ZeroDivisionError("the dice tower fell over")


async def test_start_up_syncs_roll_commands_that_pass_the_spec(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    await start_bot()
    syncs = [r for r in fake_discord.requests if r.method == "PUT" and "commands" in (r.template or r.path)]
    assert syncs, "the bot never synced its commands"
    roll = fake_discord.find_command("roll", world.guild)
    assert {option["name"] for option in roll["options"]} == {"dice", "pool", "log"}
    assert fake_discord.problems == []  # every synced body passed the spec


async def test_roll_dice_public_shows_every_die_and_logs_it(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([8, 20, 18, 5]))
    result = await pommel.slash("roll dice", user=world.player, options={"expression": "4d20kh1+5"})
    assert result.callback_type == 4
    assert not result.ephemeral
    assert f"<@{world.player.id}> rolls `4d20kh1+5`" in result.content
    assert "4d20kh1 (~~8~~, **20**, ~~18~~, ~~5~~) + 5 = `25`" in result.content
    assert "natural 20" in result.content
    [entry] = await channel_log(pommel, world)
    assert entry.kind == "roll"
    assert entry.user_id == world.player.id
    assert entry.guild_id == world.guild.id
    assert entry.data["total"] == 25
    assert entry.data["d20"] == [8, 20, 18, 5]  # every d20 face, for /stats dice
    assert entry.data["private"] is False


async def test_roll_pings_nobody(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([3]))
    result = await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 @everyone"})
    assert result.message is not None
    assert result.callback is not None
    assert result.callback.data.get("allowed_mentions") == {"parse": []}


async def test_roll_dice_private_answers_ephemerally_and_is_still_logged(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=ScriptedDice([1]))
    result = await pommel.slash(
        "roll dice", user=world.player2, options={"expression": "1d20+3", "private": True}
    )
    assert result.ephemeral
    assert "1d20 (**1**) + 3 = `4`" in result.content
    assert "natural 1" in result.content
    [entry] = await channel_log(pommel, world)
    assert entry.data["private"] is True


async def test_r9_roll_pool_keeps_the_highest_die(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([4, 17, 9]))
    result = await pommel.slash("roll pool", user=world.player, options={"dice": 3, "bonus": 5})
    assert not result.ephemeral
    assert "~~4~~, **17**, ~~9~~ → 17 +5 = `22`" in result.content
    [entry] = await channel_log(pommel, world)
    assert entry.data["faces"] == [4, 17, 9]
    assert entry.data["total"] == 22


async def test_r10_roll_pool_with_disadvantage_removes_the_highest(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([19, 6]))
    result = await pommel.slash(
        "roll pool", user=world.player, options={"dice": 1, "situation": "disadvantage"}
    )
    assert "~~19~~, **6** → 6 +0 = `6`" in result.content


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("fireball", "not dice notation"),
        ("1000d6", "more than 100 dice"),
        ("1d20+" * 100 + "1", "the most is 120"),
        ("1d99999", "up to d1000"),
    ],
)
async def test_a_bad_or_huge_expression_gets_an_ephemeral_error_and_nothing_is_logged(
    world: World, start_bot: Any, expression: str, says: str
) -> None:
    pommel = await start_bot(dice=ScriptedDice([]))
    result = await pommel.slash("roll dice", user=world.player, options={"expression": expression})
    assert result.ephemeral
    assert says in result.content
    assert "Traceback" not in result.content
    assert result.errors == []  # a refusal is not a bug: nothing logged at ERROR
    assert await channel_log(pommel, world) == []


def suggested_examples(roll: dict[str, Any]) -> list[str]:
    """The examples /roll dice shows as it is typed: its description's list, its option's code spans."""
    [dice] = [option for option in roll["options"] if option["name"] == "dice"]
    listed: list[str] = dice["description"].split(": ", 1)[1].split(", ")
    [expression] = [option for option in dice["options"] if option["name"] == "expression"]
    spans: list[str] = re.findall(r"`([^`]+)`", expression["description"])
    return [*listed, *spans]


async def test_every_example_the_roll_command_and_its_refusals_suggest_rolls(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    examples = suggested_examples(fake_discord.find_command("roll", world.guild))
    refused = await pommel.slash("roll dice", user=world.player, options={"expression": "fireball"})
    examples += [span for span in re.findall(r"`([^`]+)`", refused.content) if span != "fireball"]
    assert {"1d20+5", "1d20 adv", "3d6 dis"} <= set(examples)
    for example in examples:
        result = await pommel.slash("roll dice", user=world.player, options={"expression": example})
        assert not result.ephemeral, (example, result.content)
        assert re.search(r"= `-?\d+`", result.content), (example, result.content)


async def test_3d6_dis_rolls_twice_and_keeps_the_lower_total(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([6, 6, 5, 1, 2, 3]))
    result = await pommel.slash("roll dice", user=world.player, options={"expression": "3d6 dis"})
    assert "(~~3d6 (6, 6, 5)~~, 3d6 (1, 2, 3))kl1 = `6`" in result.content
    [entry] = await channel_log(pommel, world)
    assert entry.data["expression"] == "(3d6, 3d6)kl1"
    assert entry.text.endswith("rolled (3d6, 3d6)kl1 = 6")


async def test_roll_works_in_a_dm_and_is_not_logged(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=ScriptedDice([12]))
    dm = fake_discord.dm_channel(world.player)
    result = await pommel.slash("roll dice", user=world.player, channel=dm, options={"expression": "1d20"})
    assert "1d20 (12) = `12`" in result.content
    assert await pommel.bot.store.read_log() == []


async def test_an_unexpected_error_is_logged_and_the_user_gets_an_error_id(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=ExplodingDice())
    result = await pommel.slash(
        "roll dice", user=world.player, options={"expression": "1d20"}, expect_errors=True
    )
    assert result.ephemeral
    assert "Something went wrong, nothing was changed" in result.content
    assert "dice tower" not in result.content
    [record] = result.errors
    assert record.exc_info is not None
    error_id = result.content.split("`")[1]
    assert error_id in record.getMessage()
    assert await channel_log(pommel, world) == []


async def test_a_restart_on_the_same_database_keeps_the_log(world: World, bot_runner: BotRunner) -> None:
    first = await bot_runner.start_bot(dice=ScriptedDice([7]))
    await first.slash("roll dice", user=world.player, options={"expression": "1d20"})
    await first.close()

    second = await bot_runner.start_bot(dice=ScriptedDice([15]))
    await second.slash("roll dice", user=world.player2, options={"expression": "1d20+1"})
    log = await channel_log(second, world)
    assert [(e.user_id, e.data["total"]) for e in log] == [(world.player.id, 7), (world.player2.id, 16)]


async def test_the_servers_gms_read_its_rolls_private_ones_too_and_players_are_refused(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    """The README promises a GM can check private rolls later: /roll log, privately, for Manage Server
    and the server's GM role; nobody else, and not everyone when the server has no GM role."""
    pommel = await start_bot(dice=ScriptedDice([7, 11, 3, 15]))
    await pommel.slash(
        "roll dice", user=world.player2, options={"expression": "1d20 ambush", "private": True}
    )
    await pommel.slash(
        "roll dice", user=world.player, channel=world.lobby, options={"expression": "1d20 open"}
    )
    await pommel.slash("roll pool", user=world.player, options={"dice": 1, "private": True})
    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20 loud"})

    for user in (world.player, world.gm):  # no GM role on the server: anyone may run fights, not read this
        refused = await pommel.slash("roll log", user=user)
        assert refused.ephemeral
        assert (
            "Only members with Manage Server can read the server's rolls, private ones included"
            in refused.content
        )
        assert refused.embeds == []

    admin = await pommel.slash("roll log", user=world.admin)
    assert admin.ephemeral
    [embed] = admin.embeds
    assert embed["title"] == "🎲 The server's rolls"
    lines = embed["description"].splitlines()
    assert lines[0] == "The latest rolls on this server, private ones marked *(private)*."
    assert lines[1].endswith(f"<#{world.table.id}> Bob rolled 1d20 ambush = 7 *(private)*")
    assert lines[2].endswith(f"<#{world.lobby.id}> Alice rolled 1d20 open = 11")
    assert "Alice rolled a pool of 1d20 +0: [3] keep 3 = 3 *(private)*" in lines[3]
    assert lines[4].endswith("Bob rolled 1d20 loud = 15")
    assert lines[1].startswith("<t:")

    settings = await pommel.bot.store.guild_settings(world.guild.id)
    await pommel.bot.store.save_guild_settings(settings.model_copy(update={"gm_role_id": world.gm_role.id}))
    private = await pommel.slash("roll log", user=world.gm, options={"private_only": True})
    assert private.ephemeral
    text = private.embeds[0]["description"]
    assert text.startswith("The latest private rolls on this server.")
    assert "ambush = 7 *(private)*" in text
    assert "keep 3 = 3 *(private)*" in text
    assert "open" not in text
    assert "loud" not in text

    bobs = await pommel.slash("roll log", user=world.gm, options={"member": world.player2, "entries": 1})
    text = bobs.embeds[0]["description"]
    assert text.startswith(f"The latest rolls by <@{world.player2.id}> on this server")
    assert "loud" in text
    assert "ambush" not in text  # only the latest one

    refused = await pommel.slash("roll log", user=world.player)
    assert f"Only members with the <@&{world.gm_role.id}> role or Manage Server" in refused.content
    assert refused.embeds == []

    dm = await pommel.slash("roll log", user=world.admin, channel=fake_discord.dm_channel(world.admin))
    assert dm.ephemeral
    assert "`/roll log` reads them in that server" in dm.content


async def test_roll_log_says_when_there_is_nothing_to_show(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=ScriptedDice([5]))
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20"})
    result = await pommel.slash("roll log", user=world.admin, options={"private_only": True})
    assert result.embeds[0]["description"].endswith("No private rolls logged.")


CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"


def told_in(world: World, before: int) -> list[FakeMessage]:
    return [m for m in world.table.history[before:] if m.content.startswith(f"<@{world.player.id}>: ")]


async def test_a_roll_whose_answer_reaches_discord_too_late_is_told_in_the_channel(
    world: World, start_bot: Any
) -> None:
    """The roll was logged (and counted in /roll log and /stats dice) while its answer came after
    Discord's 3 s: the user saw "This interaction failed" and was never told. Now a message in the
    channel tells them the roll was made, and its result, as after any change saved."""
    pommel = await start_bot(dice=ScriptedDice([13]))
    pommel.fake.fail("POST", CALLBACK, "delay", delay=3.2)
    before = len(world.table.history)
    await pommel.slash(
        "roll dice",
        user=world.player,
        options={"expression": "1d20+4"},
        expect_errors=True,
        expect_response=False,  # Discord has forgotten the interaction
    )
    [told] = told_in(world, before)
    assert told.content.startswith(f"<@{world.player.id}>: ✅ Saved: Alice rolled 1d20 + 4 = 17. ")
    assert "don't roll again" in told.content
    assert "nothing was changed" not in told.content
    assert [user.id for user in told.mentions] == [world.player.id]
    [entry] = await channel_log(pommel, world)
    assert entry.data["total"] == 17
    assert pommel.fake.take_problems("rejected")  # the late answer and the late private reply


async def test_a_private_roll_told_in_the_channel_keeps_its_result_private(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=ScriptedDice([19, 2]))
    pommel.fake.fail("POST", CALLBACK, "delay", delay=3.2)
    before = len(world.table.history)
    await pommel.slash(
        "roll pool",
        user=world.player,
        options={"dice": 2, "private": True},
        expect_errors=True,
        expect_response=False,
    )
    [told] = told_in(world, before)
    assert told.content.startswith(f"<@{world.player.id}>: ✅ Saved: your private roll. ")
    # the roll's 19 is nowhere (the player's mention and the error's random id are taken out first:
    # a snowflake, or 8 hex digits, may hold "19")
    assert "19" not in re.sub(r"error id `[0-9a-f]+`", "", told.content.replace(f"<@{world.player.id}>", ""))
    [entry] = await channel_log(pommel, world)
    assert entry.data["private"] is True
    assert pommel.fake.take_problems("rejected")
