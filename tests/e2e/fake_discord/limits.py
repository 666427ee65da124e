"""Discord's platform limits the OpenAPI document cannot say, and the message flags they read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord

from .errors import DiscordError

EPHEMERAL = discord.MessageFlags(ephemeral=True).value
LOADING = discord.MessageFlags(loading=True).value
SUPPRESS_EMBEDS = discord.MessageFlags(suppress_embeds=True).value
SUPPRESS_NOTIFICATIONS = discord.MessageFlags(suppress_notifications=True).value
COMPONENTS_V2 = 1 << 15
VOICE_MESSAGE = 1 << 13
CREATE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2 | VOICE_MESSAGE
INTERACTION_FLAGS = CREATE_FLAGS | EPHEMERAL

BOT_CONTENT_LIMIT = 2000
EMBEDS_TEXT_LIMIT = 6000
"""Discord's limit on the text of all the embeds of one message together (titles, descriptions, field
names and values, footers, authors); the spec knows each part's limit, not this one."""
ACTION_ROWS_LIMIT = 5
"""Action rows in a message without IS_COMPONENTS_V2 (the spec's 40 is the Components V2 limit)."""


def _embed_text(embed: Mapping[str, Any]) -> int:
    """The characters of an embed that count towards Discord's 6,000 per message."""
    parts = [embed.get("title"), embed.get("description")]
    parts += [(embed.get("footer") or {}).get("text"), (embed.get("author") or {}).get("name")]
    for entry in embed.get("fields") or []:
        parts += [entry.get("name"), entry.get("value")]
    return sum(len(part) for part in parts if isinstance(part, str))


def check_message_limits(body: Mapping[str, Any], flags: int) -> None:
    """The limits Discord enforces on a whole message that the OpenAPI spec cannot say: 6,000 characters
    of embeds together, and 5 action rows (of 5 components each, which the spec checks) without
    Components V2. Checked before anything of the message changes, as Discord refuses it whole."""
    embeds = body.get("embeds") or []
    text = sum(_embed_text(embed) for embed in embeds if isinstance(embed, Mapping))
    if text > EMBEDS_TEXT_LIMIT:
        raise DiscordError(
            400, 50035, f"embeds: must be {EMBEDS_TEXT_LIMIT} or fewer characters in total (got {text})"
        )
    v2 = (int(body.get("flags") or 0) | flags) & COMPONENTS_V2
    rows = body.get("components") or []
    if not v2 and len(rows) > ACTION_ROWS_LIMIT:
        raise DiscordError(
            400, 50035, f"components: must be {ACTION_ROWS_LIMIT} or fewer in length (got {len(rows)})"
        )
