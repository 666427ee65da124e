"""``/character form`` end to end: the modal, the equipment menus and Save, through the fake Discord."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from bot.characters import Character
from bot.interactions import answering as interactions

from .fake_discord import World
from .harness import InteractionResult, RunningBot, shipped_catalog
from .test_character import ANSEL, create, field, saved

FORM = "pommel:character-form:"
ONE_HANDED = f"{FORM}weapon-0"
OTHER_WEAPONS = f"{FORM}weapon-1"
ARMOR = f"{FORM}armor"
OFF_HAND = f"{FORM}off-hand"

ANSEL_FORM = {
    f"{FORM}name": "Ansel",
    f"{FORM}prowess": "2",
    f"{FORM}hp": "24",
    f"{FORM}modifiers": "+3 0 +1 -1",
    f"{FORM}proficiency": "2",
}


def inputs(opened: InteractionResult) -> dict[str, dict[str, Any]]:
    """The modal's text inputs by custom id, each with its label's text."""
    found = {}
    for row in opened.modal["components"]:
        assert row["type"] == 18, "every text input sits under its own label"
        found[row["component"]["custom_id"]] = {**row["component"], "label": row["label"]}
    return found


def menus(result: InteractionResult) -> dict[str, dict[str, Any]]:
    return {
        item["custom_id"]: item
        for row in result.components
        for item in row["components"]
        if item["type"] == 3
    }


def chosen(result: InteractionResult) -> dict[str, list[str]]:
    """Each menu's default (chosen) option values."""
    return {
        custom_id: [o["value"] for o in menu["options"] if o.get("default")]
        for custom_id, menu in menus(result).items()
    }


def buttons(result: InteractionResult) -> dict[str, str]:
    return {
        item["label"]: item["custom_id"]
        for row in result.components
        for item in row["components"]
        if item["type"] == 2
    }


async def open_form(pommel: RunningBot, world: World, **values: str) -> InteractionResult:
    opened = await pommel.slash("character form", user=world.player)
    return await pommel.submit_modal(opened, {**ANSEL_FORM, **{f"{FORM}{k}": v for k, v in values.items()}})


async def test_a_new_sheet_from_the_form_is_the_sheet_the_slash_options_make(
    world: World, start_bot: Any
) -> None:
    """R13: 8 + Prowess 2 + Dex 3 capped at +1 by the haubergeon + Heater Shield 2 = 13, as
    ``/character create`` gives for the same values."""
    pommel = await start_bot()
    opened = await pommel.slash("character form", user=world.player)
    assert opened.callback_type == 9
    assert opened.modal["title"] == "New character"
    labels = {custom_id: i["label"] for custom_id, i in inputs(opened).items()}
    assert labels == {
        f"{FORM}name": "Name",
        f"{FORM}prowess": "Prowess",
        f"{FORM}hp": "Maximum HP",
        f"{FORM}modifiers": "Modifiers: DEX INT WIS CHA",
        f"{FORM}proficiency": "Proficiency bonus",
    }
    assert not any(i.get("value") for i in inputs(opened).values())

    step = await pommel.submit_modal(opened, ANSEL_FORM)
    assert step.ephemeral
    assert "New character: Ansel" in step.content
    assert "Prowess 2 · DEX +3 · INT +0 · WIS +1 · CHA -1 · Proficiency +2 · HP 24" in step.content
    assert "Weapon: not chosen yet" in step.content
    assert "This form is kept for 14 minutes after its last use, and not if Pommel restarts" in step.content
    assert await saved(pommel, world) == []

    await pommel.select(step, ONE_HANDED, ["arming_sword"], user=world.player)
    await pommel.select(step, ARMOR, ["mail_haubergeon"], user=world.player)
    picked = await pommel.select(step, OFF_HAND, ["shield:heater"], user=world.player)
    assert picked.callback_type == 7
    assert "Weapon: Sword, Arming · Armor: Haubergeon, Mail · Off hand: Heater Shield" in picked.content
    assert chosen(picked) == {
        ONE_HANDED: ["arming_sword"],
        OTHER_WEAPONS: [],
        ARMOR: ["mail_haubergeon"],
        OFF_HAND: ["shield:heater"],
    }
    assert await saved(pommel, world) == []

    done = await pommel.click(step, buttons(picked)["Save"], user=world.player)
    assert done.content.startswith("Saved **Ansel**")
    assert done.components == []
    assert field(done, "Passive defense (R13)") == "**13** = 8 Base +2 Prowess +1 Dex +2 Heater Shield"
    [from_form] = await saved(pommel, world)

    await create(pommel, world, name="Ansel Again")
    from_slash = next(c for c in await saved(pommel, world) if c.name == "Ansel Again")
    assert from_form == from_slash.model_copy(update={"name": "Ansel"})


