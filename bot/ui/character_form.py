"""What ``/character form`` shows: the modal's text inputs, the equipment menus and the form's message.

The form is kept by the running bot for :data:`FORM_MINUTES` after its last use, and not across a
restart; its message says so, and says it again when it has expired.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from ..catalog import Catalog
from ..character_form import (
    FORM_LABELS,
    WeaponGroup,
    form_values,
    other_hand_entries,
    read_sheet_form,
    weapon_groups,
)
from ..characters import MAX_HP, MAX_NAME_LENGTH, MAX_PROFICIENCY, MAX_PROWESS, Character
from ..encounter.log_lines import signed
from ..interactions.answering import answer_by_editing, stop_the_clock, watch_the_clock
from ..interactions.in_flight import fail
from ..rules.errors import shown
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

    def __init__(
        self, catalog: Catalog, before: Character | None, fields: dict[str, Any], save: FormSave
    ) -> None:
        super().__init__(timeout=FORM_MINUTES * 60)
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
