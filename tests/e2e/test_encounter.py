"""``/encounter`` end to end: starting and ending a fight, its overview, log, options and GM.

Player characters are put in the fight straight through the store (``Encounter.join``), so these
tests do not depend on ``/join``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from bot.rules.dice import RandomDice, ScriptedDice

from .fake_discord import DiscordError, FakeDiscord, FakeUser, World
from .fights import channel_log, fight_of, join, seed_fight, start, stored_tracker
from .harness import InteractionResult, RunningBot


def end_button(asked: InteractionResult, action: str = "end") -> str:
    """The custom id of the confirmation's "End the fight" (``end``) or "Keep it going" (``keep``)."""
    assert asked.message is not None, asked.content
    [custom_id] = [
        custom_id
        for custom_id in asked.message.custom_ids()
        if custom_id.startswith("pommel:end:") and custom_id.endswith(f":{action}")
    ]
    return custom_id


async def end_fight(pommel: RunningBot, world: World, user: FakeUser | None = None) -> InteractionResult:
    """``user`` (the GM unless given) runs /encounter end in #table and clicks "End the fight"."""
    who = user or world.gm
    asked = await pommel.slash("encounter end", user=who)
    return await pommel.click(asked, end_button(asked), user=who)


def summary_and_copy(ended: InteractionResult) -> tuple[str, str]:
    """The channel's attachment and the GM's private copy of the log, after "End the fight"."""
    public, private = ended.followups
    assert not public.ephemeral
    assert private.ephemeral
    [shared], [full] = public.attachments, private.attachments
    assert full.filename.endswith("-full.md")
    return shared.data.decode(), full.data.decode()


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

    result = await end_fight(pommel, world)
    assert result.ephemeral  # the GM's confirmation, now saying the fight is ended
    assert "You ended the fight" in result.content
    assert result.components == []
    assert await pommel.bot.store.load_encounter(world.table.id) is None
    summary_message = result.followups[0]
    [embed] = summary_message.embeds
    summary = embed["description"]
    assert "Fight over" in embed["title"]
    assert "0 rounds (0 s)" in summary
    assert "Alice the Bold: HP 14/14" in summary
    assert "Bandit 1: HP -9/11 · **down**" in summary
    assert "Bandit 2: HP 11/11" in summary

    document, full = summary_and_copy(result)
    assert summary_message.attachments[0].filename.endswith(".md")
    assert "Gamemaster started a fight" in document
    assert "Gamemaster added Bandit 1, Bandit 2 (Bandit) to the group Bandits" in document
    assert "Bandit 1 HP 11 → -9 (-20) (down)" in document
    assert "public" in document
    assert "before the fight" not in document  # rolled before the fight started
    assert "Gamemaster ended the fight after 0 rounds" in document
    secret = next(line for line in full.splitlines() if "secret" in line)
    assert "*(private)*" in secret

    assert tracker.edited
    assert tracker.components == []  # no buttons left to press
    assert tracker.embeds[0]["title"] == "⚔️ Fight over"
    assert "Bandit 1: HP -9/11" in tracker.embeds[0]["description"]


async def test_the_public_log_file_never_shows_a_private_rolls_dice(world: World, start_bot: Any) -> None:
    """/encounter log hides a private roll from other players; the file posted in the channel does too.
    Only the GM's private copy has the dice."""
    pommel = await start_bot(dice=ScriptedDice([1, 13]))
    await start(pommel, world)
    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20 sneak", "private": True})
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 open"})

    result = await end_fight(pommel, world)
    document, full = summary_and_copy(result)
    assert "sneak" not in document
    assert "*(a private roll by Bob)*" in document
    assert "Bob rolled 1d20 sneak = 1" not in document
    assert "Alice rolled 1d20 open = 13" in document
    assert "- Private rolls: 1 shown without their dice; the GM's copy has them" in document
    assert "Bob rolled 1d20 sneak = 1 *(private)*" in full
    assert "Alice rolled 1d20 open = 13" in full
    private_copy = result.followups[1]
    assert "Your copy of the whole log, private rolls included (1)." in private_copy.content


