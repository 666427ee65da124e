"""``/homebrew npc``'s form: a modal of five text inputs whose submission goes to the cog (its words and
inputs are in :mod:`bot.ui.homebrew_views`, what they mean in :func:`bot.homebrew.read_quick_npc`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from .ui.homebrew_views import quick_npc_input_id, quick_npc_inputs

NpcGiven = Callable[[discord.Interaction, dict[str, str]], Awaitable[None]]


class QuickNpcModal(discord.ui.Modal):
    """Submitting saves a monster template (the cog's ``given``)."""

    def __init__(self, owner_id: int, given: NpcGiven) -> None:
        super().__init__(
            title="Quick NPC template", timeout=None, custom_id=quick_npc_input_id(f"modal-{owner_id}")
        )
        self.given = given
        self.inputs: list[discord.ui.TextInput[Any]] = quick_npc_inputs()
        for text in self.inputs:
            self.add_item(text)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        values = {text.custom_id.rsplit(":", 1)[-1]: text.value for text in self.inputs}
        await self.given(interaction, values)
