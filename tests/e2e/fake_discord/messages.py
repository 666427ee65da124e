"""Messages: what users see of them, and the create/edit semantics every route that writes one shares."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from .errors import DiscordError, DispatchError
from .gateway import DIRECT_MESSAGES_INTENT, GUILD_MESSAGES_INTENT, Gateway
from .limits import (
    BOT_CONTENT_LIMIT,
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    SUPPRESS_EMBEDS,
    check_message_limits,
)
from .model import FakeChannel, FakeUser, now_iso
from .records import Call

if TYPE_CHECKING:
    from .interactions import FakeInteraction


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


@dataclass(eq=False)
class FakeAttachment:
    """A file: uploaded by the bot (message attachment) or offered by a user (attachment option)."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None
    ephemeral: bool = False

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description is not None:
            data["description"] = self.description
        if self.ephemeral:
            data["ephemeral"] = True
        return data


@dataclass(eq=False)
class FakeMessage:
    """A message as users see it, plus the raw request bodies that produced and edited it."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    pinned: bool = False
    pinned_at: str | None = None
    allowed_mentions: dict[str, Any] | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    mention_roles: list[int] = field(default_factory=list)
    mention_everyone: bool = False
    timestamp: str = field(default_factory=now_iso)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: FakeInteraction | None = None
    reference: dict[str, Any] | None = None
    deleted: bool = False
    bodies: list[dict[str, Any]] = field(default_factory=list)
    """The create body first, then every edit body, as sent."""
    created_at: float = field(default_factory=time.perf_counter)
    """When the fake made it (``time.perf_counter``), for the benchmarks' timings."""

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        return self.edited_timestamp is not None

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in _walk_components(self.components) if "custom_id" in c]

    def component(self, custom_id: str) -> Mapping[str, Any]:
        for component in _walk_components(self.components):
            if component.get("custom_id") == custom_id:
                return component
        raise DispatchError(f"message {self.id} has no component {custom_id!r}; it has {self.custom_ids()}")

    @property
    def embed_text(self) -> str:
        """Titles, descriptions, fields and footers of every embed, for substring assertions."""
        parts: list[str] = []
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for f in embed.get("fields") or []:
                parts += [f.get("name", ""), f.get("value", "")]
            parts.append((embed.get("footer") or {}).get("text", ""))
        return "\n".join(p for p in parts if p)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "author": self.author.payload(),
            "content": self.content,
            "embeds": self.embeds,
            "components": self.components,
            "attachments": [a.payload() for a in self.attachments],
            "flags": self.flags,
            "tts": self.tts,
            "pinned": self.pinned,
            "mentions": [u.payload() for u in self.mentions],
            "mention_roles": [str(r) for r in self.mention_roles],
            "mention_everyone": self.mention_everyone,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
        }
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.reference is not None:
            data["message_reference"] = self.reference
        inter = self.interaction
        if inter is not None:
            data["interaction_metadata"] = inter.metadata()
            if inter.type == 2 and inter.original is self:
                data["interaction"] = {
                    "id": str(inter.id),
                    "type": inter.type,
                    "name": inter.command_name or "",
                    "user": inter.user.payload(),
                }
        return data

    def __repr__(self) -> str:
        return f"<FakeMessage {self.id} in #{self.channel.name} flags={self.flags} {self.content[:40]!r}>"


