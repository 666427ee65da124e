"""An undo over random sequences of changes (HP, conditions, deals) and undos: after undoing k steps the
fight is the one k steps back but for its version and its turn step, and no log line is ever lost."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.encounter import history, initiative, roster
from bot.encounter.document import Encounter, TableOptions
from bot.encounter.done import Done
from bot.encounter.permissions import Actor
from bot.encounter.results import HpChange, TurnAction
from bot.rules.dice import RandomDice
from bot.rules.errors import RulesError
from bot.rules.turns import ClaimPause
from bot.store import LogEntry, Store, open_store
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
)


def operation(kind: str, amount: int, dice: RandomDice) -> Callable[[Encounter], Done[Any]]:
    if kind == "hp":
        return lambda e: roster.change_hp(e, THE_GM, "GM", "Ansel", HpChange("-", amount))
    if kind == "heal":
        return lambda e: roster.change_hp(e, THE_GM, "GM", "Ansel", HpChange("+", amount))
    if kind == "condition":
        return lambda e: roster.change_condition(e, THE_GM, "GM", "Ansel", "prone", add=bool(amount))
    return lambda e: initiative.press(e, TurnAction.DEAL, THE_GM, dice)


def comparable(encounter: Encounter) -> Encounter:
    """The fight but for what an undo changes on purpose: its version and its turn step (bumped)."""
    fight = encounter.model_copy(deep=True)
    fight.version = 0
    fight.flow.step = 0
    fight.waiting_since = None  # a deal notes when a wait begins, from the clock
    return fight


def undo_line(steps: object) -> LogEntry:
    return LogEntry(guild_id=GUILD, channel_id=CHANNEL, user_id=GM, kind="encounter", text="undo")


async def run(changes: list[Step], seed: int) -> None:
    store: Store = await open_store(":memory:")
    try:
        fight = Encounter(
            channel_id=CHANNEL, guild_id=GUILD, gm_id=GM, table=TableOptions(claim_pause=ClaimPause.NEVER)
        )
        fight.join(ANN, character("Ansel"), None)
        states = [await store.save_encounter(fight)]  # the fight after each step still standing
        dice = RandomDice(random.Random(seed))
        logged = 0
        for kind, amount in changes:
            if kind == "undo":
                steps = min(amount, len(states) - 1)
                if steps == 0:
                    continue
                undone, _ = await store.undo(CHANNEL, steps, states[-1].version, history.restored, undo_line)
                del states[-steps:]
                assert comparable(undone) == comparable(states[-1])
                assert undone.flow.step > max(state.flow.step for state in states)
                states[-1] = undone  # the fight goes on from here; the undo is no step to undo
                logged += 1
                continue
            try:
                saved, _ = await store.change(CHANNEL, GM, operation(kind, amount, dice))
            except RulesError:  # a refusal (nothing to change) writes nothing
                continue
            states.append(saved)
            logged = len(await store.read_log(channel_id=CHANNEL, limit=1000))
        log = await store.read_log(channel_id=CHANNEL, limit=1000)
        assert len(log) == logged
        assert len(log) == len({entry.id for entry in log})
    finally:
        await store.close()


@settings(max_examples=40, deadline=None)
@given(st.lists(CHANGES, max_size=12), st.integers(0, 2**16))
def test_undoing_k_steps_gives_back_the_fight_k_steps_back_and_loses_no_line(
    changes: list[Step], seed: int
) -> None:
    asyncio.run(run(changes, seed))