async def test_end_asks_the_gm_first_and_keep_it_going_changes_nothing(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    before = await fight_of(pommel, world)

    asked = await pommel.slash("encounter end", user=world.gm)
    assert asked.ephemeral
    assert "**End this fight?** It has run 0 rounds, with 1 combatant in it." in asked.content
    assert "`/encounter log` in this channel gives it to you again as a file" in asked.content
    assert asked.followups == []
    assert asked.channel_messages == []
    labels = {button["custom_id"]: button["label"] for button in asked.components[0]["components"]}
    assert labels == {end_button(asked): "End the fight", end_button(asked, "keep"): "Keep it going"}
    assert await fight_of(pommel, world) == before  # nothing ends before the click
    assert len(await channel_log(pommel, world)) == 1

    kept = await pommel.click(asked, end_button(asked, "keep"), user=world.gm)
    assert kept.ephemeral
    assert kept.content == "The fight goes on; nothing was changed."
    assert kept.components == []
    assert kept.followups == []
    after = await fight_of(pommel, world)
    assert after.model_copy(update={"version": before.version}) == before  # a new version, nothing else


async def test_end_and_keep_clicked_together_never_both_win(world: World, start_bot: Any) -> None:
    """ "Keep it going" answered "The fight goes on" while "End the fight", clicked with it, ended it."""
    pommel = await start_bot()
    await start(pommel, world)
    asked = await pommel.slash("encounter end", user=world.gm)
    kept, ended = await asyncio.gather(
        pommel.click(asked, end_button(asked, "keep"), user=world.gm),
        pommel.click(asked, end_button(asked), user=world.gm),
    )
    fight = await pommel.bot.store.load_encounter(world.table.id)
    goes_on = kept.content == "The fight goes on; nothing was changed."
    assert goes_on == (fight is not None), (kept.content, ended.content)
    if fight is not None:
        assert "The fight has changed since you asked to end it" in ended.content


async def test_a_stale_or_second_click_ends_nothing(world: World, start_bot: Any) -> None:
    """The buttons carry the fight's tag and version: a confirmation from before the fight changed, a
    second click, or one left from an earlier fight in the channel, ends nothing."""
    pommel = await start_bot()
    await start(pommel, world)
    stale = await pommel.slash("encounter end", user=world.gm)
    await pommel.slash("npc add", user=world.gm, options={"template": "goblin"})
    changed = await fight_of(pommel, world)

    refused = await pommel.click(stale, end_button(stale), user=world.gm)
    assert refused.ephemeral
    assert "The fight has changed since you asked to end it" in refused.content
    assert "`/encounter end` again" in refused.content
    assert refused.followups == []
    assert await fight_of(pommel, world) == changed

    asked = await pommel.slash("encounter end", user=world.gm)
    first, second = await asyncio.gather(  # a double click: both sent before either is answered
        pommel.click(asked, end_button(asked), user=world.gm),
        pommel.click(asked, end_button(asked), user=world.gm),
    )
    ended, again = (first, second) if first.followups else (second, first)
    assert "You ended the fight" in ended.content
    assert again.callback is not None
    assert again.callback.type == 4  # a reply of its own, not an edit of the confirmation
    assert "That fight is already over" in again.content
    assert again.ephemeral
    assert again.followups == []
    ends = [entry for entry in await channel_log(pommel, world) if "ended the fight" in entry.text]
    assert len(ends) == 1

    await asyncio.sleep(0.002)  # the next fight starts at another millisecond
    await start(pommel, world)
    new_fight = await fight_of(pommel, world)
    left_over = await pommel.click(stale, end_button(stale), user=world.gm)
    assert "belongs to an earlier fight in this channel" in left_over.content
    assert await fight_of(pommel, world) == new_fight


async def test_a_summary_discord_refuses_leaves_the_fight_ended_and_the_gm_told_where_its_log_is(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    """The end is committed before anything is posted: when Discord refuses the summary with its file,
    the GM reads that the fight IS ended and how to get its log, never "nothing was changed"."""
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    tracker = stored_tracker(world, await fight_of(pommel, world))
    followup = ("POST", "/webhooks/{webhook_id}/{webhook_token}")
    post = fake_discord._routes[followup]

    async def too_large(call: Any) -> Any:
        if call.files:
            raise DiscordError(413, 40005, "Request entity too large")
        return await post(call)

    fake_discord._routes[followup] = too_large
    result = await end_fight(pommel, world)
    fake_discord._routes[followup] = post
    assert len(fake_discord.take_problems("rejected")) == 1  # the summary (no private roll: no GM copy)

    assert await pommel.bot.store.load_encounter(world.table.id) is None
    assert "You ended the fight" in result.content
    [notice] = result.followups
    assert notice.ephemeral
    assert "The fight **is ended**, but Discord did not take the summary with its log file" in notice.content
    assert "413: Request entity too large" in notice.content
    assert "the log is kept, and `/encounter log` in this channel gives it to you as a file" in notice.content
    assert "nothing was changed" not in result.text.lower()
    assert tracker.embeds[0]["title"] == "⚔️ Fight over"  # the table sees it ended all the same

    again = await pommel.slash("encounter log", user=world.gm)
    assert again.ephemeral
    [attachment] = again.message.attachments if again.message is not None else []
    assert "Gamemaster ended the fight after 0 rounds" in attachment.data.decode()


async def test_an_ended_fights_log_can_be_downloaded_again(world: World, start_bot: Any) -> None:
    """/encounter log in a channel whose fight ended gives that fight's log as a file, privately: the GM
    of the fight and Manage Server the whole log, a player their own private rolls and not others'."""
    pommel = await start_bot(dice=ScriptedDice([4, 17, 6, 2]))
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d6 before"})
    never = await pommel.slash("encounter log", user=world.player)  # no fight has ended here yet
    assert never.ephemeral
    assert "There is no fight in this channel" in never.content
    assert never.message is not None
    assert never.message.attachments == []
    await start(pommel, world)
    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20 hush", "private": True})
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 mine", "private": True})
    await end_fight(pommel, world)
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d4 later"})

    for user in (world.gm, world.admin):
        gm = await pommel.slash("encounter log", user=user)
        assert gm.ephemeral
        assert (
            f"The log of the last fight in this channel (GM <@{world.gm.id}>), which ended <t:" in gm.content
        )
        assert "It is the whole log, private rolls included." in gm.content
        assert gm.message is not None
        [whole] = gm.message.attachments
        assert whole.filename.endswith("-full.md")
        text = whole.data.decode()
        assert "Bob rolled 1d20 hush = 17 *(private)*" in text
        assert "Alice rolled 1d20 mine = 6 *(private)*" in text
        assert "Gamemaster ended the fight after 0 rounds" in text
        assert "before" not in text
        assert "later" not in text  # rolled once the fight was over

    player = await pommel.slash("encounter log", user=world.player)
    assert player.ephemeral
    assert "Other players' private rolls (1) are in it without their dice" in player.content
    assert player.message is not None
    [own] = player.message.attachments
    assert not own.filename.endswith("-full.md")
    text = own.data.decode()
    assert "Alice rolled 1d20 mine = 6 *(private)*" in text
    assert "hush" not in text
    assert "*(a private roll by Bob)*" in text


def history_buttons(listed: InteractionResult) -> list[str]:
    assert listed.message is not None, listed.content
    return [custom_id for custom_id in listed.message.custom_ids() if custom_id.startswith("pommel:history:")]


async def test_history_lists_the_ended_fights_and_gives_each_ones_log(world: World, start_bot: Any) -> None:
    """/encounter history, for anyone and privately: the channel's ended fights, newest first, each with a
    button for its log: the whole log for its GM and Manage Server, others' private rolls without
    their dice for a player."""
    pommel = await start_bot(dice=ScriptedDice([17, 6, 3]))
    none = await pommel.slash("encounter history", user=world.player)
    assert none.ephemeral
    assert "No fight has ended in this channel yet (it keeps its last 20)." in none.content
    await start(pommel, world)
    await pommel.slash("roll dice", user=world.player2, options={"expression": "1d20 hush", "private": True})
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d20 mine", "private": True})
    await end_fight(pommel, world)
    await asyncio.sleep(0.002)  # the next fight starts at another millisecond
    await start(pommel, world, world.player)
    await pommel.slash("roll dice", user=world.player, options={"expression": "1d4 second"})
    await end_fight(pommel, world, world.player)

    listed = await pommel.slash("encounter history", user=world.player)
    assert listed.ephemeral
    assert "**Fights that ended in this channel**, newest first (the last 20 are kept):" in listed.content
    first_line, second_line = [line for line in listed.content.splitlines() if line.startswith("**")]
    assert first_line.startswith("**1.** Started <t:")
    assert f"after 0 rounds · GM <@{world.player.id}>" in first_line
    assert f"GM <@{world.gm.id}>" in second_line
    newest, oldest = history_buttons(listed)

    second = await pommel.click(listed, newest, user=world.player)
    assert second.ephemeral
    assert "The log of a fight in this channel" in second.content
    assert second.message is not None
    [mine] = second.message.attachments
    assert "1d4 second = 3" in mine.data.decode()
    assert "hush" not in mine.data.decode()

    for user in (world.gm, world.admin):
        theirs = await pommel.slash("encounter history", user=user)
        assert history_buttons(theirs) == [newest, oldest]
        whole = await pommel.click(theirs, oldest, user=user)
        assert "It is the whole log, private rolls included." in whole.content
        assert whole.message is not None
        [full] = whole.message.attachments
        assert full.filename.endswith("-full.md")
        text = full.data.decode()
        assert "Bob rolled 1d20 hush = 17 *(private)*" in text
        assert "Gamemaster ended the fight after 0 rounds" in text
        assert "second" not in text  # the next fight's

    player = await pommel.click(listed, oldest, user=world.player)
    assert "Other players' private rolls (1) are in it without their dice" in player.content
    assert player.message is not None
    [own] = player.message.attachments
    assert not own.filename.endswith("-full.md")
    assert "Alice rolled 1d20 mine = 6 *(private)*" in own.data.decode()
    assert "*(a private roll by Bob)*" in own.data.decode()
    assert "hush" not in own.data.decode()


async def test_reopen_brings_the_last_fight_back_as_it_ended(world: World, start_bot: Any) -> None:
    """The GM's /encounter reopen: the fight is back exactly as it ended (at a new version), its tracker
    posted anew, "X reopened the fight" logged; a confirmation from before the end stays stale."""
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit", "count": 2})
    await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit 1", "change": "-3"})
    before = await fight_of(pommel, world)
    stale = await pommel.slash("encounter end", user=world.gm)
    await end_fight(pommel, world)

    player = await pommel.slash("encounter reopen", user=world.player)
    assert player.ephemeral
    assert f"Only the GM of this fight (<@{world.gm.id}>) can reopen it." in player.content
    assert await pommel.bot.store.load_encounter(world.table.id) is None

    reopened = await pommel.slash("encounter reopen", user=world.gm)
    assert not reopened.ephemeral
    assert "↩️ Gamemaster reopened the fight run by <@" in reopened.content
    assert "it is back as it ended, before round 1, with 3 combatants. Its tracker is posted below." in (
        reopened.content
    )
    back = await fight_of(pommel, world)
    assert back.version == before.version + 2  # reopened at the next version; then the new tracker's place
    assert back.model_copy(update={"version": before.version, "tracker": before.tracker}) == before
    assert back.tracker != before.tracker  # posted anew, at the bottom of the channel
    tracker = stored_tracker(world, back)
    assert tracker.embeds[0]["title"] != "⚔️ Fight over"
    assert any(custom_id.startswith("pommel:turn:") for custom_id in tracker.custom_ids())
    assert (await channel_log(pommel, world))[-1].text == "Gamemaster reopened the fight"

    refused = await pommel.click(stale, end_button(stale), user=world.gm)
    assert "The fight has changed since you asked to end it" in refused.content
    assert await fight_of(pommel, world) == back

    again = await pommel.slash("encounter reopen", user=world.gm)
    assert again.ephemeral
    assert "A fight is already running in this channel" in again.content
    assert "before the last one can be reopened" in again.content
    assert await fight_of(pommel, world) == back

    await end_fight(pommel, world)
    log = await pommel.slash("encounter log", user=world.gm)  # the whole fight, both parts
    assert log.message is not None
    [whole] = log.message.attachments
    text = whole.data.decode()
    assert "Gamemaster reopened the fight" in text
    assert text.count("Gamemaster ended the fight after 0 rounds") == 2


async def test_a_new_fight_can_start_after_the_last_one_ended(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await end_fight(pommel, world)
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
    assert "**Rulings**: the defaults (docs/RULES.md)" in gm_view
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
    ended = await end_fight(pommel, world, world.player2)
    assert "You ended the fight" in ended.content
    assert not ended.followups[0].ephemeral


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


async def test_a_fight_that_can_no_longer_be_read_is_set_aside_and_the_channel_told(
    world: World, start_bot: Any, bot_runner: Any
) -> None:
    """A hand-edited (or damaged) fight document stopped every command of its channel, a new
    /encounter start included. It is set aside when read: the channel is told why its fight is gone, and
    a new one starts, saying so once."""
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    with sqlite3.connect(bot_runner.database_path) as db:  # someone edits the stored fight by hand
        [(document,)] = db.execute("SELECT document FROM encounters WHERE channel_id = ?", (world.table.id,))
        db.execute(
            "UPDATE encounters SET document = ? WHERE channel_id = ?",
            (document.replace('"prowess":2', '"prowess":21'), world.table.id),
        )
    shown = await pommel.slash("encounter show", user=world.gm)
    assert shown.ephemeral
    assert "Pommel could not read the fight that was running here" in shown.content
    assert "does not understand" in shown.content
    assert "not something it can have" not in shown.content  # the table's words, not the developers'
    assert "the GM starts a new one with `/encounter start`" in shown.content
    started = await pommel.slash("encounter start", user=world.gm)
    assert not started.ephemeral, started.content
    assert "This new fight starts afresh." in started.content
    again = await pommel.slash("encounter show", user=world.gm)
    assert "could not read" not in again.content  # told once; this fight is readable


async def test_a_fight_a_newer_pommel_saved_is_set_aside_downloaded_and_brought_back_once_read(
    world: World, start_bot: Any, bot_runner: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that went back to an older Pommel: the fight a newer one saved is set aside, not dropped
    and not rewritten; its GM downloads it exactly as kept, and brings it back once a Pommel reads it."""
    from bot.store import shared
    from bot.store.upgrades import FIGHT, Kind

    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    with sqlite3.connect(bot_runner.database_path) as db:  # as a newer Pommel would have written it
        [(document,)] = db.execute("SELECT document FROM encounters WHERE channel_id = ?", (world.table.id,))
        newer = document.replace('{"schema":1,', '{"schema":2,', 1)
        db.execute("UPDATE encounters SET document = ? WHERE channel_id = ?", (newer, world.table.id))
    db.close()

    shown = await pommel.slash("encounter show", user=world.player)
    assert shown.ephemeral
    assert "it was saved by a newer version of Pommel than the one running now" in shown.content
    assert "can download it with `/encounter recover`" in shown.content

    refused = await pommel.slash("encounter recover", user=world.player)
    assert refused.ephemeral
    assert f"Only its GM (<@{world.gm.id}>) or someone with Manage Server can recover" in refused.content

    kept = await pommel.slash("encounter recover", user=world.gm)
    assert kept.ephemeral
    assert kept.message is not None
    [attachment] = kept.message.attachments
    assert attachment.data.decode() == newer  # exactly as it was kept
    assert attachment.filename.endswith(".json")
    assert "a fight of version 2, where this one reads up to version 1" in kept.content
    assert "still can't read it" in kept.content

    too_soon = await pommel.slash("encounter recover", user=world.gm, options={"bring_back": True})
    assert too_soon.ephemeral
    assert "still can't read that fight" in too_soon.content
    assert "no fight" in (await pommel.slash("encounter show", user=world.gm)).content.lower()

    later = Kind("a fight", (*FIGHT.upgrades, lambda fight: fight))  # a later release: it reads version 2
    monkeypatch.setattr(shared, "FIGHT", later)
    readable = await pommel.slash("encounter recover", user=world.gm)
    assert "reads it now: bring it back with `/encounter recover bring_back:True`" in readable.content
    back = await pommel.slash("encounter recover", user=world.gm, options={"bring_back": True})
    assert not back.ephemeral, back.content
    assert "brought back the fight set aside here" in back.content
    assert "it goes on as it was then" in back.content
    fight = await fight_of(pommel, world)
    assert [combatant.name for combatant in fight.combatants] == ["Alice"]
    with sqlite3.connect(bot_runner.database_path) as db:  # written again at the (later) current version
        [(stored,)] = db.execute("SELECT document FROM encounters WHERE channel_id = ?", (world.table.id,))
    db.close()
    assert stored.startswith('{"schema":2,')
    log = await channel_log(pommel, world)
    assert "brought back the fight set aside on" in log[-1].text
    again = await pommel.slash("encounter recover", user=world.gm)
    assert "nothing to recover" in again.content


async def test_a_preset_sets_the_habits_of_a_play_by_post_table_and_options_given_win(
    world: World, fake_discord: Any, start_bot: Any
) -> None:
    """`preset:play-by-post` sets the four habits its choice names; a habit given as well wins."""
    pommel = await start_bot()
    await start(pommel, world)
    [command] = [
        sub
        for sub in fake_discord.find_command("encounter", world.guild)["options"]
        if sub["name"] == "options"
    ]
    [preset] = [option for option in command["options"] if option["name"] == "preset"]
    assert [choice["name"] for choice in preset["choices"]] == [
        "play-by-post: tracker reposted, held cards offered turns, defenses wait 1 day, reminders at 12 h",
        "voice: tracker edited in place, Jokers offered the turn, defenses wait 10 min, no reminders",
    ]
    result = await pommel.slash(
        "encounter options", user=world.gm, options={"preset": "play-by-post", "defense_timeout_minutes": 120}
    )
    assert not result.ephemeral, result.content
    assert "repost tracker: off → **on**" in result.content
    assert "claim pause: jokers → **held cards**" in result.content
    assert "defense timeout minutes: 10 → **120**" in result.content
    assert "remind after hours: 0 → **12**" in result.content
    table = (await fight_of(pommel, world)).table
    assert (table.repost_tracker, table.claim_pause.value) == (True, "held cards")
    assert (table.defense_timeout_minutes, table.remind_after_hours) == (120, 12)

    back = await pommel.slash("encounter options", user=world.gm, options={"preset": "voice"})
    assert "remind after hours: 12 → **0**" in back.content
    table = (await fight_of(pommel, world)).table
    assert (table.repost_tracker, table.defense_timeout_minutes, table.remind_after_hours) == (False, 10, 0)
