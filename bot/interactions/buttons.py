"""Pommel's buttons: the base every button shares (:class:`PommelButton`), and a click's way to it
straight from its custom id; which cog method answers which kind is in :mod:`.routes`.

discord.py dispatches a click on a dynamic item by rebuilding the whole message as a ``View``
(``View.from_message``: every button of it, about nine on a fight's message) to find the one clicked and
swap it for the item its custom id makes. A Pommel button needs none of that: its custom id says
everything, and no handler reads the view. So for Pommel's kinds the click is checked to be on a button
its message shows (as discord.py checks, so a click on a button no longer there acts on nothing), the
button is made from its custom id, and its callback runs, its failures logged as discord.py logs them;
any other dynamic item keeps discord.py's way.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Self, cast

import discord
from discord.ui.view import ViewStore

from .answering import stop_the_clock, watch_the_clock
from .client import PommelClient
from .failures import fail

log = logging.getLogger(__name__)


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


def shows(message: discord.Message, component_type: int, custom_id: str) -> bool:
    """Whether ``message`` shows the component ``custom_id`` of that type (in its action rows: Pommel
    sends no message of Discord's second kind of components)."""
    return any(
        getattr(child, "custom_id", None) == custom_id and child.type.value == component_type
        for row in message.components
        for child in getattr(row, "children", ())
    )


_discord_dispatch = ViewStore.schedule_dynamic_item_call


async def _click(
    self: ViewStore,
    component_type: int,
    factory: type[discord.ui.DynamicItem[Any]],
    interaction: discord.Interaction[Any],
    custom_id: str,
    match: re.Match[str],
) -> None:
    """discord.py's ``ViewStore.schedule_dynamic_item_call``, without ``View.from_message`` for a
    Pommel button (the module's note)."""
    message = interaction.message
    if not issubclass(factory, PommelButton) or (message is not None and message.flags.components_v2):
        await _discord_dispatch(self, component_type, factory, interaction, custom_id, match)
        return
    if message is None or not shows(message, component_type, custom_id):
        return
    try:
        button = factory(match)
    except Exception:
        log.exception("Ignoring exception in dynamic item creation for %r", factory)
        return
    try:
        await button.callback(interaction)
    except Exception:
        log.exception("Ignoring exception in dynamic item callback for %r", button)


ViewStore.schedule_dynamic_item_call = _click  # type: ignore[method-assign]
