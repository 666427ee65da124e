"""``/situation set | distance | mount | dismount``: where combatants stand, as the Lords of Hack
situations read it (R25). Attacks and ``/odds`` apply them by themselves; the tracker shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import positions
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.kept_entries import fight_catalog
from bot.encounter.permissions import Actor
from bot.encounter.positions import OpeningChoice, PositionChange, QuickCheck, Repositioned
from bot.interactions.actors import actor_of, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import CombatantName
from bot.rules.engagement import Distance
from bot.ui.situation_views import situation_reply

CoverChoice = Literal[0, 25, 50, 75, 100]
OpeningOption = Literal["none", "window", "arrow slit"]
PositionOperation = Callable[[Encounter, Actor, str], Done[Repositioned]]
"""A ``/situation`` operation with its options given: the fight, who asks, and their display name."""
DistanceChoice = Literal["near", "middle", "far", "very far"]
CheckChoice = Literal["passed", "failed"]


@app_commands.guild_only()
class Situation(
    commands.GroupCog,
    group_name="situation",
    group_description="Where combatants stand: cover, shield wall, mounted, distance (R25)",
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def _change(self, interaction: discord.Interaction, operation: PositionOperation) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, changed = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, lambda encounter: operation(encounter, actor, by)
        )
        await answer(interaction, situation_reply(changed), ephemeral=not changed.changes)

    @app_commands.command(name="set", description="Shield wall, scaling, unseen, cover, prone… (R25)")
    @app_commands.describe(
        who="Whose situation",
        shield_wall="In a shield wall (4+ footmen with round shields): attacks on it are at disadvantage",
        scaling="Scaling a wall, fence or rampart: attacks at disadvantage, is attacked with advantage",
        unseen="Unseen by its foes (stealth or magic): its attacks have advantage",
        cover="Cover against missiles, in percent: disadvantage, and a free defense die per 25% (R14)",
        opening="Shooting from a roofed area through a window (AC 17+) or an arrow slit (AC 21+)",
        prone="Prone: attacked with advantage in melee, disadvantage at range",
        incapacitated="Unconscious or incapacitated: hit automatically in melee",
        beside="The ally it stands side by side or back to back with ('none' for nobody)",
        get_up_check="With prone False: leap up as a quick action; the Acrobatics/Athletics check you rolled",
    )
    async def set(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        shield_wall: bool | None = None,
        scaling: bool | None = None,
        unseen: bool | None = None,
        cover: CoverChoice | None = None,
        opening: OpeningOption | None = None,
        prone: bool | None = None,
        incapacitated: bool | None = None,
        beside: CombatantName | None = None,
        get_up_check: CheckChoice | None = None,
    ) -> None:
        change = PositionChange(
            shield_wall=shield_wall,
            scaling=scaling,
            unseen=unseen,
            cover=cover,
            opening=OpeningChoice(opening) if opening else None,
            prone=prone,
            incapacitated=incapacitated,
            beside=beside,
            get_up_check=QuickCheck(get_up_check) if get_up_check else None,
        )
        builtins = self.bot.catalog
        await self._change(
            interaction,
            lambda encounter, actor, by: positions.set_position(
                encounter, fight_catalog(builtins, encounter), actor, by, who, change
            ),
        )

    @app_commands.command(name="distance", description="How far apart two combatants are, for missiles (R25)")
    @app_commands.describe(
        who="One of the pair (yours, or anyone for the GM)",
        other="The other one",
        distance="near: under 25'; middle: 25'-50'; far: 50'-150'; very far: 150' or more",
    )
    async def distance(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        other: CombatantName,
        distance: DistanceChoice,
    ) -> None:
        band = Distance(distance)
        await self._change(
            interaction,
            lambda encounter, actor, by: positions.set_distance(encounter, actor, by, who, other, band),
        )

    @app_commands.command(
        name="mount", description="Mount a horse: a full round, or a quick action with a check"
    )
    @app_commands.describe(
        who="The rider",
        horse="The mount (a combatant made a mount: /npc add template:warhorse)",
        quick_check="Mount as a quick action: the Riding or Acrobatics check you rolled (failed: prone)",
    )
    async def mount(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        horse: CombatantName,
        quick_check: CheckChoice | None = None,
    ) -> None:
        quick = QuickCheck(quick_check) if quick_check else None
        await self._change(
            interaction, lambda encounter, actor, by: positions.mount(encounter, actor, by, who, horse, quick)
        )

    @app_commands.command(name="dismount", description="Dismount: a move, or a quick action with a check")
    @app_commands.describe(
        who="The rider",
        quick_check="Dismount as a quick action: the Riding or Acrobatics check you rolled (failed: prone)",
    )
    async def dismount(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        quick_check: CheckChoice | None = None,
    ) -> None:
        quick = QuickCheck(quick_check) if quick_check else None
        await self._change(
            interaction, lambda encounter, actor, by: positions.dismount(encounter, actor, by, who, quick)
        )


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Situation(bot))
