"""The one error path, end to end: a refusal always reaches the user, within Discord's limits."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.app import Pommel
from bot.rules.errors import RulesError

from .fake_discord import World


async def refuse_at_length(interaction: discord.Interaction) -> None:
    raise RulesError("That name is far too long: " + "x" * 3000)


def add_long_refusal(bot: Pommel) -> None:
    bot.tree.add_command(
        app_commands.Command(
            name="e2e-long-refusal", description="Refuse at length", callback=refuse_at_length
        )
    )


async def test_a_refusal_longer_than_discord_allows_is_cut_not_lost(world: World, start_bot: Any) -> None:
    pommel = await start_bot(setup=add_long_refusal)
    result = await pommel.slash("e2e-long-refusal", user=world.player)
    assert result.ephemeral
    assert result.content.startswith("That name is far too long: xxx")
    assert len(result.content) == 2000
    assert result.content.endswith("…")
