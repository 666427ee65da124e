"""``/character form``: a character sheet filled in as a form rather than sixteen slash options.

The form has two steps, because a Discord modal holds at most five text inputs and cannot offer a
list: first the numbers as text (:func:`read_sheet_form`), then the equipment picked from select
menus (:func:`weapon_groups`, :func:`other_hand_entries`), each holding at most 25 entries. This
module is what both steps mean, without Discord: the text read and refused with the field named, and
which catalog entries each menu offers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog import Catalog
from .characters import MAX_HP, MAX_MODIFIER, MAX_PROFICIENCY, MAX_PROWESS, MIN_MODIFIER
from .rules.equipment import Shield, Weapon
from .rules.errors import RulesError, shown

MENU_LIMIT = 25
"""Discord's limit on the options of one select menu."""

MODIFIERS = ("dexterity", "intelligence", "wisdom", "charisma")
"""The order of the modifiers in the form's one "DEX INT WIS CHA" field."""

FORM_LABELS = {
    "name": "Name",
    "prowess": "Prowess",
    "hp": "Maximum HP",
    "modifiers": "Modifiers: DEX INT WIS CHA",
    "proficiency": "Proficiency bonus",
}
"""The form's text inputs, as the form labels them (and as a refusal names them)."""

_NUMBER = re.compile(r"[+-]?\d{1,3}")


class FormRefused(RulesError):
    """A field of the form that cannot be read; says which, what was written, and what would work."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"**{FORM_LABELS[field]}**: {problem} Nothing was saved.")
        self.field = field


def form_values(sheet: Mapping[str, Any]) -> dict[str, str]:
    """What the form's text inputs hold to begin with: a sheet's values (a saved one's, or the form's
    own so far), written as the form reads them."""
    return {
        "name": str(sheet["name"]),
        "prowess": str(sheet["prowess"]),
        "hp": str(sheet["hp"]),
        "modifiers": " ".join(f"{sheet[field]:+d}" for field in MODIFIERS),
        "proficiency": str(sheet["proficiency"]),
    }


def read_sheet_form(values: dict[str, str]) -> dict[str, Any]:
    """The sheet's fields the form's text gives (name, Prowess, HP, the four modifiers, proficiency).

    Raises :class:`FormRefused` naming the first field that is blank, not a number, or out of range.
    """
    name = values.get("name", "").strip()
    if not name:
        raise FormRefused("name", "it was blank; give the character a name.")
    fields: dict[str, Any] = {"name": name}
    fields["prowess"] = _number(values, "prowess", 0, MAX_PROWESS)
    fields["hp"] = _number(values, "hp", 1, MAX_HP)
    written = values.get("modifiers", "").replace(",", " ").split()
    example = "like `+2 0 +1 -1` (DEX +2, INT 0, WIS +1, CHA -1)"
    if len(written) != len(MODIFIERS) or not all(_NUMBER.fullmatch(part) for part in written):
        raise FormRefused(
            "modifiers",
            f"write four whole numbers separated by spaces, {example}; you wrote "
            f"'{shown(values.get('modifiers', ''))}'.",
        )
    for field, text in zip(MODIFIERS, written, strict=True):
        value = int(text)
        if not MIN_MODIFIER <= value <= MAX_MODIFIER:
            raise FormRefused(
                "modifiers",
                f"each modifier must be from {MIN_MODIFIER} to +{MAX_MODIFIER}; the "
                f"{field[:3].upper()} one was {value}.",
            )
        fields[field] = value
    fields["proficiency"] = _number(values, "proficiency", 0, MAX_PROFICIENCY)
    return fields


def _number(values: dict[str, str], field: str, low: int, high: int) -> int:
    text = values.get(field, "").strip()
    if not _NUMBER.fullmatch(text) or not low <= int(text) <= high:
        raise FormRefused(
            field, f"write a whole number from {low} to {high}; you wrote '{shown(text) or 'nothing'}'."
        )
    return int(text)


@dataclass(frozen=True, slots=True)
class WeaponGroup:
    """One select menu of weapons: a heading and up to :data:`MENU_LIMIT` weapons."""

    heading: str
    weapons: tuple[Weapon, ...]


def weapon_groups(catalog: Catalog) -> list[WeaponGroup]:
    """The catalog's weapons in two menus: one-handed melee weapons (those that leave a hand for a
    shield or a second weapon, R26), and the rest (two-handed, missile, thrown and natural weapons).

    A group the catalog makes longer than a menu holds keeps its first :data:`MENU_LIMIT` by name;
    the others are still there through ``/character create`` and ``/character edit``."""
    weapons = sorted(catalog.weapons.values(), key=lambda w: w.name.casefold())
    one_handed = tuple(w for w in weapons if w.kind == "melee" and not w.two_handed)
    rest = tuple(w for w in weapons if w not in one_handed)
    return [
        WeaponGroup("One-handed weapon", one_handed[:MENU_LIMIT]),
        WeaponGroup("Two-handed, missile or natural weapon", rest[:MENU_LIMIT]),
    ]


def other_hand_entries(catalog: Catalog) -> tuple[list[Shield], list[Weapon]]:
    """What the off hand may hold (R26): a shield, or a second weapon fit for two-weapon fighting (not
    two-handed, a spear, a lance or a missile weapon; natural weapons are left to ``/character edit``).
    One menu holds them with "nothing", so both lists together stay within :data:`MENU_LIMIT` - 1."""
    shields = sorted(catalog.shields.values(), key=lambda s: s.name.casefold())
    weapons = sorted(
        (
            w
            for w in catalog.weapons.values()
            if w.kind == "melee" and not w.two_handed and not w.spear_or_lance
        ),
        key=lambda w: w.name.casefold(),
    )
    room = MENU_LIMIT - 1 - len(shields)
    return shields[: MENU_LIMIT - 1], weapons[: max(room, 0)]


def equipment_missing(fields: dict[str, Any]) -> Sequence[str]:
    """What the sheet still needs before it can be saved: a main weapon."""
    return [] if fields.get("weapon") else ["a main weapon"]


def require_equipment(fields: dict[str, Any]) -> None:
    """Refuses to save a sheet that still needs equipment (see :func:`equipment_missing`)."""
    missing = equipment_missing(fields)
    if missing:
        raise RulesError(
            f"Pick {' and '.join(missing)} (from either weapon menu) before pressing Save; nothing "
            "was saved yet."
        )
