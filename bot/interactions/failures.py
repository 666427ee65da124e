"""A failed command or click: its one answer."""

from __future__ import annotations

from typing import Any

import discord

from ..error_replies import answer_failure


async def fail(interaction: discord.Interaction[Any], error: Exception) -> None:
    """A command or click failed: its one answer says what went wrong (:func:`answer_failure`). A change
    it saved before the failure (Discord did not take its reply) is drawn all the same, after this
    answer: its unit of work (:meth:`bot.events.Bus.collecting`) hands what it announced on."""
    await answer_failure(interaction, error)
