"""What ``/character form`` shows: the modal's text inputs, the equipment menus and the form's message.

The form is kept by the running bot for :data:`FORM_MINUTES` after its last use, and not across a
restart; its message says so, and says it again when it has expired.
"""

from __future__ import annotations

from typing import Any

import discord

from ..catalog import Catalog
from ..character_form import (
    FORM_LABELS,
    WeaponGroup,
    other_hand_entries,
)
from ..characters import MAX_HP, MAX_NAME_LENGTH, MAX_PROFICIENCY, MAX_PROWESS, Character
from ..rules.errors import shown
from ..wording.phrases import signed
from .equipment_choices import armor_hint, shield_hint, weapon_hint

FORM_MINUTES = 14
"""How long an open form is kept after its last use: within the 15 minutes Discord lets the bot edit
the form's private message, so an expired form can say so."""

MODAL_TITLE_LIMIT = 45
OPTION_LABEL_LIMIT = 100
OPTION_DESCRIPTION_LIMIT = 100
NOTHING_IN_HAND = "none"

_DESCRIPTIONS = {
    "name": f"Up to {MAX_NAME_LENGTH} characters; unique among your characters, ignoring case",
    "prowess": f"0 to {MAX_PROWESS}: Martial Pool and attack/defense bonus (R6, R11, R13)",
    "hp": f"1 to {MAX_HP}",
    "modifiers": "Four numbers, like +2 0 +1 -1: DEX (defense), INT, WIS (morale), CHA (rallying)",
    "proficiency": f"0 to {MAX_PROFICIENCY}",
}
_LENGTHS = {"name": MAX_NAME_LENGTH, "prowess": 4, "hp": 5, "modifiers": 30, "proficiency": 4}
_PLACEHOLDERS = {"name": "Ansel", "prowess": "2", "hp": "24", "modifiers": "+2 0 +1 -1", "proficiency": "2"}


def form_input_id(field: str) -> str:
    return f"pommel:character-form:{field}"


def modal_title(before: Character | None) -> str:
    title = "New character" if before is None else f"Edit {before.name}"
    return title if len(title) <= MODAL_TITLE_LIMIT else f"{title[: MODAL_TITLE_LIMIT - 1]}…"


def modal_inputs(values: dict[str, str]) -> list[discord.ui.Label[Any]]:
    """The modal's five text inputs, each under its label, holding ``values`` (by field) to begin with."""
    return [
        discord.ui.Label(
            text=label,
            description=_DESCRIPTIONS[field],
            component=discord.ui.TextInput(
                custom_id=form_input_id(field),
                default=values.get(field),
                placeholder=_PLACEHOLDERS[field],
                max_length=_LENGTHS[field],
            ),
        )
        for field, label in FORM_LABELS.items()
    ]


def _label(text: str) -> str:
    return text if len(text) <= OPTION_LABEL_LIMIT else f"{text[: OPTION_LABEL_LIMIT - 1]}…"


def weapon_options(group: WeaponGroup, chosen: str | None) -> list[discord.SelectOption]:
    return [
        discord.SelectOption(
            label=_label(weapon.name),
            value=weapon.key,
            description=_label(weapon_hint(weapon) + (", two-handed" if weapon.two_handed else "")),
            default=weapon.key == chosen,
        )
        for weapon in group.weapons
    ]


def armor_options(catalog: Catalog, chosen: str) -> list[discord.SelectOption]:
    armors = sorted(catalog.armors.values(), key=lambda a: (a.key != "none", a.name.casefold()))
    return [
        discord.SelectOption(
            label=_label(armor.name),
            value=armor.key,
            description=_label(armor_hint(armor)),
            default=armor.key == chosen,
        )
        for armor in armors[:25]
    ]


def other_hand_value(fields: dict[str, Any]) -> str:
    """The off-hand menu's value for what the sheet holds there: ``shield:<key>``, ``weapon:<key>``
    or ``none``."""
    if fields.get("shield"):
        return f"shield:{fields['shield']}"
    if fields.get("off_hand"):
        return f"weapon:{fields['off_hand']}"
    return NOTHING_IN_HAND


def other_hand_options(catalog: Catalog, fields: dict[str, Any]) -> list[discord.SelectOption]:
    chosen = other_hand_value(fields)
    shields, weapons = other_hand_entries(catalog)
    options = [
        discord.SelectOption(
            label="Nothing", value=NOTHING_IN_HAND, description="No shield, no second weapon"
        )
    ]
    options += [
        discord.SelectOption(
            label=_label(shield.name), value=f"shield:{shield.key}", description=shield_hint(shield)
        )
        for shield in shields
    ]
    options += [
        discord.SelectOption(
            label=_label(f"{weapon.name} (second weapon)"),
            value=f"weapon:{weapon.key}",
            description=_label(f"R26 two weapons: {weapon_hint(weapon)}"),
        )
        for weapon in weapons
    ]
    for option in options:
        option.default = option.value == chosen
    return options


def form_text(fields: dict[str, Any], before: Character | None, catalog: Catalog) -> str:
    """The form's message: the numbers given, the equipment picked so far, and what to do next."""
    if before is None:
        heading = f"New character: {shown(fields['name'])}"
    elif fields["name"] == before.name:
        heading = f"Editing {shown(before.name)}"
    else:
        heading = f"Editing {shown(before.name)}, renamed {shown(fields['name'])}"
    numbers = " · ".join(
        [
            f"Prowess {fields['prowess']}",
            f"DEX {signed(fields['dexterity'])}",
            f"INT {signed(fields['intelligence'])}",
            f"WIS {signed(fields['wisdom'])}",
            f"CHA {signed(fields['charisma'])}",
            f"Proficiency {signed(fields['proficiency'])}",
            f"HP {fields['hp']}",
        ]
    )
    weapon = catalog.weapons.get(fields.get("weapon") or "")
    armor = catalog.armors.get(fields.get("armor") or "")
    in_hand = _in_hand(fields, catalog)
    return "\n".join(
        [
            f"**{heading}**",
            numbers,
            f"Weapon: {shown(weapon.name) if weapon else 'not chosen yet'} · "
            f"Armor: {shown(armor.name) if armor else 'none'} · Off hand: {in_hand}",
            "",
            "Pick the equipment below (one weapon, from either menu), then press **Save**; **Change name "
            "or numbers** opens the first part again. Nothing is saved until Save. This form is kept "
            f"for {FORM_MINUTES} minutes after its last use, and not if Pommel restarts; after that, open "
            "it again with `/character form`.",
        ]
    )


def _in_hand(fields: dict[str, Any], catalog: Catalog) -> str:
    if fields.get("shield"):
        shield = catalog.shields.get(fields["shield"])
        return shown(shield.name) if shield else f"`{fields['shield']}`"
    if fields.get("off_hand"):
        weapon = catalog.weapons.get(fields["off_hand"])
        return shown(weapon.name) if weapon else f"`{fields['off_hand']}`"
    return "nothing"


CORRECT_IT = "Press **Correct it** to open the form again with what you wrote."
FORM_CLOSED = "Form closed; nothing was saved."
FORM_EXPIRED = (
    f"This form expired ({FORM_MINUTES} minutes without use); nothing was saved. "
    "Open it again with `/character form`."
)


def form_saved_text(name: str) -> str:
    return f"Saved **{shown(name)}**. Bring it into this channel's fight with `/join`."
