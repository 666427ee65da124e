"""The bus (:mod:`bot.events`): what a change announces is collected by its unit of work and handled once,
after the work, never for a change that raised; the handlers' own changes are no news; and no cog draws
a tracker or a fight's messages by hand any more."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.lifecycle import EndedFight
from bot.events import (
    Bus,
    Event,
    FightChanged,
    FightEnded,
    FightReopened,
    TrackerAsked,
    announce,
    coalesced,
    redrawn_after,
)
from bot.rules.errors import RulesError
from bot.store import Store, open_store

CHANNEL = 100
GM = 1
COGS = Path(__file__).resolve().parent.parent / "cogs"


def next_round(encounter: Encounter) -> Done[None]:
    encounter.initiative.round += 1
    return Done(None, log=[f"round {encounter.initiative.round}"])


def bookkeeping(encounter: Encounter) -> Done[None]:
    encounter.messages = []
    return Done(None)  # logs nothing: where Pommel's messages are, no step of the fight


class Heard:
    """A bus that remembers the events it handled (the store's tests use it too)."""

    def __init__(self) -> None:
        self.bus = Bus()
        self.events: list[Event] = []
        self.bus.subscribe(FightChanged, self.hear)
        self.bus.subscribe(FightEnded, self.hear)
        self.bus.subscribe(FightReopened, self.hear)
        self.bus.subscribe(TrackerAsked, self.hear)

    async def hear(self, event: Event) -> None:
        self.events.append(event)


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store(":memory:")
    await opened.save_encounter(Encounter(channel_id=CHANNEL, guild_id=10, gm_id=GM))  # no unit of work
    yield opened
    await opened.close()


async def test_a_change_is_collected_and_handled_once_when_its_work_is_over(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        saved, _ = await store.change(CHANNEL, GM, next_round)
        assert heard.events == []  # the command answers first
    assert heard.events == [FightChanged(saved)]
    async with heard.bus.collecting():
        pass
    assert heard.events == [FightChanged(saved)]  # handled once


async def test_a_change_that_raised_announces_nothing(store: Store) -> None:
    heard = Heard()

    def refused(encounter: Encounter) -> Done[None]:
        raise RulesError("not now")

    with pytest.raises(RulesError):
        async with heard.bus.collecting():
            await store.change(CHANNEL, GM, refused)
    assert heard.events == []


async def test_what_was_committed_before_a_failure_is_handled_all_the_same(store: Store) -> None:
    heard = Heard()

    async def command() -> None:
        async with heard.bus.collecting():
            await store.change(CHANNEL, GM, next_round)
            raise ConnectionError("Discord did not take the reply")

    with pytest.raises(ConnectionError):
        await command()
    saved = await store.load_encounter(CHANNEL)
    assert saved is not None
    assert heard.events == [FightChanged(saved)]


async def test_bookkeeping_and_changes_outside_a_unit_of_work_announce_nothing(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        await store.change(CHANNEL, GM, bookkeeping)
    await store.change(CHANNEL, GM, next_round)
    assert heard.events == []


async def test_bookkeeping_after_a_change_is_drawn_as_its_latest_state(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        await store.change(CHANNEL, GM, next_round)
        latest, _ = await store.change(CHANNEL, GM, bookkeeping)  # the reply's message, say, now known
    assert heard.events == [FightChanged(latest)]


async def test_what_the_handlers_change_themselves_is_no_news(store: Store) -> None:
    bus = Bus()
    handled: list[Event] = []

    async def redraw(event: FightChanged) -> None:
        handled.append(event)
        await store.change(CHANNEL, GM, next_round)  # a handler's own write

    bus.subscribe(FightChanged, redraw)
    async with bus.collecting():
        await store.change(CHANNEL, GM, next_round)
    assert len(handled) == 1


async def test_a_fight_s_changes_are_drawn_once_as_their_latest_state_after_all_else(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        first, _ = await store.change(CHANNEL, GM, lambda fight: Done(None, log=["turn"], repost=True))
        announce(TrackerAsked(first))
        latest, _ = await store.change(CHANNEL, GM, next_round)
    assert heard.events == [TrackerAsked(first), FightChanged(latest, repost=True)]


async def test_a_fight_that_ended_is_not_drawn(store: Store) -> None:
    heard = Heard()
    async with heard.bus.collecting():
        await store.change(CHANNEL, GM, next_round)
        last, ended = await store.change(
            CHANNEL, GM, lambda fight: Done(EndedFight.of(fight), log=["over"], end=True)
        )
    assert heard.events == [FightEnded(last, ended)]


def test_coalescing_keeps_each_fight_apart() -> None:
    one = Encounter(channel_id=1, guild_id=10, gm_id=GM, version=3)
    other = Encounter(channel_id=2, guild_id=10, gm_id=GM, version=1)
    newer = one.model_copy(update={"version": 4})
    events: list[Event] = [FightChanged(newer), FightChanged(other), FightChanged(one, repost=True)]
    assert coalesced(events) == [FightChanged(newer, repost=True), FightChanged(other)]


async def test_a_handler_that_fails_is_logged_and_the_others_run(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    bus = Bus()
    handled: list[Event] = []

    async def broken(event: FightChanged) -> None:
        raise ValueError("a bug")

    async def fine(event: FightChanged) -> None:
        handled.append(event)

    bus.subscribe(FightChanged, broken)
    bus.subscribe(FightChanged, fine)
    with caplog.at_level(logging.ERROR, logger="bot.events"):
        async with bus.collecting():
            await store.change(CHANNEL, GM, next_round)
    assert len(handled) == 1
    assert "handling FightChanged of channel 100 failed" in caplog.text


DRAWN_BY_HAND = re.compile(
    r"\.trackers\.(publish|close|reopened|redraw)\(|\.fight_messages\.(redraw|close|reopened)\(|"
    r"dispatch\(\s*\"fight_"
)


@pytest.mark.parametrize("cog", sorted(COGS.glob("*.py")), ids=lambda path: path.name)
def test_no_cog_draws_a_tracker_or_a_fight_s_messages_by_hand(cog: Path) -> None:
    """A command announces what happened (the store does, at commit); the bus draws (bot.app)."""
    by_hand = [
        f"{cog.name}:{number}: {line.strip()}"
        for number, line in enumerate(cog.read_text().splitlines(), start=1)
        if DRAWN_BY_HAND.search(line)
    ]
    assert by_hand == []


async def test_a_fight_is_redrawn_after_its_work_only_when_a_change_of_it_is_news(store: Store) -> None:
    """What :meth:`~bot.fight_messages.FightMessageBoard.remember_after` leaves to the redraw to come."""
    heard = Heard()
    fight = await store.load_encounter(CHANNEL)
    assert fight is not None
    assert not redrawn_after(fight)  # outside a unit of work
    async with heard.bus.collecting():
        await store.change(CHANNEL, GM, bookkeeping)
        assert not redrawn_after(fight)
        await store.change(CHANNEL, GM, next_round)
        assert redrawn_after(fight)
        assert not redrawn_after(Encounter(channel_id=CHANNEL + 1, guild_id=10, gm_id=GM))
        await store.change(CHANNEL, GM, lambda fight: Done(EndedFight.of(fight), log=["over"], end=True))
        assert not redrawn_after(fight)
