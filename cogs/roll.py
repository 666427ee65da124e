"""``/roll dice`` and ``/roll pool``: dice in any channel or DM; every roll in a server is logged.

``/roll log`` lets the server's GMs (Manage Server, or the server's GM role) check its rolls, the
private ones too, privately: the GM's way to see the private rolls outside a fight.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.fight_views import is_private
from bot.interactions.actors import actor_of
from bot.interactions.answering import answer
from bot.notation import EXAMPLES, roll_notation
from bot.rules.dice import roll_pool
from bot.rules.errors import RulesError
from bot.rules.pool import MAX_POOL
from bot.server_settings import require_may_check_rolls
from bot.store import MAX_LOG_PAGE, LogEntry, Store
from bot.store.receipts import mark_committed
from bot.ui.rolls import (
    ROLL_KINDS,
    ROLL_LOG_DEFAULT,
    ROLL_LOG_MAX,
    SituationChoice,
    advantage_of,
    notation_log_line,
    notation_reply,
    pool_log_line,
    pool_reply,
    roll_log_embed,
)

SEARCHED_PAGES = 5
"""``/roll log private_only`` looks through at most this many pages of the latest rolls (5000)."""


async def latest_rolls(
    store: Store, guild_id: int, *, user_id: int | None, private_only: bool, wanted: int
) -> tuple[list[LogEntry], int | None]:
    """The server's latest ``wanted`` rolls (of one member, private ones only), oldest first, and how
    many rolls were looked through when the search stopped short of the oldest (None when it did not)."""
    found: list[LogEntry] = []
    before: int | None = None
    for _ in range(SEARCHED_PAGES):
        page = await store.read_log_backwards(
            guild_id=guild_id, user_id=user_id, kinds=ROLL_KINDS, before_id=before, limit=MAX_LOG_PAGE
        )
        found += [entry for entry in page if is_private(entry) or not private_only]
        if len(found) >= wanted or len(page) < MAX_LOG_PAGE:
            return found[:wanted][::-1], None
        before = page[-1].id
    return found[:wanted][::-1], SEARCHED_PAGES * MAX_LOG_PAGE


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
            private,
            {
                "expression": roll.expression,
                "total": roll.total,
                "d20": list(roll.d20_faces),
                "private": private,
                "by": interaction.user.display_name,
            },
        )
        reply = notation_reply(interaction.user.mention, expression.strip(), roll)
        await answer(interaction, reply, ephemeral=private)

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
            private,
            {
                "faces": list(roll.faces),
                "counting": roll.counting,
                "bonus": bonus,
                "total": roll.value + bonus,
                "advantage": roll.advantage.name.lower(),
                "private": private,
                "by": interaction.user.display_name,
            },
        )
        await answer(interaction, pool_reply(interaction.user.mention, roll, bonus), ephemeral=private)

    @app_commands.command(
        name="log", description="The server's latest rolls, private ones too (Manage Server or the GM role)"
    )
    @app_commands.describe(
        member="Only this member's rolls",
        private_only="Only the rolls made privately",
        entries=f"How many of the latest rolls to show (default {ROLL_LOG_DEFAULT})",
    )
    async def log(
        self,
        interaction: discord.Interaction,
        member: discord.User | None = None,
        private_only: bool = False,
        entries: app_commands.Range[int, 1, ROLL_LOG_MAX] = ROLL_LOG_DEFAULT,
    ) -> None:
        if interaction.guild_id is None:
            raise RulesError("Only a server's rolls are logged: `/roll log` reads them in that server.")
        settings = await self.bot.store.guild_settings(interaction.guild_id)
        require_may_check_rolls(settings, actor_of(interaction))
        found, searched = await latest_rolls(
            self.bot.store,
            interaction.guild_id,
            user_id=member.id if member is not None else None,
            private_only=private_only,
            wanted=entries,
        )
        embed = roll_log_embed(
            found,
            member=member.id if member is not None else None,
            private_only=private_only,
            searched=searched,
        )
        await answer(interaction, embed=embed, ephemeral=True)

    async def _log(
        self, interaction: discord.Interaction, text: str, private: bool, data: dict[str, object]
    ) -> None:
        """Rolls in a server go to its log before anyone sees them; rolls in DMs are nobody else's.

        Once logged, the roll is made: a reply Discord does not take is then told as a roll saved (in
        the channel when the interaction is gone), never as "nothing was changed"; a private roll's
        result stays out of that notice."""
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
        mark_committed(["your private roll" if private else text], to="roll")


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Roll(bot))
