"""``/character`` end to end: the real bot through discord.py against the fake Discord."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.characters import Character

from .fake_discord import FakeDiscord, World
from .fights import seed_fight, start, tracker_message
from .harness import InteractionResult, RunningBot

ANSEL: dict[str, Any] = {
    "name": "Ansel",
    "prowess": 2,
    "dexterity": 3,
    "wisdom": 1,
    "charisma": -1,
    "proficiency": 2,
    "hp": 24,
    "weapon": "arming_sword",
    "armor": "mail_haubergeon",
    "shield": "heater",
}


async def create(pommel: RunningBot, world: World, **changes: Any) -> InteractionResult:
    """``/character create`` as the player with Ansel's values, changed by ``changes``.

    A change to None leaves that option out."""
    options = {name: value for name, value in {**ANSEL, **changes}.items() if value is not None}
    return await pommel.slash("character create", user=world.player, options=options)


async def saved(pommel: RunningBot, world: World, user_id: int | None = None) -> list[Character]:
    return await pommel.bot.store.characters(world.guild.id, user_id or world.player.id)


def field(result: InteractionResult, name: str) -> str:
    [embed] = result.embeds
    value: str = next(f["value"] for f in embed.get("fields", []) if f["name"] == name)
    return value


async def test_character_commands_are_synced_guild_only(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    await start_bot()
    synced = fake_discord.find_command("character", world.guild)
    assert {option["name"] for option in synced["options"]} == {
        "create",
        "form",
        "edit",
        "feat",
        "show",
        "list",
        "delete",
    }
    assert synced.get("contexts") == [0]
    create_options = {
        o["name"]: o for o in next(o for o in synced["options"] if o["name"] == "create")["options"]
    }
    assert (create_options["prowess"]["min_value"], create_options["prowess"]["max_value"]) == (0, 10)
    assert (create_options["dexterity"]["min_value"], create_options["dexterity"]["max_value"]) == (-5, 10)
    assert (create_options["hp"]["min_value"], create_options["hp"]["max_value"]) == (1, 999)
    assert create_options["weapon"]["autocomplete"] is True
    assert create_options["weapon"]["required"] is True
    assert not create_options["shield"].get("required", False)


async def test_create_saves_privately_and_show_renders_the_sheet_publicly(
    world: World, start_bot: Any
) -> None:
    """R6: Prowess 2 gives 3 dice, and a haubergeon (Max Dex +1) costs one: 2.
    R13: passive defense 8 + Prowess 2 + Dex 3 capped at +1 + Heater Shield 2 = 13."""
    pommel = await start_bot()
    created = await create(pommel, world)
    assert created.ephemeral
    assert "Saved **Ansel**" in created.content
    [character] = await saved(pommel, world)
    assert character.weapon == "arming_sword"
    assert character.armor == "mail_haubergeon"
    assert character.shield == "heater"
    assert character.off_hand is None

    shown = await pommel.slash("character show", user=world.player, options={"name": "ansel"})
    assert not shown.ephemeral
    [embed] = shown.embeds
    assert embed["title"] == "Ansel"
    assert field(shown, "Martial Pool (R6)").startswith("**2** dice")
    assert field(shown, "Passive defense (R13)") == "**13** = 8 Base +2 Prowess +1 Dex +2 Heater Shield"
    assert "Sword, Arming" in field(shown, "Weapon")
    assert "reach" in field(shown, "Weapon")
    assert "speed" in field(shown, "Weapon")


async def test_show_private_answers_ephemerally(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    shown = await pommel.slash(
        "character show", user=world.player, options={"name": "Ansel", "private": True}
    )
    assert shown.ephemeral
    assert shown.embeds[0]["title"] == "Ansel"


async def test_list_shows_own_characters_or_a_members(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    await create(pommel, world, name="Brother Tuck", weapon="quarterstaff", armor="none", shield=None)
    mine = await pommel.slash("character list", user=world.player)
    text = mine.embeds[0]["description"]
    assert "**Ansel**" in text
    assert "**Brother Tuck**" in text
    assert text.index("Ansel") < text.index("Brother Tuck")

    theirs = await pommel.slash("character list", user=world.player2, options={"member": world.player})
    assert "**Ansel**" in theirs.embeds[0]["description"]
    empty = await pommel.slash("character list", user=world.player2)
    assert "No characters yet" in empty.embeds[0]["description"]


async def test_show_a_members_character_read_only(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    offered = await pommel.autocomplete(
        "character show", user=world.player2, focused="name", value="an", options={"member": world.player}
    )
    assert [choice["value"] for choice in offered.choices] == ["Ansel"]
    shown = await pommel.slash(
        "character show", user=world.player2, options={"name": "Ansel", "member": world.player}
    )
    assert shown.embeds[0]["title"] == "Ansel"
    assert f"<@{world.player.id}>" in shown.embeds[0]["description"]


async def test_edit_changes_only_what_is_given_and_reports_it(world: World, start_bot: Any) -> None:
    """R6: Prowess 3 out of armor fills the pool (4 dice)."""
    pommel = await start_bot()
    await create(pommel, world)
    edited = await pommel.slash(
        "character edit",
        user=world.player,
        options={"name": "ansel", "prowess": 3, "armor": "none", "shield": "none", "new_name": "Sir Ansel"},
    )
    assert edited.ephemeral
    assert "Prowess 2 → 3" in edited.content
    assert "Prowess 2 → 3; armor Haubergeon, Mail → No Armor; shield Heater Shield → none" in edited.content
    assert "shield Heater Shield → none" in edited.content
    assert field(edited, "Martial Pool (R6)").startswith("**4** dice")
    [character] = await saved(pommel, world)
    assert character.name == "Sir Ansel"
    assert (character.prowess, character.dexterity, character.hp) == (3, 3, 24)
    assert character.shield is None


async def test_edit_with_nothing_to_change_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    refused = await pommel.slash("character edit", user=world.player, options={"name": "Ansel"})
    assert refused.ephemeral
    assert "Nothing to change" in refused.content
    same = await pommel.slash("character edit", user=world.player, options={"name": "Ansel", "prowess": 2})
    assert "nothing was changed" in same.content


async def test_edit_rename_onto_another_character_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    await create(pommel, world, name="Brigid")
    refused = await pommel.slash(
        "character edit", user=world.player, options={"name": "Brigid", "new_name": "ANSEL"}
    )
    assert refused.ephemeral
    assert "already have a character called Ansel" in refused.content
    assert [c.name for c in await saved(pommel, world)] == ["Ansel", "Brigid"]


async def test_edit_a_two_handed_weapon_with_a_shield_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    refused = await pommel.slash(
        "character edit", user=world.player, options={"name": "Ansel", "weapon": "longsword"}
    )
    assert refused.ephemeral
    assert "needs both hands" in refused.content
    [character] = await saved(pommel, world)
    assert character.weapon == "arming_sword"


async def test_r26_two_martial_weapons_are_refused(world: World, start_bot: Any) -> None:
    """R26: only one of two weapons may be a martial weapon."""
    pommel = await start_bot()
    refused = await create(pommel, world, shield=None, off_hand="sabre")
    assert refused.ephemeral
    assert "Only one of the two weapons may be a martial weapon" in refused.content
    assert await saved(pommel, world) == []
    accepted = await create(pommel, world, shield=None, off_hand="small_dagger")
    assert not accepted.errors
    [character] = await saved(pommel, world)
    assert character.off_hand == "small_dagger"


async def test_delete_removes_only_the_named_character(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    await create(pommel, world, name="Brigid")
    deleted = await pommel.slash("character delete", user=world.player, options={"name": "ansel"})
    assert deleted.ephemeral
    assert "Deleted **Ansel**" in deleted.content
    assert "fight it is in keeps its copy" in deleted.content
    assert [c.name for c in await saved(pommel, world)] == ["Brigid"]


async def test_weapon_autocomplete_offers_matching_catalog_entries(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    offered = await pommel.autocomplete("character create", user=world.player, focused="weapon", value="dagg")
    values = [choice["value"] for choice in offered.choices]
    assert values
    assert all("dagger" in value for value in values)
    assert all(len(choice["name"]) <= 100 for choice in offered.choices)
    everything = await pommel.autocomplete("character create", user=world.player, focused="weapon")
    assert len(everything.choices) == 25


async def test_edit_autocomplete_offers_only_own_characters(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    mine = await pommel.autocomplete("character edit", user=world.player, focused="name", value="")
    assert [choice["value"] for choice in mine.choices] == ["Ansel"]
    theirs = await pommel.autocomplete("character edit", user=world.player2, focused="name", value="")
    assert theirs.choices == []


async def test_unknown_weapon_is_refused_with_a_suggestion_and_nothing_saved(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    refused = await create(pommel, world, weapon="longswrod")
    assert refused.ephemeral
    assert "There is no weapon called 'longswrod'" in refused.content
    assert "Did you mean 'longsword'" in refused.content
    assert refused.errors == []
    assert await saved(pommel, world) == []


async def test_a_duplicate_name_is_refused_ignoring_case(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    refused = await create(pommel, world, name="ANSEL", prowess=0)
    assert refused.ephemeral
    assert "already have a character called Ansel" in refused.content
    [character] = await saved(pommel, world)
    assert character.prowess == 2


async def test_another_player_cannot_edit_or_delete_a_character_they_do_not_own(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    edit = await pommel.slash("character edit", user=world.player2, options={"name": "Ansel", "hp": 1})
    assert edit.ephemeral
    assert "You have no character called 'Ansel'" in edit.content
    delete = await pommel.slash("character delete", user=world.player2, options={"name": "Ansel"})
    assert delete.ephemeral
    assert "You have no character called 'Ansel'" in delete.content
    [character] = await saved(pommel, world)
    assert character.hp == 24


async def test_the_same_name_is_fine_for_two_players(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    other = await pommel.slash("character create", user=world.player2, options={**ANSEL, "hp": 9})
    assert "Saved" in other.content
    [theirs] = await saved(pommel, world, world.player2.id)
    assert theirs.hp == 9


async def test_a_name_that_looks_like_a_ping_or_markdown_is_shown_escaped_and_pings_nobody(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    created = await create(pommel, world, name="@everyone **boss**")
    assert "**\\@everyone \\*\\*boss\\*\\***" in created.content  # escaped: reads as typed, highlights nobody
    shown = await pommel.slash("character show", user=world.player, options={"name": "@everyone **boss**"})
    assert shown.embeds[0]["title"] == "\\@everyone \\*\\*boss\\*\\*"
    for result in (created, shown):
        assert result.callback is not None
        assert result.callback.data.get("allowed_mentions") == {"parse": []}
        assert result.message is not None
        assert not result.message.mention_everyone


async def test_a_name_written_as_a_mention_never_shows_as_one(world: World, start_bot: Any) -> None:
    """A character named `<@4001>` showed as a live mention of another member in the tracker and in
    "**<@4001>** joins the fight", and a refusal quoted it half-escaped (`<@4001\\>`): every name is
    escaped one way, so it reads as typed, everywhere."""
    pommel = await start_bot()
    await create(pommel, world, name="<@4001>")
    await seed_fight(pommel, world)
    joined = await pommel.slash("join", user=world.player, options={"character": "<@4001>"})
    assert joined.content.startswith("**\\<\\@4001\\>** joins the fight"), joined.content
    tracker = tracker_message(world.table)
    assert "<@4001>" not in tracker.embeds[0]["description"]
    assert "\\<\\@4001\\>" in tracker.embeds[0]["description"]
    again = await pommel.slash("join", user=world.player, options={"character": "<@4001>"})
    assert again.ephemeral
    assert again.content.startswith("\\<\\@4001\\> is already in this fight"), again.content


async def test_a_taken_name_is_quoted_escaped_in_the_refusal(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world, name="**boss**")
    refused = await create(pommel, world, name="**BOSS**")
    assert "You already have a character called \\*\\*boss\\*\\*." in refused.content


async def test_a_blank_name_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    refused = await create(pommel, world, name="   ")
    assert refused.ephemeral
    assert refused.content == "The name needs at least one letter or digit; it was blank. Nothing was saved."
    assert "String should have" not in refused.content  # the library's wording, as it read before
    assert refused.errors == []
    assert await saved(pommel, world) == []


async def test_edit_offers_to_put_the_shield_away(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    offered = await pommel.autocomplete("character edit", user=world.player, focused="shield", value="")
    assert offered.choices[0] == {"name": "No shield", "value": "none"}
    kite = await pommel.autocomplete("character edit", user=world.player, focused="shield", value="kite")
    assert [choice["value"] for choice in kite.choices] == ["kite"]


# ------------------------------------------------------------------------------ commands at the same instant


async def test_two_creates_of_one_name_at_once_save_one_and_refuse_the_other(
    world: World, start_bot: Any
) -> None:
    """Neither create may silently overwrite the other: one is saved, the other told the name is taken."""
    pommel = await start_bot()
    first, second = await asyncio.gather(
        create(pommel, world, hp=11), create(pommel, world, name="ANSEL", hp=22)
    )
    saves = [result for result in (first, second) if "Saved" in result.content]
    refusals = [result for result in (first, second) if "already have a character called" in result.content]
    assert len(saves) == 1
    assert len(refusals) == 1
    assert refusals[0].ephemeral
    assert refusals[0].errors == []
    [character] = await saved(pommel, world)
    assert character.hp == (11 if saves[0] is first else 22)


async def test_two_edits_at_once_lose_neither_change(world: World, start_bot: Any) -> None:
    """Each edit that says "Updated" is in the sheet; one that could not be is refused, not lost."""
    pommel = await start_bot()
    await create(pommel, world)
    results = await asyncio.gather(
        pommel.slash("character edit", user=world.player, options={"name": "Ansel", "hp": 30}),
        pommel.slash("character edit", user=world.player, options={"name": "Ansel", "prowess": 3}),
    )
    [character] = await saved(pommel, world)
    for result, kept in zip(results, (character.hp == 30, character.prowess == 3), strict=True):
        assert result.errors == []
        if "Updated" in result.content:
            assert kept, "an edit reported as saved was lost"
        else:
            assert result.ephemeral
            assert "changed by another command while yours ran; nothing was changed" in result.content
    assert any("Updated" in result.content for result in results)


async def edit_and_delete_at_once(
    pommel: RunningBot, world: World, edit: dict[str, Any], *, delete_first: bool
) -> tuple[InteractionResult, InteractionResult]:
    """``/character edit`` and ``/character delete`` of Ansel at the same instant, in either order of
    arrival; returns (edited, deleted)."""
    edited = pommel.slash("character edit", user=world.player, options={"name": "Ansel", **edit})
    deleted = pommel.slash("character delete", user=world.player, options={"name": "Ansel"})
    if delete_first:
        deleted_result, edited_result = await asyncio.gather(deleted, edited)
    else:
        edited_result, deleted_result = await asyncio.gather(edited, deleted)
    assert edited_result.errors == deleted_result.errors == []
    return edited_result, deleted_result


@pytest.mark.parametrize("delete_first", [True, False])
async def test_an_edit_at_the_instant_of_a_delete_never_brings_the_character_back(
    world: World, start_bot: Any, delete_first: bool
) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    edited, deleted = await edit_and_delete_at_once(pommel, world, {"hp": 30}, delete_first=delete_first)
    assert "Deleted **Ansel**" in deleted.content
    assert await saved(pommel, world) == [], "the deleted character came back"
    if "Updated" not in edited.content:
        assert edited.ephemeral
        assert "Ansel was deleted or renamed while your command ran; nothing was changed" in edited.content


@pytest.mark.parametrize("delete_first", [True, False])
async def test_a_rename_at_the_instant_of_a_delete_does_one_and_refuses_the_other(
    world: World, start_bot: Any, delete_first: bool
) -> None:
    """A delete that says "Deleted" deleted it; a rename that says "Updated" left the new name."""
    pommel = await start_bot()
    await create(pommel, world)
    renamed, deleted = await edit_and_delete_at_once(
        pommel, world, {"new_name": "Anselm"}, delete_first=delete_first
    )
    left = [character.name for character in await saved(pommel, world)]
    if "Deleted **Ansel**" in deleted.content:
        assert left == []
        refused = renamed
    else:
        assert "Updated **Ansel**: name Ansel → Anselm" in renamed.content
        assert left == ["Anselm"]
        refused = deleted
    assert refused.ephemeral
    assert "deleted or renamed while" in refused.content or "no character called 'Ansel'" in refused.content


async def test_r27_int_wis_and_cha_scores_on_the_sheet_go_with_the_character_into_the_fight(
    world: World, start_bot: Any
) -> None:
    """The sheet keeps INT, WIS and CHA scores beside the modifiers (a spiritual attack lowers the score,
    R27); an edit changes them, and the character joins a fight with them."""
    pommel = await start_bot()
    await create(pommel, world, intelligence=2, int_score=14, wis_score=12)
    edited = await pommel.slash(
        "character edit", user=world.player, options={"name": "Ansel", "cha_score": 9}
    )
    assert "CHA score none → 9" in edited.content
    shown = await pommel.slash("character show", user=world.player, options={"name": "Ansel"})
    assert "INT 14 (+2) · WIS 12 (+1) · CHA 9 (-1)" in field(shown, "Abilities")
    [character] = await saved(pommel, world)
    assert (character.intelligence, character.int_score, character.wis_score, character.cha_score) == (
        2,
        14,
        12,
        9,
    )
    started = await pommel.slash("encounter start", user=world.gm)
    assert not started.ephemeral, started.content
    joined = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert not joined.ephemeral, joined.content
    encounter = await pommel.bot.store.load_encounter(world.table.id)
    assert encounter is not None
    ansel = encounter.combatant("Ansel")
    assert (ansel.int_mod, ansel.int_score, ansel.wis_score, ansel.cha_score) == (2, 14, 12, 9)


async def test_a_sheet_writes_down_a_martial_feat_and_its_passive_defense_follows(
    world: World, start_bot: Any
) -> None:
    """Codex: "Normally weapon defense does not apply to Passive Defense (some Martial Feats trump this)".
    With the feat the sheet's passive defense takes the better of the arming sword's DB 3 and the heater
    shield's 2 (R13); the feat comes into a fight the character joins."""
    pommel = await start_bot()
    await create(pommel, world)
    options = {"name": "Ansel", "feat": "weapon in passive defense"}
    written = await pommel.slash("character feat", user=world.player, options=options)
    assert written.ephemeral
    assert written.content.startswith("Updated **Ansel**: Martial Feats none → weapon in passive defense.")
    assert field(written, "Passive defense (R13)") == "**14** = 8 Base +2 Prowess +1 Dex +3 Sword, Arming"
    assert field(written, "Martial Feats") == (
        "weapon in passive defense: its weapon's Defense Bonus counts in passive defense (R13)"
    )
    again = await pommel.slash("character feat", user=world.player, options=options)
    assert again.ephemeral
    assert "Ansel already has weapon in passive defense; nothing was changed." in again.content
    [character] = await saved(pommel, world)
    assert [feat.value for feat in character.feats] == ["weapon in passive defense"]
    struck = await pommel.slash("character feat", user=world.player, options={**options, "remove": True})
    assert struck.content.startswith("Updated **Ansel**: Martial Feats weapon in passive defense → none.")


async def test_r24_magic_ac_is_kept_on_the_sheet_and_brought_into_a_fight(
    world: World, start_bot: Any
) -> None:
    """Lords of Hack: "Magic items and spells can add additional points of Armor Class": `/character
    create|edit magic_ac:` keeps it, the sheet shows it, and a character joining a fight brings it."""
    pommel = await start_bot()
    created = await create(pommel, world, magic_ac=1)
    assert field(created, "Magic AC (R24)") == "+1 to the Armor Class attacks against AC meet"
    edited = await pommel.slash("character edit", user=world.player, options={"name": "Ansel", "magic_ac": 3})
    assert "magic AC 1 → 3" in edited.content
    [ansel] = await saved(pommel, world)
    assert ansel.magic_ac == 3
    await start(pommel, world)
    joined = await pommel.slash("join", user=world.player, options={"character": "Ansel"})
    assert not joined.ephemeral, joined.content
    encounter = await pommel.bot.store.load_encounter(world.table.id)
    assert encounter is not None
    assert encounter.combatant("Ansel").magic_ac == 3
