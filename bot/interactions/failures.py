"""A failed command or click: its one answer, and the tracker drawn all the same when its change was
saved."""

from __future__ import annotations

from typing import Any, cast

import discord

from ..error_replies import answer_failure
from ..store.receipts import committed, committed_to
from .client import PommelClient


async def fail(interaction: discord.Interaction[Any], error: Exception) -> None:
    """A command or click failed: its one answer says what went wrong (:func:`answer_failure`). When its
    change was saved before the failure (Discord did not take its reply), the fight's tracker is drawn
    all the same: the command never reached its own drawing, after its reply."""
    await answer_failure(interaction, error)
    if committed.get() is not None and committed_to.get() == "fight" and interaction.channel_id is not None:
        await cast("PommelClient", interaction.client).trackers.redraw(interaction.channel_id)
