"""``/npc add | remove``: the GM's NPCs, built from the catalog's monster templates, in groups.

A group acts on one initiative card (R2); a lone NPC is a group of one. Removing the last NPC of a
group discards its card.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.characters import MAX_NAME_LENGTH
from bot.encounter import npc
from bot.encounter.combatants import MAX_HP
from bot.encounter.kept_entries import with_server_entries
from bot.interactions.actors import actor_of, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import CatalogKey, NpcName, monster_choices
from bot.ui.encounter_views import npcs_added_reply, npcs_removed_reply

MAX_NPCS_AT_ONCE = 20


@app_commands.guild_only()
class Npc(commands.GroupCog, group_name="npc", group_description="GM: NPCs in this channel's fight"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="add", description="GM: add NPCs from a monster template; a group shares a card"
    )
    @app_commands.describe(
        template="The monster template they are built from",
        count="How many (numbered when more than one)",
        name="Their name (default: the template's)",
        group="The group they join and act with (default: their name, plural for several)",
        leader="The first of them leads the group (R22: its fall is a morale trigger)",
        prowess="Prowess instead of the template's",
        dex="DEX modifier instead of the template's",
        hp="Hit points instead of the template's",
        morale="Morale number instead of the template's (R21)",
    )
    @app_commands.autocomplete(template=monster_choices)
    async def add(
        self,
        interaction: discord.Interaction,
        template: CatalogKey,
        count: app_commands.Range[int, 1, MAX_NPCS_AT_ONCE] = 1,
        name: app_commands.Range[str, 1, MAX_NAME_LENGTH] | None = None,
        group: app_commands.Range[str, 1, MAX_NAME_LENGTH] | None = None,
        leader: bool = False,
        prowess: app_commands.Range[int, 0, 20] | None = None,
        dex: app_commands.Range[int, -5, 10] | None = None,
        hp: app_commands.Range[int, 1, MAX_HP] | None = None,
        morale: app_commands.Range[int, -10, 10] | None = None,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        server = await self.bot.catalogs.of(interaction.guild_id)
        _, added = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: with_server_entries(
                encounter,
                server,
                self.bot.catalog,
                lambda catalog: npc.add_npcs(
                    encounter,
                    actor,
                    by,
                    catalog,
                    template,
                    count=count,
                    name=name,
                    group=group,
                    leader=leader,
                    prowess=prowess,
                    dex=dex,
                    hp=hp,
                    morale=morale,
                ),
            ),
        )
        await answer(interaction, npcs_added_reply(added))

    @app_commands.command(
        name="remove", description="GM: take an NPC, or a whole NPC group, out of the fight"
    )
    @app_commands.describe(who="An NPC, or an NPC group to remove all of it")
    async def remove(self, interaction: discord.Interaction, who: NpcName) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        saved, removal = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: npc.remove_npcs(encounter, actor, by, who),
        )
        reply = npcs_removed_reply(
            removal.removed,
            removal.emptied,
            removal.discarded,
            hide_card=saved.table.hide_npc_cards,
            cut_short=removal.cut_short,
        )
        await answer(interaction, reply)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Npc(bot))