def _walk_components(components: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for component in components:
        yield component
        yield from _walk_components(component.get("components") or [])
        accessory = component.get("accessory")
        if accessory:
            yield accessory


# ------------------------------------------------------------------------------- normalization


def _normalize_embed(embed: Mapping[str, Any]) -> dict[str, Any]:
    """An embed as Discord returns it: ``type`` rich by default, every field with ``inline``."""
    out = {k: v for k, v in embed.items() if v is not None}
    out.setdefault("type", "rich")
    if "fields" in out:
        out["fields"] = [{"inline": False, **f} for f in out["fields"]]
    if isinstance(out.get("timestamp"), str):
        out["timestamp"] = datetime.fromisoformat(out["timestamp"]).isoformat()
    return out


def _normalize_components(components: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Components as Discord returns them: numbered ``id`` on every component, select defaults."""
    counter = itertools.count(1)
    taken = {c["id"] for c in _walk_components(components) if isinstance(c.get("id"), int)}

    def fix(component: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in component.items() if v is not None}
        if "id" not in out:
            number = next(counter)
            while number in taken:
                number = next(counter)
            out["id"] = number
        if out.get("type") in (3, 5, 6, 7, 8):
            out.setdefault("min_values", 1)
            out.setdefault("max_values", 1)
        if "components" in out:
            out["components"] = [fix(c) for c in out["components"]]
        if "accessory" in out:
            out["accessory"] = fix(out["accessory"])
        if isinstance(out.get("emoji"), Mapping):
            # A unicode emoji comes back as its name alone: the spec's emoji id is a string, never null.
            out["emoji"] = {k: v for k, v in out["emoji"].items() if v is not None}
        return out

    return [fix(c) for c in components]


class Messages(Gateway):
    """Messages written, edited and deleted as Discord does it, told to the bot as message events."""

    async def send_user_message(
        self, user: FakeUser, channel: FakeChannel, content: str, *, message_id: int | None = None
    ) -> FakeMessage:
        """A user writes in a channel: stored and dispatched as MESSAGE_CREATE."""
        message = self._new_message(channel, user, {"content": content}, [], type=0, message_id=message_id)
        await self._announce("MESSAGE_CREATE", message)
        return message

    def _new_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        body: Mapping[str, Any],
        files: list[FakeAttachment],
        *,
        type: int,
        flags: int = 0,
        interaction: FakeInteraction | None = None,
        webhook: bool = False,
        allow_empty: bool = False,
        message_id: int | None = None,
    ) -> FakeMessage:
        message = FakeMessage(
            id=message_id or self.snowflake(), channel=channel, author=author, type=type, flags=flags
        )
        message.interaction = interaction
        if webhook:
            message.webhook_id = self.application_id
            message.application_id = self.application_id
        message.tts = bool(body.get("tts"))
        if body.get("message_reference"):
            ref = dict(body["message_reference"])
            message.reference = {
                "type": ref.get("type", 0),
                "channel_id": str(ref.get("channel_id", channel.id)),
                "message_id": str(ref["message_id"]) if "message_id" in ref else None,
            }
            if channel.guild is not None:
                message.reference["guild_id"] = str(channel.guild.id)
            if message.type == 0:
                message.type = 19
        self._apply_content(message, body, files, creating=True, allow_empty=allow_empty)
        self.messages[message.id] = message
        self.message_log.append(message)
        if not message.ephemeral:
            channel.messages[message.id] = message
        return message

    def _apply_content(
        self,
        message: FakeMessage,
        body: Mapping[str, Any],
        files: list[FakeAttachment],
        *,
        creating: bool,
        allow_empty: bool = False,
    ) -> None:
        """Create/edit semantics shared by every message route: present keys replace, null clears.

        Flags are set by the caller on creation; an edit may only toggle SUPPRESS_EMBEDS/IS_COMPONENTS_V2.
        """
        content = body.get("content") or ""
        check_message_limits(body, message.flags)
        if len(content) > BOT_CONTENT_LIMIT:
            # The spec allows 4000 characters in channel messages (that is Nitro users' limit); bots
            # get 2000, as in interaction responses.
            raise DiscordError(
                400, 50035, f"content: must be {BOT_CONTENT_LIMIT} or fewer in length (got {len(content)})"
            )
        message.bodies.append(dict(body))
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = [_normalize_embed(e) for e in body["embeds"] or []]
        if "components" in body:
            message.components = _normalize_components(body["components"] or [])
        if "allowed_mentions" in body:
            message.allowed_mentions = body["allowed_mentions"]
        if not creating and body.get("flags") is not None:
            keep = message.flags & ~(SUPPRESS_EMBEDS | COMPONENTS_V2)
            message.flags = keep | (int(body["flags"]) & (SUPPRESS_EMBEDS | COMPONENTS_V2))
        if "attachments" in body and body["attachments"] is not None:
            by_index = {str(i): f for i, f in enumerate(files)}
            kept: list[FakeAttachment] = []
            existing = {str(a.id): a for a in message.attachments}
            for item in body["attachments"]:
                key = str(item.get("id"))
                if key in existing:
                    kept.append(existing[key])
                elif key in by_index:
                    upload = by_index.pop(key)
                    upload.description = item.get("description")
                    if "filename" in item:
                        upload.filename = item["filename"]
                    kept.append(upload)
            message.attachments = kept + list(by_index.values())
        elif files:
            message.attachments = [*message.attachments, *files]
        for attachment in message.attachments:
            attachment.ephemeral = message.ephemeral
        if not creating:
            message.edited_timestamp = now_iso()
        self._check_mentions(message)
        if not (message.content or message.embeds or message.components or message.attachments):
            if allow_empty or message.flags & LOADING:
                return
            raise DiscordError(400, 50006, "Cannot send an empty message")
        if message.flags & COMPONENTS_V2 and (message.content or message.embeds):
            raise DiscordError(
                400, 50035, "Invalid Form Body: content and embeds are not allowed with IS_COMPONENTS_V2"
            )

    def _check_mentions(self, message: FakeMessage) -> None:
        """Who is pinged, given the content and allowed_mentions (Discord fills ``mentions`` with them)."""
        allowed = message.allowed_mentions
        if allowed is None:
            parse = {"users", "roles", "everyone"}
            users: set[str] = set()
            roles: set[str] = set()
        else:
            parse = set(allowed.get("parse") or [])
            users = {str(u) for u in allowed.get("users") or []}
            roles = {str(r) for r in allowed.get("roles") or []}
            for kind, listed in (("users", users), ("roles", roles)):
                if kind in parse and listed:
                    raise DiscordError(
                        400, 50035, f"allowed_mentions: parse:{kind} and {kind} are mutually exclusive"
                    )
        content = message.content
        pinged: list[FakeUser] = []
        for match in _USER_MENTION.finditer(content):
            user = self.users.get(int(match.group(1)))
            if user is not None and ("users" in parse or match.group(1) in users) and user not in pinged:
                pinged.append(user)
        message.mentions = pinged
        message.mention_roles = [
            int(m.group(1))
            for m in _ROLE_MENTION.finditer(content)
            if "roles" in parse or m.group(1) in roles
        ]
        message.mention_everyone = "everyone" in parse and ("@everyone" in content or "@here" in content)

    async def _announce(self, event: str, message: FakeMessage) -> None:
        if not self.message_events or message.ephemeral:
            return
        data = message.payload()
        guild = message.channel.guild
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(message.author.id)
            if member is not None and message.webhook_id is None:
                data["member"] = {k: v for k, v in member.payload().items() if k != "user"}
        # As Discord: message events go only to bots with the intent of their kind of channel.
        intent = GUILD_MESSAGES_INTENT if guild is not None else DIRECT_MESSAGES_INTENT
        await self.dispatch(event, data, intent=intent)

    def _message_in(self, channel: FakeChannel, message_id: int) -> FakeMessage:
        message = channel.messages.get(message_id)
        if message is None:
            raise DiscordError(404, 10008, "Unknown Message", kind="not_found")
        return message

    def _channel(self, call: Call) -> FakeChannel:
        channel = self.channels.get(call.int_param("channel_id"))
        if channel is None:
            raise DiscordError(404, 10003, "Unknown Channel", kind="not_found")
        return channel

    def _require(self, channel: FakeChannel, *needed: str) -> None:
        """Refuse as Discord does (403, 50013) what the bot may not do in ``channel``: in a thread, Send
        Messages in Threads stands for Send Messages."""
        if channel.guild is None:
            return
        if channel.is_thread:
            needed = tuple("send_messages_in_threads" if name == "send_messages" else name for name in needed)
        perms = self._bot_permissions(channel)
        missing = [name for name in needed if not getattr(perms, name)]
        if missing:
            raise DiscordError(
                403, 50013, f"Missing Permissions ({', '.join(missing)} in #{channel.name})", kind="forbidden"
            )

    def _bot_permissions(self, channel: FakeChannel) -> discord.Permissions:
        """What the bot may do in ``channel`` (in a direct message: the DM set)."""
        bot = channel.guild.members.get(self.bot_user.id) if channel.guild is not None else None
        return discord.Permissions(channel.permissions_for(bot))

    async def delete_by_moderator(self, message: FakeMessage) -> None:
        """A moderator deletes ``message`` (the bot is told only if it listens to message events)."""
        await self._remove(message)

    async def _remove(self, message: FakeMessage) -> None:
        message.deleted = True
        message.channel.messages.pop(message.id, None)
        if self.message_events and not message.ephemeral:
            data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild is not None:
                data["guild_id"] = str(message.channel.guild.id)
            await self.dispatch("MESSAGE_DELETE", data)

    def attachment(self, filename: str, data: bytes, content_type: str | None = None) -> FakeAttachment:
        """A file a user offers in an attachment option (served back at its URL)."""
        attachment_id = self.snowflake()
        url = f"{self.base_url}/attachments/{attachment_id}/{filename}"
        found = FakeAttachment(attachment_id, filename, data, content_type, url, ephemeral=True)
        self.attachments[attachment_id] = found
        return found
