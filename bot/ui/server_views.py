"""What ``/server forget`` says: the question, with its buttons, and what was deleted."""

from __future__ import annotations

import re

import discord

from ..store import ForgottenGuild
from .buttons import Button, button_view

FORGET_BUTTON = re.compile(r"pommel:forget:(?P<guild>\d+):(?P<action>forget|keep)")
"""The confirmation's buttons (:class:`cogs.server.ForgetButton`): the server they were drawn for."""

KEPT = "Nothing was deleted: this server's fights, log, characters and settings are as they were."

FORGOTTEN_FIGHT = (
    "🗑️ This fight was deleted with the rest of the server's data (`/server forget`): nothing of it is "
    "kept, and its buttons are gone. The GM starts a new one with `/encounter start`."
)
"""What the tracker of a running fight says once ``/server forget`` deleted it."""


def forget_custom_id(guild_id: int, action: str) -> str:
    return f"pommel:forget:{guild_id}:{action}"


def forget_confirmation(guild_id: int) -> tuple[str, discord.ui.View]:
    """What ``/server forget`` asks, privately, before anything is deleted."""
    content = "\n".join(
        [
            "**Delete everything Pommel keeps about this server?**",
            "Its fights (running and ended) with their undo history, its whole log with every roll, every "
            "player's characters here and the server's settings (GM role, defaults) are deleted for good: "
            "no command brings them back. Messages Pommel posted stay in the channels.",
        ]
    )
    view = button_view()
    view.add_item(
        Button(
            label="Delete this server's data",
            emoji="🗑️",
            style=discord.ButtonStyle.danger,
            custom_id=forget_custom_id(guild_id, "forget"),
        )
    )
    view.add_item(
        Button(
            label="Keep it", style=discord.ButtonStyle.secondary, custom_id=forget_custom_id(guild_id, "keep")
        )
    )
    return content, view


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"


def forgotten_reply(forgotten: ForgottenGuild) -> str:
    """What was deleted, once it is."""
    parts = [
        _count(forgotten.fights, "running fight"),
        _count(forgotten.ended, "ended fight"),
        _count(forgotten.log_lines, "log line"),
        _count(forgotten.characters, "character"),
        "the server's settings" if forgotten.settings else "no settings (none were saved)",
    ]
    if forgotten.homebrew:
        entries = "entry" if forgotten.homebrew == 1 else "entries"
        parts.append(f"{forgotten.homebrew} homebrew {entries}")
    return (
        f"🗑️ Deleted everything Pommel kept about this server: {', '.join(parts)}. "
        "A fight started from now on starts afresh, with the default settings."
    )
