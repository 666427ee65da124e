"""``Store.tally_d20``: the d20 faces of ``/stats dice``, counted by the store as rolls are logged (and,
for rolls logged before, by the migration), with its filters and the private rolls only the roller and
the GM see."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.encounter.done import Done
from bot.rules.dice import D20Witness, ScriptedDice
from bot.store import D20_FACE_KEYS, D20_ROLL_KINDS, DiceTally, LogEntry, Store, log_entries, open_store
from bot.store.sqlite import SqliteStore, bundled_migrations

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)

HANG_GUARD = 30.0
"""Seconds a wait that must end is given before the test fails as hung (never the measure of a test)."""


def roll(
    faces: list[Any],
    *,
    key: str = "faces",
    user_id: int = 1,
    channel_id: int = 100,
    guild_id: int | None = 10,
    kind: str = "roll",
    private: bool = False,
    at: datetime = NOW,
) -> LogEntry:
    return LogEntry(
        at=at,
        guild_id=guild_id,
        channel_id=channel_id,
        user_id=user_id,
        kind=kind,
        text="a roll",
        data={key: faces, "private": private},
    )


def counts(**faces: int) -> tuple[int, ...]:
    """``counts(f4=1, f17=3)``: the twenty counts with these set."""
    return tuple(faces.get(f"f{face}", 0) for face in range(1, 21))


def test_the_kinds_and_keys_are_those_of_the_rolls() -> None:
    assert D20_ROLL_KINDS == ("roll", "save")
    assert D20_FACE_KEYS == ("faces", "d20")


async def test_every_face_listed_under_either_key_is_counted(store: Store) -> None:
    await store.append_logs(
        [
            roll([4, 17, 17]),
            roll([17], key="d20"),
            roll([], key="d20"),  # a /roll dice without a d20: not a roll of the count
            roll([20, "x", 2.5, None, 0, 21]),  # only the faces of a d20 count
            roll(["7"]),  # a face written as text is no face
        ]
    )
    tally = await store.tally_d20(guild_id=10)
    assert tally == DiceTally(counts(f4=1, f17=3, f20=1), rolls=3, hidden=0)


async def test_the_filters_narrow_the_count(store: Store) -> None:
    await store.append_logs(
        [
            roll([1], user_id=1, channel_id=100, at=NOW - timedelta(days=40)),
            roll([2], user_id=2, channel_id=100),
            roll([3], user_id=1, channel_id=200),
            roll([4], kind="save"),
            roll([5], kind="attack"),  # not a roll the count knows
            roll([6], guild_id=11),
            roll([7], guild_id=None),  # a DM (never logged by /roll, but the store would take it)
        ]
    )
    later = await store.append_log(roll([8]))
    assert later.id is not None

    async def faces(**filters: Any) -> set[int]:
        tally = await store.tally_d20(guild_id=10, **filters)
        return {face for face, times in zip(range(1, 21), tally.faces, strict=True) if times}

    assert await faces() == {1, 2, 3, 4, 8}
    assert await faces(user_id=1) == {1, 3, 4, 8}
    assert await faces(channel_id=200) == {3}
    assert await faces(since=NOW - timedelta(days=30)) == {2, 3, 4, 8}
    assert await faces(through_id=later.id - 1) == {1, 2, 3, 4}
    assert await faces(channel_id=100, user_id=2) == {2}
    assert (await store.tally_d20(guild_id=11)).rolls == 1


async def test_private_rolls_count_only_for_the_roller_and_the_gm(store: Store) -> None:
    await store.append_logs(
        [
            roll([10]),
            roll([11], user_id=1, private=True),
            roll([12, 12], user_id=2, private=True),
        ]
    )
    public = await store.tally_d20(guild_id=10)
    assert public == DiceTally(counts(f10=1), rolls=1, hidden=2)
    roller = await store.tally_d20(guild_id=10, viewer=1)
    assert roller == DiceTally(counts(f10=1, f11=1), rolls=2, hidden=1)
    gm = await store.tally_d20(guild_id=10, viewer=3, gm=True)
    assert gm == DiceTally(counts(f10=1, f11=1, f12=2), rolls=3, hidden=0)


async def test_rolls_logged_before_the_migration_are_counted_too(tmp_path: Path) -> None:
    """A database migrated up to 0004 with rolls in its log: 0005 counts them as the trigger would."""
    path = tmp_path / "pommel.sqlite3"
    before = [m for m in bundled_migrations() if m.version < 5]
    old = await SqliteStore.open(path, migrations=before)
    await old.append_logs(
        [roll([3, 3, 9]), roll([9], key="d20", private=True, user_id=2), roll([5], kind="attack")]
    )
    await old.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'log_d20'").fetchall() == []
    store = await open_store(path)
    try:
        assert await store.tally_d20(guild_id=10) == DiceTally(counts(f3=2, f9=1), rolls=1, hidden=1)
        assert await store.tally_d20(guild_id=10, viewer=2) == DiceTally(
            counts(f3=2, f9=2), rolls=2, hidden=0
        )
        await store.append_log(roll([20]))
        assert (await store.tally_d20(guild_id=10)).rolls == 2
    finally:
        await store.close()


async def test_the_counts_agree_with_the_log_read_back(store: Store) -> None:
    """Many rolls: the store's count is the count of the faces read back line by line."""
    rng = random.Random(15)
    entries = [
        roll(
            [rng.randint(1, 20) for _ in range(rng.randint(1, 4))],
            key=rng.choice(D20_FACE_KEYS),
            user_id=rng.randint(1, 3),
            kind=rng.choice(D20_ROLL_KINDS),
            private=rng.random() < 0.2,
        )
        for _ in range(500)
    ]
    await store.append_logs(entries)
    expected = [0] * 20
    for entry in entries:
        if not entry.data["private"] or entry.user_id == 2:
            for key in D20_FACE_KEYS:
                for face in entry.data.get(key) or []:  # type: ignore[union-attr]
                    expected[int(face) - 1] += 1  # type: ignore[arg-type]
    tally = await store.tally_d20(guild_id=10, viewer=2)
    assert tally.faces == tuple(expected)
    assert tally.rolls + tally.hidden == 500


