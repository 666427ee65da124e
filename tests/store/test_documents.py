"""Documents the store cannot trust: one that does not validate is never written, and a stored one that no
longer validates (hand-edited, or written by an older Pommel) is set aside so the channel plays on."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.errors import NoFight
from bot.guild_settings import GuildSettings
from bot.store import EncounterChange, InvalidDocument, LogEntry, Store
from bot.table_options import TableOptions
from tests.sheets import character

from .conftest import Database

CHANNEL = 100
OTHER = 200
GUILD = 10
GM = 1
PLAYER = 7


def fight(channel_id: int = CHANNEL) -> Encounter:
    """A fight with Bob (prowess 2) in it."""
    encounter = Encounter(channel_id=channel_id, guild_id=GUILD, gm_id=GM)
    encounter.join(PLAYER, character("Bob"), None)
    return encounter


def event(text: str) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="encounter", text=text)


def assert_plain(message: str) -> None:
    """Words for a player: no pydantic report, one line."""
    assert "\n" not in message
    for jargon in ("validation error", "Input should", "pydantic", "errors.pydantic.dev", "[type="):
        assert jargon not in message


# ---------------------------------------------------------------------------------- never written


async def test_a_fight_with_a_value_out_of_range_is_never_written(store: Store) -> None:
    """Discord's min/max would stop a prowess of 21, but discord.py does not enforce them."""
    saved = await store.save_encounter(fight())
    changed = saved.model_copy(deep=True)
    changed.combatants[0].prowess = 21  # no validate_assignment: nothing stops this in place
    with pytest.raises(InvalidDocument) as refused:
        await store.save_encounter(changed, events=[event("Bob grew stronger")])
    message = refused.value.message
    assert "Bob's prowess" in message
    assert "21" in message
    assert "at most 20" in message
    assert "Nothing was saved" in message
    assert_plain(message)
    assert await store.load_encounter(CHANNEL) == saved
    assert await store.read_log() == []


async def test_a_new_fight_with_a_negative_timeout_is_never_started(store: Store) -> None:
    table = TableOptions().model_copy(update={"defense_timeout_minutes": -1})  # model_copy skips checks
    with pytest.raises(InvalidDocument) as refused:
        await store.save_encounter(fight().model_copy(update={"table": table}), events=[event("started")])
    message = refused.value.message
    assert "defense timeout minutes" in message
    assert "-1" in message
    assert "at least 0" in message
    assert_plain(message)
    assert await store.load_encounter(CHANNEL) is None
    assert await store.fight_channels() == []
    assert await store.read_log() == []
    assert (await store.save_encounter(fight())).version == 1  # and the channel can start a good one


async def test_an_update_that_leaves_the_fight_invalid_writes_nothing(store: Store) -> None:
    saved = await store.save_encounter(fight())

    def overreach(current: Encounter | None) -> EncounterChange:
        assert current is not None
        current.table = current.table.model_copy(update={"defense_timeout_minutes": 10081})
        return EncounterChange(current, (event("a week and a minute"),))

    with pytest.raises(InvalidDocument, match="at most 10080"):
        await store.update_encounter(CHANNEL, overreach)
    assert await store.load_encounter(CHANNEL) == saved
    assert await store.read_log() == []


async def test_an_operation_that_leaves_the_fight_invalid_writes_nothing_and_the_channel_plays_on(
    store: Store,
) -> None:
    saved = await store.save_encounter(fight())

    def too_strong(encounter: Encounter) -> Done[None]:
        encounter.combatants[0].prowess = 21
        return Done(None, log=["Bob is too strong"])

    with pytest.raises(InvalidDocument, match="Bob's prowess"):
        await store.change(CHANNEL, GM, too_strong)
    assert await store.load_encounter(CHANNEL) == saved
    assert await store.read_log() == []

    def next_round(encounter: Encounter) -> Done[int]:
        encounter.initiative.round += 1
        return Done(encounter.initiative.round, log=["next round"])

    after, round_ = await store.change(CHANNEL, GM, next_round)
    assert (after.version, round_) == (2, 1)


async def test_a_character_out_of_range_is_never_written(store: Store) -> None:
    strong = character("Bob")
    strong.prowess = 99
    with pytest.raises(InvalidDocument, match="prowess") as refused:
        await store.save_character(GUILD, PLAYER, strong)
    assert_plain(refused.value.message)
    with pytest.raises(InvalidDocument, match="prowess"):
        await store.create_character(GUILD, PLAYER, strong)
    assert await store.characters(GUILD, PLAYER) == []

    await store.create_character(GUILD, PLAYER, character("Bob"))
    stored = await store.character(GUILD, PLAYER, "Bob")
    assert stored is not None
    with pytest.raises(InvalidDocument, match="Nothing was saved"):
        await store.replace_character(GUILD, PLAYER, stored, strong)
    assert await store.character(GUILD, PLAYER, "Bob") == character("Bob")


async def test_guild_settings_that_do_not_validate_are_never_written(store: Store) -> None:
    wrong = GuildSettings(guild_id=GUILD).model_copy(update={"gm_role_id": "everyone"})
    with (
        pytest.warns(UserWarning, match="serializ"),  # pydantic warns as it dumps the wrong type
        pytest.raises(InvalidDocument, match="gm role id") as refused,
    ):
        await store.save_guild_settings(wrong, events=[event("the GM role is everyone")])
    assert_plain(refused.value.message)
    assert await store.guild_settings(GUILD) == GuildSettings(guild_id=GUILD)
    assert await store.read_log() == []


# ---------------------------------------------------------------------------------- set aside


