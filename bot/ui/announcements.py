"""A public message the table reads in the channel: its lines within Discord's 2000 characters, and
the users it may ping.

Each announcement stands on its own (play-by-post readers arrive hours later), and names who is
pinged; the user who caused the announcement is never pinged by it. What ``/init`` announces is
:mod:`bot.ui.init_views`'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import discord

__all__ = [
    "CONTENT_LIMIT",
    "Announcement",
    "cut",
    "fitted",
]

CONTENT_LIMIT = 2000


_UNCLOSED_TOKEN = re.compile(r"<[^<>]*$")
"""A mention, a channel, a timestamp or a custom emoji (``<@12>``, ``<t:1700000000:t>``) cut open."""
_UNCLOSED_LINK = re.compile(r"\[[^\[\]]*(\]\([^()]*)?$")
"""A Markdown link (``[this message](https://…)``) cut open."""


def cut(line: str, room: int) -> str:
    """``line`` in at most ``room`` characters, ending with "…": never inside a mention, a timestamp or
    a link, after a lone backslash, or with a bold or a strikethrough left open."""
    if len(line) <= room:
        return line
    kept = line[: max(0, room - 1)]
    kept = _UNCLOSED_LINK.sub("", _UNCLOSED_TOKEN.sub("", kept))
    for mark in ("**", "~~"):
        if kept.count(mark) % 2:
            kept = kept[: kept.rfind(mark)]
    return kept.rstrip().rstrip("\\") + "…"


def fitted(lines: Sequence[str], limit: int = CONTENT_LIMIT) -> str:
    """The lines joined within ``limit`` characters: the longest lines give way first, each cut down
    to the same length (in a message that runs long, they are the lists of names or situations), so
    the short ones (an attack's outcome, its damage and the HP left, a ping) stay whole."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    room = limit - (len(lines) - 1)

    def used(width: int) -> int:
        return sum(min(len(line), width) for line in lines)

    low, high = 0, max(map(len, lines))
    while low < high:  # the widest that fits
        middle = (low + high + 1) // 2
        low, high = (middle, high) if used(middle) <= room else (low, middle - 1)
    if low < 1:
        return text[:limit]
    return "\n".join(cut(line, low) for line in lines)


@dataclass(slots=True)
class Announcement:
    """The text of a public message and the users it may ping."""

    lines: list[str] = field(default_factory=list)
    ping: list[int] = field(default_factory=list)

    @property
    def content(self) -> str:
        """The lines, within Discord's 2000 characters: the longest line gives way if need be."""
        return fitted(self.lines)

    @property
    def allowed_mentions(self) -> discord.AllowedMentions:
        """Only the users named for a ping; never @everyone, roles or names users typed."""
        return discord.AllowedMentions(
            everyone=False,
            roles=False,
            users=[discord.Object(id=user) for user in self.ping],
            replied_user=False,
        )

    def notify(self, user_id: int | None, actor_id: int) -> str:
        """A mention of ``user_id`` for the text; pinged unless they caused the announcement."""
        if user_id is None:
            return ""
        if user_id != actor_id and user_id not in self.ping:
            self.ping.append(user_id)
        return f"<@{user_id}>"
