"""What Pommel may do in a channel: the permissions its own posts there need (a tracker, a message of a
fight), what it lacks, and telling a fight's GM once when a post Discord refused cannot be made.

An answer to a command or a click is the interaction's, and Discord takes it whatever Pommel's
permissions in the channel (embeds and files included). What Pommel posts in the channel on its own
(a tracker, a defense's timeout, a reminder) needs View Channel and Send Messages (Send Messages in
Threads in a thread), and Embed Links for the tracker's embed. So a command checks
``interaction.app_permissions`` (Discord computes them for the channel, overwrites and threads
included) before it promises such a post; a post refused later (the permissions changed mid-fight)
is reported to the fight's GM once, in a direct message, and not tried again in a loop.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import datetime

import discord

from .encounter.document import Encounter
from .rules.errors import RulesError
from .ui.access_views import cannot_post_note, cannot_post_reply
from .ui.errors import cannot_post_here

log = logging.getLogger(__name__)

MESSAGE_NEEDS = ("view_channel", "send_messages")
"""A message Pommel posts in a channel on its own (a timeout's result, a defense asked again, a reminder)."""
TRACKER_NEEDS = (*MESSAGE_NEEDS, "embed_links")
"""A fight's tracker: a message with an embed and buttons, posted and edited by Pommel."""

PERMISSION_NAMES = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
}
"""Discord's names for the permissions, as its settings show them."""

REFUSALS_KEPT = 10_000
"""Fights remembered as told of a refused post: at most this many (the oldest forgotten first)."""


def is_thread(channel: object) -> bool:
    return isinstance(channel, discord.Thread)


def lacking(have: discord.Permissions, needs: tuple[str, ...], *, thread: bool = False) -> list[str]:
    """The permissions of ``needs`` that ``have`` lacks, by Discord's names; in a thread, Send Messages in
    Threads stands for Send Messages."""
    wanted = ["send_messages_in_threads" if thread and name == "send_messages" else name for name in needs]
    return [PERMISSION_NAMES.get(name, name) for name in wanted if not getattr(have, name)]


def lacking_here(interaction: discord.Interaction, needs: tuple[str, ...]) -> list[str]:
    """What Pommel lacks of ``needs`` in the interaction's channel (none in direct messages)."""
    if interaction.guild_id is None:
        return []
    return lacking(interaction.app_permissions, needs, thread=is_thread(interaction.channel))


def require_may_post(
    interaction: discord.Interaction, what: str, needs: tuple[str, ...], *, then: str
) -> None:
    """Before a command promises ``what`` in its channel: refuse it, saying what Pommel lacks there and
    where to grant it, when Pommel may not post it."""
    missing = lacking_here(interaction, needs)
    if missing:
        thread = is_thread(interaction.channel)
        raise RulesError(cannot_post_reply(what, missing, thread=thread, then=then))


def lacking_in(client: discord.Client, channel_id: int, needs: tuple[str, ...]) -> list[str] | None:
    """What Pommel lacks of ``needs`` in a channel as its cache knows it (channels, roles and overwrites
    come with the guilds intent); None when the channel is not in the cache."""
    for guild in client.guilds:
        channel = guild.get_channel_or_thread(channel_id)
        if channel is not None:
            return lacking(channel.permissions_for(guild.me), needs, thread=is_thread(channel))
    return None


def gives_up(error: BaseException) -> bool:
    """Whether a post Discord refused will be refused again until someone changes something: missing
    permissions or access (403), the channel gone (404 Unknown Channel). Trying it again is for what
    passes (a 5xx, a timeout), not for these; :func:`~bot.ui.errors.cannot_post_here` decides it."""
    return cannot_post_here(error)


class RefusedPosts:
    """Tells a fight's GM, once a fight, that Pommel could not post in its channel and why; a post that
    goes through again makes the next refusal worth telling."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._told: OrderedDict[tuple[int, datetime], None] = OrderedDict()

    def posted(self, encounter: Encounter) -> None:
        """A post in the fight's channel went through: a later refusal is news again."""
        self._told.pop((encounter.channel_id, encounter.started_at), None)

    async def refused(self, encounter: Encounter, what: str, error: BaseException) -> bool:
        """``what`` (say "the tracker") could not be posted in the fight's channel because of ``error``.
        When Discord will keep refusing (:func:`gives_up`), the GM is told in a direct message, once
        for the fight, and True is returned: do not try again. False: the failure may pass."""
        if not gives_up(error):
            return False
        fight = (encounter.channel_id, encounter.started_at)
        if fight in self._told:
            return True
        self._told[fight] = None
        while len(self._told) > REFUSALS_KEPT:
            self._told.popitem(last=False)
        missing = lacking_in(self.client, encounter.channel_id, TRACKER_NEEDS)
        note = cannot_post_note(encounter.channel_id, what, missing or [], error_text=str(error))
        log.warning("could not post %s in channel %s: %s; telling its GM", what, encounter.channel_id, error)
        try:
            channel = await self.client.create_dm(discord.Object(encounter.gm_id))
            await channel.send(note, allowed_mentions=discord.AllowedMentions.none())
        except (discord.HTTPException, OSError):
            log.warning("could not tell the GM %s that channel %s refuses posts", encounter.gm_id, fight[0])
        return True
