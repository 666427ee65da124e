"""Golden documents: databases written by earlier Pommels, opened by this one. Every fight, ended fight,
history step and character in them must read, upgraded (``bot/store/upgrades.py``), never set aside.

A change to the models that an older document no longer validates against fails here until an upgrade
function is written: this is what keeps every release reading what servers hold (docs/LAYOUT.md).

The databases in ``golden/`` (gzipped SQLite files), each written by the commit it is named after:

- ``groups-bdc1f88``: by bdc1f88's parent, while ``Encounter.groups`` was still stored beside the roster
  (two fights of Bob, Ann, two Bandits and a Wolf; channel 100 dealt), two characters, settings;
- ``exchange-7c6b784``: by 7c6b784's parent, before an exchange carried its ``fight`` (two fights of
  Alice whose attack on Bandit 1 awaits its defense);
- ``release-82c3bea``: by the last release, 82c3bea, and ``schema-1``: by the first Pommel that versions
  its documents; both played by ``golden/write.py`` (the one still runs at HEAD).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.history import restored
from bot.store import HistoryStep, LogEntry, NothingToUndo, Store, open_store

from .conftest import Database

GOLDEN = Path(__file__).parent / "golden"
GUILD = 10


@dataclass(frozen=True)
class Golden:
    """What a golden database holds, counted, and its fights as they must read."""

    name: str
    fights: dict[int, tuple[Any, ...]]
    """channel -> :func:`sketch` of its running fight."""
    ended: int
    history: int
    """Steps of the running fights' histories (each is read by an undo)."""
    characters: dict[int, list[str]]
    """player -> the names of their characters."""


ALICE_AWAITS = (1, ("Alice", "Bandit 1", "Bandit 2"), ("Bandits",), (("c1", "c2", "pending"),))
ALICE_ANSWERED_AND_AWAITS = (1, ("Alice", "Bandit 1", "Bandit 2"), ("Bandits",), (("c1", "c3", "pending"),))
"""Alice's attack on Bandit 1 was answered (and the exchange forgotten once resolved); hers on Bandit 2
awaits its defense."""
ALICE_DEALT = (1, ("Alice", "Bandit 1", "Bandit 2"), ("Bandits",), ())
PLAYED = Golden(
    "",
    fights={100: ALICE_ANSWERED_AND_AWAITS, 300: ALICE_DEALT},
    ended=1,
    history=3,
    characters={11: ["Alice"], 12: ["Bors"]},
)

DATABASES = [
    Golden(
        "groups-bdc1f88",
        fights={
            100: (1, ("Bob", "Ann", "Bandit 1", "Bandit 2", "Wolf"), ("Bandits", "Wolf"), ()),
            200: (0, ("Bob", "Bandit 1", "Bandit 2", "Wolf"), ("Bandits", "Wolf"), ()),
        },
        ended=0,
        history=0,
        characters={7: ["Bob"], 8: ["Ann"]},
    ),
    Golden(
        "exchange-7c6b784",
        fights={100: ALICE_AWAITS, 200: ALICE_AWAITS},
        ended=0,
        history=0,
        characters={11: ["Alice"]},
    ),
    Golden("release-82c3bea", PLAYED.fights, PLAYED.ended, PLAYED.history, PLAYED.characters),
    Golden("schema-1", PLAYED.fights, PLAYED.ended, PLAYED.history, PLAYED.characters),
]


def sketch(encounter: Encounter) -> tuple[Any, ...]:
    """What makes a fight the same fight: its round, who is in it, its NPC groups in dealing order, and
    its exchanges (attacker, defender, whether answered)."""
    exchanges = tuple(
        (exchange.attacker, exchange.defender, "pending" if exchange.pending else "resolved")
        for exchange in encounter.exchanges
    )
    names = tuple(combatant.name for combatant in encounter.combatants)
    return (encounter.initiative.round, names, tuple(encounter.groups), exchanges)


