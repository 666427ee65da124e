"""``/join`` and ``/leave``: a player brings a saved character into this channel's fight, or takes one out.

The fight keeps its own copy of the character (its pool, HP and conditions change in the fight, not on
the sheet), so editing or deleting the saved character later does not touch a fight in progress.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.characters import MAX_NAME_LENGTH
from bot.encounter import join
from bot.encounter.kept_entries import with_server_entries
from bot.interactions.actors import actor_of, encounter_place
from bot.interactions.answering import answer
from bot.interactions.options import own_character_choices, own_combatant_choices
from bot.rules.errors import RulesError, shown
from bot.ui.character_sheet import joined_text, left_text


class Join(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    @app_commands.command(name="join", description="Bring one of your characters into this channel's fight")
    @app_commands.describe(character="Which of your characters (see /character list)")
    @app_commands.autocomplete(character=own_character_choices)
    @app_commands.guild_only()
    async def join(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, MAX_NAME_LENGTH],
    ) -> None:
        guild_id, channel_id = encounter_place(interaction)
        user_id = interaction.user.id
        sheet = await self.bot.store.character(guild_id, user_id, character)
        if sheet is None:
            raise RulesError(
                f"You have no character called '{shown(character)}'. Pick one from the list offered as "
                "you type, or make one with /character create."
            )
        server = await self.bot.catalogs.of(guild_id)
        player = interaction.user.display_name
        saved, joined = await self.bot.store.change(
            channel_id,
            user_id,
            lambda encounter: with_server_entries(
                encounter,
                server,
                self.bot.catalog,
                lambda catalog: join.join(
                    encounter, user_id, player, sheet, join.joining_armor(catalog, sheet)
                ),
            ),
        )
        back = joined.combatant if joined.returning else None
        reply = joined_text(saved, user_id, joined.combatant.name, returning=back)
        await answer(interaction, reply)

    @app_commands.command(name="leave", description="Take one of your characters out of this channel's fight")
    @app_commands.describe(character="Which of your characters in this fight (needed if you have several)")
    @app_commands.autocomplete(character=own_combatant_choices)
    @app_commands.guild_only()
    async def leave(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, MAX_NAME_LENGTH] | None = None,
    ) -> None:
        _, channel_id = encounter_place(interaction)
        actor = actor_of(interaction)
        player = interaction.user.display_name
        _, left = await self.bot.store.change(
            channel_id, actor.user_id, lambda encounter: join.leave(encounter, actor, player, character)
        )
        owner = left.combatant.owner_id or actor.user_id
        reply = left_text(left.combatant.name, owner, left.discarded, cut_short=left.cut_short)
        await answer(interaction, reply)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Join(bot))
