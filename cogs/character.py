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

from bot import characters
from bot.app import Pommel
from bot.character_form import FormRefused, form_values, read_sheet_form, require_equipment
from bot.character_form_flow import CorrectForm, EquipmentForm, SheetModal
from bot.characters import (
    MAX_HP,
    MAX_MODIFIER,
    MAX_NAME_LENGTH,
    MAX_PROFICIENCY,
    MAX_PROWESS,
    MAX_SCORE,
    MIN_MODIFIER,
    MIN_SCORE,
    NoSuchCharacter,
    changes_given,
    checked_character,
    edited,
    optional_slot,
    require_changed,
    with_feat,
)
from bot.interactions.answering import answer, answer_by_editing
from bot.interactions.options import (
    CatalogKey,
    armor_choices,
    off_hand_choices,
    own_character_choices,
    shield_choices,
    shield_or_nothing_choices,
    weapon_choices,
)
from bot.option_checks import ANSWERS_WITH_A_MODAL
from bot.rules.armor_class import MAX_MAGIC_AC
from bot.rules.errors import RulesError
from bot.rules.feats import MartialFeat
from bot.ui.character_form import (
    CORRECT_IT,
    form_saved_text,
    form_text,
    modal_title,
)
from bot.ui.character_sheet import roster_embed, sheet_embed
from bot.ui.character_views import deleted_text, updated_text, whose
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


@app_commands.guild_only()
class Character(
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
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        guild_id, user_id = _guild(interaction), interaction.user.id
        character = checked_character(
            catalog,
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
                "shield": optional_slot(shield),
                "off_hand": optional_slot(off_hand),
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
            form_saved_text(character.name),
            embed=sheet_embed(character, catalog, user_id),
            ephemeral=True,
        )

    # ------------------------------------------------------------------------------ form

    @app_commands.command(
        name="form",
        description="Make or change a character in a form: numbers first, then equipment from menus",
        extras={ANSWERS_WITH_A_MODAL: True},
    )
    @app_commands.describe(name="One of your characters to change (leave empty to make a new one)")
    @app_commands.autocomplete(name=own_character_choices)
    async def form(self, interaction: discord.Interaction, name: Name | None = None) -> None:
        guild_id, user_id = _guild(interaction), interaction.user.id
        before = None
        if name is not None:
            before = await self.bot.store.character(guild_id, user_id, name)
            if before is None:
                raise NoSuchCharacter(name)
        values = form_values(before.model_dump()) if before is not None else {}
        await interaction.response.send_modal(self._sheet_modal(user_id, before, values))

    def _sheet_modal(
        self, owner_id: int, before: characters.Character | None, values: dict[str, str]
    ) -> SheetModal:
        async def given(interaction: discord.Interaction, values: dict[str, str]) -> None:
            await self._sheet_given(interaction, before, values)

        return SheetModal(owner_id, modal_title(before), values, given)

    async def _sheet_given(
        self, interaction: discord.Interaction, before: characters.Character | None, values: dict[str, str]
    ) -> None:
        """The form's first step is filled in: its numbers are read (a refusal names the field), and the
        equipment menus are offered, holding the edited sheet's equipment. A refusal offers the form
        again, holding what was written, to be corrected rather than written again."""
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        try:
            fields = read_sheet_form(values)
        except FormRefused as refused:
            retry = CorrectForm(self._sheet_modal(interaction.user.id, before, values))
            await answer(interaction, f"{refused}\n{CORRECT_IT}", view=retry, ephemeral=True)
            return
        if before is None:
            fields |= {"weapon": None, "armor": "none", "shield": None, "off_hand": None}
        else:
            fields = {**before.model_dump(), **fields}
        view = EquipmentForm(catalog, before, fields, self._save_form)
        view.last = interaction
        await answer(interaction, form_text(fields, before, catalog), view=view.drawn(), ephemeral=True)

    async def _save_form(
        self, interaction: discord.Interaction, before: characters.Character | None, fields: dict[str, Any]
    ) -> characters.Character:
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        guild_id, user_id = _guild(interaction), interaction.user.id
        require_equipment(fields)
        slots = {"shield": optional_slot(fields["shield"]), "off_hand": optional_slot(fields["off_hand"])}
        after = checked_character(catalog, fields | slots)
        if before is None:
            await self.bot.store.create_character(guild_id, user_id, after)
            await answer_by_editing(
                interaction,
                content=form_saved_text(after.name),
                embed=sheet_embed(after, catalog, user_id),
                view=None,
            )
            return after
        await self.bot.store.replace_character(guild_id, user_id, before, require_changed(before, after))
        await answer_by_editing(
            interaction,
            content=updated_text(before, after, catalog),
            embed=sheet_embed(after, catalog, user_id),
            view=None,
        )
        return after

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
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        guild_id, user_id = _guild(interaction), interaction.user.id
        given = changes_given(
            {
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
            }
        )
        before = await self.bot.store.character(guild_id, user_id, name)
        if before is None:
            raise NoSuchCharacter(name)
        after = edited(catalog, before, given)
        # Only if the sheet is still ``before``: a delete or another edit since the read is refused
        # (StaleCharacter), as is a new name another character has (CharacterTaken).
        await self.bot.store.replace_character(guild_id, user_id, before, after)
        await answer(
            interaction,
            updated_text(before, after, catalog),
            embed=sheet_embed(after, catalog, user_id),
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
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        guild_id, user_id = _guild(interaction), interaction.user.id
        chosen = MartialFeat(feat.value)
        before = await self.bot.store.character(guild_id, user_id, name)
        if before is None:
            raise NoSuchCharacter(name)
        after = with_feat(before, chosen, remove=remove)
        await self.bot.store.replace_character(guild_id, user_id, before, after)
        await answer(
            interaction,
            updated_text(before, after, catalog, feat=True),
            embed=sheet_embed(after, catalog, user_id),
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
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        owner = member or interaction.user
        character = await self.bot.store.character(_guild(interaction), owner.id, name)
        if character is None:
            raise NoSuchCharacter(name, whose(owner.display_name, own=owner.id == interaction.user.id))
        await answer(interaction, embed=sheet_embed(character, catalog, owner.id), ephemeral=private)

    @app_commands.command(name="list", description="List your characters, or another member's")
    @app_commands.describe(member="Whose characters (default: yours)", private="Only you see the list")
    async def list_characters(
        self,
        interaction: discord.Interaction,
        member: discord.Member | None = None,
        private: bool = False,
    ) -> None:
        catalog = await self.bot.catalogs.of(interaction.guild_id)
        owner = member or interaction.user
        characters = await self.bot.store.characters(_guild(interaction), owner.id)
        await answer(interaction, embed=roster_embed(characters, catalog, owner.id), ephemeral=private)

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
        await answer(interaction, deleted_text(character), ephemeral=True)


def _guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:  # guild_only: Discord does not offer these commands in DMs
        raise RulesError("Characters belong to a server: use this command in a server channel.")
    return interaction.guild_id


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Character(bot))
