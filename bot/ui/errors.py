"""What a failed command is told: player-facing for refusals, an error id otherwise; and which of
Discord's failures may pass. The one error handler that sends it is :mod:`bot.error_replies`.

The rules core raises :class:`RulesError` with a message written for players; discord.py raises
check failures and transformer errors before a command runs. Those are answered ephemerally with
what was wrong. Anything else is a bug: it is logged with its traceback under a short id, and the
user is told nothing was changed (every state change is one transaction, so that holds) and given
the id to quote to the GM or the developers.
"""

from __future__ import annotations

import asyncio

import aiohttp
import discord
from discord import app_commands

from ..rules.errors import RulesError, echoed
from ..store.receipts import Record


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


UNFINISHED_NOTE = "⚠️ This command did not finish; whoever used it was told why, privately."
"""What a public "thinking" message becomes when the command fails: the reason goes privately."""
