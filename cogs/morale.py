"""``/morale check | rally | proposals | set`` and the proposal buttons: Lords of Hack morale (R21-R23).

The GM calls a check for one combatant or a whole NPC group (R21; player characters only when the GM
asks, R22). A combatant that has not failed morale rallies its routed and frightened allies on its
own turn (R23). When a fight's change makes the bot propose a check (R22), the GM confirms it with a
button, which rolls the group's check once however often it is clicked, or dismisses it.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.document import Combatant, Encounter
from bot.encounter.done import Done
from bot.encounter.log_lines import check_log_line, rally_log_line
from bot.encounter.morale import (
    MoraleCheckReport,
    ProposalCheck,
    RallyReport,
    check_group,
    check_morale,
    dismiss_proposal,
    rally_allies,
    roll_proposal,
    set_standing,
)
from bot.encounter.permissions import acting_combatant, require_fight, require_gm
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules.errors import RulesError
from bot.rules.morale import MoraleStanding
from bot.ui.announcements import Announcement
from bot.ui.combatant_choices import combatant_choices, find_group, morale_subject_choices
from bot.ui.errors import answer_failure
from bot.ui.morale_views import (
    MORALE_PROPOSAL_BUTTON,
    check_announcement,
    dismiss_custom_id,
    morale_proposal_custom_id,
    proposal_dismissed_reply,
    proposal_empty_reply,
    proposal_view,
    proposals_reply,
    rally_announcement,
    standing_reply,
)
from bot.ui.rolls import SituationChoice, advantage_of

Wanted = app_commands.Range[str, 1, 100]
StandingChoice = Literal["steady", "routed", "frightened"]


def _targets(encounter: Encounter, who: str) -> tuple[str, list[Combatant] | None]:
    """What ``who`` names: an NPC group (the name, None: the whole group) or one combatant."""
    group = find_group(encounter, who)
    if group is not None:
        return group, None
    combatant = encounter.combatant(who)
    return combatant.name, [combatant]


@app_commands.guild_only()
class Morale(commands.GroupCog, group_name="morale", group_description="Morale checks and rallies (R21-R23)"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(MoraleProposalButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(MoraleProposalButton)

    async def _announce(
        self, interaction: discord.Interaction, saved: Encounter, announcement: Announcement
    ) -> None:
        await interaction.response.send_message(
            announcement.content, allowed_mentions=announcement.allowed_mentions
        )
        await self.bot.trackers.publish(saved)

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
        who: Wanted,
        cannot_escape: bool = False,
        situation: SituationChoice | None = None,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        dice = self.bot.dice
        advantage = advantage_of(situation)

        def change(encounter: Encounter) -> Done[tuple[str, MoraleCheckReport]]:
            require_gm(encounter, actor, "call for a morale check")
            name, targets = _targets(encounter, who)
            if targets is None:
                report = check_group(encounter, name, dice, advantage=advantage, can_escape=not cannot_escape)
            else:
                report = check_morale(
                    encounter, targets, dice, advantage=advantage, can_escape=not cannot_escape
                )
            return Done((name, report), log=[check_log_line(by, name, report)], kind="morale")

        saved, (name, report) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, change
        )
        await self._announce(
            interaction, saved, check_announcement(saved, report, who=name, actor_id=actor.user_id)
        )

    @check.autocomplete("who")
    async def check_who(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return morale_subject_choices(await channel_encounter(interaction), current)

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
        who: Wanted | None = None,
        situation: SituationChoice | None = None,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        dice = self.bot.dice
        advantage = advantage_of(situation)

        def change(encounter: Encounter) -> Done[RallyReport]:
            rallier = acting_combatant(encounter, actor, who, "rally")
            report = rally_allies(encounter, rallier, dice, advantage=advantage)
            return Done(report, log=[rally_log_line(by, report)], kind="morale")

        saved, report = await self.bot.store.change(encounter_channel(interaction), actor.user_id, change)
        await self._announce(interaction, saved, rally_announcement(saved, report, actor_id=actor.user_id))

    @rally.autocomplete("who")
    async def rally_who(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)

    # ------------------------------------------------------------------------------ proposals

    @app_commands.command(
        name="proposals", description="The morale checks the bot proposed (R22), with buttons"
    )
    async def proposals(self, interaction: discord.Interaction) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        if not encounter.morale_proposals:
            await interaction.response.send_message(proposals_reply(encounter), ephemeral=True)
            return
        await interaction.response.send_message(
            proposals_reply(encounter), view=proposal_view(encounter.morale_proposals)
        )

    # ------------------------------------------------------------------------------ set

    @app_commands.command(name="set", description="GM: rule a combatant Steady, Routed or Frightened (R21)")
    @app_commands.describe(
        who="Whose morale", standing="Steady, Routed (fleeing) or Frightened (cornered, may surrender)"
    )
    async def set(self, interaction: discord.Interaction, who: Wanted, standing: StandingChoice) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = MoraleStanding(standing)

        def change(encounter: Encounter) -> Done[tuple[Combatant, MoraleStanding]]:
            require_gm(encounter, actor, "rule on morale")
            combatant = encounter.combatant(who)
            previous = set_standing(combatant, wanted)
            line = f"{by}: {combatant.name} is now {wanted.value} (was {previous.value})"
            return Done((combatant, previous), log=[line], kind="morale")

        saved, (combatant, previous) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, change
        )
        await interaction.response.send_message(standing_reply(combatant, previous, by))
        await self.bot.trackers.publish(saved)

    @set.autocomplete("who")
    async def set_who(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)

    # ------------------------------------------------------------------------------ the buttons

    async def confirm(self, interaction: discord.Interaction, proposal_id: int) -> None:
        """R22: the GM's click rolls the proposed check for the group, once."""
        actor = actor_of(interaction)
        by = interaction.user.display_name
        dice = self.bot.dice

        def change(encounter: Encounter) -> Done[ProposalCheck]:
            require_gm(encounter, actor, "roll a proposed morale check")
            rolled = roll_proposal(encounter, proposal_id, dice)
            group = rolled.proposal.group
            if rolled.report is None:
                line = f"{by}: morale proposal #{proposal_id} for {group} settled, nobody left to check"
            else:
                line = check_log_line(by, group, rolled.report)
            return Done(rolled, log=[line], kind="morale")

        saved, rolled = await self.bot.store.change(encounter_channel(interaction), actor.user_id, change)
        if rolled.report is None:
            await interaction.response.send_message(proposal_empty_reply(rolled.proposal))
            return
        announcement = check_announcement(
            saved, rolled.report, who=rolled.proposal.group, actor_id=actor.user_id, proposal=rolled.proposal
        )
        await self._announce(interaction, saved, announcement)

    async def dismiss(self, interaction: discord.Interaction, proposal_id: int) -> None:
        """R22: the GM declines the proposed check; nothing is rolled."""
        actor = actor_of(interaction)
        by = interaction.user.display_name

        def change(encounter: Encounter) -> Done[Any]:
            require_gm(encounter, actor, "dismiss a proposed morale check")
            dismissed = dismiss_proposal(encounter, proposal_id)
            why = f"proposal #{dismissed.id}, {dismissed.reason.value}"
            line = f"{by}: no morale check for {dismissed.group} ({why})"
            return Done(dismissed, log=[line], kind="morale")

        _, dismissed = await self.bot.store.change(encounter_channel(interaction), actor.user_id, change)
        await interaction.response.send_message(proposal_dismissed_reply(dismissed, by))


class MoraleProposalButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=MORALE_PROPOSAL_BUTTON
):
    """R22: the buttons under a proposed morale check, alive across restarts (the id says it all)."""

    def __init__(self, proposal_id: int, dismiss: bool = False) -> None:
        custom_id = dismiss_custom_id(proposal_id) if dismiss else morale_proposal_custom_id(proposal_id)
        super().__init__(discord.ui.Button(custom_id=custom_id))
        self.proposal_id = proposal_id
        self.dismiss = dismiss

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> MoraleProposalButton:
        return cls(int(match["proposal"]), dismiss=match["action"] == "dismiss")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Morale")
        try:
            if not isinstance(cog, Morale):
                raise RulesError("Pommel is starting up; try again in a moment.")
            if self.dismiss:
                await cog.dismiss(interaction, self.proposal_id)
            else:
                await cog.confirm(interaction, self.proposal_id)
        except Exception as error:  # a button has no command tree: answer here, like tree.on_error
            await answer_failure(interaction, error)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Morale(bot))
