"""The running fight's history: every change keeps the fight as it was before, bounded, and an undo puts
it back as a new version, marking the undone log lines."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from bot.encounter.document import Encounter
from bot.encounter.history import restored
from bot.store import (
    HISTORY_KEPT,
    EncounterChange,
    LogEntry,
    NothingToRedo,
    NothingToUndo,
    PastUnreadable,
    StaleEncounter,
    Store,
    open_store,
)
from tests.sheets import character

from .test_encounters import CHANNEL, GM, event, fight


def round_change(current: Encounter | None) -> EncounterChange:
    assert current is not None
    current.initiative.round += 1
    return EncounterChange(current, (event(f"round {current.initiative.round}"),), user_id=7)


def undo_line(steps: object) -> LogEntry:
    return event("undo")


async def test_every_change_keeps_the_fight_as_it_was_with_its_log_lines(store: Store) -> None:
    before = await store.save_encounter(fight())
    saved = await store.update_encounter(CHANNEL, round_change)
    assert saved is not None
    [step] = await store.history(CHANNEL)
    assert (step.version, step.user_id, step.lines) == (before.version, 7, ("round 1",))
    undone, _ = await store.undo(CHANNEL, 1, saved.version, restored, undo_line)
    assert undone.version == saved.version + 1
    assert undone.initiative.round == 0
    assert undone.flow.step == before.flow.step + 1
    assert await store.load_encounter(CHANNEL) == undone
    log = await store.read_log(channel_id=CHANNEL)
    assert [(entry.text, entry.undone_by) for entry in log] == [("round 1", log[1].id), ("undo", None)]
    assert await store.history(CHANNEL) == []


async def test_the_history_is_bounded_and_goes_with_the_fight(store: Store) -> None:
    await store.save_encounter(fight())
    for _ in range(HISTORY_KEPT + 5):
        saved = await store.update_encounter(CHANNEL, round_change)
    assert saved is not None
    kept = await store.history(CHANNEL)
    assert len(kept) == HISTORY_KEPT
    assert kept[0].lines == (f"round {HISTORY_KEPT + 5}",)
    assert kept[-1].lines == ("round 6",)
    await store.delete_encounter(saved)
    assert await store.history(CHANNEL) == []


async def test_an_undo_is_a_compare_and_set_and_refuses_more_than_is_kept(store: Store) -> None:
    await store.save_encounter(fight())
    saved = await store.update_encounter(CHANNEL, round_change)
    assert saved is not None
    with pytest.raises(StaleEncounter):
        await store.undo(CHANNEL, 1, saved.version - 1, restored, undo_line)
    with pytest.raises(NothingToUndo):
        await store.undo(CHANNEL, 2, saved.version, restored, undo_line)
    assert await store.load_encounter(CHANNEL) == saved
    assert [entry.text for entry in await store.read_log(channel_id=CHANNEL)] == ["round 1"]


async def test_undoing_k_steps_gives_back_the_fight_k_steps_back(store: Store) -> None:
    versions = [await store.save_encounter(fight())]
    for _ in range(5):
        saved = await store.update_encounter(CHANNEL, round_change)
        assert saved is not None
        versions.append(saved)
    undone, steps = await store.undo(CHANNEL, 3, versions[-1].version, restored, undo_line)
    assert [step.lines for step in steps] == [("round 5",), ("round 4",), ("round 3",)]
    earlier = versions[2]
    assert undone.model_copy(update={"version": 0, "flow": earlier.flow}) == earlier.model_copy(
        update={"version": 0}
    )
    again, _ = await store.undo(CHANNEL, 2, undone.version, restored, undo_line)
    assert again.initiative.round == 0
    log = await store.read_log(channel_id=CHANNEL)
    assert [entry.text for entry in log] == [f"round {n}" for n in range(1, 6)] + ["undo", "undo"]
    assert [entry.undone_by is not None for entry in log] == [True] * 5 + [False, False]


@pytest.mark.parametrize("steps", [100])
async def test_what_history_costs(path: Path, steps: int) -> None:
    """Not a limit: prints the write time and the database's growth per 100 steps of a six-fighter
    fight (run with -s to read it)."""
    store = await open_store(path)
    try:
        encounter = fight()
        for n in range(6):
            encounter.join(GM + n, character(f"Fighter {n}"), None)
        await store.save_encounter(encounter)
        started = time.perf_counter()
        for _ in range(steps):
            await store.update_encounter(CHANNEL, round_change)
        spent = time.perf_counter() - started
        stored = await store.load_encounter(CHANNEL)
        assert stored is not None
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        kept, size = db.execute("SELECT COUNT(*), SUM(LENGTH(document)) FROM encounter_history").fetchone()
    print(
        f"\n{steps} steps: {spent / steps * 1000:.2f} ms a change; history keeps {kept} steps,"
        f" {size / 1024:.0f} KiB of documents ({len(stored.model_dump_json())} bytes each);"
        f" database file {path.stat().st_size / 1024:.0f} KiB"
    )


async def test_a_redo_takes_the_last_undo_back_and_its_lines_stand_again(store: Store) -> None:
    await store.save_encounter(fight())
    for _ in range(3):
        saved = await store.update_encounter(CHANNEL, round_change)
    assert saved is not None
    undone, _ = await store.undo(CHANNEL, 2, saved.version, restored, undo_line)
    redoable = await store.redoable(CHANNEL)
    assert redoable is not None
    assert [step.lines for step in redoable.steps] == [("round 3",), ("round 2",)]
    with pytest.raises(NothingToRedo):  # not that undo
        await store.redo(CHANNEL, redoable.undo_id - 1, restored, undo_line)
    redone, steps = await store.redo(CHANNEL, redoable.undo_id, restored, lambda _: event("redo"))
    assert [step.lines for step in steps] == [("round 3",), ("round 2",)]
    assert redone.version == undone.version + 1
    assert redone.initiative.round == 3
    assert redone.flow.step > undone.flow.step
    assert await store.load_encounter(CHANNEL) == redone
    log = await store.read_log(channel_id=CHANNEL)
    assert [(entry.text, entry.undone_by) for entry in log] == [
        ("round 1", None),
        ("round 2", None),
        ("round 3", None),
        ("undo", None),
        ("redo", None),
    ]
    assert [step.lines for step in await store.history(CHANNEL)] == [("round 3",), ("round 2",), ("round 1",)]
    assert await store.redoable(CHANNEL) is None
    with pytest.raises(NothingToRedo):
        await store.redo(CHANNEL, redoable.undo_id, restored, undo_line)


async def test_two_undos_are_redone_newest_first_and_a_new_change_forgets_them(store: Store) -> None:
    await store.save_encounter(fight())
    for _ in range(3):
        saved = await store.update_encounter(CHANNEL, round_change)
    assert saved is not None
    once, _ = await store.undo(CHANNEL, 1, saved.version, restored, undo_line)
    twice, _ = await store.undo(CHANNEL, 1, once.version, restored, undo_line)
    assert twice.initiative.round == 1
    last = await store.redoable(CHANNEL)
    assert last is not None
    back, [step] = await store.redo(CHANNEL, last.undo_id, restored, undo_line)
    assert (back.initiative.round, step.lines) == (2, ("round 2",))
    changed = await store.update_encounter(CHANNEL, round_change)
    assert changed is not None
    assert changed.initiative.round == 3
    assert await store.redoable(CHANNEL) is None
    with pytest.raises(NothingToRedo):  # "round 3" as first made stays undone
        await store.redo(CHANNEL, last.undo_id, restored, undo_line)
    assert [step.lines for step in await store.history(CHANNEL)] == [("round 3",), ("round 2",), ("round 1",)]


async def test_a_new_step_deletes_the_undone_steps_with_the_undos_kept(path: Path) -> None:
    """The undone steps go with the undos kept (an undo writes both, a redo takes both back), and a
    step with nothing undone before it deletes none of the steps kept."""
    store = await open_store(path)
    try:
        await store.save_encounter(fight())
        for _ in range(4):
            saved = await store.update_encounter(CHANNEL, round_change)
        assert saved is not None
        once, _ = await store.undo(CHANNEL, 1, saved.version, restored, undo_line)
        await store.undo(CHANNEL, 2, once.version, restored, undo_line)
        last = await store.redoable(CHANNEL)
        assert last is not None
        await store.redo(CHANNEL, last.undo_id, restored, undo_line)

        def kept() -> tuple[int, int, int]:
            with sqlite3.connect(path) as db:
                undone = "SELECT count(*) FROM encounter_history WHERE undone_by IS NOT NULL"
                return (
                    db.execute("SELECT count(*) FROM encounter_history").fetchone()[0],
                    db.execute(undone).fetchone()[0],
                    db.execute("SELECT count(*) FROM encounter_undos").fetchone()[0],
                )

        assert kept() == (4, 1, 1)
        await store.update_encounter(CHANNEL, round_change)
        assert kept() == (4, 0, 0)
        await store.update_encounter(CHANNEL, round_change)
        assert kept() == (5, 0, 0)
    finally:
        await store.close()


async def test_a_kept_fight_that_no_longer_reads_is_refused_and_nothing_changes(path: Path) -> None:
    store = await open_store(path)
    try:
        await store.save_encounter(fight())
        saved = await store.update_encounter(CHANNEL, round_change)
        assert saved is not None
        with sqlite3.connect(path) as db:  # kept by a Pommel whose documents this one does not read
            db.execute("UPDATE encounter_history SET document = json_set(document, '$.gm_id', 'nobody')")
        with pytest.raises(PastUnreadable) as refused:
            await store.undo(CHANNEL, 1, saved.version, restored, undo_line)
        assert "no longer reads. Nothing was changed" in str(refused.value)
        assert await store.load_encounter(CHANNEL) == saved
        assert [entry.text for entry in await store.read_log(channel_id=CHANNEL)] == ["round 1"]
        assert len(await store.history(CHANNEL)) == 1
    finally:
        await store.close()