async def test_the_menus_offer_every_weapon_armor_and_shield_of_the_catalog(
    world: World, start_bot: Any
) -> None:
    """Forty weapons do not fit one menu (25 at most): one-handed melee weapons in one, the rest in
    the other; the off-hand menu holds the shields and the weapons fit for a second hand (R26)."""
    pommel = await start_bot()
    step = await open_form(pommel, world)
    offered = {custom_id: [o["value"] for o in menu["options"]] for custom_id, menu in menus(step).items()}
    catalog = shipped_catalog()
    assert all(len(values) <= 25 for values in offered.values())
    assert sorted(offered[ONE_HANDED] + offered[OTHER_WEAPONS]) == sorted(catalog.weapons)
    assert "longsword" in offered[OTHER_WEAPONS]
    assert "short_bow" in offered[OTHER_WEAPONS]
    assert sorted(offered[ARMOR]) == sorted(catalog.armors)
    assert offered[OFF_HAND][0] == "none"
    assert {v.removeprefix("shield:") for v in offered[OFF_HAND] if v.startswith("shield:")} == set(
        catalog.shields
    )
    seconds = {v.removeprefix("weapon:") for v in offered[OFF_HAND] if v.startswith("weapon:")}
    assert "small_dagger" in seconds
    assert not {"longsword", "spear", "short_bow"} & seconds


