"""``/move``, ``/range``, ``/save`` and ``/pool``: spending the Martial Pool outside attacks.

Moving (R19) and changing range with one opponent (R12) happen on the combatant's own turn; a saving
throw (R20) may come at any moment. Each spends dice from the pool (R7) in one transaction with its
log line (:mod:`bot.encounter.maneuvers`), and a refusal (too many moves, too few dice, the wrong
turn) changes nothing. ``/pool`` shows where a combatant's dice went this round; pools are not
secret, so anyone may look at any.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import maneuvers
from bot.encounter.permissions import require_fight
from bot.interactions.actors import actor_of, channel_encounter, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import CombatantName
from bot.rules.engagement import Range
from bot.rules.pool import MAX_POOL
from bot.ui.maneuver_views import move_reply, pool_report, range_announcement, range_buttons, save_reply
from bot.ui.rolls import SituationChoice, advantage_of

RangeChoice = Literal["onset", "melee", "grapple"]
SAVE_TARGET_MAX = 60
BONUS_LIMIT = 50


class Maneuvers(commands.Cog):
    """Moving, changing range, saving throws and looking at the Martial Pool."""

    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    # ------------------------------------------------------------------------------ /move (R19)

    @app_commands.command(name="move", description="Move on your turn: the first move is free (R19)")
    @app_commands.describe(
        who="Who moves (default: your only combatant, or for the GM the NPC whose turn it is)",
        combat_range="Entering or leaving combat range (threatened by an opportunity attack): +1 die",
        run="Run: 4 moves for your whole pool, only if you have spent dice on nothing but moving",
    )
    @app_commands.guild_only()
    async def move(
        self,
        interaction: discord.Interaction,
        who: CombatantName | None = None,
        combat_range: bool = False,
        run: bool = False,
    ) -> None:
        maneuvers.require_one_way_of_moving(run=run, combat_range=combat_range)
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: (
                maneuvers.run(encounter, actor, who=who, by=by)
                if run
                else maneuvers.move(encounter, actor, who=who, combat_range=combat_range, by=by)
            ),
        )
        await answer(interaction, move_reply(done))

    # ------------------------------------------------------------------------------ /range (R12)

    @app_commands.command(name="range", description="Change range with one opponent: 1 die per step (R12)")
    @app_commands.rename(to="range")
    @app_commands.describe(
        target="The opponent whose range to you changes",
        to="Onset or Melee (Grapple is entered only by a grapple attack)",
        who="Who changes range (default: your only combatant, or the NPC whose turn it is)",
    )
    @app_commands.guild_only()
    async def range_change(
        self,
        interaction: discord.Interaction,
        target: CombatantName,
        to: RangeChoice,
        who: CombatantName | None = None,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = Range[to.upper()]
        saved, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: maneuvers.change_range(
                encounter, actor, target=target, to=wanted, who=who, by=by
            ),
        )
        announcement = range_announcement(done, actor_id=actor.user_id, gm_id=saved.gm_id)
        await answer(
            interaction,
            announcement.content,
            allowed_mentions=announcement.allowed_mentions,
            view=range_buttons(saved, done) or discord.utils.MISSING,
        )

    # ------------------------------------------------------------------------------ /save (R20)

    @app_commands.command(
        name="save", description="A saving throw: 1 free die, plus pool dice if you like (R20)"
    )
    @app_commands.describe(
        target="The number to reach (the save succeeds on a total at or above it)",
        dice="Martial Pool dice to add to the free die; the highest die counts",
        bonus="Added to the die that counts (the save's modifier)",
        who="Who saves (default: your only combatant, or the NPC whose turn it is)",
        situation="Advantage adds a die; disadvantage adds one and removes the highest (R10)",
        private="Only you see the roll (the dice spent show on the tracker, and the GM sees the log)",
    )
    @app_commands.guild_only()
    async def save(
        self,
        interaction: discord.Interaction,
        target: app_commands.Range[int, 1, SAVE_TARGET_MAX],
        dice: app_commands.Range[int, 0, MAX_POOL] = 0,
        bonus: app_commands.Range[int, -BONUS_LIMIT, BONUS_LIMIT] = 0,
        who: CombatantName | None = None,
        situation: SituationChoice | None = None,
        private: bool = False,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        advantage = advantage_of(situation)
        rolling = self.bot.dice
        _, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: maneuvers.saving_throw(
                encounter,
                actor,
                rolling,
                who=who,
                target=target,
                dice=dice,
                bonus=bonus,
                advantage=advantage,
                private=private,
                by=by,
            ),
        )
        await answer(interaction, save_reply(done), ephemeral=private)

    # ------------------------------------------------------------------------------ /pool

    @app_commands.command(
        name="pool", description="Your Martial Pool: dice left, where they went, your moves"
    )
    @app_commands.describe(who="Whose pool (default: your combatants; for the GM, the NPCs whose turn it is)")
    @app_commands.guild_only()
    async def pool(self, interaction: discord.Interaction, who: CombatantName | None = None) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        subjects = maneuvers.pool_subjects(encounter, actor_of(interaction), who)
        await answer(interaction, pool_report(encounter, subjects), ephemeral=True)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Maneuvers(bot))
