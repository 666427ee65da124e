"""``/encounter start | end | show | log | options | gm``: a channel's fight from its start to its summary.

One fight per channel (or thread). Whoever starts it is its GM (when the server sets a GM role with
``/server gm_role``, only members with it may); the GM changes its options, hands it on, and ends it,
which posts the summary with the whole log attached. What these change is in
:mod:`bot.encounter.roster`.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import roster
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import is_gm, require_fight
from bot.encounter.records import DefensePolicy
from bot.interactions import actor_of, channel_encounter, encounter_place, member_actor
from bot.rules.errors import RulesError
from bot.rules.options import BashCritical, CriticalDamage, MissileTie
from bot.rules.turns import ClaimPause
from bot.store import MAX_LOG_PAGE, LogEntry, StaleEncounter
from bot.ui.encounter_views import (
    RULE_OPTION_HELP,
    TABLE_OPTION_HELP,
    gm_handed_reply,
    options_changed_reply,
    options_embed,
    overview_embed,
    started_reply,
    who_runs_fights,
)
from bot.ui.fight_log import (
    LOG_DEFAULT,
    LOG_MAX,
    fight_summary,
    log_filename,
    log_lines,
    log_markdown,
    visible_to,
)
from bot.ui.tracker import TRACKER_COLOUR


def _choices(enum: type[Any]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=member.value, value=member.value) for member in enum]


def log_entries(
    done: Done[Any], guild_id: int, channel_id: int, user_id: int, *, at: datetime | None = None
) -> list[LogEntry]:
    """An operation's log lines as the store's entries, for a change not made by ``Store.change``."""
    return [
        LogEntry(
            at=at if at is not None else datetime.now(UTC),
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=user_id,
            kind=done.kind,
            text=line,
            data=dict(done.data),
        )
        for line in done.log
    ]


async def fight_log(bot: Pommel, encounter: Encounter) -> list[LogEntry]:
    """Every log entry of the fight's channel since it started, oldest first, private rolls included."""
    entries: list[LogEntry] = []
    after = 0
    while True:
        page = await bot.store.read_log(channel_id=encounter.channel_id, after_id=after, limit=MAX_LOG_PAGE)
        entries.extend(entry for entry in page if entry.at >= encounter.started_at)
        if len(page) < MAX_LOG_PAGE:
            return entries
        after = page[-1].id or after


