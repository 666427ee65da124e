"""The character sheet, list and autocomplete, rendered from plain characters and the shipped catalog."""

from __future__ import annotations

from typing import Any

import pytest

from bot.catalog import Catalog, load_catalog
from bot.characters import MAX_NAME_LENGTH, Character
from bot.encounter.document import Encounter
from bot.rules.cards import Card
from bot.ui.character_sheet import (
    Gear,
    changes_text,
    character_choices,
    character_defense,
    character_pool_size,
    defense_text,
    joined_text,
    left_text,
    player_combatant_choices,
    roster_embed,
    sheet_embed,
)
from bot.ui.equipment_choices import choice_name


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def sheet(**changes: Any) -> Character:
    values: dict[str, Any] = {
        "name": "Ansel",
        "prowess": 2,
        "dexterity": 3,
        "wisdom": 0,
        "charisma": 0,
        "proficiency": 2,
        "hp": 20,
        "weapon": "arming_sword",
    }
    return Character.model_validate({**values, **changes})


def fields(embed: Any) -> dict[str, str]:
    return {field.name: field.value for field in embed.fields}


def test_r6_pool_size_is_prowess_plus_one_capped_at_four(catalog: Catalog) -> None:
    """R6: Prowess + 1, at most 4."""
    assert character_pool_size(sheet(prowess=0), Gear.of(sheet(prowess=0), catalog)) == 1
    assert character_pool_size(sheet(prowess=2), Gear.of(sheet(), catalog)) == 3
    assert character_pool_size(sheet(prowess=9), Gear.of(sheet(prowess=9), catalog)) == 4


def test_r6_armor_with_max_dex_one_or_less_costs_a_die(catalog: Catalog) -> None:
    """R6: full plate (Max Dex +0) costs one die; a mail shirt (Max Dex +4) does not."""
    plated = sheet(prowess=3, armor="full_plate")
    assert character_pool_size(plated, Gear.of(plated, catalog)) == 3
    assert "one fewer in" in fields(sheet_embed(plated, catalog, 1))["Martial Pool (R6)"]
    shirt = sheet(prowess=3, armor="mail_shirt")
    assert character_pool_size(shirt, Gear.of(shirt, catalog)) == 4


def test_r13_passive_defense_caps_dex_by_armor_and_adds_the_shield(catalog: Catalog) -> None:
    """R13: 8 + Prowess + Dex (capped by Max Dex) + shield DB; the weapon's DB does not count."""
    character = sheet(dexterity=4, armor="mail_haubergeon", shield="kite")
    parts = character_defense(character, Gear.of(character, catalog))
    assert parts is not None
    assert defense_text(parts) == "**14** = 8 Base +2 Prowess +1 Dex +3 Kite Shield"


def test_r13_a_negative_dex_counts_against_passive_defense(catalog: Catalog) -> None:
    character = sheet(dexterity=-2)
    parts = character_defense(character, Gear.of(character, catalog))
    assert parts is not None
    assert defense_text(parts) == "**8** = 8 Base +2 Prowess -2 Dex"


def test_gear_no_longer_in_the_catalog_is_named_and_defense_left_unknown(catalog: Catalog) -> None:
    character = sheet(weapon="vorpal_blade")
    shown = fields(sheet_embed(character, catalog, 1))
    assert "`vorpal_blade` (no longer in the catalog" in shown["Weapon"]
    assert shown["Passive defense (R13)"] == "unknown until the equipment is fixed"


def test_the_sheet_escapes_the_name_and_shows_off_hand_and_shield_only_when_carried(catalog: Catalog) -> None:
    plain = sheet_embed(sheet(name="*Ansel*"), catalog, 42)
    assert plain.title == "\\*Ansel\\*"
    assert plain.description == "Played by <@42>"
    assert set(fields(plain)) == {
        "Abilities",
        "Martial Pool (R6)",
        "Passive defense (R13)",
        "Weapon",
        "Armor",
    }
    paired = fields(sheet_embed(sheet(off_hand="small_dagger"), catalog, 42))
    assert paired["Off hand (R26)"].startswith("Dagger, Small — 1d6")


def test_the_roster_lists_characters_and_is_clipped_to_fit(catalog: Catalog) -> None:
    many = [sheet(name=f"Character number {n:03}") for n in range(200)]
    embed = roster_embed(many, catalog, 7)
    assert embed.description is not None
    assert len(embed.description) <= 4000
    assert embed.description.startswith("Played by <@7>")
    assert embed.description.endswith("more")
    assert "**Character number 000** · Prowess 2 · HP 20 · Sword, Arming" in embed.description


