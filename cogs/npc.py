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
from bot.encounter.document import MAX_HP, Combatant, Encounter, Side, group_holder
from bot.encounter.done import Done
from bot.encounter.permissions import require_gm
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules.cards import Card
from bot.rules.errors import IllegalAction, shown
from bot.ui.announcements import TURN_CUT_SHORT
from bot.ui.combatant_choices import find_group, npc_choices
from bot.ui.encounter_views import npcs_added_reply, npcs_removed_reply
from bot.ui.equipment_choices import monster_choices

MAX_NPCS_AT_ONCE = 20
Wanted = app_commands.Range[str, 1, 100]
"""A name, id or catalog key picked from autocomplete; Discord refuses anything longer before we see it."""

Removal = tuple[list[Combatant], str | None, Card | None, bool]
"""Who left, the group left empty (if any), the card that group discarded (if it held one), and
whether the turn in progress was theirs (it is over)."""


def _npcs(encounter: Encounter, wanted: str) -> list[Combatant]:
    """Whom ``/npc remove`` means: a combatant id picked from the list, a group, or an NPC by name."""
    for combatant in encounter.combatants:
        if combatant.id == wanted:
            targets = [combatant]
            break
    else:
        group = find_group(encounter, wanted)
        targets = encounter.members(group_holder(group)) if group else [encounter.combatant(wanted)]
    for target in targets:
        if target.side is not Side.NPC:
            raise IllegalAction(
                f"{shown(target.name)} is a player's character, not an NPC; "
                "take it out of the fight with /leave."
            )
    return targets


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
        template: Wanted,
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
        catalog = self.bot.catalog
        who = interaction.user.display_name

        def change(encounter: Encounter) -> Done[list[Combatant]]:
            require_gm(encounter, actor, "add NPCs")
            monster = catalog.monster(template)
            armor = catalog.armor(monster.armor) if monster.armor else None
            added = encounter.add_npcs(
                monster,
                armor,
                count=count,
                name=name,
                group=group,
                leader=leader,
                prowess=prowess,
                dex_mod=dex,
                hp=hp,
                morale=morale,
            )
            names = ", ".join(npc.name for npc in added)
            line = f"{who} added {names} ({monster.name}) to the group {added[0].group}"
            return Done(added, log=[line])

        saved, added = await self.bot.store.change(encounter_channel(interaction), actor.user_id, change)
        await interaction.response.send_message(npcs_added_reply(added))
        await self.bot.trackers.publish(saved)

    @app_commands.command(
        name="remove", description="GM: take an NPC, or a whole NPC group, out of the fight"
    )
    @app_commands.describe(who="An NPC, or an NPC group to remove all of it")
    async def remove(self, interaction: discord.Interaction, who: Wanted) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name

        def change(encounter: Encounter) -> Done[Removal]:
            require_gm(encounter, actor, "remove NPCs")
            targets = _npcs(encounter, who)
            holder = targets[0].holder
            card = encounter.initiative.cards.get(holder)
            acting = encounter.initiative.turn_of == holder
            emptied: str | None = None
            for target in targets:
                if encounter.remove(target) is not None:
                    emptied = target.group
            discarded = card if emptied is not None else None
            names = ", ".join(target.name for target in targets)
            lines = [f"{by} removed {names} from the fight"]
            if discarded is not None:
                lines.append(f"the card of {emptied} ({discarded.label}) was discarded")
            cut_short = acting and encounter.initiative.turn_of is None
            if cut_short:
                lines.append(TURN_CUT_SHORT)
            return Done((targets, emptied, discarded, cut_short), log=lines)

        saved, (removed, emptied, discarded, cut_short) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, change
        )
        hide = saved.table.hide_npc_cards
        reply = npcs_removed_reply(removed, emptied, discarded, hide_card=hide)
        await interaction.response.send_message(f"{reply}\n{TURN_CUT_SHORT}" if cut_short else reply)
        await self.bot.trackers.publish(saved)

    @remove.autocomplete("who")
    async def remove_who(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return npc_choices(await channel_encounter(interaction), current)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Npc(bot))
