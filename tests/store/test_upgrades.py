"""Stored documents carry their schema version: an older one is read through its upgrades, one a newer
Pommel wrote is not read (and never rewritten), and every write writes the current version."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.history import restored
from bot.encounter.records import Exchange
from bot.guild_settings import GuildSettings
from bot.rules.errors import RulesError
from bot.store import (
    LogEntry,
    NewerSettings,
    PastUnreadable,
    SetAsideGone,
    StaleEncounter,
    Store,
    UnreadableCharacter,
    reads_fight,
    shared,
)
from bot.store.upgrades import CHARACTER, FIGHT, SETTINGS, Kind, TooNew, current_json, stamped, upgraded
from tests.sheets import character

from .conftest import Database

CHANNEL = 100
GUILD = 10
GM = 1
PLAYER = 7


def fight() -> Encounter:
    encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
    encounter.join(PLAYER, character("Bob"), None)
    return encounter


def event(text: str) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="encounter", text=text)


async def stored(database: Database, table: str = "encounters", key: str = "channel_id") -> str:
    [(document,)] = await database.fetch(f"SELECT document FROM {table} WHERE {key} = ?", CHANNEL)
    return str(document)


async def store_as(database: Database, document: str) -> None:
    await database.fetch("UPDATE encounters SET document = ? WHERE channel_id = ?", document, CHANNEL)


@pytest.fixture
async def opened(database: Database) -> AsyncIterator[Store]:
    """A store on the test's database, which the test also reads and edits by hand."""
    store = await database.open()
    yield store
    await store.close()


# ---------------------------------------------------------------------------------- the upgrades


def test_the_first_upgrade_drops_the_groups_and_gives_each_exchange_its_fight() -> None:
    """What history really changed: ``Encounter.groups`` removed (bdc1f88), ``Exchange.fight`` required
    (7c6b784)."""
    encounter = fight()
    data = json.loads(encounter.model_dump_json(exclude={"version"}))
    exchange = {"id": 1, "attacker": "c1", "defender": "c2", "round": 1, "weapon": "messer"}
    data |= {"groups": ["Bandits"], "exchanges": [exchange]}
    upgraded_data = upgraded(FIGHT, data)
    assert "groups" not in upgraded_data
    assert upgraded_data["exchanges"][0]["fight"] == encounter.tag
    assert Exchange.model_fields["fight"].is_required()


def test_a_current_document_is_stamped_and_read_without_its_stamp() -> None:
    document = fight().model_dump_json(exclude={"version"})
    written = stamped(FIGHT, document)
    assert written.startswith('{"schema":1,"channel_id"')
    assert current_json(FIGHT, written) == document
    assert json.loads(current_json(FIGHT, json.dumps(json.loads(written), indent=1))) == json.loads(document)


def test_a_document_of_a_newer_pommel_is_refused_naming_both_versions() -> None:
    with pytest.raises(TooNew) as refused:
        current_json(CHARACTER, '{"schema": 3, "name": "Bob"}')
    assert str(refused.value) == (
        "it was saved by a newer version of Pommel: a character of version 3, where this one reads up to"
        " version 1"
    )


# ---------------------------------------------------------------------------------- written current


async def test_every_document_is_written_at_the_current_version(opened: Store, database: Database) -> None:
    saved = await opened.save_encounter(fight())
    assert (await stored(database)).startswith('{"schema":1,')
    await opened.change(CHANNEL, GM, lambda e: _logged(e, "a step"))  # a history step keeps the last
    await opened.save_character(GUILD, PLAYER, character("Ann"))
    await opened.save_guild_settings(GuildSettings(guild_id=GUILD))
    [(character_document,)] = await database.fetch("SELECT document FROM characters")
    [(settings_document,)] = await database.fetch("SELECT document FROM guild_settings")
    [(step,)] = await database.fetch("SELECT document FROM encounter_history")
    assert character_document.startswith(CHARACTER.prefix)
    assert settings_document.startswith(SETTINGS.prefix)
    assert step.startswith(FIGHT.prefix)
    assert saved.version == 1


def _logged(encounter: Encounter, text: str) -> Done[None]:
    """A change that logs, so the fight's history keeps the fight as it was."""
    encounter.initiative.round += 1
    return Done(None, log=[text])


# ---------------------------------------------------------------------------------- a planted upgrade