def unpacked(golden: Golden, folder: Path) -> Path:
    path = folder / f"{golden.name}.sqlite3"
    path.write_bytes(gzip.decompress((GOLDEN / f"{golden.name}.sqlite3.gz").read_bytes()))
    return path


def undo_line(steps: Sequence[HistoryStep]) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=0, user_id=1, kind="encounter", text="undone")


async def read_every_step(store: Store, channel_id: int) -> int:
    """Undo the fight's changes one by one, as far as its history goes: each undo reads the fight as it
    was (``PastUnreadable`` if it did not). How many steps were read."""
    read = 0
    while True:
        current = await store.load_encounter(channel_id)
        assert current is not None
        try:
            await store.undo(channel_id, 1, current.version, restored, undo_line)
        except NothingToUndo:
            return read
        read += 1


@pytest.mark.parametrize("golden", DATABASES, ids=lambda golden: golden.name)
async def test_a_database_an_earlier_pommel_wrote_reads_whole(golden: Golden, tmp_path: Path) -> None:
    store = await open_store(unpacked(golden, tmp_path))
    try:
        channels = sorted(await store.fight_channels())
        assert channels == sorted(golden.fights)
        fights = {channel: await store.load_encounter(channel) for channel in channels}
        assert {channel: fight and sketch(fight) for channel, fight in fights.items()} == golden.fights
        ended = [kept for channel in range(100, 400, 100) for kept in await store.ended_encounters(channel)]
        assert len(ended) == golden.ended
        for kept in ended:
            assert (await store.ended_encounter(kept.id)) is not None
        assert sum([await read_every_step(store, channel) for channel in channels]) == golden.history
        characters = {
            player: [c.name for c in await store.characters(GUILD, player)] for player in golden.characters
        }
        assert characters == golden.characters
        for player, names in golden.characters.items():
            for name in names:
                assert await store.character(GUILD, player, name) is not None
        assert (await store.guild_settings(GUILD)).guild_id == GUILD
        assert [await store.pending_set_aside(channel) for channel in channels] == [None] * len(channels)
    finally:
        await store.close()


def golden_documents() -> list[tuple[str, str]]:
    """Every fight document of the golden databases (running, ended, or a history step), by where."""
    import sqlite3
    import tempfile

    found = []
    with tempfile.TemporaryDirectory() as folder:
        for golden in DATABASES:
            with sqlite3.connect(unpacked(golden, Path(folder))) as db:
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                for table in ("encounters", "ended_encounters", "encounter_history"):
                    if table in tables:
                        for index, (document,) in enumerate(db.execute(f"SELECT document FROM {table}")):
                            found.append((f"{golden.name}/{table}/{index}", document))
            db.close()
    return found


async def test_every_golden_fight_reads_through_either_store_to_the_same_fight(database: Database) -> None:
    """Each document stored as the channel's fight, in SQLite and in PostgreSQL: it loads (not set aside),
    and saving it writes the current version, which reads back to the same fight."""
    store = await database.open()
    try:
        documents = golden_documents()
        assert len(documents) == 16
        for channel, (where, document) in enumerate(documents, start=1):
            data = json.loads(document)
            placeholder = Encounter(channel_id=channel, guild_id=GUILD, gm_id=1)
            await store.save_encounter(placeholder)
            data["channel_id"] = channel
            await database.fetch(
                "UPDATE encounters SET document = ? WHERE channel_id = ?", json.dumps(data), channel
            )
            fight = await store.load_encounter(channel)
            assert fight is not None, where
            resaved = await store.save_encounter(fight)
            [(stored,)] = await database.fetch(
                "SELECT document FROM encounters WHERE channel_id = ?", channel
            )
            assert stored.startswith('{"schema":1,'), where
            assert sketch(resaved) == sketch(fight), where
            assert await store.load_encounter(channel) == resaved, where
            assert await store.pending_set_aside(channel) is None, where
    finally:
        await store.close()
