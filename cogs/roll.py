"""``/roll dice`` and ``/roll pool``: dice in any channel or DM; every roll in a server is logged."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.notation import EXAMPLES, roll_notation
from bot.rules.dice import roll_pool
from bot.rules.pool import MAX_POOL
from bot.store import LogEntry
from bot.ui.rolls import (
    SituationChoice,
    advantage_of,
    notation_log_line,
    notation_reply,
    pool_log_line,
    pool_reply,
)


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
class Roll(commands.GroupCog, group_name="roll", group_description="Roll dice"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="dice", description="Roll dice notation: 1d20+5, 4d20kh1+5, 2d6+3, 1d20 adv")
    @app_commands.describe(
        expression=f"Dice notation, e.g. {EXAMPLES}",
        private="Only you see the result (it is still logged for the GM)",
    )
    async def dice(
        self,
        interaction: discord.Interaction,
        expression: str,
        private: bool = False,
    ) -> None:
        roll = roll_notation(expression, self.bot.dice)
        await self._log(
            interaction,
            notation_log_line(interaction.user.display_name, roll),
            {"expression": roll.expression, "total": roll.total, "private": private},
        )
        reply = notation_reply(interaction.user.mention, expression.strip(), roll)
        await interaction.response.send_message(reply, ephemeral=private)

    @app_commands.command(
        name="pool", description="A Martial Pool roll: roll the dice, keep the highest (R9)"
    )
    @app_commands.describe(
        dice="Pool dice to roll",
        bonus="Added to the die that counts (Prowess, weapon, modifiers)",
        situation="Advantage adds a die; disadvantage adds one and removes the highest (R10)",
        private="Only you see the result (it is still logged for the GM)",
    )
    async def pool(
        self,
        interaction: discord.Interaction,
        dice: app_commands.Range[int, 1, MAX_POOL],
        bonus: app_commands.Range[int, -50, 50] = 0,
        situation: SituationChoice | None = None,
        private: bool = False,
    ) -> None:
        advantage = advantage_of(situation)
        roll = roll_pool(self.bot.dice, dice, advantage)
        await self._log(
            interaction,
            pool_log_line(interaction.user.display_name, roll, bonus),
            {
                "faces": list(roll.faces),
                "counting": roll.counting,
                "bonus": bonus,
                "total": roll.value + bonus,
                "advantage": roll.advantage.name.lower(),
                "private": private,
            },
        )
        await interaction.response.send_message(
            pool_reply(interaction.user.mention, roll, bonus), ephemeral=private
        )

    async def _log(self, interaction: discord.Interaction, text: str, data: dict[str, object]) -> None:
        """Rolls in a server go to its log before anyone sees them; rolls in DMs are nobody else's."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return
        await self.bot.store.append_log(
            LogEntry(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                user_id=interaction.user.id,
                kind="roll",
                text=text,
                data=data,
            )
        )


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Roll(bot))
