"""``/join`` and ``/leave`` end to end: saved characters into and out of a channel's fight (R2, R6)."""

from __future__ import annotations

from typing import Any

from bot.encounter.document import player_holder
from tests.sheets import character

from .fake_discord import World
from .fights import StackedDice, fight_of, seed_fight, tracker_message
from .harness import RunningBot

ANSEL = character("Ansel", dexterity=3, wisdom=1, charisma=0, hp=24, armor="mail_haubergeon", shield="heater")


async def with_ansel(start_bot: Any, world: World, *, fight: bool = True, **bot_kwargs: Any) -> RunningBot:
    """A bot where the player has Ansel saved and (``fight``) #table has an empty fight run by the GM."""
    pommel: RunningBot = await start_bot(**bot_kwargs)
    await pommel.bot.store.save_character(world.guild.id, world.player.id, ANSEL)
    if fight:
        await seed_fight(pommel, world)
    return pommel


async def test_join_adds_the_character_with_its_pool_and_posts_the_tracker(
    world: World, start_bot: Any
) -> None:
    """R6: Prowess 2 gives 3 dice; the haubergeon (Max Dex +1) costs one, so Ansel fights with 2.
    R2: he acts on his player's card, dealt from the first deal."""
    pommel = await with_ansel(start_bot, world)
    joined = await pommel.slash("join", user=world.player, options={"character": "ansel"})
    assert not joined.ephemeral
    assert (
        joined.content
        == f"**Ansel** joins the fight; acts on <@{world.player.id}>'s card from the first deal."
    )
    assert joined.callback is not None
    assert joined.callback.data.get("allowed_mentions") == {"parse": []}

    fight = await fight_of(pommel, world)
    [ansel] = fight.combatants
    assert (ansel.name, ansel.owner_id, ansel.holder) == (
        "Ansel",
        world.player.id,
        player_holder(world.player.id),
    )
    assert ansel.pool.size == 2
    assert ansel.pool.remaining == 2
    assert (ansel.hp, ansel.max_hp, ansel.dex_mod, ansel.shield) == (24, 24, 3, "heater")

    tracker = tracker_message(world.table)
    assert "Ansel · ●● · HP 24/24" in tracker.embeds[0]["description"]
    assert fight.tracker is not None
    assert fight.tracker.message_id == tracker.id
    log = await pommel.bot.store.read_log(channel_id=world.table.id)
    assert [entry.text for entry in log] == ["Alice joined with Ansel"]


