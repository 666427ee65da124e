"""``/encounter`` end to end: starting and ending a fight, its overview, log, options and GM.

Player characters are put in the fight straight through the store (``Encounter.join``), so these
tests do not depend on ``/join``.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.rules.dice import RandomDice

from .fake_discord import World
from .fights import channel_log, fight_of, join, start, stored_tracker

# ---------------------------------------------------------------------------------- start and end


async def test_start_makes_the_user_gm_posts_the_tracker_and_logs_it(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    result = await start(pommel, world)
    assert not result.ephemeral
    assert f"run by <@{world.gm.id}>" in result.content
    assert result.callback is not None
    assert result.callback.data.get("allowed_mentions") == {"parse": []}
    assert result.message is not None
    assert result.message.mentions == []

    encounter = await fight_of(pommel, world)
    assert encounter.gm_id == world.gm.id
    assert encounter.guild_id == world.guild.id
    tracker = stored_tracker(world, encounter)
    assert tracker in result.channel_messages
    assert tracker.embeds
    assert tracker.custom_ids()  # its buttons
    [entry] = await channel_log(pommel, world)
    assert entry.kind == "encounter"
    assert entry.text == "Gamemaster started a fight"


async def test_a_second_start_in_the_same_channel_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    before = await fight_of(pommel, world)
    again = await start(pommel, world, world.player)
    assert again.ephemeral
    assert "already running" in again.content
    assert "/encounter end" in again.content
    assert await fight_of(pommel, world) == before
    assert len(await channel_log(pommel, world)) == 1


async def test_fights_in_two_channels_are_separate(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    other = await pommel.slash("encounter start", user=world.player, channel=world.lobby)
    assert not other.ephemeral
    lobby = await pommel.bot.store.load_encounter(world.lobby.id)
    assert lobby is not None
    assert lobby.gm_id == world.player.id


async def test_end_posts_the_summary_with_the_whole_log_and_closes_the_tracker(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=RandomDice.seeded(4))
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d6 before the fight"})
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice the Bold")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit", "count": 2})
    await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit 1", "change": "-20"})
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 public"})
    await pommel.slash(
        "roll dice", user=world.player2, options={"expression": "1d20 secret", "private": True}
    )
    tracker = stored_tracker(world, await fight_of(pommel, world))

    result = await pommel.slash("encounter end", user=world.gm)
    assert not result.ephemeral
    assert await pommel.bot.store.load_encounter(world.table.id) is None
    [embed] = result.embeds
    summary = embed["description"]
    assert "Fight over" in embed["title"]
    assert "0 rounds (0 s)" in summary
    assert "Alice the Bold: HP 14/14" in summary
    assert "Bandit 1: HP -9/11 · **down**" in summary
    assert "Bandit 2: HP 11/11" in summary

    assert result.message is not None
    [attachment] = result.message.attachments
    assert attachment.filename.endswith(".md")
    document = attachment.data.decode()
    assert "Gamemaster started a fight" in document
    assert "Gamemaster added Bandit 1, Bandit 2 (Bandit) to the group Bandits" in document
    assert "Bandit 1 HP 11 → -9 (-20) (down)" in document
    assert "public" in document
    secret = next(line for line in document.splitlines() if "secret" in line)
    assert "*(private)*" in secret
    assert "before the fight" not in document  # rolled before the fight started
    assert "Gamemaster ended the fight after 0 rounds" in document

    assert tracker.edited
    assert tracker.components == []  # no buttons left to press
    assert tracker.embeds[0]["title"] == "⚔️ Fight over"
    assert "Bandit 1: HP -9/11" in tracker.embeds[0]["description"]


async def test_a_new_fight_can_start_after_the_last_one_ended(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash("encounter end", user=world.gm)
    again = await start(pommel, world, world.player)
    assert not again.ephemeral
    assert (await fight_of(pommel, world)).gm_id == world.player.id


async def test_end_without_a_fight_says_how_to_start_one(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    result = await pommel.slash("encounter end", user=world.gm)
    assert result.ephemeral
    assert "/encounter start" in result.content


# ---------------------------------------------------------------------------------- the GM's commands


GM_ONLY = [
    ("encounter end", {}),
    ("encounter options", {"joker_bonus": 4}),
    ("encounter gm", {"member": "player2"}),
    ("npc add", {"template": "goblin"}),
    ("npc remove", {"who": "Goblin"}),
    ("combatant edit", {"who": "Goblin", "prowess": 4}),
]


@pytest.mark.parametrize(("command", "options"), GM_ONLY, ids=[command for command, _ in GM_ONLY])
async def test_a_player_is_refused_every_gm_command_and_nothing_changes(
    world: World, start_bot: Any, command: str, options: dict[str, Any]
) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash("npc add", user=world.gm, options={"template": "goblin"})
    before = await fight_of(pommel, world)
    logged = len(await channel_log(pommel, world))
    resolved = {key: getattr(world, value) if value == "player2" else value for key, value in options.items()}

    result = await pommel.slash(command, user=world.player, options=resolved)
    assert result.ephemeral
    assert f"Only the GM of this fight (<@{world.gm.id}>)" in result.content
    assert result.errors == []
    assert await fight_of(pommel, world) == before
    assert len(await channel_log(pommel, world)) == logged


async def test_a_server_admin_may_step_in_as_gm(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("encounter options", user=world.admin, options={"joker_bonus": 3})
    assert not result.ephemeral
    assert (await fight_of(pommel, world)).options.joker_bonus == 3


async def test_options_change_is_public_logged_and_shown(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash(
        "encounter options",
        user=world.gm,
        options={"joker_bonus": 3, "critical_damage": "simple d10", "hide_npc_cards": True},
    )
    assert not result.ephemeral
    assert "critical damage: by attack type → **simple d10**" in result.content
    assert "joker bonus: 2 → **3**" in result.content
    assert "hide npc cards: off → **on**" in result.content
    encounter = await fight_of(pommel, world)
    assert encounter.options.joker_bonus == 3
    assert encounter.options.critical_damage.value == "simple d10"
    assert encounter.table.hide_npc_cards
    assert (await channel_log(pommel, world))[-1].text.startswith("options changed: critical damage")

    shown = await pommel.slash("encounter show", user=world.player)
    assert shown.ephemeral
    overview = shown.embeds[0]["description"]
    assert "joker bonus: **3** (default 2)" in overview
    assert "**Table**: repost tracker **off** · hide npc cards **on** · claim pause **jokers**" in overview
    assert "dynamic criticals" not in overview  # unchanged options are not listed


async def test_options_without_a_value_show_them_all_privately(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("encounter options", user=world.gm)
    assert result.ephemeral
    text = result.embeds[0]["description"]
    assert "joker bonus: **2**" in text
    assert "claim pause: **jokers**" in text
    assert await fight_of(pommel, world) == before


async def test_a_fight_starts_with_the_servers_options(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    store = pommel.bot.store
    settings = await store.guild_settings(world.guild.id)
    changed = settings.options.model_copy(update={"joker_bonus": 1})
    await store.save_guild_settings(settings.model_copy(update={"options": changed}))
    await start(pommel, world)
    assert (await fight_of(pommel, world)).options.joker_bonus == 1


async def test_show_gives_the_gm_every_number_and_players_their_own(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit"})
    encounter = await fight_of(pommel, world)

    gm_view = (await pommel.slash("encounter show", user=world.gm)).embeds[0]["description"]
    assert f"GM: <@{world.gm.id}>" in gm_view
    assert "Round: not dealt yet" in gm_view
    assert "**Rulings**: RULINGS.md's defaults" in gm_view
    assert encounter.tracker is not None
    url = f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{encounter.tracker.message_id}"
    assert url in gm_view
    alice = f"**Alice** (<@{world.player.id}>) · HP 14/14 · Prowess 2 · pool ●●● 3/3 · Sword, Arming"
    assert alice in gm_view
    assert "Sword, Messer & Dagger, Small · Gambeson, Light" in gm_view
    assert "**Bandit** (Bandit) · HP 11/11 · Prowess 1" in gm_view

    player_view = (await pommel.slash("encounter show", user=world.player)).embeds[0]["description"]
    assert "**Alice**" in player_view
    assert "Prowess 2" in player_view
    assert "**Bandit** (Bandit) · HP 11/11" in player_view
    assert "Prowess 1" not in player_view  # the NPC's numbers are the GM's


# ---------------------------------------------------------------------------------- the log


async def test_log_shows_private_rolls_only_to_the_gm_and_the_roller(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=RandomDice.seeded(1))
    await start(pommel, world)
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 open"})
    await pommel.slash(
        "roll dice", user=world.player2, options={"expression": "1d20 hidden", "private": True}
    )

    for user in (world.gm, world.player2):
        seen = await pommel.slash("encounter log", user=user)
        assert seen.ephemeral
        text = seen.embeds[0]["description"]
        assert "hidden" in text
        assert "*(private)*" in text
        assert "open" in text

    other = await pommel.slash("encounter log", user=world.player)
    text = other.embeds[0]["description"]
    assert "open" in text
    assert "hidden" not in text
    assert "1 private roll entry of other players not shown" in text


async def test_log_shows_the_latest_entries(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=RandomDice.seeded(2))
    await start(pommel, world)
    for n in range(4):
        await pommel.slash("roll dice", user=world.player, options={"expression": f"1d4 roll{n}"})
    result = await pommel.slash("encounter log", user=world.player, options={"entries": 2})
    text = result.embeds[0]["description"]
    assert "roll2" in text
    assert "roll3" in text
    assert "roll1" not in text
    assert "started a fight" not in text


# ---------------------------------------------------------------------------------- who runs fights


async def test_handing_the_fight_over_makes_the_member_gm(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("encounter gm", user=world.gm, options={"member": world.player2})
    assert not result.ephemeral
    assert f"<@{world.gm.id}> hands this fight to <@{world.player2.id}>" in result.content
    assert result.message is not None
    assert [user.id for user in result.message.mentions] == [world.player2.id]  # told it is theirs now
    assert (await fight_of(pommel, world)).gm_id == world.player2.id

    refused = await pommel.slash("encounter end", user=world.gm)
    assert refused.ephemeral
    assert f"Only the GM of this fight (<@{world.player2.id}>)" in refused.content
    ended = await pommel.slash("encounter end", user=world.player2)
    assert not ended.ephemeral


async def test_the_fight_cannot_go_to_a_bot(fake_discord: Any, world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("encounter gm", user=world.gm, options={"member": fake_discord.bot_user})
    assert result.ephemeral
    assert "is a bot" in result.content
    assert (await fight_of(pommel, world)).gm_id == world.gm.id


async def test_gm_without_options_says_who_runs_fights(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("encounter gm", user=world.player)
    assert result.ephemeral
    assert f"This fight's GM: <@{world.gm.id}>" in result.content
    assert "Anyone on this server may start a fight" in result.content
