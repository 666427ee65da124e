"""What ``/character`` says: the replies to a sheet saved, changed or deleted. The sheet itself is drawn
in :mod:`bot.ui.character_sheet`, the form in :mod:`bot.ui.character_form`."""

from __future__ import annotations

from ..catalog import Catalog
from ..characters import Character
from ..rules.errors import shown
from .character_sheet import changes_text


def updated_text(before: Character, after: Character, catalog: Catalog, *, feat: bool = False) -> str:
    """The sheet changed (by an edit, the form, or a feat written down or struck)."""
    grants = " (the GM grants feats there with `/combatant feat`)" if feat else ""
    return (
        f"Updated **{shown(before.name)}**: {changes_text(before, after, catalog)}. "
        f"A fight it already joined keeps the sheet it joined with{grants}."
    )


def deleted_text(character: Character) -> str:
    return (
        f"Deleted **{shown(character.name)}**. A fight it is in keeps its copy until it leaves "
        "(`/leave`) or the fight ends."
    )


def whose(owner_name: str, *, own: bool) -> str:
    """Whose characters a refusal speaks of: the reader's, or another member's."""
    return "You have" if own else f"{shown(owner_name)} has"