async def test_a_second_weapon_and_a_two_handed_weapon_from_the_other_menu(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    step = await open_form(pommel, world)
    await pommel.select(step, ONE_HANDED, ["sabre"], user=world.player)
    await pommel.select(step, OFF_HAND, ["weapon:small_dagger"], user=world.player)
    switched = await pommel.select(step, OTHER_WEAPONS, ["quarterstaff"], user=world.player)
    assert chosen(switched)[ONE_HANDED] == [], "one weapon, from either menu"
    assert chosen(switched)[OTHER_WEAPONS] == ["quarterstaff"]
    refused = await pommel.click(step, buttons(switched)["Save"], user=world.player)
    assert refused.ephemeral
    assert "Quarterstaff cannot be used for two-weapon fighting" in refused.content
    assert await saved(pommel, world) == []
    again = await pommel.select(step, ONE_HANDED, ["sabre"], user=world.player)
    done = await pommel.click(step, buttons(again)["Save"], user=world.player)
    assert "Saved **Ansel**" in done.content
    [character] = await saved(pommel, world)
    assert (character.weapon, character.off_hand, character.shield) == ("sabre", "small_dagger", None)


async def test_a_bad_value_is_refused_naming_the_field_and_nothing_is_saved(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    for values, named, said in [
        ({"modifiers": "+3 0 +1"}, "**Modifiers: DEX INT WIS CHA**", "four whole numbers"),
        ({"modifiers": "+3 0 +1 -9"}, "**Modifiers: DEX INT WIS CHA**", "the CHA one was -9"),
        ({"prowess": "two"}, "**Prowess**", "from 0 to 10; you wrote 'two'"),
        ({"hp": "0"}, "**Maximum HP**", "from 1 to 999"),
        ({"proficiency": "11"}, "**Proficiency bonus**", "from 0 to 10"),
        ({"name": "   "}, "**Name**", "blank"),
    ]:
        refused = await open_form(pommel, world, **values)
        assert refused.ephemeral
        assert refused.content.startswith(named), refused.content
        assert said in refused.content
        assert "Nothing was saved" in refused.content
        assert "Press **Correct it** to open the form again with what you wrote." in refused.content
        assert list(buttons(refused)) == ["Correct it"]
    assert await saved(pommel, world) == []


async def test_correct_it_opens_the_form_again_with_what_was_written(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    refused = await open_form(pommel, world, modifiers="+3 0 +1", name="Brigid")
    reopened = await pommel.click(refused, buttons(refused)["Correct it"], user=world.player)
    assert reopened.callback_type == 9
    assert reopened.modal["title"] == "New character"
    written = {custom_id: i.get("value") for custom_id, i in inputs(reopened).items()}
    assert written == {**ANSEL_FORM, f"{FORM}name": "Brigid", f"{FORM}modifiers": "+3 0 +1"}
    step = await pommel.submit_modal(reopened, {f"{FORM}modifiers": "+3 0 +1 +2"})
    assert "New character: Brigid" in step.content
    assert "CHA +2" in step.content
    picked = await pommel.select(step, ONE_HANDED, ["arming_sword"], user=world.player)
    await pommel.click(step, buttons(picked)["Save"], user=world.player)
    [character] = await saved(pommel, world)
    assert (character.name, character.charisma) == ("Brigid", 2)


async def test_save_without_a_weapon_or_with_a_shield_on_a_two_handed_weapon_is_refused(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    step = await open_form(pommel, world)
    save = buttons(step)["Save"]
    refused = await pommel.click(step, save, user=world.player)
    assert refused.ephemeral
    assert "Pick a main weapon (from either weapon menu) before pressing Save" in refused.content
    await pommel.select(step, OFF_HAND, ["shield:heater"], user=world.player)
    await pommel.select(step, OTHER_WEAPONS, ["longsword"], user=world.player)
    refused = await pommel.click(step, save, user=world.player)
    assert "needs both hands" in refused.content
    assert await saved(pommel, world) == []
    assert "Weapon: Longsword" in step.content, "the form stays open to be corrected"


async def test_a_name_taken_is_refused_at_save_and_changed_in_the_same_form(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    step = await open_form(pommel, world, name="ANSEL")
    picked = await pommel.select(step, ONE_HANDED, ["arming_sword"], user=world.player)
    refused = await pommel.click(step, buttons(picked)["Save"], user=world.player)
    assert refused.ephemeral
    assert "already have a character called Ansel" in refused.content
    assert len(await saved(pommel, world)) == 1

    reopened = await pommel.click(step, buttons(picked)["Change name or numbers"], user=world.player)
    assert reopened.callback_type == 9
    assert {custom_id: i.get("value") for custom_id, i in inputs(reopened).items()} == {
        **ANSEL_FORM,
        f"{FORM}name": "ANSEL",
        f"{FORM}modifiers": "+3 +0 +1 -1",
    }
    bad = await pommel.submit_modal(reopened, {f"{FORM}hp": "1000"})
    assert bad.content.startswith("**Maximum HP**: write a whole number from 1 to 999")
    assert "New character: ANSEL" in step.content, "a refusal leaves the form as it was"

    reopened = await pommel.click(step, buttons(picked)["Change name or numbers"], user=world.player)
    renamed = await pommel.submit_modal(reopened, {f"{FORM}name": "Brigid", f"{FORM}hp": "30"})
    assert renamed.callback_type == 7
    assert renamed.message is step.message, "the same form, its equipment kept"
    assert "New character: Brigid" in step.content
    assert "HP 30" in step.content
    assert chosen(renamed)[ONE_HANDED] == ["arming_sword"]
    done = await pommel.click(step, buttons(renamed)["Save"], user=world.player)
    assert "Saved **Brigid**" in done.content
    assert sorted((c.name, c.hp) for c in await saved(pommel, world)) == [("Ansel", 24), ("Brigid", 30)]


async def test_editing_a_sheet_prefills_the_form_and_keeps_what_it_does_not_show(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await create(pommel, world, int_score=12, knightly_combat=True, magic_ac=1)
    opened = await pommel.slash("character form", user=world.player, options={"name": "ansel"})
    assert opened.modal["title"] == "Edit Ansel"
    prefilled = {custom_id: i.get("value") for custom_id, i in inputs(opened).items()}
    assert prefilled == {
        f"{FORM}name": "Ansel",
        f"{FORM}prowess": "2",
        f"{FORM}hp": "24",
        f"{FORM}modifiers": "+3 +0 +1 -1",
        f"{FORM}proficiency": "2",
    }
    step = await pommel.submit_modal(opened, {f"{FORM}prowess": "3", f"{FORM}name": "Sir Ansel"})
    assert "**Editing Ansel, renamed Sir Ansel**" in step.content
    assert chosen(step) == {
        ONE_HANDED: ["arming_sword"],
        OTHER_WEAPONS: [],
        ARMOR: ["mail_haubergeon"],
        OFF_HAND: ["shield:heater"],
    }
    picked = await pommel.select(step, OFF_HAND, ["none"], user=world.player)
    done = await pommel.click(step, buttons(picked)["Save"], user=world.player)
    assert done.content.startswith("Updated **Ansel**: name Ansel → Sir Ansel; Prowess 2 → 3; shield")
    [character] = await saved(pommel, world)
    expected = Character.model_validate(
        {**ANSEL, "name": "Sir Ansel", "prowess": 3, "shield": None}
        | {"int_score": 12, "knightly_combat": True, "magic_ac": 1}
    )
    assert character == expected


async def test_editing_to_the_same_values_changes_nothing(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    opened = await pommel.slash("character form", user=world.player, options={"name": "Ansel"})
    step = await pommel.submit_modal(opened, {})
    refused = await pommel.click(step, buttons(step)["Save"], user=world.player)
    assert "already has those values; nothing was changed" in refused.content


async def test_the_form_of_a_character_you_do_not_have_is_refused(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await create(pommel, world)
    refused = await pommel.slash("character form", user=world.player2, options={"name": "Ansel"})
    assert refused.callback_type == 4
    assert refused.ephemeral
    assert "You have no character called 'Ansel'" in refused.content


async def test_cancel_closes_the_form_and_saves_nothing(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    step = await open_form(pommel, world)
    await pommel.select(step, ONE_HANDED, ["arming_sword"], user=world.player)
    closed = await pommel.click(step, buttons(step)["Cancel"], user=world.player)
    assert closed.content == "Form closed; nothing was saved."
    assert closed.components == []
    assert await saved(pommel, world) == []


async def test_form_is_synced_with_an_optional_name(world: World, start_bot: Any, fake_discord: Any) -> None:
    await start_bot()
    synced = fake_discord.find_command("character", world.guild)
    form = next(o for o in synced["options"] if o["name"] == "form")
    [name] = form["options"]
    assert name["name"] == "name"
    assert not name.get("required", False)
    assert name["autocomplete"] is True


async def test_a_form_left_unused_says_it_expired(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The form lives in the running bot for a while after its last use; then its message says so and
    loses its menus (here after a second instead of 14 minutes)."""
    pommel = await start_bot()
    monkeypatch.setattr(sys.modules["bot.ui.character_form"], "FORM_MINUTES", 1 / 60)  # its drawing
    step = await open_form(pommel, world)
    message = step.message
    assert message is not None
    await pommel.fake.wait_for(lambda: message.content.startswith("This form expired"), what="its expiry")
    assert message.content == (
        "This form expired (14 minutes without use); nothing was saved. Open it again with `/character form`."
    )
    assert message.components == []
    assert await saved(pommel, world) == []


async def test_the_form_opens_even_when_pommel_is_too_busy_to_answer_at_once(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a burst every command is deferred as it arrives; a modal must be the first answer, so the
    form's command never is."""
    pommel = await start_bot()
    # The burst: one turn at a time, held for its 0.25 s by someone, another waiting, a turn taking 10 s.
    turns = interactions._Turns(1, asyncio.get_running_loop())
    turns.seconds_each = 10.0
    monkeypatch.setattr(interactions._load, "turns", turns)
    await turns.take(interactions._Answering(asyncio.Lock()))
    waiting = asyncio.create_task(turns.take(interactions._Answering(asyncio.Lock())))
    await asyncio.sleep(0)
    opened = await pommel.slash("character form", user=world.player)
    assert opened.callback_type == 9
    deferred = await pommel.slash("character list", user=world.player, options={"private": True})
    assert deferred.callback_type == 5, "the burst is there: any other command is deferred"
    await waiting
