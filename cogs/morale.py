"""``/morale check | rally | proposals | set`` and the proposal buttons: Lords of Hack morale (R21-R23).

The GM calls a check for one combatant or a whole NPC group (R21; player characters only when the GM
asks, R22). A combatant that has not failed morale rallies its routed and frightened allies on its
own turn (R23). When a fight's change makes the bot propose a check (R22), the GM confirms it with a
button, which rolls the group's check once however often it is clicked, or dismisses it. What each
changes is in :mod:`bot.encounter.morale`, what it says in :mod:`bot.ui.morale_views`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.button_kinds import MoraleProposalButton
from bot.encounter import morale
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import require_fight
from bot.encounter.records import FightMessage
from bot.interactions.actors import actor_of, channel_encounter, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import CombatantName, MoraleSubjectName
from bot.rules.morale import MoraleStanding
from bot.ui.announcements import Announcement
from bot.ui.morale_views import (
    PROPOSAL_BUTTON_LIMIT,
    check_announcement,
    proposal_dismissed_reply,
    proposal_empty_reply,
    proposal_view,
    proposals_reply,
    rally_announcement,
    standing_reply,
)
from bot.ui.rolls import SituationChoice, advantage_of

Result = TypeVar("Result")
StandingChoice = Literal["steady", "routed", "frightened", "demoralized"]


@app_commands.guild_only()
class Morale(commands.GroupCog, group_name="morale", group_description="Morale checks and rallies (R21-R23)"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.buttons.route(MoraleProposalButton, self.proposal_clicked)

    async def cog_unload(self) -> None:
        self.bot.buttons.unroute(MoraleProposalButton)

    async def _announce(
        self, interaction: discord.Interaction, saved: Encounter, announcement: Announcement
    ) -> None:
        await answer(interaction, announcement.content, allowed_mentions=announcement.allowed_mentions)

    async def _rolled(
        self,
        interaction: discord.Interaction,
        situation: SituationChoice | None,
        operation: Callable[..., Done[Result]],
        **options: Any,
    ) -> tuple[int, Encounter, Result]:
        """A roll of the user's (``morale.check``, ``recheck`` or ``rally``), with the situation's
        advantage and the bot's dice: who made it, the fight as saved, and the operation's result."""
        actor = actor_of(interaction)
        by = interaction.user.display_name
        advantage = advantage_of(situation)
        saved, result = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: operation(
                encounter, actor, by=by, dice=self.bot.dice, advantage=advantage, **options
            ),
        )
        return actor.user_id, saved, result

    # ------------------------------------------------------------------------------ check

    @app_commands.command(
        name="check", description="GM: a morale check for a combatant or an NPC group (R21)"
    )
    @app_commands.describe(
        who="An NPC group (all its members check) or one combatant; PCs check only when the GM asks (R22)",
        cannot_escape="They have nowhere to run: a fail makes them Frightened instead of Routed (R21)",
        situation="Advantage or disadvantage on the check (R10)",
    )
    async def check(
        self,
        interaction: discord.Interaction,
        who: MoraleSubjectName,
        cannot_escape: bool = False,
        situation: SituationChoice | None = None,
    ) -> None:
        actor_id, saved, checked = await self._rolled(
            interaction, situation, morale.check, who=who, can_escape=not cannot_escape
        )
        announcement = check_announcement(saved, checked.report, who=checked.who, actor_id=actor_id)
        await self._announce(interaction, saved, announcement)

    # ------------------------------------------------------------------------------ recheck

    @app_commands.command(
        name="recheck",
        description="GM: the Routed who escaped recheck morale, once an exploration turn (R21)",
    )
    @app_commands.describe(
        who="An NPC group (its Routed members) or one Routed combatant; the Demoralized never recheck",
        situation="Advantage or disadvantage on the check (R10)",
    )
    async def recheck(
        self,
        interaction: discord.Interaction,
        who: MoraleSubjectName,
        situation: SituationChoice | None = None,
    ) -> None:
        actor_id, saved, checked = await self._rolled(interaction, situation, morale.recheck, who=who)
        announcement = check_announcement(saved, checked.report, who=checked.who, actor_id=actor_id)
        await self._announce(interaction, saved, announcement)

    # ------------------------------------------------------------------------------ rally

    @app_commands.command(
        name="rally", description="Spend your action to rally routed and frightened allies (R23)"
    )
    @app_commands.describe(
        who="Who rallies (default: your only combatant); it must be their turn",
        situation="Advantage or disadvantage on the CHA check, besides not being the leader (R10)",
    )
    async def rally(
        self,
        interaction: discord.Interaction,
        who: CombatantName | None = None,
        situation: SituationChoice | None = None,
    ) -> None:
        actor_id, saved, report = await self._rolled(interaction, situation, morale.rally, who=who)
        await self._announce(interaction, saved, rally_announcement(saved, report, actor_id=actor_id))

    # ------------------------------------------------------------------------------ proposals

    @app_commands.command(
        name="proposals", description="The morale checks the bot proposed (R22), with buttons"
    )
    async def proposals(self, interaction: discord.Interaction) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        if not encounter.morale_proposals:
            await answer(interaction, proposals_reply(encounter), ephemeral=True)
            return
        view = proposal_view(encounter.morale_proposals, encounter.tag)
        sent = await answer(interaction, proposals_reply(encounter), view=view, echo=True)
        if sent is not None:  # its buttons go as each proposal is rolled or dismissed
            shown = [p.id for p in encounter.morale_proposals[:PROPOSAL_BUTTON_LIMIT]]
            await self.bot.fight_messages.remember(encounter, FightMessage(id=sent, proposals=shown), view)

    # ------------------------------------------------------------------------------ set

    @app_commands.command(
        name="set", description="GM: rule a combatant Steady, Routed, Frightened or Demoralized (R21)"
    )
    @app_commands.describe(
        who="Whose morale",
        standing="Steady, Routed (fleeing), Frightened (cornered) or Demoralized (flees, never rechecks)",
    )
    async def set(
        self, interaction: discord.Interaction, who: CombatantName, standing: StandingChoice
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = MoraleStanding(standing)
        _, ruled = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: morale.rule_standing(encounter, actor, who=who, standing=wanted, by=by),
        )
        await answer(interaction, standing_reply(ruled.combatant, ruled.previous, by))

    # ------------------------------------------------------------------------------ the buttons

    async def proposal_clicked(self, interaction: discord.Interaction, button: MoraleProposalButton) -> None:
        """R22: the GM's click rolls the proposed check for the group, once; or declines it."""
        if button.dismiss:
            await self.dismiss(interaction, button.proposal_id, button.fight)
        else:
            await self.confirm(interaction, button.proposal_id, button.fight)

    async def confirm(self, interaction: discord.Interaction, proposal_id: int, fight: str | None) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        saved, rolled = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: morale.confirm(
                encounter, actor, proposal_id=proposal_id, by=by, dice=self.bot.dice, fight=fight
            ),
        )
        if rolled.report is None:
            await answer(interaction, proposal_empty_reply(rolled.proposal))
            return
        announcement = check_announcement(
            saved, rolled.report, who=rolled.proposal.group, actor_id=actor.user_id, proposal=rolled.proposal
        )
        await self._announce(interaction, saved, announcement)

    async def dismiss(self, interaction: discord.Interaction, proposal_id: int, fight: str | None) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, dismissed = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: morale.dismiss(encounter, actor, proposal_id=proposal_id, by=by, fight=fight),
        )
        await answer(interaction, proposal_dismissed_reply(dismissed, by))


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Morale(bot))
