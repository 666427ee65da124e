"""How catalog entries are offered as you type: weapons, armor, shields and monster templates.

Each builder offers up to 25 entries of the catalog matching what the user typed, shown by name with a
short hint of the numbers that tell them apart, and sends the entry's key as the value. The
autocomplete callbacks that hand them the bot's catalog are in :mod:`bot.interactions.options`.
"""

from __future__ import annotations

from discord import app_commands

from ..catalog import SEARCH_LIMIT, Catalog, CatalogLayer, EntryKind
from ..characters import NOTHING
from ..rules.equipment import Armor, MonsterTemplate, Shield, Weapon

Entry = Weapon | Armor | Shield | MonsterTemplate

CHOICE_NAME_LIMIT = 100
"""Discord's limit on an autocomplete choice's name."""

CHOICE_VALUE_LIMIT = 100
"""Discord's limit on a string choice's value."""


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


OWN_MARK = "🏠 "
OWN_WORDS = "this server"


def own_name(name: str) -> str:
    """A server's own entry as offered: ``🏠 Orc Chieftain``."""
    return f"{OWN_MARK}{name}"


def _marked(catalog: Catalog, kind: EntryKind, entry: Entry, hint: str) -> str:
    """The entry's name and hint; a server's own marked as such (``🏠 Orc Chieftain (this server, ...)``)."""
    if catalog.is_own(kind, entry.key):
        return choice_name(own_name(entry.name), f"{OWN_WORDS}, {hint}")
    return choice_name(entry.name, hint)


def homebrew_choices(server: CatalogLayer, current: str) -> list[app_commands.Choice[str]]:
    """The server's own entries of every kind whose key or name holds what was typed, by key."""
    typed = current.strip().casefold()
    return [
        app_commands.Choice(name=choice_name(own_name(entry.name), f"{kind}, {entry.key}"), value=entry.key)
        for kind, entry in server.entries()
        if typed in entry.key or typed in entry.name.casefold()
    ][:SEARCH_LIMIT]


def weapon_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=_marked(catalog, "weapon", entry, weapon_hint(entry)), value=entry.key)
        for entry in catalog.entries_matching("weapon", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


def armor_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=_marked(catalog, "armor", entry, armor_hint(entry)), value=entry.key)
        for entry in catalog.entries_matching("armor", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


def shield_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=_marked(catalog, "shield", entry, shield_hint(entry)), value=entry.key)
        for entry in catalog.entries_matching("shield", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


def monster_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=_marked(catalog, "monster", entry, monster_hint(entry)), value=entry.key)
        for entry in catalog.entries_matching("monster", current)
        if len(entry.key) <= CHOICE_VALUE_LIMIT
    ]


def shield_or_nothing_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    """Shields, led by "No shield" (value :data:`NOTHING`) when it matches what was typed."""
    return _with_nothing("No shield", current, shield_choices(catalog, current))


def off_hand_choices(catalog: Catalog, current: str) -> list[app_commands.Choice[str]]:
    """Weapons for the off hand (R26), led by "No off-hand weapon" (value :data:`NOTHING`)."""
    return _with_nothing("No off-hand weapon", current, weapon_choices(catalog, current))


def _with_nothing(
    label: str, current: str, choices: list[app_commands.Choice[str]]
) -> list[app_commands.Choice[str]]:
    typed = current.strip().casefold()
    if typed and typed not in label.casefold() and typed not in NOTHING:
        return choices
    return [app_commands.Choice(name=label, value=NOTHING), *choices][:SEARCH_LIMIT]
