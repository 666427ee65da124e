"""``/character create | edit | show | list | delete``: each player's saved characters, per server.

Bookkeeping on one's own sheets (create, edit, delete) is answered privately; showing or listing is
public unless asked otherwise. A player only ever sees and changes their own characters: every
lookup is by the user's id, so another player's character simply is not there. ``show`` and
``list`` may look at another member's characters, read-only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.app import Pommel
from bot.catalog import Catalog
from bot.character_form import FormRefused, equipment_missing, form_values, read_sheet_form, weapon_groups
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
from bot.interactions.answering import answer, answer_by_editing, stop_the_clock, watch_the_clock
from bot.interactions.in_flight import fail
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
from bot.rules.errors import RulesError, shown
from bot.rules.feats import MartialFeat
from bot.rules.hands import check_hands
from bot.ui.character_form import (
    CORRECT_IT,
    FORM_CLOSED,
    FORM_EXPIRED,
    FORM_MINUTES,
    armor_options,
    form_input_id,
    form_saved_text,
    form_text,
    modal_inputs,
    modal_title,
    other_hand_options,
    weapon_options,
)
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
            form_saved_text(character.name),
            embed=sheet_embed(character, self.bot.catalog, user_id),
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

    def _sheet_modal(self, owner_id: int, before: Character | None, values: dict[str, str]) -> SheetModal:
        async def given(interaction: discord.Interaction, values: dict[str, str]) -> None:
            await self._sheet_given(interaction, before, values)

        return SheetModal(owner_id, modal_title(before), values, given)

    async def _sheet_given(
        self, interaction: discord.Interaction, before: Character | None, values: dict[str, str]
    ) -> None:
        """The form's first step is filled in: its numbers are read (a refusal names the field), and the
        equipment menus are offered, holding the edited sheet's equipment. A refusal offers the form
        again, holding what was written, to be corrected rather than written again."""
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
        view = EquipmentForm(self, before, fields)
        view.last = interaction
        await answer(
            interaction, form_text(fields, before, self.bot.catalog), view=view.drawn(), ephemeral=True
        )

    async def _save_form(
        self, interaction: discord.Interaction, before: Character | None, fields: dict[str, Any]
    ) -> Character:
        guild_id, user_id = _guild(interaction), interaction.user.id
        missing = equipment_missing(fields)
        if missing:
            raise RulesError(
                f"Pick {' and '.join(missing)} (from either weapon menu) before pressing Save; nothing "
                "was saved yet."
            )
        after = _checked(
            self.bot.catalog,
            {**fields, "shield": _slot(fields["shield"]), "off_hand": _slot(fields["off_hand"])},
        )
        if before is None:
            await self.bot.store.create_character(guild_id, user_id, after)
            await answer_by_editing(
                interaction,
                content=form_saved_text(after.name),
                embed=sheet_embed(after, self.bot.catalog, user_id),
                view=None,
            )
            return after
        if after == before:
            raise RulesError(f"{shown(before.name)} already has those values; nothing was changed.")
        await self.bot.store.replace_character(guild_id, user_id, before, after)
        await answer_by_editing(
            interaction,
            content=f"Updated **{shown(before.name)}**: {changes_text(before, after, self.bot.catalog)}. "
            "A fight it already joined keeps the sheet it joined with.",
            embed=sheet_embed(after, self.bot.catalog, user_id),
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


FormStep = Callable[[], Awaitable[None]]


async def _form_step(interaction: discord.Interaction, step: FormStep) -> None:
    """A form's submission or a menu's choice, run as a button's click is (``PommelButton.callback``):
    counted in flight, deferred if slow, and its failure answered privately, changing nothing."""
    client: Any = interaction.client
    try:
        with client.in_flight.running():
            client.in_flight.refuse_if_closing()
            await watch_the_clock(interaction)
            await step()
    except Exception as error:
        await fail(interaction, error)
    finally:
        stop_the_clock(interaction)


FormGiven = Callable[[discord.Interaction, dict[str, str]], Awaitable[None]]


class SheetModal(discord.ui.Modal):
    """``/character form``'s text: name, Prowess, HP, the four modifiers and proficiency."""

    def __init__(self, owner_id: int, title: str, values: dict[str, str], given: FormGiven) -> None:
        # No timeout, so a form filled in slowly is still read; one per user (by its id) is kept at
        # most, as a user's next form replaces it.
        super().__init__(title=title, timeout=None, custom_id=form_input_id(f"modal-{owner_id}"))
        self.given = given
        self.inputs = modal_inputs(values)
        for label in self.inputs:
            self.add_item(label)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        values = {
            label.component.custom_id.rsplit(":", 1)[-1]: label.component.value
            for label in self.inputs
            if isinstance(label.component, discord.ui.TextInput)
        }
        await _form_step(interaction, lambda: self.given(interaction, values))


