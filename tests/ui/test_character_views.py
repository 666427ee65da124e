"""What /character answers when a sheet is changed or deleted: whole on its own, and true about the
fights the sheet already joined."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.ui.character_views import deleted_text, updated_text, whose
from tests.sheets import character

CATALOG = load_catalog()


def test_an_update_names_the_sheet_what_changed_and_that_a_joined_fight_keeps_its_copy() -> None:
    before = character("Ansel")
    after = before.model_copy(update={"hp": before.hp + 2})
    text = updated_text(before, after, CATALOG)
    assert text.startswith("Updated **Ansel**: ")
    assert "HP" in text
    assert text.endswith("A fight it already joined keeps the sheet it joined with.")
    assert "/combatant feat" in updated_text(before, after, CATALOG, feat=True)


def test_a_deletion_says_a_fight_keeps_its_copy_until_it_leaves() -> None:
    text = deleted_text(character("Ansel"))
    assert text == (
        "Deleted **Ansel**. A fight it is in keeps its copy until it leaves (`/leave`) or the fight ends."
    )


def test_whose_speaks_to_the_reader_or_of_another_member() -> None:
    assert whose("Bors", own=True) == "You have"
    assert whose("Bors", own=False) == "Bors has"
