"""Pommel's buttons: the base every button shares (:class:`PommelButton`); which cog method answers which
kind is in :mod:`.routes`."""

from __future__ import annotations

import re
from typing import Any, Self, cast

import discord

from .answering import stop_the_clock, watch_the_clock
from .client import PommelClient
from .failures import fail


class PommelButton:
    """The base of every Pommel button, mixed in before ``discord.ui.DynamicItem``: the custom id says
    everything (so a button works after a restart), :meth:`from_custom_id` builds the button from its
    match, and a click goes to the handler routed for its type, its failures answered once, the way
    ``tree.on_error`` answers a command's (a button has no command tree)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(discord.ui.Button(custom_id=match.group(0)))  # type: ignore[call-arg]  # DynamicItem
        self.match = match

    @classmethod
    def on_message(cls, message: discord.Message) -> list[Self]:
        """The buttons of this kind on ``message``, read back from their custom ids."""
        template: re.Pattern[str] = cls.__discord_ui_compiled_template__  # type: ignore[attr-defined]
        ids = [
            getattr(child, "custom_id", None) or ""
            for row in message.components
            for child in getattr(row, "children", [])
        ]
        return [cls(match) for match in map(template.fullmatch, ids) if match is not None]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast("PommelClient", interaction.client)
        with client.in_flight.running():
            async with client.events.collecting():  # what the click changed is drawn after its answer
                try:
                    client.in_flight.refuse_if_closing()
                    await watch_the_clock(interaction)
                    await client.buttons.handler(type(self))(interaction, self)
                except Exception as error:
                    await fail(interaction, error)
                finally:
                    stop_the_clock(interaction)
