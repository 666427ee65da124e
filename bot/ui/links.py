"""Jump links to the messages of a fight: a message that points at another one links it, so a reader
arriving hours later in a play-by-post channel goes straight there.

:func:`shown_at` is the one place that knows which message shows what: the tracker for the turns, an
attack's request (or result) message for its exchange, as far as the fight records their ids.
"""

from __future__ import annotations

from ..encounter.document import Encounter
from ..encounter.records import Exchange


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """Discord's link to a message (``@me`` for a direct message)."""
    guild = guild_id if guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"


def shown_at(encounter: Encounter, exchange: Exchange | None = None) -> str | None:
    """The link to the message that shows ``exchange`` (its request, then its result), or without one the
    fight's tracker; None when the fight knows no such message."""
    if exchange is not None:
        if exchange.message_id is None:
            return None
        return jump_url(encounter.guild_id, encounter.channel_id, exchange.message_id)
    if encounter.tracker is None:
        return None
    return jump_url(encounter.guild_id, encounter.tracker.channel_id, encounter.tracker.message_id)


def linked(text: str, url: str | None) -> str:
    """``text`` as a Markdown link to ``url``, or as it is without one."""
    return f"[{text}]({url})" if url is not None else text
