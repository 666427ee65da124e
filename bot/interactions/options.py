"""A command's options parsed once at the edge: the combatant transformers (with their autocomplete) and
the autocomplete callbacks of the catalog's entries and of one's characters."""

from __future__ import annotations

from typing import Any, cast

import discord
from discord import app_commands

from ..catalog import Catalog
from ..encounter.document import Encounter
from ..ui import equipment_choices
from ..ui.character_sheet import character_choices, player_combatant_choices
from ..ui.combatant_choices import (
    claimant_choices,
    combatant_choices,
    morale_subject_choices,
    npc_choices,
)
from .actors import channel_encounter
from .client import PommelClient


class CombatantOption(app_commands.Transformer):
    """A combatant of the channel's encounter, by id (picked from the list) or by name (typed).

    The value stays the text given: the encounter is looked up inside the command's transaction
    (:meth:`~bot.encounter.document.Encounter.combatant`), which says who is there when it is wrong.
    """

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return combatant_choices(encounter, current)

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return NAME_OPTION_LIMIT

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> str:
        return str(value)

    async def autocomplete(  # type: ignore[override]  # a string option's choices are strings
        self, interaction: discord.Interaction, value: str, /
    ) -> list[app_commands.Choice[str]]:
        return self.suggest(await channel_encounter(interaction), value)


NAME_OPTION_LIMIT = 100
"""A name, id or group picked from autocomplete; Discord refuses anything longer before we see it."""
CatalogKey = app_commands.Range[str, 1, NAME_OPTION_LIMIT]
"""A weapon, armor, shield or monster template of the catalog, by key or name (from its autocomplete)."""


class NpcOption(CombatantOption):
    """An NPC, or an NPC group of two or more (the whole group)."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return npc_choices(encounter, current)


class ClaimantOption(CombatantOption):
    """A card that may claim the next turn (a held card or a Joker, R3, R4)."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return claimant_choices(encounter, current)


class MoraleSubjectOption(CombatantOption):
    """An NPC group (the whole group checks, those with a proposed check first) or one combatant."""

    def suggest(self, encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
        return morale_subject_choices(encounter, current)


CombatantName = app_commands.Transform[str, CombatantOption]
NpcName = app_commands.Transform[str, NpcOption]
ClaimantName = app_commands.Transform[str, ClaimantOption]
MoraleSubjectName = app_commands.Transform[str, MoraleSubjectOption]

# ----------------------------------------------------------------------------- autocomplete callbacks

Choices = list[app_commands.Choice[str]]


async def _catalog(interaction: discord.Interaction) -> Catalog:
    """The server's catalog: the shipped entries and the server's own (its homebrew)."""
    return await cast("PommelClient", interaction.client).catalogs.of(interaction.guild_id)


async def weapon_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.weapon_choices(await _catalog(interaction), current)


async def armor_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.armor_choices(await _catalog(interaction), current)


async def shield_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.shield_choices(await _catalog(interaction), current)


async def shield_or_nothing_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.shield_or_nothing_choices(await _catalog(interaction), current)


async def off_hand_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.off_hand_choices(await _catalog(interaction), current)


async def monster_choices(interaction: discord.Interaction, current: str) -> Choices:
    return equipment_choices.monster_choices(await _catalog(interaction), current)


async def homebrew_choices(interaction: discord.Interaction, current: str) -> Choices:
    """The server's own entries, every kind."""
    client = cast("PommelClient", interaction.client)
    if interaction.guild_id is None:
        return []
    return equipment_choices.homebrew_choices(await client.store.homebrew(interaction.guild_id), current)


async def own_character_choices(interaction: discord.Interaction, current: str) -> Choices:
    """The user's characters in this server (another member's, when the command has a ``member``
    option and it is filled in)."""
    if interaction.guild_id is None:
        return []
    member = getattr(interaction.namespace, "member", None)
    user_id = member.id if member is not None else interaction.user.id
    store = cast("PommelClient", interaction.client).store
    return character_choices(await store.characters(interaction.guild_id, user_id), current)


async def own_combatant_choices(interaction: discord.Interaction, current: str) -> Choices:
    """The user's own characters in this channel's fight."""
    return player_combatant_choices(await channel_encounter(interaction), interaction.user.id, current)
