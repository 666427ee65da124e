"""Characters: several per player and guild, found by name ignoring case, validated on the way in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import ValidationError

from bot.characters import MAX_NAME_LENGTH, Character
from bot.store import Store, open_store

GUILD = 10
USER = 1


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store(":memory:")
    yield opened
    await opened.close()


def character(name: str = "Ansel", **over: Any) -> Character:
    fields: dict[str, Any] = {
        "name": name,
        "prowess": 2,
        "dexterity": 1,
        "wisdom": 0,
        "charisma": -1,
        "proficiency": 2,
        "hp": 12,
        "weapon": "arming_sword",
    }
    return Character(**(fields | over))


async def test_a_character_reads_back_equal(store: Store) -> None:
    ansel = character(armor="mail", shield="round_shield", off_hand="dagger")
    await store.save_character(GUILD, USER, ansel)
    assert await store.character(GUILD, USER, "Ansel") == ansel
    assert await store.characters(GUILD, USER) == [ansel]


async def test_names_are_found_ignoring_case_and_spaces(store: Store) -> None:
    await store.save_character(GUILD, USER, character("Élodie"))
    found = await store.character(GUILD, USER, "  éLODIE ")
    assert found is not None
    assert found.name == "Élodie"


async def test_saving_the_same_name_in_other_case_replaces_the_character(store: Store) -> None:
    await store.save_character(GUILD, USER, character("Ansel", hp=12))
    await store.save_character(GUILD, USER, character("ANSEL", hp=20))
    assert await store.characters(GUILD, USER) == [character("ANSEL", hp=20)]


async def test_a_player_has_several_characters_sorted_by_name(store: Store) -> None:
    for name in ("cedric", "Bors", "Ansel"):
        await store.save_character(GUILD, USER, character(name))
    assert [c.name for c in await store.characters(GUILD, USER)] == ["Ansel", "Bors", "cedric"]


async def test_characters_belong_to_one_player_in_one_guild(store: Store) -> None:
    await store.save_character(GUILD, USER, character("Ansel", hp=1))
    await store.save_character(GUILD, USER + 1, character("Ansel", hp=2))
    await store.save_character(GUILD + 1, USER, character("Ansel", hp=3))
    assert [c.hp for c in await store.characters(GUILD, USER)] == [1]
    assert [c.hp for c in await store.characters(GUILD, USER + 1)] == [2]
    assert [c.hp for c in await store.characters(GUILD + 1, USER)] == [3]
    assert await store.character(GUILD + 2, USER, "Ansel") is None


async def test_deleting_says_whether_there_was_one(store: Store) -> None:
    await store.save_character(GUILD, USER, character("Ansel"))
    await store.save_character(GUILD, USER + 1, character("Ansel"))
    assert await store.delete_character(GUILD, USER, "ansel") is True
    assert await store.delete_character(GUILD, USER, "Ansel") is False
    assert await store.character(GUILD, USER, "Ansel") is None
    assert await store.character(GUILD, USER + 1, "Ansel") is not None


async def test_an_unknown_player_has_no_characters(store: Store) -> None:
    assert await store.characters(GUILD, USER) == []
    assert await store.character(GUILD, USER, "Nobody") is None


def test_the_name_is_trimmed() -> None:
    assert character("  Ansel  ").name == "Ansel"


@pytest.mark.parametrize("name", ["", "   ", "x" * (MAX_NAME_LENGTH + 1)])
def test_a_bad_name_is_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        character(name)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("prowess", -1),
        ("prowess", 11),
        ("dexterity", -6),
        ("wisdom", 11),
        ("charisma", 99),
        ("proficiency", -1),
        ("hp", 0),
        ("weapon", ""),
        ("armor", " "),
    ],
)
def test_values_out_of_bounds_are_refused(field: str, value: Any) -> None:
    with pytest.raises(ValidationError, match=field):
        character(**{field: value})


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        character(strength=3)


async def test_a_rename_replaces_the_old_name_in_one_save(store: Store) -> None:
    """One transaction: afterwards the character exists under the new name only."""
    await store.save_character(GUILD, USER, character("Ansel"))
    await store.save_character(GUILD, USER, character("Anselm"), replacing="ansel")
    assert [c.name for c in await store.characters(GUILD, USER)] == ["Anselm"]
    await store.save_character(GUILD, USER, character("ANSELM"), replacing="Anselm")  # same key: an update
    assert [c.name for c in await store.characters(GUILD, USER)] == ["ANSELM"]
