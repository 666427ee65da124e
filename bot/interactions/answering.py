"""Answering in time: a command or click not answered within 2 s is deferred (:func:`watch_the_clock`),
one about to be slow defers itself (:func:`defer_for`), and its answer goes where Discord takes it then
(:func:`answer`, :func:`answer_by_editing`), in one request whenever it can: what the user waits for is
never behind another round trip to Discord that could have gone before or after it.

A command deferred privately shows "thinking" to its user only, and Discord's first follow-up would
replace it (private too). So while the command still works, its thinking message becomes a note
(:data:`WAITING_NOTE`): then a public answer is a follow-up of its own at once (the note saying where it
is afterwards), and a private answer or a refusal takes the note's place, each one request."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.utils import MISSING

from ..error_replies import FORGOTTEN, PUBLIC_THINKING, WAITING, answer_turn
from ..rules.errors import RulesError
from ..ui.errors import DISCORD_FAILURES
from .echo import echoed

DEFER_AFTER = 2.0
"""Seconds a command may take before it is deferred: Discord forgets an interaction whose first answer
has not come within 3 s (the user sees "This interaction failed", though the change may be saved)."""
LATE_PUBLIC_NOTE = "✅ Done; it took a moment, so the answer is the message below."
"""What a deferred command's private "thinking" message becomes when its answer is for everyone."""
WAITING_NOTE = "⏳ This is taking a moment: the answer comes here, or below if it is for everyone."
"""What a deferred command's private "thinking" message says while the command still works (so that its
answer, when it comes, is one request: see the module's note)."""

AT_ONCE = 16
"""Interactions working towards their answer at once; the others wait their turn, in the order they
came (:class:`_Turns`). In a burst over a thousand channels, every command interleaved with every other
at each await, so that nearly all answers came at the end, together, and a timer set for 2 s fired late
on a loop that busy. A turn ends when the answer leaves (what follows it waits for no one), or
:data:`TURN_HELD` after it began (a command waiting for the database does not hold the others up)."""
LOOK_AGAIN = 1.0
"""Seconds after its arrival when one still waiting for its turn is looked at again (:func:`_look_again`):
a burst's first turns have measured the pace by then, and a deferral sent now has time to reach Discord
even among hundreds (at 2 s, all the deferrals of a burst at once came after 3 s)."""
DEFERRING_AT_ONCE = 256
"""Deferrals on their way to Discord at once; the others wait, in the order they came: thousands sent
together went in lockstep, each finishing only as the last did, so that all reached Discord after 3 s.
Not fewer: each is a round trip, and 32 at a time (400 a second at 80 ms) acknowledged no /attack of a
burst over 5,000 channels in time."""
FORGOTTEN_AFTER = 3.0
"""Seconds after its arrival from which Discord has surely forgotten an interaction not acknowledged
(its 3 s run from before the bot received it): its deferral is not sent, its command not run."""
TURN_HELD = 0.25
"""Seconds a command keeps its turn while it has not answered: past that, it works on without one (it
waits for the database, or for a lock on its channel) and the next in line begins."""
FIRST_GUESS = 0.002
"""Seconds between two turns, until measured (:attr:`_Turns.seconds_each`): a command costs the bot's
process two to five milliseconds of CPU: a guess on the short side defers fewer at once (the
2 s timer catches those it should have)."""

UNKNOWN_INTERACTION = 10062
"""Discord's error code for an interaction it no longer knows: its first answer came after 3 s."""

log = logging.getLogger(__name__)


class Forgotten(RulesError, app_commands.CheckFailure):
    """Discord refused the deferral of an interaction still waiting its turn: it came after Discord's 3 s,
    so Discord has forgotten the interaction (its user saw "This interaction failed") and no answer can
    reach it. Its command is not run: nothing is changed that nobody would be told of."""

    def __init__(self) -> None:
        super().__init__("Discord gave up waiting for this, so nothing was done: try again.")


