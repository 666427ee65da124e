"""``/character form`` without Discord: its text read (or refused, naming the field) and its menus."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.catalog import Catalog, load_catalog
from bot.character_form import (
    MENU_LIMIT,
    FormRefused,
    form_values,
    other_hand_entries,
    read_sheet_form,
    weapon_groups,
)
from bot.characters import MAX_MODIFIER, MIN_MODIFIER, Character
from bot.rules.attack_rolls import check_two_weapons

GOOD = {"name": " Ansel ", "prowess": "2", "hp": "24", "modifiers": "+3 0 +1 -1", "proficiency": "+2"}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_the_form_reads_each_number_and_the_four_modifiers_in_order() -> None:
    assert read_sheet_form(GOOD) == {
        "name": "Ansel",
        "prowess": 2,
        "hp": 24,
        "dexterity": 3,
        "intelligence": 0,
        "wisdom": 1,
        "charisma": -1,
        "proficiency": 2,
    }
    assert read_sheet_form({**GOOD, "modifiers": "3, 0, 1, -1"})["charisma"] == -1


@pytest.mark.parametrize(
    ("field", "written", "said"),
    [
        ("name", "", "it was blank"),
        ("prowess", "11", "from 0 to 10; you wrote '11'"),
        ("prowess", "2.5", "a whole number"),
        ("hp", "", "you wrote 'nothing'"),
        ("modifiers", "+3 0 +1", "four whole numbers"),
        ("modifiers", "+3 0 +1 -1 2", "four whole numbers"),
        ("modifiers", "+3 zero +1 -1", "four whole numbers"),
        ("modifiers", "+3 0 +11 -1", "the WIS one was 11"),
        ("proficiency", "-1", "from 0 to 10"),
    ],
)
def test_a_field_that_cannot_be_read_is_named(field: str, written: str, said: str) -> None:
    with pytest.raises(FormRefused) as refused:
        read_sheet_form({**GOOD, field: written})
    assert refused.value.field == field
    assert said in str(refused.value)
    assert "Nothing was saved" in str(refused.value)


@given(st.lists(st.integers(MIN_MODIFIER, MAX_MODIFIER), min_size=4, max_size=4))
def test_an_edited_sheet_reads_back_as_it_was(modifiers: list[int]) -> None:
    dex, intelligence, wis, cha = modifiers
    character = Character(
        name="Ansel",
        prowess=3,
        dexterity=dex,
        intelligence=intelligence,
        wisdom=wis,
        charisma=cha,
        proficiency=4,
        hp=30,
        weapon="sabre",
    )
    read = read_sheet_form(form_values(character.model_dump()))
    assert character.model_copy(update=read) == character


def test_every_weapon_is_in_one_menu_and_each_menu_fits(catalog: Catalog) -> None:
    groups = weapon_groups(catalog)
    keys = [w.key for group in groups for w in group.weapons]
    assert sorted(keys) == sorted(catalog.weapons)
    assert all(len(group.weapons) <= MENU_LIMIT for group in groups)
    one_handed, others = groups
    assert not any(w.two_handed or w.kind != "melee" for w in one_handed.weapons)
    assert all(w.two_handed or w.kind != "melee" for w in others.weapons)


def test_the_off_hand_menu_holds_shields_and_weapons_fit_for_two_weapon_fighting(catalog: Catalog) -> None:
    """R26: a second weapon is never two-handed, a spear, a lance or a missile weapon."""
    shields, weapons = other_hand_entries(catalog)
    assert {s.key for s in shields} == set(catalog.shields)
    assert 1 + len(shields) + len(weapons) <= MENU_LIMIT
    dagger = catalog.weapon("small_dagger")
    for weapon in weapons:
        check_two_weapons(dagger, weapon)  # raises for one a second hand cannot hold
