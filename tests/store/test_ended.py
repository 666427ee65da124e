"""Ended fights: kept whole by the end, in its transaction, listed newest first and brought back."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import ENDED_KEPT, EndedGone, StaleEncounter, Store

from .conftest import Database
from .test_encounters import CHANNEL, GM, GUILD, event, fight


async def test_the_end_keeps_the_fight_whole_with_its_last_log_line(store: Store) -> None:
    saved = await store.save_encounter(fight())
    saved.initiative.round = 3
    saved = await store.save_encounter(saved)
    await store.delete_encounter(saved, events=[event("GM ended the fight after 3 rounds")])
    [end] = await store.read_log(channel_id=CHANNEL)

    [listed] = await store.ended_encounters(CHANNEL)
    assert (listed.channel_id, listed.guild_id, listed.gm_id) == (CHANNEL, GUILD, GM)
    assert (listed.rounds, listed.version, listed.last_log_id) == (3, saved.version, end.id)
    assert listed.started_at == saved.started_at
    assert listed.ended_at == end.at
    assert listed.encounter is None  # the list carries no documents
    kept = await store.ended_encounter(listed.id)
    assert kept is not None
    assert kept.encounter == saved
    assert await store.ended_encounter(listed.id + 1) is None
    assert await store.ended_encounters(CHANNEL + 1) == []


REFUSE_ENDED_POSTGRES = """
CREATE FUNCTION refuse_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'not kept'; END $$;
CREATE TRIGGER refuse_ended BEFORE INSERT ON ended_encounters FOR EACH ROW EXECUTE FUNCTION refuse_ended();
"""


async def test_a_failure_keeping_the_fight_keeps_it_running(database: Database) -> None:
    """The end and the keeping are one transaction: when the ended fight cannot be written, nothing is
    ended and nothing logged."""
    store = await database.open()
    try:
        saved = await store.save_encounter(fight())
        await database.script(
            "CREATE TRIGGER refuse_ended BEFORE INSERT ON ended_encounters"
            " BEGIN SELECT RAISE(ABORT, 'not kept'); END;",
            REFUSE_ENDED_POSTGRES,
        )
        with pytest.raises(Exception, match="not kept"):
            await store.delete_encounter(saved, events=[event("ended")])
        assert await store.load_encounter(CHANNEL) == saved
        assert await store.read_log() == []
        assert await store.ended_encounters(CHANNEL) == []
    finally:
        await store.close()


async def test_a_channel_keeps_its_last_ended_fights_newest_first(store: Store) -> None:
    other = await store.save_encounter(fight(CHANNEL + 1))
    await store.delete_encounter(other)
    for round_ in range(ENDED_KEPT + 2):
        saved = fight()
        saved.initiative.round = round_
        await store.delete_encounter(await store.save_encounter(saved))
        await asyncio.sleep(0)
    listed = await store.ended_encounters(CHANNEL, limit=100)
    assert [ended.rounds for ended in listed] == list(range(ENDED_KEPT + 1, 1, -1))
    assert [ended.rounds for ended in await store.ended_encounters(CHANNEL, limit=2)] == [
        ENDED_KEPT + 1,
        ENDED_KEPT,
    ]
    assert len(await store.ended_encounters(CHANNEL + 1)) == 1


async def test_a_reopened_fight_is_back_as_it_ended_at_the_next_version(store: Store) -> None:
    saved = fight()
    saved.initiative.round = 2
    saved = await store.save_encounter(await store.save_encounter(saved))
    await store.delete_encounter(saved)
    [listed] = await store.ended_encounters(CHANNEL)
    kept = await store.ended_encounter(listed.id)
    assert kept is not None

    reopened = await store.reopen_encounter(kept, events=[event("GM reopened the fight")])
    assert reopened.version == saved.version + 1
    assert reopened.model_copy(update={"version": saved.version}) == saved
    assert await store.load_encounter(CHANNEL) == reopened
    assert [entry.text for entry in await store.read_log(channel_id=CHANNEL)] == ["GM reopened the fight"]
    assert await store.ended_encounters(CHANNEL) == []
    with pytest.raises(EndedGone):  # a second reopen of the same one
        await store.reopen_encounter(kept)

    await store.delete_encounter(reopened)  # ended again: kept again, at its new version
    [again] = await store.ended_encounters(CHANNEL)
    assert again.version == reopened.version


async def test_no_reopen_while_a_fight_runs(store: Store) -> None:
    await store.delete_encounter(await store.save_encounter(fight()))
    [listed] = await store.ended_encounters(CHANNEL)
    kept = await store.ended_encounter(listed.id)
    assert kept is not None
    running = await store.save_encounter(fight())
    with pytest.raises(StaleEncounter, match="A fight is already running"):
        await store.reopen_encounter(kept, events=[event("reopened")])
    assert await store.load_encounter(CHANNEL) == running
    assert await store.read_log() == []
    assert len(await store.ended_encounters(CHANNEL)) == 1


async def test_an_end_racing_a_change_from_another_process_is_a_compare_and_set(database: Database) -> None:
    """Of an end and a change made at once from the same version, one wins: the fight goes on changed
    and nothing is kept as ended, or it ended as it was and the change is refused."""
    for attempt in range(10):
        first, second = await database.open(), await database.outside_writer()
        channel = CHANNEL + attempt
        try:
            saved = await first.save_encounter(fight(channel))
            changed = saved.model_copy(deep=True)
            changed.initiative.round = 3
            outcomes = await asyncio.gather(
                first.delete_encounter(saved, events=[event("ended", channel)]),
                second.save_encounter(changed),
                return_exceptions=True,
            )
            refused = [outcome for outcome in outcomes if isinstance(outcome, StaleEncounter)]
            assert len(refused) == 1, outcomes
            running = await first.load_encounter(channel)
            ended = await first.ended_encounters(channel)
            if running is None:
                assert len(ended) == 1
                assert ended[0].version == saved.version
            else:
                assert running.initiative.round == 3
                assert ended == []
        finally:
            await first.close()
            await second.close()
