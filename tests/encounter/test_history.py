"""Undo and redo over random sequences of changes (HP, conditions, deals), undos and redos: after undoing
k steps the fight is the one k steps back, and after a redo the one before the undo, but for its version
and its turn step; a change after an undo forgets what it undid; no log line is ever lost."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.catalog import load_catalog
from bot.encounter import attacks, combatant, history, initiative, messages
from bot.encounter.attacks import Declaration
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import Actor
from bot.encounter.records import FightMessage
from bot.encounter.results import HpChange, TurnAction
from bot.rules.dice import RandomDice
from bot.rules.errors import RulesError
from bot.rules.turns import ClaimPause
from bot.store import LogEntry, NothingToRedo, Store, open_store
from bot.table_options import TableOptions
from tests.encounter.test_attacks import duel
from tests.sheets import character

CHANNEL, GUILD, GM, ANN = 100, 10, 1, 11
THE_GM = Actor(GM)

Step = tuple[str, int]
CHANGES = st.one_of(
    st.tuples(st.just("hp"), st.integers(1, 6)),
    st.tuples(st.just("heal"), st.integers(1, 6)),
    st.tuples(st.just("condition"), st.integers(0, 1)),
    st.tuples(st.just("deal"), st.just(0)),
    st.tuples(st.just("undo"), st.integers(1, 4)),
    st.tuples(st.just("redo"), st.just(0)),
)


def operation(kind: str, amount: int, dice: RandomDice) -> Callable[[Encounter], Done[Any]]:
    if kind == "hp":
        return lambda e: combatant.change_hp(e, THE_GM, "GM", "Ansel", HpChange("-", amount))
    if kind == "heal":
        return lambda e: combatant.change_hp(e, THE_GM, "GM", "Ansel", HpChange("+", amount))
    if kind == "condition":
        return lambda e: combatant.change_condition(e, THE_GM, "GM", "Ansel", "prone", add=bool(amount))
    return lambda e: initiative.press(e, TurnAction.DEAL, THE_GM, dice)


def comparable(encounter: Encounter) -> Encounter:
    """The fight but for what an undo changes on purpose: its version and its turn step (bumped)."""
    fight = encounter.model_copy(deep=True)
    fight.version = 0
    fight.flow.step = 0
    fight.waiting_since = None  # a deal notes when a wait begins, from the clock
    return fight


def line(steps: object) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="encounter", text="undo or redo")


async def run(changes: list[Step], seed: int) -> None:
    store: Store = await open_store(":memory:")
    try:
        fight = Encounter(
            channel_id=CHANNEL, guild_id=GUILD, gm_id=GM, table=TableOptions(claim_pause=ClaimPause.NEVER)
        )
        fight.join(ANN, character("Ansel"), None)
        saved = await store.save_encounter(fight)
        states = [comparable(saved)]  # the fight after each step still standing
        undone: list[list[Encounter]] = []  # what each undo took back, the last undo last
        dice = RandomDice(random.Random(seed))
        logged, steps_seen = 0, saved.flow.step
        for kind, amount in changes:
            if kind == "undo":
                steps = min(amount, len(states) - 1)
                if steps == 0:
                    assert await store.history(CHANNEL) == []
                    continue
                saved, _ = await store.undo(CHANNEL, steps, saved.version, history.restored, line)
                undone.append(states[-steps:])
                del states[-steps:]
            elif kind == "redo":
                redoable = await store.redoable(CHANNEL)
                if not undone:
                    assert redoable is None
                    with pytest.raises(NothingToRedo):
                        await store.redo(CHANNEL, 1, history.restored, line)
                    continue
                assert redoable is not None
                assert len(redoable.steps) == len(undone[-1])
                saved, _ = await store.redo(CHANNEL, redoable.undo_id, history.restored, line)
                states += undone.pop()
            else:
                try:
                    saved, _ = await store.change(CHANNEL, GM, operation(kind, amount, dice))
                except RulesError:  # a refusal (nothing to change) writes nothing
                    continue
                states.append(comparable(saved))
                undone.clear()  # a new step: what was undone stays undone
                logged = len(await store.read_log(channel_id=CHANNEL, limit=1000))
                steps_seen = max(steps_seen, saved.flow.step)
                continue
            assert comparable(saved) == states[-1]
            assert saved.flow.step > steps_seen  # no turn button drawn before acts on it
            steps_seen = saved.flow.step
            assert len(await store.history(CHANNEL)) == len(states) - 1
            logged += 1
        log = await store.read_log(channel_id=CHANNEL, limit=1000)
        assert len(log) == logged
        assert len(log) == len({entry.id for entry in log})
        assert await store.load_encounter(CHANNEL) == saved
    finally:
        await store.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(CHANGES, max_size=14), st.integers(0, 2**16))
def test_undoing_k_steps_gives_back_the_fight_k_steps_back_a_redo_the_one_before_and_no_line_is_lost(
    changes: list[Step], seed: int
) -> None:
    asyncio.run(run(changes, seed))


def test_an_undo_keeps_the_message_ids_the_current_fight_knows() -> None:
    """The id of an attack's request is learnt after the attack (bookkeeping, written with a later change),
    so a step kept in between does not know it: undoing a later change back to that step keeps the id, so
    the request is neither posted a second time nor left out of what the undo tells."""
    encounter = duel()
    done = attacks.attack(
        encounter,
        load_catalog(),
        THE_GM,
        who="Alice",
        target="Bandit",
        declared=Declaration(dice=1),
        dice=RandomDice.seeded(7),
        now=datetime(2026, 12, 1, tzinfo=UTC),
    )
    exchange = done.result.exchange
    assert exchange.pending
    earlier = encounter.model_copy(deep=True)  # the step kept before the request's id was written
    current = encounter.model_copy(deep=True)
    request = FightMessage(id=500, exchange=exchange.id, drawn=["a"])
    messages.remember(current, request)
    current.combatant("Alice").hp -= 1  # a later change, undone
    fight = history.restored(earlier, current)
    assert fight.exchange(exchange.id).message_id == 500
    assert history.asked_again(current, fight) == []  # nothing to post again
    assert [m.id for m in fight.messages] == [500]
