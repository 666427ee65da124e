"""``/join`` and ``/leave``: a player brings a saved character into this channel's fight, or takes one out.

The fight keeps its own copy of the character (its pool, HP and conditions change in the fight, not on
the sheet), so editing or deleting the saved character later does not touch a fight in progress.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.characters import MAX_NAME_LENGTH, Character
from bot.encounter.document import Combatant, Encounter, Side
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed
from bot.encounter.permissions import Actor, is_gm
from bot.interactions import actor_of, encounter_place
from bot.rules.equipment import Armor
from bot.rules.errors import RulesError
from bot.ui.announcements import TURN_CUT_SHORT
from bot.ui.character_sheet import (
    joined_text,
    left_text,
    own_character_choices,
    own_combatant_choices,
    shown,
)

NO_ARMOR = "none"


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
        armor = self._armor(sheet)
        player = interaction.user.display_name

        def change(encounter: Encounter) -> Done[Combatant]:
            joined = encounter.join(user_id, sheet, armor)
            return Done(joined, log=[f"{player} joined with {joined.name}"], data={"combatant": joined.id})

        saved, joined = await self.bot.store.change(channel_id, user_id, change)
        await interaction.response.send_message(joined_text(saved, user_id, joined.name))
        await self.bot.trackers.publish(saved)

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
        user_id = interaction.user.id
        player = interaction.user.display_name
        actor = actor_of(interaction)

        def change(encounter: Encounter) -> Done[tuple[Combatant, bool, bool]]:
            leaving = _leaving(encounter, actor, character)
            acting = encounter.initiative.turn_of == leaving.holder
            discarded = encounter.remove(leaving) is not None
            cut_short = acting and encounter.initiative.turn_of is None
            lines = [f"{player} took {leaving.name} out of the fight"] + (
                [TURN_CUT_SHORT] if cut_short else []
            )
            return Done((leaving, discarded, cut_short), log=lines)

        saved, (left, discarded, cut_short) = await self.bot.store.change(channel_id, user_id, change)
        reply = left_text(left.name, user_id, discarded)
        await interaction.response.send_message(f"{reply}\n{TURN_CUT_SHORT}" if cut_short else reply)
        await self.bot.trackers.publish(saved)

    def _armor(self, sheet: Character) -> Armor | None:
        """The armor for the pool size (R6); a catalog without a No Armor entry means no armor at all."""
        if sheet.armor == NO_ARMOR and NO_ARMOR not in self.bot.catalog.armors:
            return None
        return self.bot.catalog.armor(sheet.armor)


def _leaving(encounter: Encounter, actor: Actor, wanted: str | None) -> Combatant:
    """The player character leaving: the one named (by id or name), or the user's only one. A player
    takes out only their own; the GM may take out anyone's (a player who left the table, say)."""
    user_id = actor.user_id
    own = [c for c in encounter.combatants if c.side is Side.PLAYER and c.owner_id == user_id]
    if wanted is None:
        if not own:
            raise RulesError("You have no character in this fight.")
        if len(own) > 1:
            names = ", ".join(shown(c.name) for c in own)
            raise RulesError(f"You have several characters in this fight ({names}); name the one leaving.")
        return own[0]
    combatant = encounter.combatant(wanted)
    if combatant.side is not Side.PLAYER:
        raise RulesError(f"{shown(combatant.name)} is an NPC: the GM takes NPCs out with /npc remove.")
    if combatant.owner_id != user_id and not is_gm(encounter, actor):
        raise NotAllowed(
            f"{shown(combatant.name)} is not yours; only its player or the GM can take it out with /leave."
        )
    return combatant


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Join(bot))
