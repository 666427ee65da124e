"""What Pommel must be allowed to do in a channel, and why: one list, read by the invite link the bot logs
at ready, the README's table and the checks a command makes before it promises a message.

Pommel answers slash commands (which needs no permission of its own) and posts a few messages of its own
in a fight's channel or thread: the tracker, an attack's exchange when a defense times out, a reminder,
a notice that a change was saved when Discord forgot the interaction. It deletes and edits only its own
messages (no Manage Messages), reads no message history (it edits its messages by id), and its emojis are
Unicode ones (no Use External Emojis).
"""

from __future__ import annotations

from dataclasses import dataclass

import discord


@dataclass(frozen=True)
class Need:
    """One permission: its name in discord.py's ``Permissions``, its name in Discord's settings, and why
    Pommel needs it (written for the server admin who grants it)."""

    flag: str
    name: str
    why: str


NEEDS: tuple[Need, ...] = (
    Need(
        "view_channel",
        "View Channels",
        "to post in a fight's channel at all (Discord requires it for sending)",
    ),
    Need(
        "send_messages",
        "Send Messages",
        "to post the tracker, an attack decided by a defense timeout, reminders, and a notice when Discord "
        "lost a command's answer",
    ),
    Need(
        "send_messages_in_threads",
        "Send Messages in Threads",
        "the same, for a fight run in a thread",
    ),
    Need("embed_links", "Embed Links", "the tracker and the end-of-fight summary are embeds"),
    Need(
        "attach_files",
        "Attach Files",
        "the fight's log at `/encounter end` and `/encounter history`, the charts of `/odds` and "
        "`/stats dice`",
    ),
)

REQUIRED_PERMISSIONS = discord.Permissions(**{need.flag: True for need in NEEDS})
"""Every permission Pommel uses, and no other: the invite link asks for exactly these."""

SCOPES = ("bot", "applications.commands")
"""The invite's OAuth2 scopes: the bot user, and its slash commands."""


def invite_url(application_id: int) -> str:
    """The link a server admin opens to add the bot, asking for :data:`REQUIRED_PERMISSIONS`."""
    return discord.utils.oauth_url(application_id, permissions=REQUIRED_PERMISSIONS, scopes=SCOPES)
