"""Characters: several per player and guild, found by name ignoring case, validated on the way in; a
create or a player's edit is one compare-and-set transaction, so a race refuses one side instead of
losing a write."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from bot.characters import MAX_NAME_LENGTH
from bot.store import CharacterTaken, StaleCharacter, Store
from tests.sheets import character

GUILD = 10
USER = 1


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


# ------------------------------------------------------------------------------ create: refuses a taken name


async def test_create_adds_a_new_character(store: Store) -> None:
    await store.create_character(GUILD, USER, character("Ansel"))
    assert await store.characters(GUILD, USER) == [character("Ansel")]


async def test_create_refuses_a_name_taken_ignoring_case_and_keeps_the_first(store: Store) -> None:
    await store.create_character(GUILD, USER, character("Ansel", hp=12))
    with pytest.raises(CharacterTaken, match="You already have a character called Ansel") as refused:
        await store.create_character(GUILD, USER, character("ANSEL", hp=20))
    assert refused.value.name == "Ansel"
    assert await store.characters(GUILD, USER) == [character("Ansel", hp=12)]


async def test_the_same_name_is_free_for_another_player_or_guild(store: Store) -> None:
    await store.create_character(GUILD, USER, character("Ansel"))
    await store.create_character(GUILD, USER + 1, character("Ansel"))
    await store.create_character(GUILD + 1, USER, character("Ansel"))
    assert len(await store.characters(GUILD, USER)) == 1


async def test_of_two_creates_racing_exactly_one_wins(store: Store) -> None:
    outcomes = await asyncio.gather(
        store.create_character(GUILD, USER, character("Ansel", hp=1)),
        store.create_character(GUILD, USER, character("ansel", hp=2)),
        return_exceptions=True,
    )
    assert sum(outcome is None for outcome in outcomes) == 1
    assert sum(isinstance(outcome, CharacterTaken) for outcome in outcomes) == 1
    winner = character("Ansel", hp=1) if outcomes[0] is None else character("ansel", hp=2)
    assert await store.characters(GUILD, USER) == [winner]


# ------------------------------------------------------------------------------ replace: compare-and-set


async def test_replace_writes_the_edit_when_nothing_changed_meanwhile(store: Store) -> None:
    before = character("Ansel")
    await store.create_character(GUILD, USER, before)
    await store.replace_character(GUILD, USER, before, character("Ansel", hp=30))
    assert await store.characters(GUILD, USER) == [character("Ansel", hp=30)]


async def test_replace_from_a_stale_copy_is_refused_and_keeps_the_other_edit(store: Store) -> None:
    read = character("Ansel")
    await store.create_character(GUILD, USER, read)
    await store.replace_character(GUILD, USER, read, character("Ansel", hp=30))
    with pytest.raises(StaleCharacter, match="changed by another command") as refused:
        await store.replace_character(GUILD, USER, read, character("Ansel", prowess=3))
    assert refused.value.deleted is False
    assert await store.characters(GUILD, USER) == [character("Ansel", hp=30)]


async def test_replace_of_a_deleted_character_is_refused_and_does_not_bring_it_back(store: Store) -> None:
    read = character("Ansel")
    await store.create_character(GUILD, USER, read)
    await store.delete_character(GUILD, USER, "Ansel")
    with pytest.raises(StaleCharacter, match="deleted or renamed") as refused:
        await store.replace_character(GUILD, USER, read, character("Ansel", hp=30))
    assert refused.value.deleted is True
    assert await store.characters(GUILD, USER) == []


async def test_replace_renames_in_one_transaction(store: Store) -> None:
    before = character("Ansel")
    await store.create_character(GUILD, USER, before)
    await store.replace_character(GUILD, USER, before, character("Anselm", hp=30))
    assert await store.characters(GUILD, USER) == [character("Anselm", hp=30)]
    assert await store.character(GUILD, USER, "Ansel") is None


async def test_replace_may_change_only_the_case_of_the_name(store: Store) -> None:
    before = character("Ansel")
    await store.create_character(GUILD, USER, before)
    await store.replace_character(GUILD, USER, before, character("ANSEL"))
    assert [c.name for c in await store.characters(GUILD, USER)] == ["ANSEL"]


async def test_a_rename_onto_another_character_is_refused_and_changes_neither(store: Store) -> None:
    ansel, brigid = character("Ansel"), character("Brigid", hp=5)
    await store.create_character(GUILD, USER, ansel)
    await store.create_character(GUILD, USER, brigid)
    with pytest.raises(CharacterTaken, match="called Brigid"):
        await store.replace_character(GUILD, USER, ansel, character("BRIGID"))
    assert await store.characters(GUILD, USER) == [ansel, brigid]


async def test_a_rename_from_a_stale_copy_is_refused_before_the_name_is_looked_at(store: Store) -> None:
    read = character("Ansel")
    await store.create_character(GUILD, USER, read)
    await store.replace_character(GUILD, USER, read, character("Ansel", hp=30))
    with pytest.raises(StaleCharacter):
        await store.replace_character(GUILD, USER, read, character("Anselm"))
    assert await store.characters(GUILD, USER) == [character("Ansel", hp=30)]


async def test_of_two_edits_racing_from_one_read_exactly_one_is_written(store: Store) -> None:
    read = character("Ansel")
    await store.create_character(GUILD, USER, read)
    outcomes = await asyncio.gather(
        store.replace_character(GUILD, USER, read, character("Ansel", hp=30)),
        store.replace_character(GUILD, USER, read, character("Ansel", prowess=3)),
        return_exceptions=True,
    )
    assert sum(outcome is None for outcome in outcomes) == 1
    assert sum(isinstance(outcome, StaleCharacter) for outcome in outcomes) == 1
    [stored] = await store.characters(GUILD, USER)
    assert stored in (character("Ansel", hp=30), character("Ansel", prowess=3))


async def test_replace_touches_only_that_players_character(store: Store) -> None:
    read = character("Ansel")
    await store.create_character(GUILD, USER, read)
    await store.create_character(GUILD, USER + 1, read)
    await store.replace_character(GUILD, USER, read, character("Anselm"))
    assert await store.characters(GUILD, USER + 1) == [read]