def renamed_next_id(fight: dict[str, Any]) -> dict[str, Any]:
    """What a later release would write on renaming ``Encounter.next_id``: version 1 called it
    ``next_number`` (planted: it never did)."""
    fight["next_id"] = fight.pop("next_number")
    return fight


async def test_a_document_a_model_change_broke_is_read_through_its_upgrade_not_set_aside(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await database.open()
    try:
        await store.save_encounter(fight())
        data = json.loads(await stored(database))
        data["next_number"] = data.pop("next_id")
        await store_as(database, json.dumps(data))
        planted = Kind("a fight", (*FIGHT.upgrades, renamed_next_id))  # version 2 renames it back
        monkeypatch.setattr(shared, "FIGHT", planted)
        loaded = await store.load_encounter(CHANNEL)
        assert loaded is not None
        assert loaded.next_id == 2
        assert [c.name for c in loaded.combatants] == ["Bob"]
        assert await store.pending_set_aside(CHANNEL) is None
        await store.save_encounter(loaded)  # written again: at the planted release's version
        assert (await stored(database)).startswith('{"schema":2,')

        monkeypatch.setattr(shared, "FIGHT", FIGHT)  # without the upgrade, the same document is set aside
        await store_as(database, json.dumps(data))
        assert await store.load_encounter(CHANNEL) is None
        notice = await store.pending_set_aside(CHANNEL)
        assert notice is not None
        assert "next number is not something it can have" in notice.reason
    finally:
        await store.close()


# ---------------------------------------------------------------------------------- newer documents


async def test_a_fight_a_newer_pommel_wrote_is_set_aside_whole_naming_both_versions(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    store = await database.open()
    try:
        await store.save_encounter(fight())
        newer = (await stored(database)).replace('{"schema":1,', '{"schema":2,"grudges":[],', 1)
        await store_as(database, newer)
        with caplog.at_level(logging.WARNING, logger="bot.store"):
            assert await store.load_encounter(CHANNEL) is None
        notice = await store.pending_set_aside(CHANNEL)
        assert notice is not None
        assert notice.reason == (
            "it was saved by a newer version of Pommel: a fight of version 2, where this one reads up to"
            " version 1"
        )
        [(kept,)] = await database.fetch("SELECT document FROM set_aside_encounters")
        assert kept == newer  # never rewritten
        assert "newer version of Pommel" in caplog.text
    finally:
        await store.close()


async def test_an_ended_fight_or_a_history_step_a_newer_pommel_wrote_is_refused_in_words(
    opened: Store, database: Database
) -> None:
    await opened.save_encounter(fight())
    after, _ = await opened.change(CHANNEL, GM, lambda e: _logged(e, "round 1"))
    [(step,)] = await database.fetch("SELECT document FROM encounter_history")
    newer = step.replace('{"schema":1,', '{"schema":2,', 1)
    await database.fetch("UPDATE encounter_history SET document = ?", newer)

    def line(steps: Any) -> LogEntry:
        return event("undone")

    with pytest.raises(PastUnreadable):
        await opened.undo(CHANNEL, 1, after.version, restored, line)
    assert await opened.load_encounter(CHANNEL) == after

    await opened.change(CHANNEL, GM, lambda e: _ended())
    [ended] = await opened.ended_encounters(CHANNEL)
    [(document,)] = await database.fetch("SELECT document FROM ended_encounters")
    await database.fetch(
        "UPDATE ended_encounters SET document = ?", document.replace('"schema":1', '"schema":5')
    )
    with pytest.raises(RulesError, match="newer version of Pommel: a fight of version 5, where this one"):
        await opened.ended_encounter(ended.id)


def _ended() -> Done[None]:
    return Done(None, log=["ended"], end=True)


async def test_a_character_that_does_not_read_is_refused_in_words_kept_and_left_out_of_lists(
    opened: Store, database: Database
) -> None:
    await opened.create_character(GUILD, PLAYER, character("Bob"))
    await opened.create_character(GUILD, PLAYER, character("Ann"))
    [(document,)] = await database.fetch("SELECT document FROM characters WHERE name_key = ?", "bob")
    newer = document.replace('{"schema":1,', '{"schema":2,', 1)
    await database.fetch("UPDATE characters SET document = ? WHERE name_key = ?", newer, "bob")

    with pytest.raises(UnreadableCharacter) as refused:
        await opened.character(GUILD, PLAYER, "bob")
    assert str(refused.value) == (
        "Your character Bob can't be read by this version of Pommel (it was saved by a newer version of"
        " Pommel: a character of version 2, where this one reads up to version 1), so it can be neither used"
        " nor changed for now; it is kept exactly as it was. Tell whoever runs the bot. Your other characters"
        " are not affected."
    )
    assert [c.name for c in await opened.characters(GUILD, PLAYER)] == ["Ann"]
    with pytest.raises(UnreadableCharacter):
        await opened.create_character(GUILD, PLAYER, character("Bob"))  # a new Bob would drop the old
    assert await database.fetch("SELECT document FROM characters WHERE name_key = ?", "bob") == [(newer,)]


async def test_server_settings_that_do_not_read_fall_back_to_the_defaults_with_a_warning(
    opened: Store, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    await opened.save_guild_settings(GuildSettings(guild_id=GUILD, gm_role_id=55))
    await database.fetch("UPDATE guild_settings SET document = ?", '{"guild_id": 10, "gm_role": "Referee"}')
    with caplog.at_level(logging.WARNING, logger="bot.store"):
        assert await opened.guild_settings(GUILD) == GuildSettings(guild_id=GUILD)
    assert "settings of guild 10 could not be read" in caplog.text
    assert "gm role is not something it can have" in caplog.text


# ---------------------------------------------------------------------------------- brought back


async def test_a_fight_set_aside_comes_back_once_read_in_one_transaction_and_only_once(
    opened: Store, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await opened.save_encounter(fight())
    newer = (await stored(database)).replace('{"schema":1,', '{"schema":2,', 1)
    await store_as(database, newer)
    assert await opened.load_encounter(CHANNEL) is None
    kept = await opened.set_aside_fight(CHANNEL)
    assert kept is not None
    set_aside, document = kept
    assert document == newer
    assert not reads_fight(document)
    with pytest.raises(RulesError, match="still can't read that fight"):
        await opened.restore_set_aside(set_aside, document)

    monkeypatch.setattr(shared, "FIGHT", Kind("a fight", (*FIGHT.upgrades, lambda data: data)))
    assert reads_fight(document)
    running = await opened.save_encounter(fight())
    with pytest.raises(StaleEncounter):  # a fight runs here: nothing changes
        await opened.restore_set_aside(set_aside, document, events=[event("brought back")])
    assert await opened.load_encounter(CHANNEL) == running
    assert await opened.read_log() == []
    await opened.delete_encounter(running)

    back = await opened.restore_set_aside(set_aside, document, events=[event("brought back")])
    assert back.version == 1
    assert [c.name for c in back.combatants] == ["Bob"]
    assert await opened.load_encounter(CHANNEL) == back
    assert [entry.text for entry in await opened.read_log()] == ["brought back"]
    assert await opened.set_aside_fight(CHANNEL) is None
    await opened.delete_encounter(back)
    with pytest.raises(SetAsideGone):
        await opened.restore_set_aside(set_aside, document)
    assert await opened.load_encounter(CHANNEL) is None


async def test_server_settings_a_newer_pommel_saved_are_never_overwritten(
    opened: Store, database: Database
) -> None:
    await opened.save_guild_settings(GuildSettings(guild_id=GUILD, gm_role_id=55))
    [(document,)] = await database.fetch("SELECT document FROM guild_settings")
    newer = document.replace('{"schema":1,', '{"schema":2,"gm_roles":[55, 56],', 1)
    await database.fetch("UPDATE guild_settings SET document = ?", newer)
    assert await opened.guild_settings(GUILD) == GuildSettings(guild_id=GUILD)  # commands go on
    with pytest.raises(NewerSettings) as refused:
        await opened.save_guild_settings(
            GuildSettings(guild_id=GUILD, gm_role_id=7), events=[event("GM role")]
        )
    assert str(refused.value) == (
        "This server's settings can't be changed by this version of Pommel (it was saved by a newer version"
        " of Pommel: guild settings of version 2, where this one reads up to version 1), so nothing was saved"
        " and they are kept as they are; until then fights here start with the defaults. Tell whoever runs"
        " the bot."
    )
    assert await database.fetch("SELECT document FROM guild_settings") == [(newer,)]
    assert await opened.read_log() == []
