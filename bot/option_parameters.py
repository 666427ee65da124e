"""The rulings and table habits as slash-command options, declared once: ``/encounter options`` sets a
fight's, ``/server defaults`` the server's for the fights that start after."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from .rules.options import BashCritical, BindFeats, CriticalDamage, MissileTie, PassiveTie
from .rules.turns import ClaimPause
from .table_options import DefensePolicy, TablePreset, with_preset
from .ui.encounter_views import PRESET_HELP, RULE_OPTION_HELP, TABLE_OPTION_HELP, preset_choice_name


def _choices(enum: type[Any]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=member.value, value=member.value) for member in enum]


class SetsOptions:
    """A cog with an options command (made by :func:`options_command`): :meth:`set_options` gets the
    options given, as rulings (``RuleOptions`` fields) and table habits (``TableOptions`` fields)."""

    async def set_options(
        self, interaction: discord.Interaction, rules: dict[str, object], table: dict[str, object]
    ) -> None:
        raise NotImplementedError

    async def options_callback(
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
        passive_tie: app_commands.Choice[str] | None = None,
        weapon_damage_in_binds: bool | None = None,
        bind_feats: app_commands.Choice[str] | None = None,
        repost_tracker: bool | None = None,
        hide_npc_cards: bool | None = None,
        claim_pause: app_commands.Choice[str] | None = None,
        defense_policy: app_commands.Choice[str] | None = None,
        defense_timeout_minutes: app_commands.Range[int, 0, 10080] | None = None,
        remind_after_hours: app_commands.Range[int, 0, 168] | None = None,
        players_undo: bool | None = None,
        preset: app_commands.Choice[str] | None = None,
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
            "passive_tie": PassiveTie(passive_tie.value) if passive_tie else None,
            "weapon_damage_in_binds": weapon_damage_in_binds,
            "bind_feats": BindFeats(bind_feats.value) if bind_feats else None,
        }
        table: dict[str, object] = {
            "repost_tracker": repost_tracker,
            "hide_npc_cards": hide_npc_cards,
            "claim_pause": ClaimPause(claim_pause.value) if claim_pause else None,
            "defense_policy": DefensePolicy(defense_policy.value) if defense_policy else None,
            "defense_timeout_minutes": defense_timeout_minutes,
            "remind_after_hours": remind_after_hours,
            "players_undo": players_undo,
        }
        given = {key: value for key, value in table.items() if value is not None}
        await self.set_options(
            interaction,
            {key: value for key, value in rules.items() if value is not None},
            with_preset(TablePreset(preset.value) if preset else None, given),
        )


def options_command(name: str, description: str) -> app_commands.Command[Any, ..., None]:
    """A command of a :class:`SetsOptions` cog taking every ruling and table habit as an option."""
    command: app_commands.Command[Any, ..., None] = app_commands.command(name=name, description=description)(
        SetsOptions.options_callback
    )
    described = app_commands.describe(**RULE_OPTION_HELP, **TABLE_OPTION_HELP, preset=PRESET_HELP)(command)
    return app_commands.choices(
        critical_damage=_choices(CriticalDamage),
        bash_critical=_choices(BashCritical),
        missile_tie=_choices(MissileTie),
        passive_tie=_choices(PassiveTie),
        bind_feats=_choices(BindFeats),
        claim_pause=_choices(ClaimPause),
        defense_policy=_choices(DefensePolicy),
        preset=[app_commands.Choice(name=preset_choice_name(p), value=p.value) for p in TablePreset],
    )(described)
