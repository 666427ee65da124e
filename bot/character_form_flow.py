"""The ``/character form`` while it is open: its modal, its correction button, its equipment menus and
their buttons, which answer the user (the words and the inputs they show are in
:mod:`bot.ui.character_form`; what the text means in :mod:`bot.character_form`). The form lives
:data:`bot.ui.character_form.FORM_MINUTES` after its last use, read when it opens."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from .catalog import Catalog
from .character_form import form_values, read_sheet_form, weapon_groups
from .characters import Character
from .interactions.answering import answer_by_editing, stop_the_clock, watch_the_clock
from .interactions.failures import fail
from .ui import character_form as form_words
from .ui.character_form import (
    FORM_CLOSED,
    FORM_EXPIRED,
    armor_options,
    form_input_id,
    form_text,
    modal_inputs,
    modal_title,
    other_hand_options,
    weapon_options,
)

FormStep = Callable[[], Awaitable[None]]


async def form_step(interaction: discord.Interaction, step: FormStep) -> None:
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
FormSave = Callable[[discord.Interaction, Character | None, dict[str, Any]], Awaitable[Any]]


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
        await form_step(interaction, lambda: self.given(interaction, values))


class CorrectForm(discord.ui.View):
    """Under a refused form: opens it again, holding what was written."""

    def __init__(self, modal: SheetModal) -> None:
        super().__init__(timeout=form_words.FORM_MINUTES * 60)
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
    here, in the running bot, for :data:`~bot.ui.character_form.FORM_MINUTES` after its last use."""

    def __init__(
        self, catalog: Catalog, before: Character | None, fields: dict[str, Any], save: FormSave
    ) -> None:
        super().__init__(timeout=form_words.FORM_MINUTES * 60)
        self.catalog = catalog
        self.save_sheet = save
        self.before = before
        self.fields = fields
        self.last: discord.Interaction | None = None
        """The form's last use that drew its message (a refusal answers with a message of its own),
        whose token can still edit the form when it expires."""
        self.groups = weapon_groups(catalog)
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
        catalog = self.catalog
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
                content=form_text(self.fields, self.before, self.catalog),
                view=self.drawn(),
            )
            self.last = interaction

        await form_step(interaction, redraw)

    @discord.ui.button(label="Save", style=discord.ButtonStyle.success, row=4)
    async def save(self, interaction: discord.Interaction, _: discord.ui.Button[EquipmentForm]) -> None:
        async def saving() -> None:
            await self.save_sheet(interaction, self.before, self.fields)
            self.stop()

        await form_step(interaction, saving)

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
            interaction, content=form_text(self.fields, self.before, self.catalog), view=self.drawn()
        )
        self.last = interaction

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary, row=4)
    async def cancel(self, interaction: discord.Interaction, _: discord.ui.Button[EquipmentForm]) -> None:
        self.stop()
        await form_step(
            interaction, lambda: answer_by_editing(interaction, content=FORM_CLOSED, embed=None, view=None)
        )

    async def on_timeout(self) -> None:
        """Say so in the form's message, while Discord still lets the last drawing's token edit it."""
        if self.last is None:
            return
        # The message may be gone (dismissed) or the token run out: then there is nothing left to correct.
        with contextlib.suppress(discord.HTTPException):
            await self.last.edit_original_response(content=FORM_EXPIRED, view=None)