class _Turns:
    """Whose turn it is to work towards an answer (:data:`AT_ONCE` at a time, the rest in the order they
    came), and how long a turn lasts under load: the seconds between two turns given while some wait,
    averaged, so that one arriving behind many can tell it will not answer within :data:`DEFER_AFTER`
    and be deferred as it arrives, rather than all of those together when their timers fire."""

    def __init__(self, at_once: int, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop
        """The loop its turns are given on (a test's bot runs on a loop of its own)."""
        self.free = at_once
        self.waiting: deque[asyncio.Future[None]] = deque()
        self.seconds_each = FIRST_GUESS
        self._last_given: float | None = None
        self._quiet: asyncio.Event | None = None
        self.deferring = asyncio.Semaphore(DEFERRING_AT_ONCE)
        self.asked = 0
        """Tickets given to those who waited so far (in order); :attr:`served`: those whose wait ended."""
        self.served = 0

    async def quiet(self) -> None:
        """Until no one waits for a turn (at once if no one does)."""
        while self.waiting:
            if self._quiet is None or self._quiet.is_set():
                self._quiet = asyncio.Event()
            await self._quiet.wait()

    def _check_quiet(self) -> None:
        if not self.waiting and self._quiet is not None:
            self._quiet.set()

    def expected_wait(self) -> float:
        """Seconds until one arriving now would begin: those waiting ahead of it, a turn each."""
        return len(self.waiting) * self.seconds_each

    def wait_left(self, state: _Answering) -> float:
        """Seconds until ``state``, waiting, begins (0 once it has begun), at the pace measured."""
        if state.ticket is None:
            return 0.0
        return (state.ticket - self.served) * self.seconds_each

    async def take(self, state: _Answering) -> None:
        if self.free > 0 and not self.waiting:
            self.free -= 1
        else:
            turn = asyncio.get_running_loop().create_future()
            self.waiting.append(turn)
            state.ticket = self.asked
            self.asked += 1
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():  # given the turn as it was cancelled: pass it on
                    self._pass_on()
                else:
                    self.waiting.remove(turn)
                    self.served += 1  # one fewer ahead of the later tickets
                    self._check_quiet()
                raise
            finally:
                state.ticket = None
        state.turn = asyncio.get_running_loop().call_later(TURN_HELD, self.give_back, state)

    def give_back(self, state: _Answering) -> None:
        """``state``'s turn is over (idempotent): the next in line begins."""
        if state.turn is None:
            return
        state.turn.cancel()
        state.turn = None
        self._pass_on()

    def _pass_on(self) -> None:
        now = asyncio.get_running_loop().time()
        while self.waiting:
            turn = self.waiting.popleft()
            self.served += 1
            if turn.done():  # cancelled while it waited
                continue
            if self._last_given is not None:
                self.seconds_each += (min(now - self._last_given, DEFER_AFTER) - self.seconds_each) / 16
            self._last_given = now if self.waiting else None
            turn.set_result(None)
            self._check_quiet()
            return
        self._last_given = None
        self.free += 1
        self._check_quiet()


@dataclass(slots=True)
class _Load:
    in_progress: int = 0
    """Interactions whose clock is running: arrived, not yet answered (nor failed and answered). What a
    command does after its answer (bookkeeping, its tracker) does not count."""
    turns: _Turns = field(default_factory=lambda: _Turns(AT_ONCE))

    def turns_here(self) -> _Turns:
        """The turns of the running loop (anew on another: a turn left on a closed loop is not waited for)."""
        loop = asyncio.get_running_loop()
        if self.turns.loop is not loop:
            self.turns = _Turns(AT_ONCE, loop)
        return self.turns


_load = _Load()


@dataclass(slots=True)
class _Answering:
    """One interaction's answer: the lock its answer, the deferral and a failure's reply take turns on
    (:func:`bot.error_replies.answer_turn`), and whether it was deferred (privately, for a command: its
    first follow-up then replaces the "thinking" message)."""

    lock: asyncio.Lock
    deferred: bool = False
    answering: bool = False
    """The answer is on its way (or waits for the deferral to be done): the deferral leaves the
    "thinking" message as it is, the answer then replaces it."""
    deferred_publicly: bool = False
    """Deferred by the command itself (:func:`defer_for`) with a "thinking" message everyone sees: its
    public answer replaces it in place."""
    arrived: float = 0.0
    """When :func:`watch_the_clock` first saw it (the event loop's clock)."""
    clock: asyncio.TimerHandle | None = None
    """When the deferral is due: a timer, not a task, since nearly every answer comes first."""
    deferral: asyncio.Task[None] | None = None
    forgotten: bool = False
    """Discord refused its deferral as too late (:class:`Forgotten`)."""
    counted: bool = False
    """Whether it counts in :data:`_load` (from :func:`watch_the_clock` to :func:`stop_the_clock`)."""
    turn: asyncio.TimerHandle | None = None
    """While it has its turn (:class:`_Turns`): the end of the turn if it has not answered by then."""
    ticket: int | None = None
    """While it waits for its turn: its place in the order (:attr:`_Turns.asked`)."""


def _answering(interaction: discord.Interaction[Any]) -> _Answering:
    state = interaction.extras.get("pommel_answer")
    if not isinstance(state, _Answering):
        state = interaction.extras["pommel_answer"] = _Answering(answer_turn(interaction))
    return state


async def watch_the_clock(interaction: discord.Interaction[Any]) -> None:
    """Defer ``interaction`` if it has not been answered :data:`DEFER_AFTER` seconds from now: a command
    that waits (behind other commands on its channel, for the database) still answers, late. Then wait
    for its turn (:data:`AT_ONCE`): with so many ahead of it that its turn would come after
    :data:`DEFER_AFTER`, it is deferred now, as it arrives."""
    state = _answering(interaction)
    if state.counted or state.clock is not None:
        return
    _load.in_progress += 1
    state.counted = True
    turns = _load.turns_here()
    state.arrived = asyncio.get_running_loop().time()
    if turns.expected_wait() > DEFER_AFTER:
        _time_is_up(interaction, state)
    else:
        state.clock = asyncio.get_running_loop().call_later(LOOK_AGAIN, _look_again, interaction, state)
    await turns.take(state)
    if state.deferral is not None and not state.deferral.done():
        await asyncio.wait([state.deferral])  # in time, or refused as too late: known in a round trip
    if state.forgotten or _surely_forgotten(interaction, state):
        interaction.extras[FORGOTTEN] = True
        raise Forgotten()


def _surely_forgotten(interaction: discord.Interaction[Any], state: _Answering) -> bool:
    """Not acknowledged, and :data:`FORGOTTEN_AFTER` seconds since it arrived."""
    late = asyncio.get_running_loop().time() - state.arrived > FORGOTTEN_AFTER
    return late and not interaction.response.is_done()


def stop_the_clock(interaction: discord.Interaction[Any]) -> None:
    """The command or click is over (answered, or failed and answered): no deferral is due any more."""
    state = interaction.extras.get("pommel_answer")
    if isinstance(state, _Answering):
        _load.turns.give_back(state)
        if state.counted:
            _load.in_progress -= 1
            state.counted = False
        if state.clock is not None:
            state.clock.cancel()
        if state.deferral is not None and not state.deferral.done():
            state.deferral.cancel()


def _look_again(interaction: discord.Interaction[Any], state: _Answering) -> None:
    """:data:`LOOK_AGAIN` after it arrived: still waiting for its turn, with the pace now measured, it is
    deferred if its turn would come after :data:`DEFER_AFTER`; else the clock runs on to then."""
    if LOOK_AGAIN + _load.turns.wait_left(state) > DEFER_AFTER:
        _time_is_up(interaction, state)
    else:
        state.clock = asyncio.get_running_loop().call_later(
            DEFER_AFTER - LOOK_AGAIN, _time_is_up, interaction, state
        )


def _time_is_up(interaction: discord.Interaction[Any], state: _Answering) -> None:
    if not interaction.response.is_done():
        state.deferral = asyncio.create_task(_defer(interaction, state), name="pommel-answer-clock")


async def _defer(interaction: discord.Interaction[Any], state: _Answering) -> None:
    async with _load.turns_here().deferring:  # in the order they came (see DEFERRING_AT_ONCE)
        await _defer_now(interaction, state)


async def _defer_now(interaction: discord.Interaction[Any], state: _Answering) -> None:
    async with state.lock:
        if interaction.response.is_done() or interaction.extras.get(FORGOTTEN):
            return
        if _surely_forgotten(interaction, state):  # it would be refused: not sent
            state.forgotten = True
            interaction.extras[FORGOTTEN] = True
            return
        try:
            with echoed(False):
                if interaction.type is discord.InteractionType.component:
                    await interaction.response.defer()  # the click's message is edited when the answer comes
                    state.deferred = True
                    return
                await interaction.response.defer(ephemeral=True, thinking=True)
            state.deferred = True
            if not state.answering:  # it still works: its answer will be one request (the module's note)
                await interaction.edit_original_response(content=WAITING_NOTE)
                interaction.extras[WAITING] = True
        except discord.NotFound as error:
            if error.code != UNKNOWN_INTERACTION:
                log.warning("could not defer interaction %s", interaction.id, exc_info=True)
                return
            # Too late: Discord has forgotten it. Not yet begun, it will not be (Forgotten); under way, its
            # failure to answer is told as saved or not (bot.error_replies), without asking Discord again.
            state.forgotten = True
            interaction.extras[FORGOTTEN] = True
            log.info("interaction %s was deferred too late: Discord has forgotten it", interaction.id)
        except DISCORD_FAILURES:
            log.warning("could not defer interaction %s", interaction.id, exc_info=True)


async def defer_for(interaction: discord.Interaction[Any], *, ephemeral: bool) -> None:
    """A command about to do something slow (drawing a chart) defers now, as the answer to come will be
    seen (privately or by everyone), rather than leaving it to :func:`watch_the_clock`'s 2 s: on a
    loaded machine the slow part plus the wait could pass Discord's 3 s, and a private "thinking"
    message cannot become a public answer with its attachment in place."""
    state = _answering(interaction)
    async with state.lock:
        if interaction.response.is_done():
            return
        with echoed(False):
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        state.deferred = True
        state.deferred_publicly = not ephemeral
        if not ephemeral:
            interaction.extras[PUBLIC_THINKING] = True
        if state.clock is not None:
            state.clock.cancel()
            state.clock = None


@contextlib.contextmanager
def _refused_as_forgotten(interaction: discord.Interaction[Any]) -> Iterator[None]:
    """Around a first answer: Discord refusing it as unknown (it came after 3 s) marks the interaction
    forgotten, so that its failure is not taken for a bug nor answered again (:mod:`bot.error_replies`)."""
    try:
        yield
    except discord.NotFound as error:
        if error.code == UNKNOWN_INTERACTION:
            interaction.extras[FORGOTTEN] = True
        raise


async def answer(
    interaction: discord.Interaction[Any],
    content: Any = MISSING,
    *,
    ephemeral: bool = False,
    echo: bool = False,
    **message: Any,
) -> int | None:
    """A command's answer: the interaction's response while it is in time, else (it was deferred by
    :func:`watch_the_clock`) a follow-up: a private answer replaces the "thinking" message, a public one
    is a message of its own (so its mentions ping) with the thinking message saying so. With ``echo``,
    returns the answer's message id (Discord is asked to send the message back: only when the fight
    must remember it); else None."""
    state = _answering(interaction)
    state.answering = True
    _load.turns.give_back(state)  # its work is done: the next one begins while the answer travels
    async with state.lock:
        if not interaction.response.is_done():
            with echoed(echo), _refused_as_forgotten(interaction):
                sent = await interaction.response.send_message(content, ephemeral=ephemeral, **message)
            stop_the_clock(interaction)  # answered: what the command does after is not waited on
            return sent.message_id
    if interaction.extras.pop(WAITING, False):
        return await _answer_after_the_note(interaction, content, ephemeral=ephemeral, echo=echo, **message)
    is_command = interaction.type is discord.InteractionType.application_command
    if state.deferred and is_command and not ephemeral and not state.deferred_publicly:
        await interaction.edit_original_response(content=LATE_PUBLIC_NOTE)
    followed = await _follow_up(interaction, content, echo=echo, ephemeral=ephemeral, **message)
    interaction.extras.pop(PUBLIC_THINKING, None)  # answered: the thinking message is the answer now
    stop_the_clock(interaction)
    return followed


async def _follow_up(
    interaction: discord.Interaction[Any], content: Any, *, echo: bool, **message: Any
) -> int | None:
    """A follow-up; with ``echo``, Discord sends it back and its id is returned."""
    if echo:
        return (await interaction.followup.send(content, wait=True, **message)).id
    await interaction.followup.send(content, **message)
    return None


async def _answer_after_the_note(
    interaction: discord.Interaction[Any], content: Any, *, ephemeral: bool, echo: bool, **message: Any
) -> int | None:
    """The answer of a command whose thinking message shows :data:`WAITING_NOTE`, in one request: a
    private one in the note's place, a public one as a message of its own (then the note says where)."""
    try:
        if ephemeral:
            files = ([message.pop("file")] if "file" in message else []) + message.pop("files", [])
            if files:
                message["attachments"] = files
            edited = await interaction.edit_original_response(content=content, **message)
            return edited.id
        followed = await _follow_up(interaction, content, echo=echo, **message)
        note = asyncio.create_task(_say_the_answer_is_below(interaction), name="pommel-late-note")
        _notes.add(note)
        note.add_done_callback(_notes.discard)
        return followed
    finally:
        stop_the_clock(interaction)


_notes: set[asyncio.Task[None]] = set()
"""The notes of :func:`_say_the_answer_is_below` still to be written (kept from the garbage collector)."""

NOTES_SECONDS = 5.0
"""At shutdown, how long the notes still to be written (:func:`finish_notes`) may take."""


async def finish_notes(timeout: float = NOTES_SECONDS) -> None:
    """Wait up to ``timeout`` seconds for the notes of :func:`_say_the_answer_is_below` still to be
    written. Closing waits for them before it disconnects (once the commands in progress have answered):
    else the last thing a late answer's user reads would say the answer is still to come, for good."""
    if _notes:
        await asyncio.wait(set(_notes), timeout=timeout)


async def _say_the_answer_is_below(interaction: discord.Interaction[Any]) -> None:
    """The note becomes :data:`LATE_PUBLIC_NOTE` once no interaction waits for its turn: the answer is
    out already, and the note (which said "or below") can wait for the answers of a burst, one request
    less among theirs."""
    await _load.turns_here().quiet()
    try:
        await interaction.edit_original_response(content=LATE_PUBLIC_NOTE)
    except DISCORD_FAILURES:
        log.warning("could not say where the answer of interaction %s is", interaction.id, exc_info=True)


async def answer_by_editing(interaction: discord.Interaction[Any], **message: Any) -> None:
    """A button's answer: its own message edited, in the response while in time, else after the
    deferral (:func:`watch_the_clock` defers a click as an update of its message)."""
    state = _answering(interaction)
    _load.turns.give_back(state)  # its work is done: the next one begins while the edit travels
    async with state.lock:
        if not interaction.response.is_done():
            with echoed(False), _refused_as_forgotten(interaction):
                await interaction.response.edit_message(**message)
            stop_the_clock(interaction)
            return
    await interaction.edit_original_response(**message)
    stop_the_clock(interaction)
