"""A fight in a real SQLite store, for the tests of the operations the cogs run through ``Store.change``
(``test_lifecycle``, ``test_join``, ``test_npc``, ``test_combatant``): the ``store`` fixture holds it, and
the helpers read the document it saved and the log lines written with it. A refused operation saves
nothing and logs nothing (:func:`refused`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import Actor
from bot.rules.dice import ScriptedDice
from bot.rules.errors import RulesError
from bot.rules.turns import ClaimPause
from bot.store import Store, open_store
from bot.table_options import TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
CHANNEL = 100
GUILD = 10
GM = 1
ANN = 11
BOB = 12
GM_ROLE = 77
THE_GM = Actor(GM)
ANN_ACTS = Actor(ANN)
BOB_ACTS = Actor(BOB)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A real SQLite store with a fight in #100: Ansel (Ann's), Bors (Bob's) and three Bandits, led
    by the first."""
    opened = await open_store(tmp_path / "pommel.db")
    encounter = Encounter(
        channel_id=CHANNEL, guild_id=GUILD, gm_id=GM, table=TableOptions(claim_pause=ClaimPause.NEVER)
    )
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Bors"), None)
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, None, count=3, group="Bandits", leader=True)
    await opened.save_encounter(encounter)
    yield opened
    await opened.close()


async def saved(store: Store) -> Encounter:
    encounter = await store.load_encounter(CHANNEL)
    assert encounter is not None
    return encounter


async def logged(store: Store) -> list[str]:
    return [entry.text for entry in await store.read_log(channel_id=CHANNEL)]


async def refused(store: Store, operation: Callable[[Encounter], Done[Any]], match: str) -> RulesError:
    """The operation is refused with ``match`` in its message, and the store holds what it held."""
    before, log_before = await saved(store), await store.read_log(channel_id=CHANNEL)
    with pytest.raises(RulesError, match=match) as refusal:
        await store.change(CHANNEL, GM, operation)
    assert await saved(store) == before
    assert await store.read_log(channel_id=CHANNEL) == log_before
    return refusal.value


async def deal(store: Store, *codes: str) -> Encounter:
    """Cards dealt to Ann, Bob and the Bandits in that order; the first card's turn starts (R1, R2)."""
    encounter = await saved(store)
    encounter.initiative.deck = deck_dealing(*codes)
    encounter.deal(ScriptedDice([]))
    return await store.save_encounter(encounter)