def test_changes_name_equipment_by_catalog_name(catalog: Catalog) -> None:
    before = sheet(armor="mail_haubergeon", shield="heater")
    after = before.model_copy(update={"prowess": 3, "armor": "none", "shield": None})
    assert changes_text(before, after, catalog) == (
        "Prowess 2 → 3; armor Haubergeon, Mail → No Armor; shield Heater Shield → none"
    )


LONGEST = "_" * MAX_NAME_LENGTH
"""A name or key at the length limit that escaping doubles: the worst case for a message's length."""


def test_the_longest_sheet_stays_within_discords_embed_limits(catalog: Catalog) -> None:
    worst = sheet(name=LONGEST, weapon=LONGEST, armor=LONGEST, shield=LONGEST, off_hand=LONGEST)
    embed = sheet_embed(worst, catalog, 10**19)
    assert embed.title is not None
    assert len(embed.title) <= 256
    assert all(len(field.value or "") <= 1024 for field in embed.fields)
    assert len(embed) <= 6000
    assert len(embed.fields) <= 25


def test_the_longest_changes_fit_the_edit_reply(catalog: Catalog) -> None:
    """``/character edit`` replies "Updated **name**: changes. A fight it already joined keeps …"."""
    before = sheet(name=LONGEST, weapon=LONGEST, armor=LONGEST, shield=LONGEST, off_hand=LONGEST)
    after = sheet(
        name="*" * MAX_NAME_LENGTH,
        prowess=0,
        dexterity=-5,
        wisdom=10,
        charisma=10,
        proficiency=10,
        hp=999,
        weapon="light_crossbow",
        armor="three_quarter_harness",
        shield="heater",
        off_hand="light_crossbow",
    )
    assert len(changes_text(before, after, catalog)) + 2 * MAX_NAME_LENGTH + 100 <= 2000


def test_joined_and_left_replies_with_the_longest_name_fit_a_message() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    assert len(joined_text(encounter, 10**19, LONGEST)) <= 2000
    assert len(left_text(LONGEST, 10**19, discarded=True)) <= 2000


def test_character_choices_put_names_starting_with_the_text_first() -> None:
    characters = [sheet(name="Brother Ansel"), sheet(name="Ansel"), sheet(name="Cato")]
    assert [c.value for c in character_choices(characters, "ans")] == ["Ansel", "Brother Ansel"]
    assert [c.value for c in character_choices(characters, "")] == ["Ansel", "Brother Ansel", "Cato"]
    assert character_choices(characters, "ANSEL")[0].name == "Ansel (Prowess 2, HP 20)"


def test_character_choices_stop_at_25_and_keep_names_short() -> None:
    characters = [sheet(name=f"{'x' * 60}{n:02}") for n in range(30)]
    choices = character_choices(characters, "x")
    assert len(choices) == 25
    assert all(len(choice.name) <= 100 for choice in choices)


def test_combatant_choices_offer_only_the_players_own_characters(catalog: Catalog) -> None:
    fight = Encounter(channel_id=1, guild_id=2, gm_id=3)
    fight.join(10, sheet(name="Ansel"), None)
    fight.join(11, sheet(name="Cato"), None)
    fight.add_npcs(catalog.monster("bandit"), None, count=1)
    assert [(c.name, c.value) for c in player_combatant_choices(fight, 10, "")] == [("Ansel", "c1")]
    assert player_combatant_choices(fight, 10, "cat") == []
    assert player_combatant_choices(None, 10, "") == []


def test_joined_text_says_which_card_the_character_acts_on() -> None:
    """R2: a player's characters act on the player's card."""
    fight = Encounter(channel_id=1, guild_id=2, gm_id=3)
    assert joined_text(fight, 10, "Ansel").endswith("acts on <@10>'s card from the first deal.")
    fight.initiative.round = 1
    assert joined_text(fight, 10, "Ansel").endswith("from the next deal.")
    fight.initiative.cards["p10"] = Card.model_validate("KS")
    assert "already hold this round" in joined_text(fight, 10, "_Ansel_")
    assert joined_text(fight, 10, "_Ansel_").startswith("**\\_Ansel\\_** joins")


def test_left_text_mentions_the_discarded_card_only_when_it_is() -> None:
    assert left_text("Ansel", 10, discarded=False) == "**Ansel** leaves the fight."
    assert "their card is discarded" in left_text("Ansel", 10, discarded=True)


def test_equipment_choice_names_drop_the_hint_then_shorten_the_name() -> None:
    assert choice_name("Longsword", "1d8") == "Longsword (1d8)"
    assert choice_name("x" * 95, "1d8, reach 3") == "x" * 95
    assert choice_name("x" * 150, "1d8") == "x" * 99 + "…"
