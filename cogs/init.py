"""``/init deal | next | hold | act | show`` and the tracker's buttons: Lords of Hack card initiative.

The GM deals (R2, R5); the player whose turn it is (or the GM) moves on with Next or holds (R4); a
held card or a Joker claims the next turn with Act (R3, R4). The buttons do what the commands do,
and carry the fight's step, so a click on a button drawn for an earlier moment is refused instead of
advancing the fight a second time.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.document import Encounter, player_holder
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed, OutOfDate
from bot.encounter.permissions import Actor, is_gm, require_fight, require_gm, require_plays_holder
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules.errors import RulesError
from bot.ui.announcements import Announcement, advance_announcement, deal_announcement, log_line
from bot.ui.buttons import TURN_BUTTON, TurnAction, turn_custom_id
from bot.ui.combatant_choices import claimant_choices
from bot.ui.errors import answer_failure
from bot.ui.tracker import tracker_embed


class Init(commands.GroupCog, group_name="init", group_description="Card initiative: deal, next, hold, act"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(TurnButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(TurnButton)

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
    async def act(self, interaction: discord.Interaction, card: str | None = None) -> None:
        await self.press(interaction, TurnAction.ACT, holder=card)

    @act.autocomplete("card")
    async def act_card(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return claimant_choices(await channel_encounter(interaction), current)

    @app_commands.command(name="show", description="Bring the tracker to the bottom of the channel")
    @app_commands.describe(private="Show it only to you (the GM then sees hidden NPC cards too)")
    @app_commands.guild_only()
    async def show(self, interaction: discord.Interaction, private: bool = False) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        if private:
            reveal = is_gm(encounter, actor_of(interaction))
            await interaction.response.send_message(
                embed=tracker_embed(encounter, reveal=reveal), ephemeral=True
            )
            return
        await interaction.response.send_message(
            "The tracker is now at the bottom of the channel.", ephemeral=True
        )
        await self.bot.trackers.publish(encounter, repost=True)

    async def press(
        self,
        interaction: discord.Interaction,
        action: TurnAction,
        *,
        step: int | None = None,
        holder: str | None = None,
    ) -> None:
        """Load the fight, apply the action for this user, save with its log line, announce, redraw."""
        channel_id = encounter_channel(interaction)
        actor = actor_of(interaction)

        def change(encounter: Encounter) -> Done[Announcement]:
            if step is not None and step != encounter.flow.step:
                raise OutOfDate(OutOfDate.TURNS)
            announcement = apply(encounter, action, actor, holder, self.bot)
            return Done(announcement, log=[log_line(announcement)], kind="initiative")

        saved, announcement = await self.bot.store.change(channel_id, actor.user_id, change)
        await interaction.response.send_message(
            announcement.content, allowed_mentions=announcement.allowed_mentions
        )
        await self.bot.trackers.publish(saved, repost=saved.table.repost_tracker)


def apply(
    encounter: Encounter, action: TurnAction, actor: Actor, holder: str | None, bot: Pommel
) -> Announcement:
    """One initiative action by ``actor``, checked for permission first (nothing changes if refused)."""
    state = encounter.initiative
    if action is TurnAction.DEAL:
        require_gm(encounter, actor, "deal the cards")
        dealt, advance = encounter.deal(bot.dice)
        return deal_announcement(encounter, dealt, advance, actor.user_id)
    if action is TurnAction.NEXT:
        _require_may_move_on(encounter, actor)
        return advance_announcement(encounter, encounter.next_turn(), actor.user_id)
    if action is TurnAction.HOLD:
        if state.turn_of is None:
            raise RulesError("No turn is in progress, so there is nothing to hold.")
        require_plays_holder(encounter, actor, state.turn_of, "hold")
        return advance_announcement(encounter, encounter.hold(), actor.user_id, held=True)
    claimant = _claimant(encounter, actor, holder)
    return advance_announcement(encounter, encounter.act(claimant), actor.user_id)


def _require_may_move_on(encounter: Encounter, actor: Actor) -> None:
    """Next: the player whose turn it is, or the GM; between turns, also a player offered the turn
    (declining it). Nobody else moves the fight on."""
    if is_gm(encounter, actor):
        return
    state = encounter.initiative
    if state.turn_of is not None:
        require_plays_holder(encounter, actor, state.turn_of, "end the turn of")
        return
    offered = [holder for holder in encounter.flow.offered if encounter.holder_owner(holder) == actor.user_id]
    if not offered:
        raise NotAllowed(f"Only the GM (<@{encounter.gm_id}>) can start the next turn now.")


def _claimant(encounter: Encounter, actor: Actor, wanted: str | None) -> str:
    """Whose card Act is for: the one named, else the user's own, else the GM's only NPC claimant."""
    state = encounter.initiative
    claimants = [holder for holder in state.may_claim if holder != state.turn_of]
    if wanted is not None:
        holder = _find_holder(encounter, wanted)
        require_plays_holder(encounter, actor, holder, "act on")
        return holder
    own = player_holder(actor.user_id)
    if own in state.cards or own in state.acted:
        return own
    if is_gm(encounter, actor):
        npc = [holder for holder in claimants if encounter.is_npc_holder(holder)]
        if len(npc) == 1:
            return npc[0]
        if npc:
            names = ", ".join(encounter.holder_name(holder) for holder in npc)
            raise RulesError(f"Several NPC cards may act: {names}. Name one with `/init act card:`.")
        raise RulesError("No NPC group holds a card or a Joker that could claim the next turn.")
    raise RulesError("You have no card in this round; you will be dealt one at the next deal.")


def _find_holder(encounter: Encounter, wanted: str) -> str:
    holders = set(encounter.initiative.cards) | set(encounter.initiative.acted)
    if wanted in holders:
        return wanted
    folded = wanted.strip().casefold()
    for holder in holders:
        if encounter.holder_name(holder).casefold() == folded:
            return holder
    names = ", ".join(encounter.holder_name(holder) for holder in encounter.initiative.may_claim) or "nobody"
    raise RulesError(f"No card called '{wanted}' is in play. Cards that may act now: {names}.")


class TurnButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=TURN_BUTTON):
    """The tracker's Next / Hold / Act / Deal buttons, alive across restarts (the id says it all)."""

    def __init__(self, action: TurnAction, step: int) -> None:
        super().__init__(discord.ui.Button(custom_id=turn_custom_id(action, step)))
        self.action = action
        self.step = step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TurnButton:
        return cls(TurnAction(match["action"]), int(match["step"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Init")
        try:
            if not isinstance(cog, Init):
                raise RulesError("Pommel is starting up; try again in a moment.")
            await cog.press(interaction, self.action, step=self.step)
        except Exception as error:  # a button has no command tree: answer here, like tree.on_error
            await answer_failure(interaction, error)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Init(bot))