@pytest.mark.parametrize("key", ["faces", "d20"])
async def test_a_line_with_no_d20_face_is_no_roll(store: Store, key: str) -> None:
    await store.append_log(roll([], key=key))
    assert await store.tally_d20(guild_id=10) == DiceTally((0,) * 20, rolls=0, hidden=0)


async def test_a_long_count_never_holds_up_the_other_reads(tmp_path: Path) -> None:
    """On a file the count has a connection (and thread) of its own: while it is busy, a command's read of
    its fight goes through at once. The count is held busy until the read is back (not for a time), so the
    read either goes around it or hangs until the hang guard fails the test."""
    store = await open_store(tmp_path / "pommel.sqlite3")
    assert isinstance(store, SqliteStore)
    try:
        await store.append_log(roll([7]))
        counter = store._counter
        assert counter is not None
        started, release = threading.Event(), threading.Event()

        def hold() -> int:
            started.set()
            release.wait(HANG_GUARD)
            return 1

        await counter.create_function("hold", 0, hold)
        busy = asyncio.create_task(counter.execute_fetchall("SELECT hold()"))
        try:
            assert await asyncio.to_thread(started.wait, HANG_GUARD)  # the counter is busy
            tally = asyncio.create_task(store.tally_d20(guild_id=10))  # queued behind the busy counter
            assert await asyncio.wait_for(store.load_encounter(100), HANG_GUARD) is None
            assert not busy.done()
            assert not tally.done()
        finally:
            release.set()
        await busy
        assert (await tally).rolls == 1
    finally:
        await store.close()


async def test_a_fights_own_dice_are_counted_from_its_lines_within_its_span(store: Store) -> None:
    """``tally_fight_d20``: the d20 faces of a fight's attacks, defenses, morale checks and spiritual
    attacks (under ``d20`` of their lines), by who rolled them, since the fight started and up to its
    last line; the rolls of ``/roll`` and ``/save`` are ``tally_d20``'s, so they are not counted twice."""
    early = NOW - timedelta(hours=3)
    await store.append_logs(
        [
            roll([20], key="d20", kind="attack", at=early),  # before the fight
            roll([3, 11], key="d20", kind="attack"),
            roll([20], key="d20", kind="morale", user_id=2),
            roll([7, 0, "x", 21], key="d20", kind="spirit"),  # only the faces of a d20 count
            roll([], key="d20", kind="attack"),  # a passive defense: no die
            roll([9], key="d20", kind="attack", channel_id=101),  # another channel
            roll([5], key="faces", kind="save"),  # tally_d20's
            roll([5], key="d20", kind="roll"),  # tally_d20's
        ]
    )
    last = (await store.read_log(channel_id=100, limit=1000))[-1].id
    await store.append_logs([roll([12], key="d20", kind="attack")])  # after the fight's last line
    tally = await store.tally_fight_d20(
        guild_id=10, channel_id=100, since=NOW - timedelta(hours=1), through_id=last
    )
    assert tally == DiceTally(counts(f3=1, f11=1, f20=1, f7=1), rolls=3, hidden=0)
    mine = await store.tally_fight_d20(guild_id=10, channel_id=100, user_id=2, since=NOW - timedelta(hours=1))
    assert mine == DiceTally(counts(f20=1), rolls=1, hidden=0)
    running = await store.tally_fight_d20(guild_id=10, channel_id=100, since=NOW - timedelta(hours=1))
    assert running.rolls == 4


def test_an_operation_s_dice_are_kept_on_its_first_log_line_only() -> None:
    """A step's dice count once, however many lines it logs."""
    witness = D20Witness(ScriptedDice([14, 6]))
    witness.roll(20), witness.roll(6)
    done = Done(None, log=["one", "two"], kind="attack", data={"x": 1}).rolled(witness)
    first, second = log_entries(done, 10, 100, 1)
    assert (first.data, second.data) == ({"x": 1, "d20": [14]}, {"x": 1})
