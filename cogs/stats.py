"""``/stats dice``: how often each face of the d20 came up in the server's rolls, with a chart and an honest
test of fairness (:mod:`bot.dice_stats`).

For the server, this channel, or this channel's fight (the running one, else the last one that ended),
of one member when given, over the last days when given. A public answer counts public rolls only; a
private one (``private:true``) counts the asker's own private rolls too, and everyone's for a GM
(Manage Server or the server's GM role; for a fight, its GM too). The store counts (a year of rolls is
counted in a fraction of a second), and the chart is drawn off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.dice_stats import FACES, fairness
from bot.encounter.permissions import Actor, is_gm
from bot.interactions.actors import actor_of, channel_encounter, encounter_channel, encounter_place
from bot.interactions.answering import answer, defer_for
from bot.rules.errors import RulesError
from bot.server_settings import may_check_rolls
from bot.store import Store
from bot.ui.attachments import chart_file
from bot.ui.charts import dice_chart, drawn
from bot.ui.stats_views import DiceQuestion, dice_reply

ScopeChoice = Literal["server", "channel", "fight"]
MAX_DAYS = 3660

NO_FIGHT_HERE = (
    "No fight has run in this channel, so there are no fight rolls to count. "
    "Use `of:channel` for this channel's rolls, or `of:server`."
)


@dataclass(frozen=True, slots=True)
class Scope:
    """Which of the server's rolls are counted, and whether the asker is a GM of them."""

    label: str
    gm: bool
    channel_id: int | None = None
    since: datetime | None = None
    through_id: int | None = None
    fight: bool = False
    """A fight's rolls: its attacks, defenses, morale checks and spiritual attacks count too."""


async def scope_of(
    store: Store, interaction: discord.Interaction, of: ScopeChoice, actor: Actor, server_gm: bool
) -> Scope:
    channel_id = encounter_channel(interaction)
    if of == "server":
        return Scope("the server", server_gm)
    channel = f"#{getattr(interaction.channel, 'name', None) or 'this channel'}"
    if of == "channel":
        return Scope(channel, server_gm, channel_id)
    encounter = await channel_encounter(interaction)
    if encounter is not None:
        gm = server_gm or is_gm(encounter, actor)
        return Scope(f"the fight in {channel}", gm, channel_id, since=encounter.started_at, fight=True)
    ended = await store.ended_encounters(channel_id, limit=1)
    if not ended:
        raise RulesError(NO_FIGHT_HERE)
    [last] = ended
    gm = server_gm or actor.user_id == last.gm_id or actor.manages_server
    label = f"the last fight in {channel}"
    return Scope(label, gm, channel_id, since=last.started_at, through_id=last.last_log_id, fight=True)


@app_commands.guild_only()
class Stats(commands.GroupCog, group_name="stats", group_description="What the server's log says"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="dice", description="How often each d20 face came up, with a chart and a fairness test"
    )
    @app_commands.describe(
        of="The server's rolls (default), this channel's, or its fight's (the running one, or the last)",
        member="Only this member's rolls",
        days=f"Only the rolls of the last N days (default: the whole log; up to {MAX_DAYS})",
        private="Only you see the answer, which then counts your own private rolls too (a GM's: everyone's)",
    )
    async def dice(
        self,
        interaction: discord.Interaction,
        of: ScopeChoice = "server",
        member: discord.User | None = None,
        days: app_commands.Range[int, 1, MAX_DAYS] | None = None,
        private: bool = False,
    ) -> None:
        guild_id, _ = encounter_place(interaction)
        actor = actor_of(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        scope = await scope_of(self.bot.store, interaction, of, actor, may_check_rolls(settings, actor))
        since = scope.since
        if days is not None:
            recent = datetime.now(UTC) - timedelta(days=days)
            since = recent if since is None else max(since, recent)
        user_id = member.id if member is not None else None
        tally = await self.bot.store.tally_d20(
            guild_id=guild_id,
            channel_id=scope.channel_id,
            user_id=user_id,
            since=since,
            through_id=scope.through_id,
            viewer=actor.user_id if private else None,
            gm=private and scope.gm,
        )
        if scope.fight and scope.channel_id is not None:
            tally += await self.bot.store.tally_fight_d20(
                guild_id=guild_id,
                channel_id=scope.channel_id,
                user_id=user_id,
                since=since,
                through_id=scope.through_id,
            )
        result = fairness(dict(zip(FACES, tally.faces, strict=True)), tally.rolls)
        question = DiceQuestion(
            scope.label,
            member=member.display_name if member is not None else None,
            days=days,
            private=("all" if scope.gm else "own") if private else "none",
            fight=scope.fight,
        )
        await defer_for(interaction, ephemeral=private)  # the chart takes a moment: answered in time
        chart = await drawn(lambda: dice_chart(result, question.whose))
        await answer(
            interaction, dice_reply(question, result, tally.hidden), file=chart_file(chart), ephemeral=private
        )


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Stats(bot))
