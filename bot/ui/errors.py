"""The one place a failed command becomes a reply: player-facing for refusals, an error id otherwise.

The rules core raises :class:`RulesError` with a message written for players; discord.py raises
check failures and transformer errors before a command runs. Those are answered ephemerally with
what was wrong. Anything else is a bug: it is logged with its traceback under a short id, and the
user is told nothing was changed (every state change is one transaction, so that holds) and given
the id to quote to the GM or the developers.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

import aiohttp
import discord
from discord import app_commands

from ..rules.errors import RulesError, echoed
from ..store.receipts import Record, committed, committed_to

log = logging.getLogger(__name__)


def refusal(error: Exception) -> str | None:
    """The player-facing message for an expected failure, or None for a bug."""
    original: BaseException = error
    while isinstance(original, app_commands.CommandInvokeError | app_commands.TransformerError):
        cause = original.__cause__ or getattr(original, "original", None)
        if cause is None:
            break
        original = cause
    if isinstance(original, RulesError):
        return original.message
    return _check_failure(original)


def _check_failure(error: BaseException) -> str | None:
    match error:
        case app_commands.NoPrivateMessage():
            return "That command only works in a server channel, not in direct messages."
        case app_commands.MissingPermissions():
            missing = ", ".join(p.replace("_", " ") for p in error.missing_permissions)
            return f"You need the {missing} permission for that."
        case app_commands.BotMissingPermissions():
            missing = ", ".join(p.replace("_", " ") for p in error.missing_permissions)
            return f"I need the {missing} permission in this channel for that; ask a server admin."
        case app_commands.MissingRole() | app_commands.MissingAnyRole():
            return "You don't have the role that command needs."
        case app_commands.CommandOnCooldown():
            return f"Slow down: try again in {error.retry_after:.0f} s."
        case app_commands.TransformerError():
            value = str(error.value)
            shown = value if len(value) <= 100 else f"{value[:100]}…"
            return f"`{shown}` isn't something I can use there."
        case app_commands.CommandNotFound() | app_commands.CommandSignatureMismatch():
            return "Discord is still updating that command; try again in a minute."
        case app_commands.CheckFailure():
            # discord.py's own text ("The check functions for command ... failed") is not for players;
            # a check with something to say raises a RulesError, which is shown as written.
            return "You can't use that command here."
    return None


DISCORD_FAILURES: tuple[type[BaseException], ...] = (
    discord.HTTPException,
    aiohttp.ClientError,
    asyncio.TimeoutError,
)
"""What talking to Discord can fail with: an HTTP error, or the connection itself (dropped, reset, timed
out). Everywhere the bot talks to Discord, the one is handled like the other."""

REFUSED_HERE_CODES = frozenset({10003, 50001, 50013})
"""Discord's codes for a channel Pommel cannot post in: Unknown Channel, Missing Access, Missing
Permissions."""


def cannot_post_here(error: BaseException) -> bool:
    """Whether Discord refuses Pommel the channel itself (its permissions there, or the channel is
    gone): trying again cannot help until someone changes the channel. The one place that decides it."""
    return isinstance(error, discord.HTTPException) and (
        error.status == 403 or error.code in REFUSED_HERE_CODES
    )


def may_pass(error: BaseException) -> bool:
    """Whether trying again later may succeed: the connection failed (dropped, reset, timed out),
    Discord had trouble of its own (5xx), or it asked to slow down (429). Anything else Discord refused
    would be refused again."""
    if not isinstance(error, discord.HTTPException):
        return isinstance(error, DISCORD_FAILURES)
    return error.status >= 500 or error.status == 429


def failure_message(error_id: str) -> str:
    return f"Something went wrong, nothing was changed. If it keeps happening, quote error id `{error_id}`."


KEPT_IN: dict[Record, str] = {
    "fight": "The tracker and `/encounter log` have it: don't do it again.",
    "roll": "It is in the server's roll log (`/roll log`, for its GMs): don't roll again.",
}


def saved_but_unshown(what: str, error_id: str, kept_in: Record = "fight") -> str:
    """The answer to a failure after the change was committed: it was saved; only showing it failed."""
    return (
        f"✅ Saved: {echoed(what, 300)}. But I could not show it here (Discord did not take my reply; "
        f"error id `{error_id}`). {KEPT_IN[kept_in]}"
    )


REPLY_LIMIT = 2000

PUBLIC_THINKING = "pommel_public_thinking"
"""Set in an interaction's extras while its answer is a "thinking" message everyone sees (a command that
deferred publicly, :func:`bot.interactions.answering.defer_for`): a private reply must not take its place."""
UNFINISHED_NOTE = "⚠️ This command did not finish; whoever used it was told why, privately."
"""What a public "thinking" message becomes when the command fails: the reason goes privately."""


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
    try:
        async with answer_turn(interaction):
            if interaction.response.is_done():
                if interaction.extras.pop(PUBLIC_THINKING, False):
                    # The first follow-up would replace the public "thinking" message, for everyone to see.
                    await interaction.edit_original_response(content=UNFINISHED_NOTE)
                await interaction.followup.send(content, ephemeral=True)
            else:
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