class CorrectForm(discord.ui.View):
    """Under a refused form: opens it again, holding what was written."""

    def __init__(self, modal: SheetModal) -> None:
        super().__init__(timeout=FORM_MINUTES * 60)
        self.modal = modal

    @discord.ui.button(label="Correct it", style=discord.ButtonStyle.primary)
    async def correct(self, interaction: discord.Interaction, _: discord.ui.Button[CorrectForm]) -> None:
        try:
            await interaction.response.send_modal(self.modal)
        except Exception as error:
            await fail(interaction, error)


class FormMenu(discord.ui.Select["EquipmentForm"]):
    """One of the form's equipment menus; a choice goes to :meth:`EquipmentForm.chose`."""

    def __init__(self, slot: str, placeholder: str, row: int) -> None:
        super().__init__(custom_id=form_input_id(slot), placeholder=placeholder, row=row)
        self.slot = slot

    async def callback(self, interaction: discord.Interaction) -> None:
        assert isinstance(self.view, EquipmentForm)
        await self.view.chose(interaction, self.slot, self.values[0])


class EquipmentForm(discord.ui.View):
    """``/character form``'s second step: the equipment from menus, and Save. The sheet so far lives
    here, in the running bot, for :data:`FORM_MINUTES` after its last use."""

    def __init__(self, cog: CharacterCommands, before: Character | None, fields: dict[str, Any]) -> None:
        super().__init__(timeout=FORM_MINUTES * 60)
        self.cog = cog
        self.before = before
        self.fields = fields
        self.last: discord.Interaction | None = None
        """The form's last use that drew its message (a refusal answers with a message of its own),
        whose token can still edit the form when it expires."""
        self.groups = weapon_groups(cog.bot.catalog)
        self.weapon_menus = [
            FormMenu(f"weapon-{index}", f"{group.heading}…", row=index)
            for index, group in enumerate(self.groups)
        ]
        self.armor_menu = FormMenu("armor", "Armor…", row=2)
        self.hand_menu = FormMenu("off-hand", "Off hand: a shield or a second weapon…", row=3)
        for menu in (*self.weapon_menus, self.armor_menu, self.hand_menu):
            self.add_item(menu)

    def drawn(self) -> EquipmentForm:
        """The menus showing what the sheet holds now."""
        catalog = self.cog.bot.catalog
        for menu, group in zip(self.weapon_menus, self.groups, strict=True):
            menu.options = weapon_options(group, self.fields.get("weapon"))
        self.armor_menu.options = armor_options(catalog, self.fields["armor"])
        self.hand_menu.options = other_hand_options(catalog, self.fields)
        return self

    async def chose(self, interaction: discord.Interaction, slot: str, value: str) -> None:
        if slot.startswith("weapon-"):
            change: dict[str, Any] = {"weapon": value}
        elif slot == "armor":
            change = {"armor": value}
        else:
            kind, _, key = value.partition(":")
            change = {
                "shield": key if kind == "shield" else None,
                "off_hand": key if kind == "weapon" else None,
            }

        async def redraw() -> None:
            self.fields |= change
            await answer_by_editing(
                interaction,
                content=form_text(self.fields, self.before, self.cog.bot.catalog),
                view=self.drawn(),
            )
            self.last = interaction

        await _form_step(interaction, redraw)

    @discord.ui.button(label="Save", style=discord.ButtonStyle.success, row=4)
    async def save(self, interaction: discord.Interaction, _: discord.ui.Button[EquipmentForm]) -> None:
        async def saving() -> None:
            await self.cog._save_form(interaction, self.before, self.fields)
            self.stop()

        await _form_step(interaction, saving)

    @discord.ui.button(label="Change name or numbers", style=discord.ButtonStyle.secondary, row=4)
    async def renumber(self, interaction: discord.Interaction, _: discord.ui.Button[EquipmentForm]) -> None:
        modal = SheetModal(
            interaction.user.id, modal_title(self.before), form_values(self.fields), self.numbers_given
        )
        try:
            await interaction.response.send_modal(modal)
        except Exception as error:
            await fail(interaction, error)

    async def numbers_given(self, interaction: discord.Interaction, values: dict[str, str]) -> None:
        """The form's text written again from its menus: the same message shows the new numbers, the
        equipment picked so far kept; a refusal keeps the form as it was."""
        self.fields |= read_sheet_form(values)
        await answer_by_editing(
            interaction, content=form_text(self.fields, self.before, self.cog.bot.catalog), view=self.drawn()
        )
        self.last = interaction

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary, row=4)
    async def cancel(self, interaction: discord.Interaction, _: discord.ui.Button[EquipmentForm]) -> None:
        self.stop()
        await _form_step(
            interaction, lambda: answer_by_editing(interaction, content=FORM_CLOSED, embed=None, view=None)
        )

    async def on_timeout(self) -> None:
        """Say so in the form's message, while Discord still lets the last drawing's token edit it."""
        if self.last is None:
            return
        # The message may be gone (dismissed) or the token run out: then there is nothing left to correct.
        with contextlib.suppress(discord.HTTPException):
            await self.last.edit_original_response(content=FORM_EXPIRED, view=None)


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
