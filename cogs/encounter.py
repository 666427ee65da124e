"""``/encounter start | end | show | log | options | gm``: a channel's fight from its start to its summary.

One fight per channel (or thread). Whoever starts it is its GM (when the server sets a GM role, only
members with it may); the GM changes its options, hands it on, and ends it, which posts the summary
with the whole log attached.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.document import Encounter, TableOptions
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed
from bot.encounter.permissions import is_gm, may_run_fights, require_fight, require_gm, require_may_run_fights
from bot.encounter.records import DefensePolicy
from bot.interactions import actor_of, channel_encounter, encounter_place, member_actor
from bot.rules.errors import RulesError
from bot.rules.options import BashCritical, CriticalDamage, MissileTie, RuleOptions
from bot.rules.turns import ClaimPause
from bot.store import MAX_LOG_PAGE, LogEntry, StaleEncounter
from bot.ui.encounter_views import (
    RULE_OPTION_HELP,
    TABLE_OPTION_HELP,
    gm_handed_reply,
    option_changes,
    options_changed_log,
    options_changed_reply,
    options_embed,
    overview_embed,
    started_reply,
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
        require_may_run_fights(settings, actor_of(interaction), "start a fight")
        encounter = Encounter(
            channel_id=channel_id, guild_id=guild_id, gm_id=interaction.user.id, options=settings.options
        )
        started = LogEntry(
            at=encounter.started_at,
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=interaction.user.id,
            kind="encounter",
            text=f"{interaction.user.display_name} started a fight",
        )
        try:
            saved = await self.bot.store.save_encounter(encounter, events=[started])
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
        who = interaction.user.display_name

        def finish(encounter: Encounter) -> Done[None]:
            require_gm(encounter, actor, "end the fight")
            rounds = encounter.initiative.round
            plural = "" if rounds == 1 else "s"
            return Done(None, log=[f"{who} ended the fight after {rounds} round{plural}"], end=True)

        _, channel_id = encounter_place(interaction)
        ended, _ = await self.bot.store.change(channel_id, interaction.user.id, finish)
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

        def change(encounter: Encounter) -> Done[list[tuple[str, object, object]]]:
            require_gm(encounter, actor, "change the fight's options")
            options: RuleOptions = encounter.options.model_copy(update=rule_update)
            table_options: TableOptions = encounter.table.model_copy(update=table_update)
            changes = option_changes(encounter.options, options) + option_changes(
                encounter.table, table_options
            )
            encounter.options, encounter.table = options, table_options
            return Done(changes, log=[options_changed_log(changes)] if changes else [])

        _, channel_id = encounter_place(interaction)
        saved, changes = await self.bot.store.change(channel_id, interaction.user.id, change)
        await interaction.response.send_message(options_changed_reply(changes), ephemeral=not changes)
        if changes:
            await self.bot.trackers.publish(saved)

    # ------------------------------------------------------------------------------ who runs fights

    @app_commands.command(
        name="gm", description="Hand this fight to another GM, or set who may run fights here"
    )
    @app_commands.describe(
        member="GM: hand this fight to this member, who becomes its GM",
        server_role="Manage Server: only members with this role may start or be handed fights",
        clear_server_role="Manage Server: let anyone start fights again",
    )
    async def gm(
        self,
        interaction: discord.Interaction,
        member: discord.Member | None = None,
        server_role: discord.Role | None = None,
        clear_server_role: bool = False,
    ) -> None:
        if member is not None and (server_role is not None or clear_server_role):
            raise RulesError("Hand the fight over, or set the server's GM role: one at a time.")
        if server_role is not None and clear_server_role:
            raise RulesError("Set a GM role or clear it, not both.")
        if member is not None:
            await self.hand_over(interaction, member)
        elif server_role is not None or clear_server_role:
            await self.set_gm_role(interaction, server_role)
        else:
            await self.who_runs_fights(interaction)

    async def hand_over(self, interaction: discord.Interaction, member: discord.Member) -> None:
        guild_id, channel_id = encounter_place(interaction)
        if member.bot:
            raise RulesError(f"{member.mention} is a bot; a fight needs a person as its GM.")
        settings = await self.bot.store.guild_settings(guild_id)
        actor = actor_of(interaction)
        who, whom = interaction.user.display_name, member.display_name

        def change(encounter: Encounter) -> Done[int]:
            require_gm(encounter, actor, "hand the fight to someone else")
            if encounter.gm_id == member.id:
                raise RulesError(f"{member.mention} already runs this fight.")
            if not may_run_fights(settings, member_actor(member)):
                raise NotAllowed(
                    f"{member.mention} can't run fights here: on this server only members with the "
                    f"<@&{settings.gm_role_id}> role (or Manage Server) can."
                )
            old, encounter.gm_id = encounter.gm_id, member.id
            return Done(old, log=[f"{who} handed the fight to {whom}"])

        saved, old_gm = await self.bot.store.change(channel_id, interaction.user.id, change)
        await interaction.response.send_message(gm_handed_reply(old_gm, saved.gm_id))
        await self.bot.trackers.publish(saved)

    async def set_gm_role(self, interaction: discord.Interaction, role: discord.Role | None) -> None:
        guild_id, channel_id = encounter_place(interaction)
        if not actor_of(interaction).manages_server:
            raise NotAllowed(
                "Only members with the Manage Server permission can set who may run fights here."
            )
        if role is not None and role.is_default():
            raise RulesError("Everyone has @everyone; to let anyone run fights, clear the GM role instead.")
        settings = await self.bot.store.guild_settings(guild_id)
        if role is None:
            text = "Anyone on this server may now start fights."
            logged = f"{interaction.user.display_name} cleared the server's GM role"
        else:
            text = f"Only members with the {role.mention} role (or Manage Server) may now start fights here."
            logged = f"{interaction.user.display_name} set the server's GM role to {role.name}"
        user_id = interaction.user.id
        event = LogEntry(
            guild_id=guild_id, channel_id=channel_id, user_id=user_id, kind="settings", text=logged
        )
        chosen = settings.model_copy(update={"gm_role_id": role.id if role is not None else None})
        await self.bot.store.save_guild_settings(chosen, events=[event])
        await interaction.response.send_message(f"👑 {text}")

    async def who_runs_fights(self, interaction: discord.Interaction) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        encounter = await self.bot.store.load_encounter(channel_id)
        lines = [f"This fight's GM: <@{encounter.gm_id}>." if encounter else "No fight runs in this channel."]
        if settings.gm_role_id is None:
            lines.append("Anyone on this server may start a fight.")
        else:
            lines.append(
                f"Only members with the <@&{settings.gm_role_id}> role (or Manage Server) may run fights."
            )
        await interaction.response.send_message("\n".join(lines), ephemeral=True)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(EncounterCog(bot))