@app_commands.guild_only()
class EncounterCog(
    commands.GroupCog, group_name="encounter", group_description="Run this channel's fight (GM)"
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def load(self, interaction: discord.Interaction) -> Encounter:
        encounter_place(interaction)  # refuses direct messages
        return require_fight(await channel_encounter(interaction))

    # ------------------------------------------------------------------------------ start and end

    @app_commands.command(name="start", description="Start a fight in this channel, with you as its GM")
    async def start(self, interaction: discord.Interaction) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        started = roster.start(settings, actor_of(interaction), interaction.user.display_name, channel_id)
        encounter = started.result
        events = log_entries(started, guild_id, channel_id, interaction.user.id, at=encounter.started_at)
        try:
            saved = await self.bot.store.save_encounter(encounter, events=events)
        except StaleEncounter:
            running = await self.bot.store.load_encounter(channel_id)
            gm = f" (GM: <@{running.gm_id}>)" if running is not None else ""
            raise RulesError(
                f"A fight is already running in this channel{gm}. Its GM ends it with `/encounter end` "
                "before a new one can start."
            ) from None
        await interaction.response.send_message(started_reply(saved))
        await self.bot.trackers.publish(saved)

    @app_commands.command(name="end", description="GM: end this fight; posts the summary and the whole log")
    async def end(self, interaction: discord.Interaction) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, channel_id = encounter_place(interaction)
        ended, _ = await self.bot.store.change(
            channel_id, actor.user_id, lambda encounter: roster.end(encounter, actor, by)
        )
        entries = await fight_log(self.bot, ended)
        channel = getattr(interaction.channel, "name", None) or f"channel {channel_id}"
        document = log_markdown(ended, entries, channel=f"#{channel}", ended_at=datetime.now(UTC))
        summary = fight_summary(ended)
        await interaction.response.send_message(
            embed=discord.Embed(title="⚔️ Fight over", description=summary, colour=TRACKER_COLOUR),
            file=discord.File(io.BytesIO(document.encode()), filename=log_filename(ended)),
        )
        await self.bot.trackers.close(ended, summary)

    # ------------------------------------------------------------------------------ looking

    @app_commands.command(name="show", description="This fight at a glance: GM, round, options, combatants")
    async def show(self, interaction: discord.Interaction) -> None:
        encounter = await self.load(interaction)
        guild_id, _ = encounter_place(interaction)
        gm = is_gm(encounter, actor_of(interaction))
        embed = overview_embed(encounter, self.bot.catalog, guild_id=guild_id, gm=gm)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="log", description="The latest entries of this fight's log")
    @app_commands.describe(entries=f"How many of the latest entries to show (default {LOG_DEFAULT})")
    async def log(
        self, interaction: discord.Interaction, entries: app_commands.Range[int, 1, LOG_MAX] = LOG_DEFAULT
    ) -> None:
        encounter = await self.load(interaction)
        gm = is_gm(encounter, actor_of(interaction))
        everything = await fight_log(self.bot, encounter)
        shown = [entry for entry in everything if visible_to(entry, interaction.user.id, gm=gm)]
        latest = shown[-entries:]
        since = (latest[0].id or 0) if len(shown) > entries else 0
        hidden = sum(
            1
            for entry in everything
            if (entry.id or 0) > since and not visible_to(entry, interaction.user.id, gm=gm)
        )
        embed = discord.Embed(
            title="📜 This fight's log", description=log_lines(latest, hidden), colour=TRACKER_COLOUR
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # ------------------------------------------------------------------------------ options

    @app_commands.command(name="options", description="GM: change this fight's rulings and table habits")
    @app_commands.describe(**RULE_OPTION_HELP, **TABLE_OPTION_HELP)
    @app_commands.choices(
        critical_damage=_choices(CriticalDamage),
        bash_critical=_choices(BashCritical),
        missile_tie=_choices(MissileTie),
        claim_pause=_choices(ClaimPause),
        defense_policy=_choices(DefensePolicy),
    )
    async def options(
        self,
        interaction: discord.Interaction,
        attack_types_vs_armor: bool | None = None,
        dynamic_criticals: bool | None = None,
        critical_damage: app_commands.Choice[str] | None = None,
        bash_critical: app_commands.Choice[str] | None = None,
        missile_tie: app_commands.Choice[str] | None = None,
        joker_bonus: app_commands.Range[int, 0, 5] | None = None,
        desperation_min_pool: app_commands.Range[int, 0, 4] | None = None,
        routed_attack_disadvantage: bool | None = None,
        ac_natural_results: bool | None = None,
        repost_tracker: bool | None = None,
        hide_npc_cards: bool | None = None,
        claim_pause: app_commands.Choice[str] | None = None,
        defense_policy: app_commands.Choice[str] | None = None,
        defense_timeout_minutes: app_commands.Range[int, 0, 10080] | None = None,
    ) -> None:
        rules: dict[str, object] = {
            "attack_types_vs_armor": attack_types_vs_armor,
            "dynamic_criticals": dynamic_criticals,
            "critical_damage": CriticalDamage(critical_damage.value) if critical_damage else None,
            "bash_critical": BashCritical(bash_critical.value) if bash_critical else None,
            "missile_tie": MissileTie(missile_tie.value) if missile_tie else None,
            "joker_bonus": joker_bonus,
            "desperation_min_pool": desperation_min_pool,
            "routed_attack_disadvantage": routed_attack_disadvantage,
            "ac_natural_results": ac_natural_results,
        }
        table: dict[str, object] = {
            "repost_tracker": repost_tracker,
            "hide_npc_cards": hide_npc_cards,
            "claim_pause": ClaimPause(claim_pause.value) if claim_pause else None,
            "defense_policy": DefensePolicy(defense_policy.value) if defense_policy else None,
            "defense_timeout_minutes": defense_timeout_minutes,
        }
        rule_update = {key: value for key, value in rules.items() if value is not None}
        table_update = {key: value for key, value in table.items() if value is not None}
        if not rule_update and not table_update:
            encounter = await self.load(interaction)
            await interaction.response.send_message(embed=options_embed(encounter), ephemeral=True)
            return
        actor = actor_of(interaction)
        _, channel_id = encounter_place(interaction)
        saved, changes = await self.bot.store.change(
            channel_id,
            actor.user_id,
            lambda encounter: roster.change_options(encounter, actor, rule_update, table_update),
        )
        await interaction.response.send_message(options_changed_reply(changes), ephemeral=not changes)
        if changes:
            await self.bot.trackers.publish(saved)

    # ------------------------------------------------------------------------------ who runs it

    @app_commands.command(name="gm", description="Hand this fight to another GM, or see who runs fights here")
    @app_commands.describe(member="GM: hand this fight to this member, who becomes its GM")
    async def gm(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        guild_id, channel_id = encounter_place(interaction)
        if member is None:
            settings = await self.bot.store.guild_settings(guild_id)
            encounter = await self.bot.store.load_encounter(channel_id)
            await interaction.response.send_message(who_runs_fights(encounter, settings), ephemeral=True)
            return
        if member.bot:
            raise RulesError(f"{member.mention} is a bot; a fight needs a person as its GM.")
        settings = await self.bot.store.guild_settings(guild_id)
        actor, successor = actor_of(interaction), member_actor(member)
        by, whom = interaction.user.display_name, member.display_name
        saved, handed = await self.bot.store.change(
            channel_id,
            actor.user_id,
            lambda encounter: roster.hand_over(encounter, actor, by, settings, successor, whom),
        )
        new_gm = [discord.Object(handed.new_gm)] if handed.new_gm != interaction.user.id else []
        await interaction.response.send_message(
            gm_handed_reply(handed), allowed_mentions=discord.AllowedMentions(users=new_gm)
        )
        await self.bot.trackers.publish(saved)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(EncounterCog(bot))
