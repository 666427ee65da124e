"""``/odds``: the exact odds of an attack, from bare numbers anywhere, or filled in from the fight.

With numbers it works anywhere, DMs included, like ``/roll``. With ``target:`` in a fight's channel the
fight supplies the numbers (:mod:`bot.encounter.odds`). Nothing is rolled, spent or logged.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.kept_entries import fight_catalog
from bot.encounter.odds import PLAN_DICE, numbers_odds, odds_in_encounter, odds_plan, require_options_fit
from bot.interactions.actors import actor_of, channel_encounter
from bot.interactions.answering import answer, defer_for
from bot.interactions.options import CombatantName
from bot.rules.equipment import AttackType
from bot.rules.options import DEFAULT_OPTIONS
from bot.rules.pool import MAX_POOL
from bot.ui.attachments import chart_file
from bot.ui.charts import Chart, drawn
from bot.ui.odds_views import encounter_chart, encounter_reply, numbers_chart, numbers_reply
from bot.ui.rolls import SituationChoice, advantage_of

AttackTypeChoice = Literal["bash", "pierce", "chop", "slash"]


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
class Odds(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    @app_commands.command(name="odds", description="The exact odds of an attack: hit, critical, bind, fumble")
    @app_commands.describe(
        target="In a fight: whom to attack (the fight fills in every number)",
        who="In a fight: who attacks (default: your combatant; the GM names an NPC)",
        dice=f"Attack dice, 1 to {MAX_POOL} (default 1)",
        attack_type="In a fight: the attack type (default: the weapon's primary type)",
        bonus="Without a target: the attack bonus (Prowess + weapon + modifiers, R11)",
        defense="Without a target: the target's passive defense (R13)",
        defense_dice="Without a target: active defense dice, free shield/cover dice included (R14)",
        defense_bonus="Without a target: the active defense bonus (R14)",
        situation="The attacker's advantage or disadvantage (R10, R25)",
        void="The defender defends actively without weapon or shield DB: no Bind (R14 step 6)",
        missile="Without a target: a missile attack (a tie is a near miss, not a Bind)",
        public="Show the odds to the whole channel (default: only you)",
        unseen="In a fight: the GM rules the target cannot see the attacker: advantage (R25)",
        merciful="In a fight: the attacker's side shows mercy (a frightened target may surrender, R21)",
        chart=f"Attach a chart of the same attack with 1 to {PLAN_DICE} dice (default: yes)",
    )
    async def odds(
        self,
        interaction: discord.Interaction,
        target: CombatantName | None = None,
        who: CombatantName | None = None,
        dice: app_commands.Range[int, 1, MAX_POOL] | None = None,
        attack_type: AttackTypeChoice | None = None,
        bonus: app_commands.Range[int, -50, 50] | None = None,
        defense: app_commands.Range[int, -50, 80] | None = None,
        defense_dice: app_commands.Range[int, 1, MAX_POOL + 5] | None = None,
        defense_bonus: app_commands.Range[int, -50, 50] | None = None,
        situation: SituationChoice | None = None,
        void: bool = False,
        missile: bool | None = None,
        public: bool = False,
        unseen: bool = False,
        merciful: bool = False,
        chart: bool = True,
    ) -> None:
        given = {
            "who": who,
            "attack_type": attack_type,
            "bonus": bonus,
            "defense": defense,
            "defense_dice": defense_dice,
            "defense_bonus": defense_bonus,
            "missile": missile,
            "unseen": unseen or None,
            "merciful": merciful or None,
        }
        require_options_fit(given, target=target is not None)
        encounter = await channel_encounter(interaction)
        draw: Callable[[], Chart]
        if target is not None:
            ask = partial(
                odds_in_encounter,
                encounter,
                fight_catalog(self.bot.catalog, encounter),
                actor_of(interaction),
                target=target,
                attacker=who,
                attack_type=AttackType(attack_type) if attack_type else None,
                extra=advantage_of(situation),
                void=void,
                unseen=unseen,
                merciful=merciful,
            )
            asked = ask(dice=dice)
            reply = encounter_reply(asked)
            draw = lambda: encounter_chart(asked, odds_plan(lambda n: ask(dice=n)))  # noqa: E731
        else:
            ask_numbers = partial(
                numbers_odds,
                bonus=bonus or 0,
                defense=defense,
                defense_dice=defense_dice,
                defense_bonus=defense_bonus,
                advantage=advantage_of(situation),
                void=void,
                missile=bool(missile),
                options=encounter.options if encounter is not None else DEFAULT_OPTIONS,
            )
            asked_numbers = ask_numbers(dice=dice or 1)
            reply = numbers_reply(asked_numbers)
            draw = lambda: numbers_chart(  # noqa: E731
                asked_numbers, odds_plan(lambda n: ask_numbers(dice=n))
            )
        attached: dict[str, Any] = {}
        if chart:
            await defer_for(interaction, ephemeral=not public)  # the chart takes a moment: answered in time
            attached["file"] = chart_file(await drawn(draw))
        await answer(interaction, reply, ephemeral=not public, **attached)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Odds(bot))