async def test_join_autocomplete_offers_the_players_own_characters(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    mine = await pommel.autocomplete("join", user=world.player, focused="character", value="a")
    assert [choice["value"] for choice in mine.choices] == ["Ansel"]
    theirs = await pommel.autocomplete("join", user=world.player2, focused="character", value="")
    assert theirs.choices == []


async def test_joining_twice_is_refused_and_changes_nothing(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    before = await fight_of(pommel, world)
    again = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert again.ephemeral
    assert "Ansel is already in this fight" in again.content
    assert again.errors == []
    after = await fight_of(pommel, world)
    assert after.version == before.version
    assert len(after.combatants) == 1


async def test_join_without_a_fight_is_refused_privately(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world, fight=False)
    refused = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert refused.ephemeral
    assert "There is no fight in this channel" in refused.content
    assert refused.errors == []
    assert await pommel.bot.store.load_encounter(world.table.id) is None


async def test_join_with_a_character_the_player_does_not_have_is_refused(
    world: World, start_bot: Any
) -> None:
    pommel = await with_ansel(start_bot, world)
    refused = await pommel.slash("join", user=world.player2, options={"character": "Ansel"})
    assert refused.ephemeral
    assert "You have no character called 'Ansel'" in refused.content
    assert (await fight_of(pommel, world)).combatants == []


async def test_r2_joining_mid_round_acts_on_a_card_already_held(world: World, start_bot: Any) -> None:
    """R2: a player's characters all act on the player's card; one who joins while the player holds
    a card this round acts on it, and the tracker is edited in place."""
    pommel = await with_ansel(start_bot, world, fight=False, dice=StackedDice(["KS", "7D"]))
    await seed_fight(pommel, world, players=[(world.player, "Brigit"), (world.player2, "Cato")])
    await pommel.slash("init deal", user=world.gm)
    tracker = tracker_message(world.table)

    joined = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert "which they already hold this round" in joined.content
    fight = await fight_of(pommel, world)
    assert [c.name for c in fight.members(player_holder(world.player.id))] == ["Brigit", "Ansel"]
    assert tracker_message(world.table).id == tracker.id
    assert "**Brigit & Ansel**" in tracker_message(world.table).embeds[0]["description"]


async def test_r2_joining_after_the_deal_without_a_card_waits_for_the_next_deal(
    world: World, start_bot: Any
) -> None:
    pommel = await with_ansel(start_bot, world, fight=False, dice=StackedDice(["KS"]))
    await seed_fight(pommel, world, players=[(world.player2, "Cato")])
    await pommel.slash("init deal", user=world.gm)
    joined = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert joined.content.endswith(f"acts on <@{world.player.id}>'s card from the next deal.")
    fight = await fight_of(pommel, world)
    assert player_holder(world.player.id) not in fight.initiative.cards


async def test_leave_takes_out_the_players_only_character(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    left = await pommel.slash("leave", user=world.player)
    assert not left.ephemeral
    assert left.content.startswith("**Ansel** leaves the fight.")
    assert (await fight_of(pommel, world)).combatants == []
    assert "Nobody has joined yet" in tracker_message(world.table).embeds[0]["description"]


async def test_r2_leave_discards_the_card_of_a_player_with_no_one_left(world: World, start_bot: Any) -> None:
    """R2: the last of a player's characters leaving discards that player's card."""
    pommel = await with_ansel(start_bot, world, fight=False, dice=StackedDice(["KS", "7D"]))
    await seed_fight(pommel, world, players=[(world.player, "Brigit"), (world.player2, "Cato")])
    await pommel.slash("init deal", user=world.gm)
    options = await pommel.autocomplete("leave", user=world.player, focused="character", value="")
    assert [choice["name"] for choice in options.choices] == ["Brigit"]
    left = await pommel.slash("leave", user=world.player, options={"character": options.choices[0]["value"]})
    assert "their card is discarded" in left.content
    fight = await fight_of(pommel, world)
    assert player_holder(world.player.id) not in fight.initiative.cards
    assert [c.name for c in fight.combatants] == ["Cato"]


async def test_leave_refuses_another_players_character(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    refused = await pommel.slash("leave", user=world.player2, options={"character": "Ansel"})
    assert refused.ephemeral
    assert "Ansel is not yours" in refused.content
    assert len((await fight_of(pommel, world)).combatants) == 1
    nobody = await pommel.slash("leave", user=world.player2)
    assert "You have no character in this fight" in nobody.content


async def test_the_gm_can_take_a_players_character_out(world: World, start_bot: Any) -> None:
    """A player who left the table should not stall the fight: the GM takes their character out."""
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    taken = await pommel.slash("leave", user=world.gm, options={"character": "Ansel"})
    assert not taken.ephemeral, taken.content
    assert f"<@{world.player.id}> has no one left in it" in taken.content  # the player, not the GM
    assert (await fight_of(pommel, world)).combatants == []


async def test_deleting_a_character_in_a_fight_leaves_the_fights_copy(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    deleted = await pommel.slash("character delete", user=world.player, options={"name": "Ansel"})
    assert "keeps its copy" in deleted.content
    [ansel] = (await fight_of(pommel, world)).combatants
    assert ansel.name == "Ansel"


async def test_joining_twice_quotes_the_name_with_its_markdown_escaped(world: World, start_bot: Any) -> None:
    pommel = await with_ansel(start_bot, world)
    bold = ANSEL.model_copy(update={"name": "*bold*_name_"})
    await pommel.bot.store.save_character(world.guild.id, world.player.id, bold)
    await pommel.slash("join", user=world.player, options={"character": "*bold*_name_"})
    again = await pommel.slash("join", user=world.player, options={"character": "*bold*_name_"})
    assert again.ephemeral
    assert again.content == "\\*bold\\*\\_name\\_ is already in this fight."
    taken = await pommel.slash("leave", user=world.player2, options={"character": "*bold*_name_"})
    assert taken.content.startswith("\\*bold\\*\\_name\\_ is not yours")


async def test_leaving_and_joining_again_is_no_free_rest(world: World, start_bot: Any) -> None:
    """/leave then /join gave Ansel back his full HP and pool; now he comes back as he left."""
    pommel = await with_ansel(start_bot, world)
    await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    encounter = await fight_of(pommel, world)
    encounter.combatant("Ansel").hp = 4
    encounter.combatant("Ansel").add_condition("prone")
    await pommel.bot.store.save_encounter(encounter)
    await pommel.slash("leave", user=world.player)
    back = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert back.content.startswith(
        "**Ansel** comes back to the fight as they left it (HP 4/24, prone, 2/2 dice left); acts on "
    ), back.content
    assert (await fight_of(pommel, world)).combatant("Ansel").hp == 4
