"""The turns interactions take to work towards their answer (bot/interactions/answering.py)."""

from __future__ import annotations

import asyncio

import pytest

from bot.interactions import answering
from bot.interactions.answering import _Answering, _Turns


def state() -> _Answering:
    return _Answering(asyncio.Lock())


async def test_turns_are_given_in_the_order_asked_a_few_at_a_time() -> None:
    turns = _Turns(2, asyncio.get_running_loop())
    began: list[int] = []
    states = [state() for _ in range(6)]

    async def work(n: int) -> None:
        await turns.take(states[n])
        began.append(n)

    tasks = [asyncio.create_task(work(n)) for n in range(6)]
    await asyncio.sleep(0)
    assert began == [0, 1]  # two at a time; the others wait
    assert len(turns.waiting) == 4
    for n in range(4):
        turns.give_back(states[n])
        turns.give_back(states[n])  # giving back twice gives one turn
        await asyncio.sleep(0)
        assert began == list(range(n + 3))
    await asyncio.gather(*tasks)
    turns.give_back(states[4])
    turns.give_back(states[5])
    assert (turns.free, len(turns.waiting)) == (2, 0)


async def test_a_turn_not_given_back_passes_on_after_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command waiting for the database does not hold the next ones up."""
    monkeypatch.setattr(answering, "TURN_HELD", 0.0)
    turns = _Turns(1, asyncio.get_running_loop())
    await turns.take(state())
    await asyncio.wait_for(turns.take(state()), timeout=5)  # ordered, not timed: the held turn passed on


async def test_one_cancelled_while_it_waits_is_skipped() -> None:
    turns = _Turns(1, asyncio.get_running_loop())
    first, second, third = state(), state(), state()
    await turns.take(first)
    gone = asyncio.create_task(turns.take(second))
    comes = asyncio.create_task(turns.take(third))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    turns.give_back(first)
    await asyncio.wait_for(comes, timeout=5)
    assert third.turn is not None
    assert second.turn is None


async def test_the_wait_expected_grows_with_those_waiting_at_the_measured_pace() -> None:
    turns = _Turns(1, asyncio.get_running_loop())
    turns.seconds_each = 0.5
    await turns.take(state())
    waiters = [asyncio.create_task(turns.take(state())) for _ in range(5)]
    await asyncio.sleep(0)
    assert turns.expected_wait() == pytest.approx(2.5)
    for waiter in waiters:
        waiter.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)


async def test_quiet_once_no_one_waits() -> None:
    turns = _Turns(1, asyncio.get_running_loop())
    await turns.quiet()  # no one waits: at once
    first, second = state(), state()
    await turns.take(first)
    waiting = asyncio.create_task(turns.take(second))
    quiet = asyncio.create_task(turns.quiet())
    await asyncio.sleep(0)
    assert not quiet.done()
    turns.give_back(first)
    await asyncio.wait_for(quiet, timeout=5)
    await waiting


async def test_one_still_waiting_behind_too_many_is_deferred_when_looked_at_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A second after it came (the pace measured by then), one whose turn would come after 2 s is
    deferred at once; one whose turn comes sooner keeps its 2 s clock."""
    turns = _Turns(1, asyncio.get_running_loop())
    monkeypatch.setattr(answering._load, "turns", turns)
    deferred: list[_Answering] = []
    monkeypatch.setattr(answering, "_time_is_up", lambda interaction, state: deferred.append(state))
    await turns.take(state())
    ahead = [asyncio.create_task(turns.take(state())) for _ in range(3)]
    mine = state()
    waits = asyncio.create_task(turns.take(mine))
    await asyncio.sleep(0)
    turns.seconds_each = 0.1  # three ahead: its turn in 0.3 s
    answering._look_again(None, mine)  # type: ignore[arg-type]
    assert deferred == []
    assert mine.clock is not None  # the 2 s clock runs on
    mine.clock.cancel()
    turns.seconds_each = 1.0  # its turn in 3 s
    answering._look_again(None, mine)  # type: ignore[arg-type]
    assert deferred == [mine]
    for task in [*ahead, waits]:
        task.cancel()
    await asyncio.gather(*ahead, waits, return_exceptions=True)


class _Response:
    """An interaction's response that records whether the answer's turn was given back before it left."""

    def __init__(self, turns: _Turns) -> None:
        self.turns = turns
        self.free_as_it_left: int | None = None

    def is_done(self) -> bool:
        return self.free_as_it_left is not None

    async def send_message(self, *args: object, **kwargs: object) -> object:
        self.free_as_it_left = self.turns.free

        class Sent:
            message_id = None

        return Sent()

    async def edit_message(self, **kwargs: object) -> None:
        self.free_as_it_left = self.turns.free


class _Interaction:
    def __init__(self, turns: _Turns) -> None:
        self.id = 1
        self.extras: dict[str, object] = {}
        self.response = _Response(turns)


@pytest.mark.parametrize("answered_by", ["answer", "answer_by_editing"])
async def test_the_turn_is_given_back_as_the_answer_leaves(
    monkeypatch: pytest.MonkeyPatch, answered_by: str
) -> None:
    """The next one begins while an answer (a command's, or a click's edit of its message) travels to
    Discord, a round trip: holding the turn through it made a burst's clicks wait a round trip each."""
    turns = _Turns(1, asyncio.get_running_loop())
    monkeypatch.setattr(answering._load, "turns", turns)
    interaction = _Interaction(turns)
    await turns.take(answering._answering(interaction))  # type: ignore[arg-type]
    assert turns.free == 0
    if answered_by == "answer":
        await answering.answer(interaction, "done")  # type: ignore[arg-type]
    else:
        await answering.answer_by_editing(interaction, content="done")  # type: ignore[arg-type]
    assert interaction.response.free_as_it_left == 1
