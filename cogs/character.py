"""``/character create | edit | show | list | delete``: each player's saved characters, per server.

Bookkeeping on one's own sheets (create, edit, delete) is answered privately; showing or listing is
public unless asked otherwise. A player only ever sees and changes their own characters: every
lookup is by the user's id, so another player's character simply is not there. ``show`` and
``list`` may look at another member's characters, read-only.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.app import Pommel
from bot.catalog import Catalog
from bot.characters import (
    MAX_HP,
    MAX_MODIFIER,
    MAX_NAME_LENGTH,
    MAX_PROFICIENCY,
    MAX_PROWESS,
    MAX_SCORE,
    MIN_MODIFIER,
    MIN_SCORE,
    NOTHING,
    Character,
    name_key,
)
from bot.interactions import (
    CatalogKey,
    answer,
    armor_choices,
    off_hand_choices,
    own_character_choices,
    shield_choices,
    shield_or_nothing_choices,
    weapon_choices,
)
from bot.rules.armor_class import MAX_MAGIC_AC
from bot.rules.errors import RulesError, shown
from bot.rules.feats import MartialFeat
from bot.rules.hands import check_hands
from bot.ui.character_sheet import changes_text, roster_embed, sheet_embed
from bot.ui.encounter_views import FEAT_CHOICE_NAMES

Name = app_commands.Range[str, 1, MAX_NAME_LENGTH]
Prowess = app_commands.Range[int, 0, MAX_PROWESS]
Modifier = app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER]
Proficiency = app_commands.Range[int, 0, MAX_PROFICIENCY]
HitPoints = app_commands.Range[int, 1, MAX_HP]
Score = app_commands.Range[int, MIN_SCORE, MAX_SCORE]
MagicAc = app_commands.Range[int, 0, MAX_MAGIC_AC]

_DESCRIBE_STATS: dict[str, str] = {
    "prowess": f"Prowess, 0-{MAX_PROWESS}: Martial Pool and attack/defense bonus (R6, R11, R13)",
    "dexterity": "DEX modifier (passive defense, capped by armor, R13)",
    "wisdom": "WIS modifier (morale checks, R21)",
    "charisma": "CHA modifier (rallying others, R23)",
    "intelligence": "INT modifier (defending against a spirit draining INT, R27; default +0)",
    "int_score": f"INT score, {MIN_SCORE}-{MAX_SCORE}: a spiritual attack lowers it (R27)",
    "wis_score": f"WIS score, {MIN_SCORE}-{MAX_SCORE}: a spiritual attack lowers it (R27)",
    "cha_score": f"CHA score, {MIN_SCORE}-{MAX_SCORE}: a spiritual attack lowers it (R27)",
    "proficiency": f"Proficiency bonus, 0-{MAX_PROFICIENCY}",
    "hp": "Maximum hit points",
    "magic_ac": f"AC from magic items and spells, 0-{MAX_MAGIC_AC} (R24; the total AC stays at most 22)",
}


class NoSuchCharacter(RulesError):
    def __init__(self, name: str, whose: str = "You have") -> None:
        super().__init__(
            f"{whose} no character called '{shown(name)}'. Pick one from the list offered as you type, "
            "or make one with /character create."
        )


@app_commands.guild_only()
class CharacterCommands(
    commands.GroupCog, group_name="character", group_description="Your characters in this server"
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    # ------------------------------------------------------------------------------ create

    @app_commands.command(name="create", description="Make a character to bring into fights with /join")
    @app_commands.describe(
        name="The character's name (unique among your characters, ignoring case)",
        weapon="Main weapon",
        armor="Armor worn (default: none)",
        shield="Shield carried, if any",
        off_hand="A second weapon for two-weapon fighting (R26), if any",
        knightly_combat="Proficient in Knightly Combat (knights, Templars): mounted combat (R25)",
        **_DESCRIBE_STATS,
    )
    @app_commands.autocomplete(
        weapon=weapon_choices, armor=armor_choices, shield=shield_choices, off_hand=off_hand_choices
    )
    async def create(
        self,
        interaction: discord.Interaction,
        name: Name,
        prowess: Prowess,
        dexterity: Modifier,
        wisdom: Modifier,
        charisma: Modifier,
        proficiency: Proficiency,
        hp: HitPoints,
        weapon: CatalogKey,
        armor: CatalogKey = "none",
        shield: CatalogKey | None = None,
        off_hand: CatalogKey | None = None,
        intelligence: Modifier = 0,
        int_score: Score | None = None,
        wis_score: Score | None = None,
        cha_score: Score | None = None,
        knightly_combat: bool = False,
        magic_ac: MagicAc = 0,
    ) -> None:
        guild_id, user_id = _guild(interaction), interaction.user.id
        character = _checked(
            self.bot.catalog,
            {
                "name": name,
                "prowess": prowess,
                "dexterity": dexterity,
                "wisdom": wisdom,
                "charisma": charisma,
                "proficiency": proficiency,
                "hp": hp,
                "weapon": weapon,
                "armor": armor,
                "shield": _slot(shield),
                "off_hand": _slot(off_hand),
                "intelligence": intelligence,
                "int_score": int_score,
                "wis_score": wis_score,
                "cha_score": cha_score,
                "knightly_combat": knightly_combat,
                "magic_ac": magic_ac,
            },
        )
        # The store checks that the name is free in the same transaction (CharacterTaken otherwise).
        await self.bot.store.create_character(guild_id, user_id, character)
        await answer(
            interaction,
            f"Saved **{shown(character.name)}**. Bring it into this channel's fight with `/join`.",
            embed=sheet_embed(character, self.bot.catalog, user_id),
            ephemeral=True,
        )

    # ------------------------------------------------------------------------------ edit

    @app_commands.command(name="edit", description="Change one of your characters")
    @app_commands.describe(
        name="Which of your characters",
        new_name="A new name",
        weapon="Main weapon",
        armor="Armor worn ('none' for no armor)",
        shield="Shield carried ('none' to put it away)",
        off_hand="Second weapon, R26 ('none' to put it away)",
        knightly_combat="Proficient in Knightly Combat (knights, Templars): mounted combat (R25)",
        **_DESCRIBE_STATS,
    )
    @app_commands.autocomplete(
        name=own_character_choices,
        weapon=weapon_choices,
        armor=armor_choices,
        shield=shield_or_nothing_choices,
        off_hand=off_hand_choices,
    )
    async def edit(
        self,
        interaction: discord.Interaction,
        name: Name,
        new_name: Name | None = None,
        prowess: Prowess | None = None,
        dexterity: Modifier | None = None,
        wisdom: Modifier | None = None,
        charisma: Modifier | None = None,
        proficiency: Proficiency | None = None,
        hp: HitPoints | None = None,
        weapon: CatalogKey | None = None,
        armor: CatalogKey | None = None,
        shield: CatalogKey | None = None,
        off_hand: CatalogKey | None = None,
        intelligence: Modifier | None = None,
        int_score: Score | None = None,
        wis_score: Score | None = None,
        cha_score: Score | None = None,
        knightly_combat: bool | None = None,
        magic_ac: MagicAc | None = None,
    ) -> None:
        guild_id, user_id = _guild(interaction), interaction.user.id
        given: dict[str, Any] = {
            field: value
            for field, value in {
                "name": new_name,
                "prowess": prowess,
                "dexterity": dexterity,
                "wisdom": wisdom,
                "charisma": charisma,
                "proficiency": proficiency,
                "hp": hp,
                "weapon": weapon,
                "armor": armor,
                "shield": shield,
                "off_hand": off_hand,
                "intelligence": intelligence,
                "int_score": int_score,
                "wis_score": wis_score,
                "cha_score": cha_score,
                "knightly_combat": knightly_combat,
                "magic_ac": magic_ac,
            }.items()
            if value is not None
        }
        if not given:
            raise RulesError("Nothing to change: fill in at least one of the options after the name.")
        for slot in ("shield", "off_hand"):
            if slot in given:
                given[slot] = _slot(given[slot])
        before = await self.bot.store.character(guild_id, user_id, name)
        if before is None:
            raise NoSuchCharacter(name)
        after = _checked(self.bot.catalog, {**before.model_dump(), **given})
        if after == before:
            raise RulesError(f"{shown(before.name)} already has those values; nothing was changed.")
        # Only if the sheet is still ``before``: a delete or another edit since the read is refused
        # (StaleCharacter), as is a new name another character has (CharacterTaken).
        await self.bot.store.replace_character(guild_id, user_id, before, after)
        await answer(
            interaction,
            f"Updated **{shown(before.name)}**: {changes_text(before, after, self.bot.catalog)}. "
            "A fight it already joined keeps the sheet it joined with.",
            embed=sheet_embed(after, self.bot.catalog, user_id),
            ephemeral=True,
        )

    # ------------------------------------------------------------------------------ feat

    @app_commands.command(name="feat", description="Write down a Martial Feat your GM granted, or strike it")
    @app_commands.describe(
        name="Which of your characters",
        feat="The feat, by what the Codex says it does (a fight applies it)",
        remove="Strike the feat from the sheet instead",
    )
    @app_commands.choices(
        feat=[app_commands.Choice(name=label, value=f.value) for f, label in FEAT_CHOICE_NAMES.items()]
    )
    @app_commands.autocomplete(name=own_character_choices)
    async def feat(
        self,
        interaction: discord.Interaction,
        name: Name,
        feat: app_commands.Choice[str],
        remove: bool = False,
    ) -> None:
        guild_id, user_id = _guild(interaction), interaction.user.id
        chosen = MartialFeat(feat.value)
        before = await self.bot.store.character(guild_id, user_id, name)
        if before is None:
            raise NoSuchCharacter(name)
        if (chosen in before.feats) != remove:
            holds = "already has" if not remove else "does not have"
            raise RulesError(f"{shown(before.name)} {holds} {chosen.value}; nothing was changed.")
        kept = set(before.feats) - {chosen} if remove else set(before.feats) | {chosen}
        after = before.model_copy(update={"feats": [f for f in MartialFeat if f in kept]})
        await self.bot.store.replace_character(guild_id, user_id, before, after)
        await answer(
            interaction,
            f"Updated **{shown(before.name)}**: {changes_text(before, after, self.bot.catalog)}. "
            "A fight it already joined keeps the sheet it joined with (the GM grants feats there with "
            "`/combatant feat`).",
            embed=sheet_embed(after, self.bot.catalog, user_id),
            ephemeral=True,
        )

    # ------------------------------------------------------------------------------ show, list

    @app_commands.command(name="show", description="Show a character sheet: yours, or another member's")
    @app_commands.describe(
        name="Which character",
        member="Whose character (default: yours)",
        private="Only you see the sheet",
    )
    @app_commands.autocomplete(name=own_character_choices)
    async def show(
        self,
        interaction: discord.Interaction,
        name: Name,
        member: discord.Member | None = None,
        private: bool = False,
    ) -> None:
        owner = member or interaction.user
        character = await self.bot.store.character(_guild(interaction), owner.id, name)
        if character is None:
            raise NoSuchCharacter(name, _whose(owner, interaction))
        await answer(interaction, embed=sheet_embed(character, self.bot.catalog, owner.id), ephemeral=private)

    @app_commands.command(name="list", description="List your characters, or another member's")
    @app_commands.describe(member="Whose characters (default: yours)", private="Only you see the list")
    async def list_characters(
        self,
        interaction: discord.Interaction,
        member: discord.Member | None = None,
        private: bool = False,
    ) -> None:
        owner = member or interaction.user
        characters = await self.bot.store.characters(_guild(interaction), owner.id)
        await answer(
            interaction, embed=roster_embed(characters, self.bot.catalog, owner.id), ephemeral=private
        )

    # ------------------------------------------------------------------------------ delete

    @app_commands.command(name="delete", description="Delete one of your characters")
    @app_commands.describe(name="Which of your characters")
    @app_commands.autocomplete(name=own_character_choices)
    async def delete(self, interaction: discord.Interaction, name: Name) -> None:
        guild_id, user_id = _guild(interaction), interaction.user.id
        character = await self.bot.store.character(guild_id, user_id, name)
        if character is None:
            raise NoSuchCharacter(name)
        if not await self.bot.store.delete_character(guild_id, user_id, character.name):
            raise NoSuchCharacter(name)  # deleted or renamed since it was read
        await answer(
            interaction,
            f"Deleted **{shown(character.name)}**. A fight it is in keeps its copy until it leaves "
            "(`/leave`) or the fight ends.",
            ephemeral=True,
        )


def _guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:  # guild_only: Discord does not offer these commands in DMs
        raise RulesError("Characters belong to a server: use this command in a server channel.")
    return interaction.guild_id


def _whose(owner: discord.abc.User, interaction: discord.Interaction) -> str:
    return "You have" if owner.id == interaction.user.id else f"{shown(owner.display_name)} has"


def _slot(key: str | None) -> str | None:
    """An optional slot: empty, or named ``none``, holds nothing."""
    if key is None or name_key(key) == NOTHING:
        return None
    return key


def _checked(catalog: Catalog, fields: dict[str, Any]) -> Character:
    """The character these fields describe, its equipment keys checked against the catalog (and
    written as the catalog's keys), and its hands not holding more than two hands can (R26).

    Raises :class:`RulesError` naming what is wrong; the catalog's refusals suggest the closest keys.
    """
    main = catalog.weapon(fields["weapon"])
    armor = catalog.armor(fields["armor"])
    shield = catalog.shield(fields["shield"]) if fields["shield"] is not None else None
    off_hand = catalog.weapon(fields["off_hand"]) if fields["off_hand"] is not None else None
    check_hands(main, shield=shield, off_hand=off_hand)
    checked = {
        **fields,
        "weapon": main.key,
        "armor": armor.key,
        "shield": shield.key if shield is not None else None,
        "off_hand": off_hand.key if off_hand is not None else None,
    }
    try:
        return Character.model_validate(checked)
    except ValidationError as error:
        raise RulesError(_in_our_words(error.errors()[0])) from None


def _in_our_words(problem: Any) -> str:
    """What a sheet's validation found wrong, said as the bot says things (not the library's wording)."""
    field = ".".join(str(part) for part in problem["loc"])
    context = problem.get("ctx") or {}
    if problem["type"] == "string_too_short":
        return f"The {field} needs at least one letter or digit; it was blank. Nothing was saved."
    if problem["type"] == "string_too_long":
        return f"The {field} can be at most {context.get('max_length')} characters long. Nothing was saved."
    if "ge" in context or "le" in context:
        return (
            f"The {field} must be from {context.get('ge', '…')} to {context.get('le', '…')}; "
            f"you gave {problem.get('input')}. Nothing was saved."
        )
    return f"That {field} can't be used ({problem['msg'].lower()}). Nothing was saved."


async def setup(bot: Pommel) -> None:
    await bot.add_cog(CharacterCommands(bot))
