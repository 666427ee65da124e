"""What Pommel lacks in a channel, and when a refused post is given up (the decision a retry asks)."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.channel_access import MESSAGE_NEEDS, TRACKER_NEEDS, gives_up, lacking


class Response:
    """What discord.py's HTTPException reads of a response."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "refused"


def refused(kind: type[discord.HTTPException], status: int, code: int) -> discord.HTTPException:
    return kind(Response(status), {"code": code, "message": "refused"})


def test_what_is_lacking_is_named_as_discord_names_it() -> None:
    everything = discord.Permissions.all()
    assert lacking(everything, TRACKER_NEEDS) == []
    no_send = discord.Permissions(view_channel=True, embed_links=True)
    assert lacking(no_send, TRACKER_NEEDS) == ["Send Messages"]
    assert lacking(no_send, MESSAGE_NEEDS) == ["Send Messages"]
    assert lacking(discord.Permissions.none(), TRACKER_NEEDS) == [
        "View Channel",
        "Send Messages",
        "Embed Links",
    ]


def test_in_a_thread_send_messages_in_threads_stands_for_send_messages() -> None:
    in_threads = discord.Permissions(view_channel=True, send_messages_in_threads=True, embed_links=True)
    assert lacking(in_threads, TRACKER_NEEDS, thread=True) == []
    assert lacking(in_threads, TRACKER_NEEDS) == ["Send Messages"]
    channel_only = discord.Permissions(view_channel=True, send_messages=True, embed_links=True)
    assert lacking(channel_only, TRACKER_NEEDS, thread=True) == ["Send Messages in Threads"]


@pytest.mark.parametrize(
    ("error", "given_up"),
    [
        (refused(discord.Forbidden, 403, 50013), True),  # Missing Permissions
        (refused(discord.Forbidden, 403, 50001), True),  # Missing Access
        (refused(discord.NotFound, 404, 10003), True),  # Unknown Channel: the channel is gone
        (refused(discord.NotFound, 404, 10008), False),  # Unknown Message: post anew
        (refused(discord.DiscordServerError, 503, 0), False),  # passes: try again
        (refused(discord.HTTPException, 429, 0), False),
        (TimeoutError(), False),
    ],
)
def test_only_what_will_be_refused_again_is_given_up(error: Any, given_up: bool) -> None:
    assert gives_up(error) is given_up