async def hand_edit(database: Database, channel_id: int, edit: Callable[[Any], None]) -> str:
    """Change a stored fight as a person with the database's shell would; returns the document."""
    [(stored,)] = await database.fetch("SELECT document FROM encounters WHERE channel_id = ?", channel_id)
    data = json.loads(stored)
    edit(data)
    document = json.dumps(data)
    await database.fetch("UPDATE encounters SET document = ? WHERE channel_id = ?", document, channel_id)
    return document


async def set_aside_rows(database: Database) -> list[tuple[Any, ...]]:
    return await database.fetch(
        "SELECT channel_id, guild_id, version, document, reason FROM set_aside_encounters ORDER BY id"
    )


def prowess_21(data: Any) -> None:
    data["combatants"][0]["prowess"] = 21


@pytest.fixture
async def unreadable(database: Database) -> AsyncIterator[tuple[Store, str]]:
    """A store on a database where the fight of CHANNEL was hand-edited out of range (OTHER's is fine);
    also yields the stored document as edited."""
    store = await database.open()
    await store.save_encounter(fight(CHANNEL))
    await store.save_encounter(fight(OTHER))
    await store.close()
    document = await hand_edit(database, CHANNEL, prowess_21)
    store = await database.open()
    yield store, document
    await store.close()


async def test_start_up_loads_every_readable_fight_and_sets_the_unreadable_one_aside(
    unreadable: tuple[Store, str], database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """What the attack cog does at start: every fight channel, loaded; one bad document stops nothing."""
    store, document = unreadable
    with caplog.at_level(logging.WARNING, logger="bot.store"):
        loaded = {channel: await store.load_encounter(channel) for channel in await store.fight_channels()}
    assert loaded[CHANNEL] is None
    other = loaded[OTHER]
    assert other is not None
    assert other.combatants[0].prowess == 2
    [warning] = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert f"channel {CHANNEL}" in warning.getMessage()
    assert "set aside" in warning.getMessage()
    assert await store.fight_channels() == [OTHER]
    assert await store.load_encounter(CHANNEL) is None  # set aside once; no second warning
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    [row] = await set_aside_rows(database)
    assert row[:3] == (CHANNEL, GUILD, 1)
    assert row[3] == document  # kept exactly as it was, for the developers
    assert "Bob's prowess" in row[4]


async def test_the_channel_can_be_told_once_what_was_set_aside(unreadable: tuple[Store, str]) -> None:
    store, _ = unreadable
    assert await store.pending_set_aside(CHANNEL) is None  # nothing is set aside before it is read
    assert await store.load_encounter(CHANNEL) is None
    notice = await store.pending_set_aside(CHANNEL)
    assert notice is not None
    assert (notice.channel_id, notice.guild_id, notice.gm_id, notice.version) == (CHANNEL, GUILD, GM, 1)
    assert "Bob's prowess is 21, but it must be at most 20" in notice.reason
    assert_plain(notice.reason)
    assert await store.pending_set_aside(OTHER) is None
    assert await store.acknowledge_set_aside(notice.id) is True
    assert await store.acknowledge_set_aside(notice.id) is False  # of two commands racing, one tells
    assert await store.pending_set_aside(CHANNEL) is None


async def test_a_command_on_an_unreadable_fight_finds_no_fight_and_the_gm_can_start_anew(
    unreadable: tuple[Store, str],
) -> None:
    """/encounter end, or any command: no fight, not a crash; it stays set aside though the command failed."""
    store, _ = unreadable

    def end(encounter: Encounter) -> Done[None]:
        return Done(None, log=["ended"], end=True)

    with pytest.raises(NoFight):
        await store.change(CHANNEL, GM, end)
    assert await store.pending_set_aside(CHANNEL) is not None
    started = await store.save_encounter(fight(CHANNEL))
    assert started.version == 1
    assert await store.load_encounter(CHANNEL) == started


async def test_a_new_fight_starts_over_an_unreadable_one_that_was_never_loaded(
    unreadable: tuple[Store, str], database: Database
) -> None:
    """/encounter start saves a version 0 without loading first: the unreadable fight gives way."""
    store, document = unreadable
    started = await store.save_encounter(fight(CHANNEL), events=[event("started")])
    assert started.version == 1
    assert await store.load_encounter(CHANNEL) == started
    assert [row[3] for row in await set_aside_rows(database)] == [document]
    assert [entry.text for entry in await store.read_log()] == ["started"]


async def test_an_update_over_an_unreadable_fight_sees_none(unreadable: tuple[Store, str]) -> None:
    store, _ = unreadable
    seen: list[Encounter | None] = []

    def start_if_none(current: Encounter | None) -> EncounterChange:
        seen.append(current)
        return EncounterChange(current or fight(CHANNEL), (event("started"),))

    saved = await store.update_encounter(CHANNEL, start_if_none)
    assert seen == [None]
    assert saved is not None
    assert saved.version == 1


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ('{"channel_id": 100, "guild_id": 10, "gm_id": 1, "hand_edited": true}', "hand edited"),
        ('{"channel_id": 100, "guild_id": 10}', "gm id is missing"),
        ("[1, 2, 3]", "not a fight"),
    ],
)
async def test_a_document_that_is_no_fight_at_all_is_set_aside_too(
    database: Database, document: str, said: str
) -> None:
    store = await database.open()
    await store.save_encounter(fight(CHANNEL))
    await store.close()
    await database.fetch("UPDATE encounters SET document = ? WHERE channel_id = ?", document, CHANNEL)
    store = await database.open()
    try:
        assert await store.load_encounter(CHANNEL) is None
        notice = await store.pending_set_aside(CHANNEL)
        assert notice is not None
        assert said in notice.reason
        assert_plain(notice.reason)
    finally:
        await store.close()
    assert [row[3] for row in await set_aside_rows(database)] == [document]
