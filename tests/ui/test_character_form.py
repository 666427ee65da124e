"""What /character form shows: its title, the sheet as filled in so far, and its menus with what the
sheet holds chosen."""

from __future__ import annotations

from typing import Any

from bot.catalog import load_catalog
from bot.ui.character_form import (
    MODAL_TITLE_LIMIT,
    armor_options,
    form_saved_text,
    form_text,
    modal_title,
    other_hand_options,
    other_hand_value,
)
from tests.sheets import character

CATALOG = load_catalog()
FIELDS: dict[str, Any] = {
    "name": "Ansel",
    "prowess": 2,
    "dexterity": 1,
    "intelligence": 0,
    "wisdom": -1,
    "charisma": 0,
    "proficiency": 2,
    "hp": 24,
    "weapon": "arming_sword",
    "armor": None,
    "shield": "buckler",
}


def test_a_new_characters_form_shows_its_numbers_and_equipment() -> None:
    lines = form_text(FIELDS, None, CATALOG).splitlines()
    assert lines[:3] == [
        "**New character: Ansel**",
        "Prowess 2 · DEX +1 · INT +0 · WIS -1 · CHA +0 · Proficiency +2 · HP 24",
        "Weapon: Sword, Arming · Armor: none · Off hand: Buckler",
    ]


def test_an_edit_says_whom_it_edits_and_a_rename() -> None:
    before = character("Brigit")
    assert form_text(FIELDS | {"name": "Brigit"}, before, CATALOG).startswith("**Editing Brigit**")
    assert form_text(FIELDS, before, CATALOG).startswith("**Editing Brigit, renamed Ansel**")
    assert modal_title(None) == "New character"
    assert len(modal_title(character("B" * 60))) == MODAL_TITLE_LIMIT


def test_the_menus_have_what_the_sheet_holds_chosen() -> None:
    assert other_hand_value(FIELDS) == "shield:buckler"
    chosen = [option.value for option in other_hand_options(CATALOG, FIELDS) if option.default]
    assert chosen == ["shield:buckler"]
    armors = armor_options(CATALOG, "none")
    assert armors[0].value == "none"
    assert [option.value for option in armors if option.default] == ["none"]
    assert len(armors) <= 25


def test_a_saved_sheet_says_how_to_bring_it_into_the_fight() -> None:
    assert (
        form_saved_text("*Ansel*")
        == "Saved **\\*Ansel\\***. Bring it into this channel's fight with `/join`."
    )
