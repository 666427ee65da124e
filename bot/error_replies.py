"""The one error handler: a failed command or click answered once, privately, whatever state its
interaction is in; what it says is :mod:`bot.ui.errors`'.

A failure after the command's change was committed (:mod:`bot.store.receipts`) is told as saved, never
as "nothing was changed"; a bug is logged with its traceback under a short id the user can quote.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

import discord

from .interactions.echo import echoed
from .store.receipts import committed, committed_to
from .ui.errors import DISCORD_FAILURES, UNFINISHED_NOTE, failure_message, refusal, saved_but_unshown

log = logging.getLogger(__name__)


REPLY_LIMIT = 2000


PUBLIC_THINKING = "pommel_public_thinking"
"""Set in an interaction's extras while its answer is a "thinking" message everyone sees (a command that
deferred publicly, :func:`bot.interactions.answering.defer_for`): a private reply must not take its place."""
WAITING = "pommel_waiting_note"
"""Set in an interaction's extras while its private "thinking" message shows the note that the command
still works (:data:`bot.interactions.answering.WAITING_NOTE`): a private reply takes the note's place."""


FORGOTTEN = "pommel_forgotten"
"""Set in an interaction's extras once Discord refused its deferral as too late (after its 3 s): no
reply can reach it, so none is tried (:class:`bot.interactions.answering.Forgotten`)."""


def answer_turn(interaction: discord.Interaction) -> asyncio.Lock:
    """The turn an interaction's answers take: its first answer, its automatic deferral
    (:func:`bot.interactions.answering.watch_the_clock`) and a failure's reply go to Discord one at a time. A
    refusal sent while the deferral was on its way lost the race ("already acknowledged") and was never
    shown: the user saw "thinking…" forever, or a click that did nothing."""
    turn = interaction.extras.get("pommel_answer_turn")
    if not isinstance(turn, asyncio.Lock):
        turn = interaction.extras["pommel_answer_turn"] = asyncio.Lock()
    return turn


async def reply_privately(interaction: discord.Interaction, content: str) -> None:
    """An ephemeral answer, whether or not the interaction was already answered or deferred (in its
    turn: a deferral on its way is waited for, and the answer follows it).

    A refusal quoting something long is cut to Discord's 2000 characters rather than not delivered.
    """
    if len(content) > REPLY_LIMIT:
        content = content[: REPLY_LIMIT - 1] + "…"
    if interaction.extras.get(FORGOTTEN):  # Discord no longer knows the interaction: no reply reaches it
        if committed.get() is not None:
            await _tell_in_the_channel(interaction, content)
        return
    try:
        async with answer_turn(interaction):
            if interaction.extras.pop(WAITING, False):
                await interaction.edit_original_response(content=content)
            elif interaction.response.is_done():
                if interaction.extras.pop(PUBLIC_THINKING, False):
                    # The first follow-up would replace the public "thinking" message, for everyone to see.
                    await interaction.edit_original_response(content=UNFINISHED_NOTE)
                await interaction.followup.send(content, ephemeral=True)
            else:
                with echoed(False):
                    await interaction.response.send_message(content, ephemeral=True)
    except DISCORD_FAILURES:
        # The interaction expired (3 s for a first answer, 15 min after it) or Discord is unreachable.
        log.warning("could not deliver an error reply for interaction %s", interaction.id, exc_info=True)
        if committed.get() is not None:
            await _tell_in_the_channel(interaction, content)


async def _tell_in_the_channel(interaction: discord.Interaction, content: str) -> None:
    """The change was saved but the interaction can no longer be answered: say so in the channel,
    to the user (pinged: they must know not to do it again), as a message of its own."""
    if interaction.channel_id is None:
        return
    channel = interaction.client.get_partial_messageable(interaction.channel_id)
    notice = f"<@{interaction.user.id}>: {content}"
    try:
        await channel.send(
            notice[:REPLY_LIMIT],
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(interaction.user.id)]),
        )
    except DISCORD_FAILURES:
        log.warning("could not tell channel %s about a saved change", interaction.channel_id, exc_info=True)


async def answer_failure(interaction: discord.Interaction, error: Exception) -> None:
    """Tell the user what went wrong; log a bug with its traceback and an id they can quote. A failure
    after the command's change was committed says it was saved (:mod:`bot.store.receipts`)."""
    message = refusal(error)
    saved = committed.get()
    if interaction.extras.get(FORGOTTEN):  # its answer came after Discord's 3 s: no bug, and no reply
        error_id = secrets.token_hex(4)
        log.info("error %s: Discord had forgotten interaction %s (%s)", error_id, interaction.id, error)
        if saved is not None:  # told in the channel, as saved
            await reply_privately(interaction, saved_but_unshown(saved, error_id, committed_to.get()))
        return
    if saved is not None:
        error_id = secrets.token_hex(4)
        log.warning(
            "error %s after a committed change (user %s, channel %s)",
            error_id,
            interaction.user.id,
            interaction.channel_id,
            exc_info=error,
        )
        await reply_privately(interaction, saved_but_unshown(saved, error_id, committed_to.get()))
        return
    if message is None:
        error_id = secrets.token_hex(4)
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error(
            "error %s in /%s (user %s, channel %s)",
            error_id,
            command,
            interaction.user.id,
            interaction.channel_id,
            exc_info=error,
        )
        message = failure_message(error_id)
    await reply_privately(interaction, message)
