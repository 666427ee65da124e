"""Reminders for play-by-post: a sweep over the fights pings whoever a long wait is for, once.

A repeating job of the bot's scheduler sweeps the fights with something due (the store's index of due
times, :meth:`~bot.store.Store.due_fights`: an idle fight is not read) when the bot starts and then every
:data:`SWEEP_MINUTES`. The option counts in hours, so a reminder a few minutes late is no harm, and a
sweep needs no hook in every command that starts or ends a wait, nor a timer per channel to rebuild:
after a restart the first sweep sends what fell due while the bot was down. What is due, and marking it
reminded (so it never is twice), is :func:`bot.encounter.reminders.remind`'s, in one change; what the
reminder says, :mod:`bot.ui.reminder_views`'.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import discord
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import reminders
from bot.encounter.due import next_due
from bot.rules.errors import RulesError
from bot.ui.errors import DISCORD_FAILURES
from bot.ui.reminder_views import reminder_announcement

log = logging.getLogger(__name__)

SWEEP_MINUTES = 5
SWEEP = "reminders' sweep"
"""The sweep's key in the bot's scheduler."""


class Reminders(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        self.every = SWEEP_MINUTES * 60.0

    async def cog_load(self) -> None:
        self.bot.scheduler.every(self.every, SWEEP, self.sweep, first=self.bot.wait_until_ready)

    async def cog_unload(self) -> None:
        await self.bot.scheduler.stop(SWEEP)

    async def sweep(self, now: datetime | None = None) -> None:
        """Remind, in every fight with reminders on, what has waited long enough and was not reminded.
        Only the fights the index of due times says are due by now are read."""
        when = now or datetime.now(UTC)
        for due in await self.bot.store.due_fights(when):
            if not self.bot.owns(due.guild_id):  # another process's guild
                continue
            try:
                await self.remind(due.channel_id, when, due.due_at)
            except Exception:
                log.exception("the reminder of channel %s failed", due.channel_id)

    async def remind(self, channel_id: int, now: datetime, indexed: datetime | None = None) -> None:
        """Not a command: a unit of work of its own (:mod:`bot.events`), whose change is drawn once told."""
        async with self.bot.events.collecting():
            await self._remind(channel_id, now, indexed)

    async def _remind(self, channel_id: int, now: datetime, indexed: datetime | None) -> None:
        encounter = await self.bot.store.load_encounter(channel_id)
        if encounter is None or not self.bot.owns(encounter.guild_id):  # another process's guild
            return
        if not reminders.worth_a_change(encounter, now):
            # Nothing to remind: the index is put right if it said otherwise (a fight to check, stored
            # before the index or reopened), so the next sweep passes it by.
            if next_due(encounter) != indexed:
                await self.bot.store.recheck_due(encounter)
            return
        bot_id = self.bot.user.id if self.bot.user else 0
        try:
            saved, reminded = await self.bot.store.change(
                channel_id, bot_id, lambda current: reminders.remind(current, now)
            )
        except RulesError:
            return  # acted on meanwhile, or the fight ended
        if not reminded.waits:
            return
        announcement = reminder_announcement(saved, reminded)
        try:
            channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                return
            await channel.send(announcement.content, allowed_mentions=announcement.allowed_mentions)
        except DISCORD_FAILURES as error:
            if not await self.bot.trackers.refusals.refused(saved, "a reminder", error):
                raise


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Reminders(bot))
