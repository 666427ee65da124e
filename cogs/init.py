"""``/init deal | next | hold | act | show`` and the tracker's buttons: Lords of Hack card initiative.

The GM deals (R2, R5); the player whose turn it is (or the GM) moves on with Next or holds (R4); a
held card or a Joker claims the next turn with Act (R3, R4). The buttons do what the commands do,
and carry the fight's step, so a click on a button drawn for an earlier moment is refused instead of
advancing the fight a second time. What a press changes is :mod:`bot.encounter.initiative`'s; what
the table reads, :mod:`bot.ui.init_views`'.
"""

from __future__ import annotations

from datetime import UTC, datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.button_kinds import TurnButton
from bot.channel_access import TRACKER_NEEDS, require_may_post
from bot.encounter import initiative
from bot.encounter.permissions import is_gm, require_fight
from bot.encounter.results import TurnAction
from bot.events import TrackerAsked, announce
from bot.interactions.actors import actor_of, channel_encounter, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import ClaimantName
from bot.ui.init_views import turn_announcement
from bot.ui.tracker import tracker_embeds


class Init(commands.GroupCog, group_name="init", group_description="Card initiative: deal, next, hold, act"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.buttons.route(TurnButton, self.turn_button)

    async def cog_unload(self) -> None:
        self.bot.buttons.unroute(TurnButton)

    @app_commands.command(
        name="deal", description="GM: start the next round — pools refill, a card each (R2, R5)"
    )
    @app_commands.guild_only()
    async def deal(self, interaction: discord.Interaction) -> None:
        await self.press(interaction, TurnAction.DEAL)

    @app_commands.command(name="next", description="End the turn in progress and start the next (R1)")
    @app_commands.guild_only()
    async def next(self, interaction: discord.Interaction) -> None:
        await self.press(interaction, TurnAction.NEXT)

    @app_commands.command(name="hold", description="Hold your card face down and act later (R4)")
    @app_commands.guild_only()
    async def hold(self, interaction: discord.Interaction) -> None:
        await self.press(interaction, TurnAction.HOLD)

    @app_commands.command(name="act", description="Take the next turn with a held card or a Joker (R3, R4)")
    @app_commands.describe(card="Whose card (the GM picks among NPC groups; players act on their own)")
    @app_commands.guild_only()
    async def act(self, interaction: discord.Interaction, card: ClaimantName | None = None) -> None:
        await self.press(interaction, TurnAction.ACT, holder=card)

    @app_commands.command(name="show", description="Bring the tracker to the bottom of the channel")
    @app_commands.describe(private="Show it only to you (the GM then sees hidden NPC cards too)")
    @app_commands.guild_only()
    async def show(self, interaction: discord.Interaction, private: bool = False) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        if private:
            reveal = is_gm(encounter, actor_of(interaction))
            await answer(interaction, embeds=tracker_embeds(encounter, reveal=reveal), ephemeral=True)
            return
        require_may_post(interaction, "the tracker", TRACKER_NEEDS, then="`/init show` again.")
        await answer(interaction, "The tracker is now at the bottom of the channel.", ephemeral=True)
        announce(TrackerAsked(encounter))

    async def turn_button(self, interaction: discord.Interaction, button: TurnButton) -> None:
        await self.press(interaction, button.action, step=button.step, fight=button.fight)

    async def press(
        self,
        interaction: discord.Interaction,
        action: TurnAction,
        *,
        step: int | None = None,
        holder: str | None = None,
        fight: str | None = None,
    ) -> None:
        """Apply the action for this user and save it with its log line; then announce and redraw."""
        actor = actor_of(interaction)
        now = datetime.now(UTC)
        saved, move = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: initiative.press(
                encounter, action, actor, self.bot.dice, step=step, holder=holder, now=now, fight=fight
            ),
        )
        announcement = turn_announcement(saved, move)
        await answer(interaction, announcement.content, allowed_mentions=announcement.allowed_mentions)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Init(bot))
