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
import logging
from dataclasses import dataclass
from typing import Any

import discord
from discord.utils import MISSING

from ..error_replies import PUBLIC_THINKING, WAITING, answer_turn
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

BUSY = 100
"""Interactions in progress at once from which one more is deferred as soon as it arrives, not after
:data:`DEFER_AFTER`: with so many ahead of it (a burst over hundreds of channels), its answer would
likely come after Discord's 3 s, and a timer set for 2 s fires late on an event loop that busy."""

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Load:
    in_progress: int = 0
    """Interactions whose clock is running: arrived, not yet answered (nor failed and answered). What a
    command does after its answer (bookkeeping, its tracker) does not count."""


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
    clock: asyncio.TimerHandle | None = None
    """When the deferral is due: a timer, not a task, since nearly every answer comes first."""
    deferral: asyncio.Task[None] | None = None
    counted: bool = False
    """Whether it counts in :data:`_load` (from :func:`watch_the_clock` to :func:`stop_the_clock`)."""


def _answering(interaction: discord.Interaction[Any]) -> _Answering:
    state = interaction.extras.get("pommel_answer")
    if not isinstance(state, _Answering):
        state = interaction.extras["pommel_answer"] = _Answering(answer_turn(interaction))
    return state


async def watch_the_clock(interaction: discord.Interaction[Any]) -> None:
    """Defer ``interaction`` if it has not been answered :data:`DEFER_AFTER` seconds from now: a command
    that waits (behind other commands on its channel, for the database) still answers, late. With
    :data:`BUSY` others in progress already, it is deferred now, as its work begins."""
    state = _answering(interaction)
    if state.counted or state.clock is not None:
        return
    _load.in_progress += 1
    state.counted = True
    if _load.in_progress > BUSY:
        _time_is_up(interaction, state)
        return
    state.clock = asyncio.get_running_loop().call_later(DEFER_AFTER, _time_is_up, interaction, state)


def stop_the_clock(interaction: discord.Interaction[Any]) -> None:
    """The command or click is over (answered, or failed and answered): no deferral is due any more."""
    state = interaction.extras.get("pommel_answer")
    if isinstance(state, _Answering):
        if state.counted:
            _load.in_progress -= 1
            state.counted = False
        if state.clock is not None:
            state.clock.cancel()
        if state.deferral is not None and not state.deferral.done():
            state.deferral.cancel()


def _time_is_up(interaction: discord.Interaction[Any], state: _Answering) -> None:
    if not interaction.response.is_done():
        state.deferral = asyncio.create_task(_defer(interaction, state), name="pommel-answer-clock")


async def _defer(interaction: discord.Interaction[Any], state: _Answering) -> None:
    async with state.lock:
        if interaction.response.is_done():
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
    async with state.lock:
        if not interaction.response.is_done():
            with echoed(echo):
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
        await interaction.edit_original_response(content=LATE_PUBLIC_NOTE)
        return followed
    finally:
        stop_the_clock(interaction)


async def answer_by_editing(interaction: discord.Interaction[Any], **message: Any) -> None:
    """A button's answer: its own message edited, in the response while in time, else after the
    deferral (:func:`watch_the_clock` defers a click as an update of its message)."""
    state = _answering(interaction)
    async with state.lock:
        if not interaction.response.is_done():
            with echoed(False):
                await interaction.response.edit_message(**message)
            stop_the_clock(interaction)
            return
    await interaction.edit_original_response(**message)
    stop_the_clock(interaction)
