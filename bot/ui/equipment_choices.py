"""Autocomplete for catalog entries: weapons, armor, shields and monster templates.

Each callback offers up to 25 entries matching what the user typed, shown by name with a short hint
of the numbers that tell them apart, and sends the entry's key as the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands

from bot.catalog import SEARCH_LIMIT
from bot.rules.equipment import Armor, MonsterTemplate, Shield, Weapon

if TYPE_CHECKING:
    from bot.app import Pommel
    from bot.catalog import Catalog

CHOICE_NAME_LIMIT = 100
"""Discord's limit on an autocomplete choice's name."""

CHOICE_VALUE_LIMIT = 100
"""Discord's limit on a string choice's value."""

NOTHING = "none"
"""The value that empties an optional slot (no shield, no off-hand weapon) when editing a character."""


def weapon_hint(weapon: Weapon) -> str:
    return f"{weapon.damage}, reach {weapon.reach}, speed {weapon.speed}"


def armor_hint(armor: Armor) -> str:
    if armor.dr_pierce == 0 and armor.bypass == 0:
        return "no DR"
    return f"DR {armor.dr_pierce}, bypass {armor.bypass}"


def shield_hint(shield: Shield) -> str:
    return f"defense +{shield.defense}"


def monster_hint(monster: MonsterTemplate) -> str:
    return f"Prowess {monster.prowess}, {monster.hp} HP"


def choice_name(name: str, hint: str) -> str:
    """``Name (hint)``, dropping the hint, then shortening the name, to stay within Discord's limit."""
    full = f"{name} ({hint})"
    if len(full) <= CHOICE_NAME_LIMIT:
        return full
    if len(name) <= CHOICE_NAME_LIMIT:
        return name
    return f"{name[: CHOICE_NAME_LIMIT - 1]}…"


def _catalog(interaction: discord.Interaction) -> Catalog:
    return cast("Pommel", interaction.client).catalog


async def weapon_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=choice_name(entry.name, weapon_hint(entry)), value=entry.key)
        for entry in _catalog(interaction).entries_matching("weapon", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


async def armor_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=choice_name(entry.name, armor_hint(entry)), value=entry.key)
        for entry in _catalog(interaction).entries_matching("armor", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


async def shield_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=choice_name(entry.name, shield_hint(entry)), value=entry.key)
        for entry in _catalog(interaction).entries_matching("shield", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


async def monster_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=choice_name(entry.name, monster_hint(entry)), value=entry.key)
        for entry in _catalog(interaction).entries_matching("monster", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


async def shield_or_nothing_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Shields, led by "No shield" (value :data:`NOTHING`) when it matches what was typed."""
    return _with_nothing("No shield", current, await shield_choices(interaction, current))


async def off_hand_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Weapons for the off hand (R26), led by "No off-hand weapon" (value :data:`NOTHING`)."""
    return _with_nothing("No off-hand weapon", current, await weapon_choices(interaction, current))


def _with_nothing(
    label: str, current: str, choices: list[app_commands.Choice[str]]
) -> list[app_commands.Choice[str]]:
    typed = current.strip().casefold()
    if typed and typed not in label.casefold() and typed not in NOTHING:
        return choices
    return [app_commands.Choice(name=label, value=NOTHING), *choices][:SEARCH_LIMIT]
