"""Which cog method answers which kind of button (:class:`ButtonRoutes`), held by the bot; the buttons
themselves are in :mod:`.buttons`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from ..rules.errors import RulesError

ButtonHandler = Callable[[discord.Interaction, Any], Awaitable[None]]


class ButtonRoutes:
    """Which cog method answers which kind of button: a cog routes its button types when it loads
    (:meth:`route`), and :class:`PommelButton` dispatches a click by the button's type."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._handlers: dict[type[Any], ButtonHandler] = {}

    def route(self, kind: type[Any], handler: ButtonHandler) -> None:
        self._handlers[kind] = handler
        self.client.add_dynamic_items(kind)  # every PommelButton is a DynamicItem

    def unroute(self, *kinds: type[Any]) -> None:
        for kind in kinds:
            self._handlers.pop(kind, None)
            self.client.remove_dynamic_items(kind)

    def handler(self, kind: type[Any]) -> ButtonHandler:
        handler = self._handlers.get(kind)
        if handler is None:
            raise RulesError("Pommel is starting up; try again in a moment.")
        return handler
