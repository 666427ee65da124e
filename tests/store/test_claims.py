"""A reminder or a timeout is claimed in the database: its firing is a change of the fight, so of two
processes firing it at once (a handover) exactly one does, whatever the store."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.encounter import reminders
from bot.encounter.document import Encounter
from bot.rules.errors import RulesError
from bot.table_options import TableOptions
from tests.e2e.fights import StackedDice
from tests.sheets import character

from .conftest import Database

CHANNEL, GUILD, GM, ALICE, BOT = 100, 10, 1, 7, 99


async def test_of_two_processes_firing_one_reminder_exactly_one_does(database: Database) -> None:
    first, second = await database.open(), await database.outside_writer()
    try:
        encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
        encounter.join(ALICE, character("Alice"), None)
        encounter.table = TableOptions(remind_after_hours=6)
        encounter.deal(StackedDice(["KS"]))
        await first.save_encounter(encounter)
        now = datetime.now(UTC)
        await first.change(CHANNEL, BOT, lambda fight: reminders.remind(fight, now))  # the wait begins
        later = now + timedelta(hours=7)
        outcomes = await asyncio.gather(
            *(
                store.change(CHANNEL, BOT, lambda fight: reminders.remind(fight, later))
                for store in (first, second, first, second)
            ),
            return_exceptions=True,
        )
        fired = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
        assert len(fired) == 1, outcomes
        assert all(isinstance(outcome, RulesError) for outcome in outcomes if outcome not in fired)
        [(_, reminded)] = fired
        assert [wait.key for wait in reminded.waits] == ["turn:2"]
    finally:
        await first.close()
        await second.close()
