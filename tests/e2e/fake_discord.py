"""A fake Discord (gateway + REST v10) on 127.0.0.1 for end-to-end tests of the real bot.

discord.py talks to it exactly as it talks to Discord: the harness points ``discord.http.Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` here.  The fake keeps an in-memory model of what users would see
(guilds, members, roles, channels, messages, interaction responses) so tests assert on outcomes rather
than on calls.  It is deliberately strict, because a lenient fake hides the bugs that production finds:

* every request is matched to an operation of Discord's OpenAPI document and validated against it
  (see ``openapi.py``); anything outside the spec or failing it is a *problem*;
* routes the fake does not implement answer a loud 404 and are a problem too;
* requests Discord would refuse (a second interaction callback, an empty message, editing another
  user's message, a callback after the 3 s deadline, missing permissions) answer like Discord and are
  recorded as problems.

The test fixture fails a test at teardown when problems were recorded, unless the test took them with
:meth:`FakeDiscord.take_problems` (for tests that provoke them on purpose).

Nothing here depends on the bot; the binding to a running bot lives in ``harness.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
import secrets
import time
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import discord
from aiohttp import BodyPartReader, WSMsgType, web

from .openapi import Spec, load_spec

__all__ = [
    "ALL_PERMISSIONS",
    "CommandNotVisible",
    "DiscordError",
    "DispatchError",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Problem",
    "RecordedRequest",
    "World",
    "build_world",
]

log = logging.getLogger(__name__)

DISCORD_EPOCH_MS = 1420070400000


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that gets a guild's events, Discord's formula; direct messages go to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value
EPHEMERAL = discord.MessageFlags(ephemeral=True).value
LOADING = discord.MessageFlags(loading=True).value
SUPPRESS_EMBEDS = discord.MessageFlags(suppress_embeds=True).value
SUPPRESS_NOTIFICATIONS = discord.MessageFlags(suppress_notifications=True).value
COMPONENTS_V2 = 1 << 15
VOICE_MESSAGE = 1 << 13
CREATE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2 | VOICE_MESSAGE
INTERACTION_FLAGS = CREATE_FLAGS | EPHEMERAL
MEMBERS_INTENT = discord.Intents(members=True).value
GUILD_MESSAGES_INTENT = discord.Intents(guild_messages=True).value
DIRECT_MESSAGES_INTENT = discord.Intents(dm_messages=True).value

DEFAULT_EVERYONE = discord.Permissions(
    view_channel=True,
    create_instant_invite=True,
    change_nickname=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    use_external_emojis=True,
    read_message_history=True,
    use_application_commands=True,
    connect=True,
    speak=True,
).value
"""What ``@everyone`` may do in a new guild (roughly Discord's defaults)."""

DEFAULT_BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
    manage_messages=True,
    pin_messages=True,
).value
"""The bot's managed role: what an invite link with sensible scopes would grant."""

DM_APP_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
    use_application_commands=True,
).value

THREAD_TYPES = (10, 11, 12)
"""Announcement, public and private threads."""

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")
_HANDLER_FAILURE_STATUS = 400
"""Never 5xx: discord.py sleeps and retries those, which would turn a fake bug into a slow test."""


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _perm_value(value: int | discord.Permissions) -> int:
    return value.value if isinstance(value, discord.Permissions) else int(value)


_SNOWFLAKE_TEXT = re.compile(rb'"[1-9][0-9]{15,19}"')
"""A snowflake as the fake writes one in JSON: a string of 16 to 20 digits."""


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# --------------------------------------------------------------------------------------------- model


BOT_CONTENT_LIMIT = 2000
EMBEDS_TEXT_LIMIT = 6000
"""Discord's limit on the text of all the embeds of one message together (titles, descriptions, field
names and values, footers, authors); the spec knows each part's limit, not this one."""
ACTION_ROWS_LIMIT = 5
"""Action rows in a message without IS_COMPONENTS_V2 (the spec's 40 is the Components V2 limit)."""


class DiscordError(Exception):
    """An error answer as Discord gives it: a status, a JSON error code and a message.

    ``kind`` sorts it for the teardown check: ``not_found`` (unknown resources) is tolerated because a
    bot may legitimately race a deletion; every other kind is a problem that fails the test.
    """

    def __init__(self, status: int, code: int, message: str, *, kind: str = "rejected") -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.code = code
        self.message = message
        self.kind = kind


class DispatchError(AssertionError):
    """A test asked the fake for something Discord's client would never send (unknown command...)."""


class CommandNotVisible(DispatchError):
    """The user may not use this command here: Discord's client would not even offer it."""


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    avatar: str | None = None
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": self.avatar,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
        }
        if self.bot:
            data["bot"] = True
        return data

    def __repr__(self) -> str:
        return f"<FakeUser {self.username} {self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    guild: FakeGuild
    name: str
    permissions: int
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False
    bot_id: int | None = None

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "description": None,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": self.hoist,
            "managed": self.managed,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data

    def __repr__(self) -> str:
        return f"<FakeRole {self.name} {self.id}>"


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=_now_iso)

    @property
    def id(self) -> int:
        return self.user.id

    def base_permissions(self) -> int:
        """Guild-level permissions, by Discord's algorithm (owner and administrator get everything)."""
        if self.guild.owner_id == self.user.id:
            return ALL_PERMISSIONS
        value = self.guild.everyone.permissions
        for role in self.roles:
            value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def payload(self) -> dict[str, Any]:
        return {
            "user": self.user.payload(),
            "roles": [str(r.id) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = 0
    guild: FakeGuild | None = None
    position: int = 0
    topic: str | None = None
    nsfw: bool = False
    parent_id: int | None = None
    recipient: FakeUser | None = None
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    """target id -> (type: 0 role / 1 member, allow, deny)"""
    messages: dict[int, FakeMessage] = field(default_factory=dict)
    """Live (not deleted, not ephemeral) messages, oldest first."""

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def history(self) -> list[FakeMessage]:
        """Every live message in the channel, oldest first (including system messages such as pins)."""
        return list(self.messages.values())

    @property
    def pins(self) -> list[FakeMessage]:
        return [m for m in self.messages.values() if m.pinned]

    def set_overwrite(
        self,
        target: FakeRole | FakeUser,
        *,
        allow: int | discord.Permissions = 0,
        deny: int | discord.Permissions = 0,
    ) -> None:
        kind = 0 if isinstance(target, FakeRole) else 1
        self.overwrites[target.id] = (kind, _perm_value(allow), _perm_value(deny))

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    def permissions_for(self, member: FakeMember | None) -> int:
        """Channel permissions with overwrites, by Discord's algorithm; DMs get a fixed DM set; a thread
        has its parent channel's (it has no overwrites of its own)."""
        if self.guild is None or member is None:
            return DM_APP_PERMISSIONS
        if self.is_thread:
            assert self.parent_id is not None
            return self.guild.channels[self.parent_id].permissions_for(member)
        value = member.base_permissions()
        if value & ADMINISTRATOR:
            return ALL_PERMISSIONS
        everyone = self.overwrites.get(self.guild.id)
        if everyone is not None:
            value = (value & ~everyone[2]) | everyone[1]
        allow = deny = 0
        for role in member.roles:
            found = self.overwrites.get(role.id)
            if found is not None and found[0] == 0:
                allow |= found[1]
                deny |= found[2]
        value = (value & ~deny) | allow
        own = self.overwrites.get(member.id)
        if own is not None and own[0] == 1:
            value = (value & ~own[2]) | own[1]
        return value

    def payload(self, *, with_guild_id: bool = True) -> dict[str, Any]:
        if self.guild is None:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": self._last_message_id(),
                "flags": 0,
                "recipients": [self.recipient.payload()],
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "flags": 0,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "permission_overwrites": [
                {"id": str(target), "type": kind, "allow": str(allow), "deny": str(deny)}
                for target, (kind, allow, deny) in self.overwrites.items()
            ],
            "nsfw": self.nsfw,
        }
        if self.is_thread:
            del data["permission_overwrites"], data["position"], data["nsfw"]
            data |= {
                "owner_id": str(self.guild.owner_id),
                "last_message_id": self._last_message_id(),
                "rate_limit_per_user": 0,
                "message_count": len(self.messages),
                "member_count": 1,
                "total_message_sent": len(self.messages),
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _now_iso(),
                    "locked": False,
                },
            }
        elif self.type != 4:
            data |= {
                "topic": self.topic,
                "last_message_id": self._last_message_id(),
                "rate_limit_per_user": 0,
            }
        if with_guild_id:
            data["guild_id"] = str(self.guild.id)
        return data

    def _last_message_id(self) -> str | None:
        return str(next(reversed(self.messages))) if self.messages else None

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} {self.id}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    fake: FakeDiscord
    locale: str = "en-US"
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    joined_at: str = field(default_factory=_now_iso)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    @property
    def text_channels(self) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.type == 0]

    def create_role(
        self,
        name: str,
        permissions: int | discord.Permissions = 0,
        *,
        color: int = 0,
        mentionable: bool = False,
        hoist: bool = False,
    ) -> FakeRole:
        role = FakeRole(
            id=self.fake.snowflake(),
            guild=self,
            name=name,
            permissions=_perm_value(permissions),
            position=len(self.roles),
            color=color,
            mentionable=mentionable,
            hoist=hoist,
        )
        self.roles[role.id] = role
        return role

    def create_text_channel(
        self, name: str, *, topic: str | None = None, category: int | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self.fake.snowflake(),
            name=name,
            type=0,
            guild=self,
            position=len(self.channels),
            topic=topic,
            parent_id=category,
        )
        self.channels[channel.id] = channel
        self.fake.channels[channel.id] = channel
        return channel

    def create_thread(self, parent: FakeChannel, name: str) -> FakeChannel:
        """A public thread of ``parent`` (its permissions are the parent's)."""
        thread = FakeChannel(id=self.fake.snowflake(), name=name, type=11, guild=self, parent_id=parent.id)
        self.channels[thread.id] = thread
        self.fake.channels[thread.id] = thread
        return thread

    def add_member(
        self, user: FakeUser, roles: Iterable[FakeRole] = (), *, nick: str | None = None
    ) -> FakeMember:
        member = FakeMember(user=user, guild=self, roles=sorted(roles, key=lambda r: r.position), nick=nick)
        self.members[user.id] = member
        return member

    def member(self, user: FakeUser | int) -> FakeMember:
        user_id = user if isinstance(user, int) else user.id
        try:
            return self.members[user_id]
        except KeyError:
            raise DispatchError(f"user {user_id} is not a member of guild {self.name!r}") from None

    def gateway_payload(self, *, with_members: bool) -> dict[str, Any]:
        """GUILD_CREATE as Discord sends it (members: everyone with the members intent, else the bot)."""
        bot_id = self.fake.bot_user.id
        members = [m.payload() for m in self.members.values() if with_members or m.user.id == bot_id]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "features": [],
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "joined_at": self.joined_at,
            "large": False,
            "lazy": True,
            "unavailable": False,
            "member_count": len(self.members),
            "members": members,
            "channels": [c.payload(with_guild_id=False) for c in self.channels.values() if not c.is_thread],
            "threads": [c.payload() for c in self.channels.values() if c.is_thread],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "incidents_data": None,
            "hub_type": None,
            "version": int(time.time() * 1000),
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} {self.id}>"


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
    timestamp: str = field(default_factory=_now_iso)
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


@dataclass
class CallbackRecord:
    type: int
    data: dict[str, Any]
    at: float


@dataclass
class EditRecord:
    target: str
    """``@original`` or a follow-up message id."""
    body: dict[str, Any]
    at: float


@dataclass(eq=False)
class FakeInteraction:
    """One interaction sent to the bot and everything the bot answered through its token."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    member: FakeMember | None
    data: dict[str, Any] | None
    message: FakeMessage | None = None
    command_name: str | None = None
    trigger: FakeInteraction | None = None
    """For a modal submit: the interaction that opened the modal."""
    locale: str = "en-US"
    payload: dict[str, Any] = field(default_factory=dict)
    dispatched_at: float | None = None
    callback: CallbackRecord | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    edits: list[EditRecord] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    """Autocomplete answer (callback type 8)."""
    modal: dict[str, Any] | None = None
    """Modal the bot opened (callback type 9): custom_id, title, components."""
    answered: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    def metadata(self) -> dict[str, Any]:
        owners = {"0": str(self.guild.id) if self.guild else "0"}
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": owners,
        }
        if self.type == 3 and self.message is not None:
            data["interacted_message_id"] = str(self.message.id)
        if self.type == 5 and self.trigger is not None:
            data["triggering_interaction_metadata"] = self.trigger.metadata()
        return data


@dataclass
class Fault:
    """A request the fake answers badly, for the tests of what the bot says when Discord fails it:
    ``disconnect`` drops the connection before answering (aiohttp's ServerDisconnectedError), ``status``
    answers ``status`` with ``body`` and no ``Via`` header (a 429 so is Cloudflare's, not a rate limit),
    ``delay`` answers after ``delay`` seconds. It applies to the next ``times`` requests whose method and
    spec template match (``/interactions/{interaction_id}/{interaction_token}/callback``)."""

    method: str
    template: str
    kind: Literal["disconnect", "status", "delay"]
    status: int = 500
    body: dict[str, Any] = field(default_factory=lambda: {"message": "500: Internal Server Error", "code": 0})
    delay: float = 0.0
    times: int = 1


@dataclass
class Problem:
    """Something that fails the test at teardown (unless taken): kind + a readable explanation."""

    kind: str
    """spec | unhandled | rejected | forbidden | auth | gateway | internal | response"""
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.detail}"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    template: str | None
    body: Any
    files: list[FakeAttachment]
    at: float
    status: int = 0
    response: Any = None


@dataclass
class _Call:
    request: web.Request
    method: str
    path: str
    template: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[FakeAttachment]
    record: RecordedRequest

    def int_param(self, name: str) -> int:
        return int(self.params[name])

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.query.get(name)
        return default if value is None else value in ("1", "true", "True")


@dataclass
class _Reply:
    status: int = 200
    body: Any = None


# ------------------------------------------------------------------------------------------- gateway


class _Connection:
    """One websocket: sends JSON dispatches, zlib-stream compressed when the client asked for it."""

    def __init__(self, ws: web.WebSocketResponse, query: Mapping[str, str], path: str) -> None:
        self.ws = ws
        self.query = dict(query)
        self.path = path
        self.session: GatewaySession | None = None
        self.closed_by_server = False
        self.compress = self.query.get("compress")
        self._zlib = zlib.compressobj() if self.compress == "zlib-stream" else None
        self.lock = asyncio.Lock()

    async def close(self, code: int, reason: str) -> None:
        self.closed_by_server = True
        await self.ws.close(code=code, message=reason.encode())

    async def send(self, payload: Mapping[str, Any]) -> None:
        """Send one frame; a frame for a closing socket is dropped (sessions keep it for RESUME)."""
        text = json.dumps(payload, separators=(",", ":"))
        if self.ws.closed:
            return
        try:
            if self._zlib is not None:
                data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            log.debug("gateway frame dropped: the connection is closing")


@dataclass(eq=False)
class GatewaySession:
    """A gateway session: survives disconnects (RESUME replays what was missed), ends on close 1000."""

    id: str
    identify: dict[str, Any]
    seq: int = 0
    active: bool = True
    connection: _Connection | None = None
    resumes: int = 0
    buffer: deque[tuple[int, dict[str, Any]]] = field(default_factory=lambda: deque(maxlen=50_000))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connected: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def intents(self) -> int:
        return int(self.identify.get("intents", 0))

    @property
    def shard(self) -> tuple[int, int]:
        """(shard id, shard count) as identified; (0, 1) without a shard."""
        shard = self.identify.get("shard") or [0, 1]
        return int(shard[0]), int(shard[1])

    def gets(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of that guild (None: of direct messages, shard 0)."""
        shard_id, count = self.shard
        return shard_of(guild_id, count) == shard_id


# -------------------------------------------------------------------------------------------- server

Handler = Callable[[_Call], Awaitable[_Reply]]


class FakeDiscord:
    """The fake: an aiohttp app serving ``/api/v10/...`` and the gateway websocket on 127.0.0.1."""

    def __init__(
        self,
        *,
        token: str = "fake-token",
        spec: Spec | None = None,
        validate_responses: bool = True,
        validate_requests: bool = True,
        callback_deadline: float | None = 3.0,
        message_events: bool = True,
        heartbeat_interval_ms: int = 41250,
        shard_count: int = 1,
    ) -> None:
        self.token = token
        self.shard_count = shard_count
        """What ``GET /gateway/bot`` recommends, and what every IDENTIFY's ``shard`` must give (more than
        one: an IDENTIFY without a shard is refused, 4011 Sharding required, as Discord does past 2,500
        guilds). Each guild's events go only to the sessions of its shard."""
        self.spec = spec or load_spec()
        self.validate_responses = validate_responses
        """Check the fake's own JSON answers against the spec (the benchmark may switch it off)."""
        self.validate_requests = validate_requests
        """Check every request against the spec. Only the latency benchmark switches this off, so that
        it times the bot rather than jsonschema; every test keeps it on."""
        self.callback_deadline = callback_deadline
        """Discord forgets an interaction whose first callback comes later than this (seconds)."""
        self.message_events = message_events
        """Send MESSAGE_CREATE/UPDATE/DELETE for non-ephemeral messages, as Discord does."""
        self.heartbeat_interval_ms = heartbeat_interval_ms

        self._last_snowflake = 0
        self.bot_user = FakeUser(self.snowflake(), "Pommel", bot=True)
        self.application_id = self.bot_user.id
        self.application_flags = 0
        self.owner = FakeUser(self.snowflake(), "app-owner")

        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        """Every message ever created, including deleted and ephemeral ones."""
        self.message_log: list[FakeMessage] = []
        """Creation order of every message (the harness slices it per interaction)."""
        self.attachments: dict[int, FakeAttachment] = {}
        self.global_commands: dict[int, dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[int, dict[str, Any]]] = {}
        self.command_syncs: list[tuple[int | None, list[dict[str, Any]]]] = []
        """(guild id or None, request body) for every bulk overwrite, in order."""
        self._command_ids: dict[tuple[int | None, int, str], int] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}

        self.requests: list[RecordedRequest] = []
        self.problems: list[Problem] = []
        self.leniencies: dict[str, str] = {}
        """Integer snowflakes the spec types as strings but Discord accepts: note -> first request."""
        self.not_found: list[str] = []
        """Unknown channel/message answers: tolerated (a bot may race a deletion) but kept for asserts."""

        self.sessions: list[GatewaySession] = []
        self.connections: list[_Connection] = []
        self.gateway_log: list[tuple[str, dict[str, Any]]] = []
        """("recv"/"send", payload) of every gateway frame except heartbeats and dispatches."""
        self._changed = asyncio.Condition()
        self.faults: list[Fault] = []
        """Requests to answer badly (:meth:`fail`); each is used up by as many requests as its times."""

        self._routes: dict[tuple[str, str], Handler] = {}
        self._register_routes()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle and addresses

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway/", self._gateway)
        app.router.add_route("GET", "/gateway-resume/", self._gateway)
        app.router.add_route("GET", "/attachments/{attachment_id}/{filename}", self._attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._stray)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._site.start()
        server = self._site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.close(1001, "fake discord stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` must be."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """What ``DiscordWebSocket.DEFAULT_GATEWAY`` must be."""
        return f"ws://127.0.0.1:{self.port}/gateway/"

    @property
    def resume_gateway_url(self) -> str:
        """A distinct path, so a test can see that the bot resumed where READY told it to."""
        return f"ws://127.0.0.1:{self.port}/gateway-resume/"

    # ------------------------------------------------------------------------------- the world

    def snowflake(self) -> int:
        """Snowflake-like ids: the current time in the top bits, strictly increasing."""
        value = ((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22) | (1 << 17)
        self._last_snowflake = max(value, self._last_snowflake + 1)
        return self._last_snowflake

    def create_user(
        self, username: str, *, global_name: str | None = None, locale: str = "en-US"
    ) -> FakeUser:
        user = FakeUser(
            self.snowflake(), username, global_name=global_name or username.title(), locale=locale
        )
        self.users[user.id] = user
        return user

    def snowflake_on_shard(self, shard: int) -> int:
        """A new snowflake whose guild would be on ``shard`` (its time part moved on to the next fit)."""
        value = self.snowflake()
        stamp = value >> 22
        if shard_of(value, self.shard_count) == shard:
            return value
        while shard_of(stamp << 22, self.shard_count) != shard:
            stamp += 1
        self._last_snowflake = (stamp << 22) | (1 << 17)  # a later time part: above every id made so far
        return self._last_snowflake

    def create_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        shard: int | None = None,
        everyone: int | discord.Permissions = DEFAULT_EVERYONE,
        bot_permissions: int | discord.Permissions = DEFAULT_BOT_PERMISSIONS,
        locale: str = "en-US",
    ) -> FakeGuild:
        """A guild the bot is in, with ``@everyone``, the bot's managed role and the bot as member."""
        guild_owner = owner or self.create_user(f"{name.lower().replace(' ', '-')}-owner")
        guild_id = self.snowflake() if shard is None else self.snowflake_on_shard(shard)
        guild = FakeGuild(id=guild_id, name=name, owner_id=guild_owner.id, fake=self, locale=locale)
        guild.roles[guild.id] = FakeRole(guild.id, guild, "@everyone", _perm_value(everyone))
        bot_role = guild.create_role(self.bot_user.username, bot_permissions)
        bot_role.managed = True
        bot_role.bot_id = self.bot_user.id
        guild.add_member(guild_owner)
        guild.add_member(self.bot_user, [bot_role])
        self.guilds[guild.id] = guild
        return guild

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (created on first use, like Discord)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(id=self.snowflake(), name=f"dm-{user.username}", type=1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def attachment(self, filename: str, data: bytes, content_type: str | None = None) -> FakeAttachment:
        """A file a user offers in an attachment option (served back at its URL)."""
        attachment_id = self.snowflake()
        url = f"{self.base_url}/attachments/{attachment_id}/{filename}"
        found = FakeAttachment(attachment_id, filename, data, content_type, url, ephemeral=True)
        self.attachments[attachment_id] = found
        return found

    def commands_for(self, guild: FakeGuild | None) -> list[dict[str, Any]]:
        """What a user sees in the picker: the guild's commands, then the global ones."""
        local = list(self.guild_commands.get(guild.id, {}).values()) if guild else []
        return local + list(self.global_commands.values())

    def find_command(self, name: str, guild: FakeGuild | None, type: int = 1) -> dict[str, Any]:
        for command in self.commands_for(guild):
            if command["name"] == name and command.get("type", 1) == type:
                return command
        known = sorted({c["name"] for c in self.commands_for(guild)})
        raise DispatchError(f"no synced command {name!r} (type {type}) here; the bot synced {known}")

    # ---------------------------------------------------------------------------- bookkeeping

    def problem(self, kind: str, detail: str) -> None:
        log.warning("fake discord problem [%s] %s", kind, detail)
        self.problems.append(Problem(kind, detail))

    def take_problems(self, kind: str | None = None) -> list[Problem]:
        """Remove and return problems (of one kind): for tests that provoke them on purpose."""
        taken = [p for p in self.problems if kind is None or p.kind == kind]
        self.problems = [p for p in self.problems if p not in taken]
        return taken

    def problem_report(self) -> str:
        lines = [f"fake Discord recorded {len(self.problems)} problem(s):"]
        lines += [f"  {i}. {p}" for i, p in enumerate(self.problems, 1)]
        return "\n".join(lines)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[], bool], *, timeout: float = 5.0, what: str = "") -> None:
        """Wait (on fake-side events, never by polling) until ``predicate()`` holds."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(predicate), timeout)
            except TimeoutError:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}") from None

    # ---------------------------------------------------------------------------- gateway side

    @property
    def active_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions if s.active]

    async def dispatch(self, event: str, data: Mapping[str, Any], *, intent: int = 0) -> None:
        """Send a dispatch to every active session of the shard of its guild (buffered while it is
        disconnected, for RESUME); with ``intent``, only to the sessions that identified with it."""
        guild_id = data.get("guild_id")
        for session in self.active_sessions:
            if not session.gets(None if guild_id is None else int(guild_id)):
                continue
            if intent and not session.intents & intent:
                continue
            async with session.lock:
                session.seq += 1
                frame = {"op": 0, "t": event, "s": session.seq, "d": data}
                session.buffer.append((session.seq, frame))
                if session.connection is not None:
                    await session.connection.send(frame)

    async def update_channel(self, channel: FakeChannel) -> None:
        """Tell the bot a channel changed (its overwrites, say), as Discord does with CHANNEL_UPDATE."""
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        await self.dispatch(event, channel.payload(), intent=1)

    async def drop_gateway(self, code: int = 4000, reason: str = "fake discord: dropped") -> None:
        """Close every live connection from the server side (4000 etc. are resumable close codes)."""
        for conn in list(self.connections):
            await conn.close(code, reason)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client must reconnect and RESUME."""
        for conn in list(self.connections):
            await self._send_op(conn, {"op": 7, "d": None, "s": None, "t": None})

    async def _send_op(self, conn: _Connection, frame: dict[str, Any]) -> None:
        if frame["op"] != 11:
            self.gateway_log.append(("send", frame))
        async with conn.session.lock if conn.session else conn.lock:
            await conn.send(frame)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoclose=True)
        await ws.prepare(request)
        conn = _Connection(ws, request.query, request.path)
        self.connections.append(conn)
        try:
            if conn.query.get("v") != "10" or conn.query.get("encoding") != "json":
                self.problem(
                    "gateway", f"gateway connected with {conn.query}; the fake speaks v=10 encoding=json"
                )
                await conn.close(4012, "Invalid API version")
                return ws
            hello = {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ['["fake-gateway",{}]']}
            await self._send_op(conn, {"op": 10, "d": hello, "s": None, "t": None})
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    self.problem("gateway", f"unexpected {message.type.name} frame from the client")
                    continue
                await self._on_gateway_frame(conn, message.data)
        finally:
            self.connections.remove(conn)
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                session.connected.clear()
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    session.active = False  # the client's clean close ends the session, as on Discord
            await self._notify()
        return ws

    async def _on_gateway_frame(self, conn: _Connection, text: str) -> None:
        try:
            frame = json.loads(text)
            op = frame["op"]
        except (ValueError, KeyError, TypeError):
            self.problem("gateway", f"undecodable gateway frame {text[:200]!r}")
            await conn.close(4002, "Decode error")
            return
        data = frame.get("d")
        if op == 1:
            await self._send_op(conn, {"op": 11, "d": None, "s": None, "t": None})
            return
        self.gateway_log.append(
            ("recv", frame if op not in (2, 6) else {**frame, "d": {**data, "token": "***"}})
        )
        if op == 2:
            await self._identify(conn, data)
        elif op == 6:
            await self._resume(conn, data)
        elif op == 8:
            await self._request_members(conn, data)
        elif op in (3, 4):
            pass  # presence and voice state updates are recorded in gateway_log only
        else:
            self.problem("gateway", f"unknown gateway opcode {op}")
            await conn.close(4001, "Unknown opcode")

    async def _identify(self, conn: _Connection, data: dict[str, Any]) -> None:
        if conn.session is not None:
            self.problem("gateway", "IDENTIFY sent twice on one connection")
            await conn.close(4005, "Already authenticated")
            return
        if data.get("token") != self.token:
            self.problem("auth", "IDENTIFY with a wrong token")
            await conn.close(4004, "Authentication failed")
            return
        if "intents" not in data:
            self.problem("gateway", "IDENTIFY without intents")
            await conn.close(4013, "Invalid intent(s)")
            return
        refused = self._shard_refused(data.get("shard"))
        if refused is not None:
            self.problem("gateway", f"IDENTIFY with shard {data.get('shard')}: {refused[1]}")
            await conn.close(*refused)
            return
        session = GatewaySession(id=secrets.token_hex(16), identify=data)
        self.sessions.append(session)
        conn.session = session
        ready = {
            "v": 10,
            "user": self.bot_user.payload() | {"verified": True, "mfa_enabled": False, "email": None},
            "user_settings": {},
            "session_type": "normal",
            "session_id": session.id,
            "resume_gateway_url": self.resume_gateway_url,
            "guilds": [
                {"id": str(g.id), "unavailable": True} for g in self.guilds.values() if session.gets(g.id)
            ],
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "auth": {},
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "_trace": ['["fake-gateway",{}]'],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        with_members = bool(session.intents & MEMBERS_INTENT)
        async with session.lock:
            session.connection = conn
            session.connected.set()
            for event, payload in [
                ("READY", ready),
                *(
                    ("GUILD_CREATE", g.gateway_payload(with_members=with_members))
                    for g in self.guilds.values()
                    if session.gets(g.id)
                ),
            ]:
                session.seq += 1
                frame = {"op": 0, "t": event, "s": session.seq, "d": payload}
                session.buffer.append((session.seq, frame))
                await conn.send(frame)

    def _shard_refused(self, shard: Any) -> tuple[int, str] | None:
        """Discord's close code and reason for an IDENTIFY's ``shard`` it would refuse, or None."""
        if shard is None:
            return (4011, "Sharding required") if self.shard_count > 1 else None
        valid = isinstance(shard, list) and len(shard) == 2 and all(isinstance(n, int) for n in shard)
        if not valid or not 0 <= shard[0] < shard[1] or shard[1] != self.shard_count:
            return 4010, "Invalid shard"
        return None

    async def _resume(self, conn: _Connection, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            self.problem("auth", "RESUME with a wrong token")
            await conn.close(4004, "Authentication failed")
            return
        session = next((s for s in self.sessions if s.id == data.get("session_id") and s.active), None)
        if session is None:
            await self._send_op(conn, {"op": 9, "d": False, "s": None, "t": None})
            return
        seq = data.get("seq") or 0
        async with session.lock:
            old = session.connection
            session.connection = conn
            conn.session = session
            session.resumes += 1
            for number, frame in session.buffer:
                if number > seq:
                    await conn.send(frame)
            session.seq += 1
            await conn.send(
                {"op": 0, "t": "RESUMED", "s": session.seq, "d": {"_trace": ['["fake-gateway",{}]']}}
            )
            session.connected.set()
        if old is not None and old is not conn:
            await old.close(4000, "resumed elsewhere")

    async def _request_members(self, conn: _Connection, data: dict[str, Any]) -> None:
        guild = self.guilds.get(int(data["guild_id"]))
        if guild is None or conn.session is None:
            return
        wanted = {int(u) for u in data.get("user_ids") or []}
        query = (data.get("query") or "").lower()
        members = [
            m.payload()
            for m in guild.members.values()
            if (not wanted or m.user.id in wanted) and m.user.username.lower().startswith(query)
        ]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if "nonce" in data:
            chunk["nonce"] = data["nonce"]
        await self.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # -------------------------------------------------------------------------- interactions

    def new_interaction(
        self,
        *,
        type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any] | None,
        message: FakeMessage | None = None,
        command_name: str | None = None,
        trigger: FakeInteraction | None = None,
        locale: str | None = None,
    ) -> FakeInteraction:
        """Build (and remember) an interaction with a payload shaped like Discord's INTERACTION_CREATE."""
        guild = channel.guild
        member = guild.member(user) if guild is not None else None
        inter = FakeInteraction(
            id=self.snowflake(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(96),
            type=type,
            user=user,
            channel=channel,
            member=member,
            data=data,
            message=message,
            command_name=command_name,
            trigger=trigger,
            locale=locale or user.locale,
        )
        bot_member = guild.members.get(self.bot_user.id) if guild is not None else None
        channel_data = channel.payload()
        channel_data["permissions"] = str(channel.permissions_for(member))
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": type,
            "token": inter.token,
            "version": 1,
            "channel": channel_data,
            "channel_id": str(channel.id),
            "app_permissions": str(channel.permissions_for(bot_member)),
            "locale": inter.locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id) if guild else "0"},
            "context": 0 if guild is not None else 1,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if data is not None:
            payload["data"] = data
        if guild is not None and member is not None:
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
            payload["guild_locale"] = guild.locale
            payload["member"] = member.payload() | {"permissions": channel_data["permissions"]}
        else:
            payload["user"] = user.payload()
        if message is not None:
            payload["message"] = message.payload()
        inter.payload = payload
        self.interactions[inter.id] = inter
        self._interactions_by_token[inter.token] = inter
        return inter

    async def send_interaction(self, inter: FakeInteraction) -> None:
        """Dispatch INTERACTION_CREATE, stamping the send time for latency measurements."""
        inter.dispatched_at = time.perf_counter()
        await self.dispatch("INTERACTION_CREATE", inter.payload)

    async def send_user_message(
        self, user: FakeUser, channel: FakeChannel, content: str, *, message_id: int | None = None
    ) -> FakeMessage:
        """A user writes in a channel: stored and dispatched as MESSAGE_CREATE."""
        message = self._new_message(channel, user, {"content": content}, [], type=0, message_id=message_id)
        await self._announce("MESSAGE_CREATE", message)
        return message

    # -------------------------------------------------------------------------------- messages

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
        _check_message_limits(body, message.flags)
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
            message.edited_timestamp = _now_iso()
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
            if "users" in parse and users:
                raise DiscordError(
                    400, 50035, "allowed_mentions: parse:users and users are mutually exclusive"
                )
            if "roles" in parse and roles:
                raise DiscordError(
                    400, 50035, "allowed_mentions: parse:roles and roles are mutually exclusive"
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

    def _channel(self, call: _Call) -> FakeChannel:
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
        value = channel.permissions_for(channel.guild.members.get(self.bot_user.id))
        perms = discord.Permissions(value)
        missing = [name for name in needed if not getattr(perms, name)]
        if missing:
            raise DiscordError(
                403, 50013, f"Missing Permissions ({', '.join(missing)} in #{channel.name})", kind="forbidden"
            )

    # ------------------------------------------------------------------------------ HTTP front

    async def _stray(self, request: web.Request) -> web.StreamResponse:
        self.problem("unhandled", f"{request.method} {request.path_qs} is outside /api/v10 and the gateway")
        return self._json_response(
            404, {"message": "404: Not Found (fake Discord: not an API path)", "code": 0}
        )

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        found = self.attachments.get(int(request.match_info["attachment_id"]))
        if found is None:
            return web.Response(status=404)
        return web.Response(body=found.data, content_type=found.content_type or "application/octet-stream")

    @staticmethod
    def _json_response(status: int, body: Any) -> web.Response:
        if body is None:
            return web.Response(status=status)
        return web.Response(
            status=status, body=_json_bytes(body), headers={"Content-Type": "application/json"}
        )

    def fail(
        self, method: str, template: str, kind: Literal["disconnect", "status", "delay"], **how: Any
    ) -> Fault:
        """Answer the next matching request(s) badly (see :class:`Fault`)."""
        fault = Fault(method, template, kind, **how)
        self.faults.append(fault)
        return fault

    def _fault_for(self, method: str, path: str) -> Fault | None:
        operation, _, _ = self.spec.match(method, path)
        if operation is None:
            return None
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and fault.template == operation.template:
                fault.times -= 1
                return fault
        return None

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        fault = self._fault_for(method, path)
        if fault is not None and fault.kind == "delay":
            await asyncio.sleep(fault.delay)
        elif fault is not None and fault.kind == "disconnect":
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        elif fault is not None:
            return self._json_response(fault.status, fault.body)
        record = RecordedRequest(
            method=method,
            path=path,
            query=dict(request.query),
            template=None,
            body=None,
            files=[],
            at=time.perf_counter(),
        )
        self.requests.append(record)
        try:
            status, body = await self._handle_api(request, method, path, record)
        finally:
            await self._notify()
        record.status = status
        record.response = body
        return self._json_response(status, body)

    async def _handle_api(
        self, request: web.Request, method: str, path: str, record: RecordedRequest
    ) -> tuple[int, Any]:
        where = f"{method} {path}"
        operation, template, values = self.spec.match(method, path)
        if operation is None:
            detail = "no such path" if template is None else f"the spec has {template} but not {method}"
            self.problem("spec", f"{where}: not in Discord's OpenAPI spec ({detail})")
            return 404, {"message": f"404: Not Found (not in the OpenAPI spec: {where})", "code": 0}
        record.template = operation.template
        auth = request.headers.get("Authorization")
        if (operation.requires_auth or auth is not None) and auth != f"Bot {self.token}":
            self.problem("auth", f"{where}: Authorization header {auth!r} is not 'Bot <token>'")
            return 401, {"message": "401: Unauthorized", "code": 0}

        errors: list[str] = []
        if self.validate_requests:
            errors += operation.validate_path(values) + operation.validate_query(request.query.items())
        body: Any = None
        files: list[FakeAttachment] = []
        if request.body_exists:
            media = request.content_type
            try:
                body, files, raw = await self._read_body(request, media)
            except ValueError as exc:
                errors.append(str(exc))
            else:
                body_errors, leniencies = (
                    operation.check_body(media, body, raw) if self.validate_requests else ([], [])
                )
                errors += body_errors
                for note in leniencies:
                    self.leniencies.setdefault(f"{operation.operation_id} {note}", where)
        elif operation.body_required:
            errors.append("the spec requires a request body and none was sent")
        record.body = body
        record.files = files
        if errors:
            for error in errors:
                self.problem("spec", f"{where} ({operation.operation_id}): {error}")
            return 400, {"message": "Invalid Form Body", "code": 50035, "errors": {"_fake": errors}}

        handler = self._routes.get((method, operation.template))
        if handler is None:
            self.problem(
                "unhandled", f"{where} ({operation.operation_id}) is in the spec but the fake lacks it"
            )
            return 404, {
                "message": f"404: Not Found (fake Discord does not implement {operation.operation_id})"
            }
        call = _Call(request, method, path, operation.template, values, request.query, body, files, record)
        try:
            reply = await handler(call)
        except DiscordError as exc:
            if exc.kind == "not_found":
                self.not_found.append(f"{where}: {exc.message}")
            else:
                self.problem(
                    exc.kind, f"{where}: Discord would answer {exc.status} {exc.message} (code {exc.code})"
                )
            return exc.status, {"message": exc.message, "code": exc.code}
        except Exception as exc:
            log.exception("fake discord handler failed for %s", where)
            self.problem("internal", f"{where}: the fake crashed: {exc!r}")
            return _HANDLER_FAILURE_STATUS, {"message": f"fake Discord crashed: {exc!r}", "code": 0}
        if self.validate_responses and 200 <= reply.status < 300:
            # Answers differ from test to test mostly in fresh snowflakes, which validate alike; with
            # them masked, the same answer is checked once (a full command sync took 76 ms to check).
            shape = None if reply.body is None else _SNOWFLAKE_TEXT.sub(b'"1"', _json_bytes(reply.body))
            for error in operation.validate_response(reply.status, reply.body, shape):
                self.problem("response", f"{where}: the fake's own answer breaks the spec: {error}")
        return reply.status, reply.body

    async def _read_body(
        self, request: web.Request, media: str
    ) -> tuple[Any, list[FakeAttachment], bytes | None]:
        if media == "application/json":
            raw = await request.read()
            try:
                return json.loads(raw), [], raw
            except ValueError:
                raise ValueError(f"body is not JSON: {raw[:200]!r}") from None
        if media == "multipart/form-data":
            reader = await request.multipart()
            payload: Any = None
            raw_payload: bytes | None = None
            files: list[FakeAttachment] = []
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    raise ValueError("nested multipart bodies are not something discord.py sends")
                data = await part.read()
                name = part.name or ""
                if name == "payload_json":
                    raw_payload = bytes(data)
                    try:
                        payload = json.loads(raw_payload)
                    except ValueError:
                        raise ValueError(f"payload_json is not JSON: {raw_payload[:200]!r}") from None
                elif re.fullmatch(r"files\[\d+\]", name):
                    attachment_id = self.snowflake()
                    filename = part.filename or name
                    url = f"{self.base_url}/attachments/{attachment_id}/{filename}"
                    content_type = part.headers.get("Content-Type")
                    attachment = FakeAttachment(attachment_id, filename, bytes(data), content_type, url)
                    self.attachments[attachment_id] = attachment
                    files.append(attachment)
                else:
                    raise ValueError(f"unexpected multipart field {name!r}")
            if payload is None:
                payload = {}
            return payload, files, raw_payload
        raise ValueError(f"unsupported request body type {media!r}")

    # ---------------------------------------------------------------------------------- routes

    def _register_routes(self) -> None:
        r = self._routes
        r["GET", "/gateway"] = self._get_gateway
        r["GET", "/gateway/bot"] = self._get_gateway_bot
        r["GET", "/users/@me"] = self._get_me
        r["GET", "/users/{user_id}"] = self._get_user
        r["POST", "/users/@me/channels"] = self._create_dm
        r["GET", "/oauth2/applications/@me"] = self._get_application
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            r["GET", prefix + "/commands"] = self._list_commands
            r["PUT", prefix + "/commands"] = self._bulk_commands
            r["POST", prefix + "/commands"] = self._create_command
            r["GET", prefix + "/commands/{command_id}"] = self._get_command
            r["PATCH", prefix + "/commands/{command_id}"] = self._edit_command
            r["DELETE", prefix + "/commands/{command_id}"] = self._delete_command
        r["POST", "/interactions/{interaction_id}/{interaction_token}/callback"] = self._callback
        r["POST", "/webhooks/{webhook_id}/{webhook_token}"] = self._followup
        for suffix in ("@original", "{message_id}"):
            r["GET", "/webhooks/{webhook_id}/{webhook_token}/messages/" + suffix] = self._get_webhook_message
            r["PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/" + suffix] = (
                self._edit_webhook_message
            )
            r["DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/" + suffix] = (
                self._delete_webhook_message
            )
        r["GET", "/channels/{channel_id}"] = self._get_channel
        r["GET", "/channels/{channel_id}/messages"] = self._list_messages
        r["POST", "/channels/{channel_id}/messages"] = self._create_message
        r["GET", "/channels/{channel_id}/messages/{message_id}"] = self._get_message
        r["PATCH", "/channels/{channel_id}/messages/{message_id}"] = self._edit_message
        r["DELETE", "/channels/{channel_id}/messages/{message_id}"] = self._delete_message
        for pins in ("/channels/{channel_id}/messages/pins", "/channels/{channel_id}/pins"):
            r["PUT", pins + "/{message_id}"] = self._pin
            r["DELETE", pins + "/{message_id}"] = self._unpin
        r["GET", "/channels/{channel_id}/messages/pins"] = self._list_pins
        r["GET", "/channels/{channel_id}/pins"] = self._list_pins_legacy
        r["GET", "/guilds/{guild_id}/members/{user_id}"] = self._get_member

    async def _get_gateway(self, call: _Call) -> _Reply:
        return _Reply(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: _Call) -> _Reply:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        reply = {
            "url": self.gateway_url.rstrip("/"),
            "shards": self.shard_count,
            "session_start_limit": limit,
        }
        return _Reply(200, reply)

    async def _get_me(self, call: _Call) -> _Reply:
        me = self.bot_user.payload() | {
            "mfa_enabled": False,
            "locale": "en-US",
            "verified": True,
            "email": None,
        }
        return _Reply(200, me)

    async def _get_user(self, call: _Call) -> _Reply:
        user = self.users.get(call.int_param("user_id"))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User", kind="not_found")
        return _Reply(200, user.payload())

    async def _create_dm(self, call: _Call) -> _Reply:
        user = self.users.get(int(call.body["recipient_id"]))
        if user is None:
            raise DiscordError(400, 50035, "Invalid Form Body: unknown recipient_id")
        return _Reply(200, self.dm_channel(user).payload())

    async def _get_application(self, call: _Call) -> _Reply:
        bot = self.bot_user.payload()
        app: dict[str, Any] = {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "Pommel under test",
            "summary": "",
            "type": None,
            "bot": bot,
            "bot_public": False,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": self.application_flags,
            "flags_new": str(self.application_flags),
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "owner": self.owner.payload(),
            "team": None,
            "approximate_guild_count": len(self.guilds),
            "approximate_user_install_count": 0,
            "approximate_user_authorization_count": 0,
            "explicit_content_filter": 0,
            "eligible_oauth2_scopes": [],
            "rpc_origins": [],
            "tags": [],
            "hook": True,
            "integration_types_config": {"0": {}},
        }
        return _Reply(200, app)

    async def _get_channel(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        return _Reply(200, channel.payload())

    async def _get_member(self, call: _Call) -> _Reply:
        guild = self.guilds.get(call.int_param("guild_id"))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild", kind="not_found")
        member = guild.members.get(call.int_param("user_id"))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member", kind="not_found")
        return _Reply(200, member.payload())

    # ---------------------------------------------------------------------------- commands

    def _command_store(self, call: _Call) -> tuple[int | None, dict[int, dict[str, Any]]]:
        if call.int_param("application_id") != self.application_id:
            raise DiscordError(
                403, 50001, "Missing Access (another application's commands)", kind="forbidden"
            )
        if "guild_id" not in call.params:
            return None, self.global_commands
        guild_id = call.int_param("guild_id")
        if guild_id not in self.guilds:
            raise DiscordError(403, 50001, "Missing Access (the bot is not in that guild)", kind="forbidden")
        return guild_id, self.guild_commands.setdefault(guild_id, {})

    def _command_response(self, body: Mapping[str, Any], guild_id: int | None) -> dict[str, Any]:
        type_ = body.get("type") or 1
        key = (guild_id, type_, body["name"])
        command_id = self._command_ids.get(key)
        if command_id is None:
            command_id = self._command_ids[key] = self.snowflake()
        permissions = body.get("default_member_permissions")
        out: dict[str, Any] = {
            "id": str(command_id),
            "application_id": str(self.application_id),
            "version": str(self.snowflake()),
            "type": type_,
            "name": body["name"],
            "description": body.get("description") or "",
            "default_member_permissions": None if permissions is None else str(permissions),
            "dm_permission": body.get("dm_permission", True) is not False,
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types") or [0],
            "nsfw": bool(body.get("nsfw", False)),
        }
        for localized in ("name_localizations", "description_localizations"):
            if body.get(localized):
                out[localized] = body[localized]
        if body.get("options"):
            out["options"] = [_option_response(o) for o in body["options"]]
        if guild_id is not None:
            out["guild_id"] = str(guild_id)
        return out

    async def _list_commands(self, call: _Call) -> _Reply:
        _, store = self._command_store(call)
        return _Reply(200, list(store.values()))

    async def _bulk_commands(self, call: _Call) -> _Reply:
        guild_id, store = self._command_store(call)
        body = call.body or []
        names = [(c.get("type") or 1, c["name"]) for c in body]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise DiscordError(400, 50035, f"Invalid Form Body: duplicate command names {duplicates}")
        self.command_syncs.append((guild_id, body))
        store.clear()
        for command in body:
            response = self._command_response(command, guild_id)
            store[int(response["id"])] = response
        return _Reply(200, list(store.values()))

    async def _create_command(self, call: _Call) -> _Reply:
        guild_id, store = self._command_store(call)
        response = self._command_response(call.body, guild_id)
        created = int(response["id"]) not in store
        store[int(response["id"])] = response
        return _Reply(201 if created else 200, response)

    def _stored_command(self, call: _Call) -> tuple[int | None, dict[int, dict[str, Any]], int]:
        guild_id, store = self._command_store(call)
        command_id = call.int_param("command_id")
        if command_id not in store:
            raise DiscordError(404, 10063, "Unknown application command", kind="not_found")
        return guild_id, store, command_id

    async def _get_command(self, call: _Call) -> _Reply:
        _, store, command_id = self._stored_command(call)
        return _Reply(200, store[command_id])

    async def _edit_command(self, call: _Call) -> _Reply:
        guild_id, store, command_id = self._stored_command(call)
        merged = {**store[command_id], **call.body}
        store[command_id] = self._command_response(merged, guild_id)
        return _Reply(200, store[command_id])

    async def _delete_command(self, call: _Call) -> _Reply:
        _, store, command_id = self._stored_command(call)
        del store[command_id]
        return _Reply(204)

    # ------------------------------------------------------------------------ interaction answers

    def _interaction_for(self, call: _Call, *, id_param: str | None = None) -> FakeInteraction:
        token = call.params.get("interaction_token") or call.params["webhook_token"]
        inter = self._interactions_by_token.get(token)
        if id_param is not None:
            if inter is None or inter.id != call.int_param(id_param):
                raise DiscordError(404, 10062, "Unknown interaction")
        else:
            if call.int_param("webhook_id") != self.application_id or inter is None:
                raise DiscordError(404, 10015, "Unknown Webhook")
        return inter

    async def _callback(self, call: _Call) -> _Reply:
        inter = self._interaction_for(call, id_param="interaction_id")
        at = time.perf_counter()
        if inter.callback is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if (
            self.callback_deadline is not None
            and inter.dispatched_at is not None
            and at - inter.dispatched_at > self.callback_deadline
        ):
            late = at - inter.dispatched_at
            raise DiscordError(
                404, 10062, f"Unknown interaction (first callback {late:.2f} s after dispatch)"
            )
        body = call.body
        kind = int(body["type"])
        data = dict(body.get("data") or {})
        allowed = {
            1: {1},
            2: {4, 5, 9},
            3: {4, 5, 6, 7, 9},
            4: {8},
            5: {4, 5, 6, 7},
        }[inter.type]
        if kind not in allowed:
            raise DiscordError(
                400, 50035, f"callback type {kind} is invalid for interaction type {inter.type}"
            )
        if kind in (4, 5, 7) and int(data.get("flags") or 0) & ~INTERACTION_FLAGS:
            raise DiscordError(
                400, 50035, f"invalid message flags {data.get('flags')} for an interaction response"
            )
        if kind in (6, 7) and inter.message is None:
            raise DiscordError(400, 50035, "UPDATE_MESSAGE needs an interaction on a message")

        interaction_info: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        resource: dict[str, Any] | None = None
        created: FakeMessage | None = None
        updated: FakeMessage | None = None
        if kind == 4:
            created = self._new_message(
                inter.channel,
                self.bot_user,
                data,
                call.files,
                type=20 if inter.type == 2 else 0,
                flags=int(data.get("flags") or 0),
                interaction=inter,
                webhook=True,
            )
            inter.original = created
            resource = {"type": 4, "message": created.payload()}
        elif kind == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            created = self._new_message(
                inter.channel,
                self.bot_user,
                {},
                [],
                type=20 if inter.type == 2 else 0,
                flags=flags,
                interaction=inter,
                webhook=True,
            )
            inter.original = created
            interaction_info |= {"response_message_loading": True}
        elif kind == 8:
            inter.choices = list(data.get("choices") or [])
        elif kind == 9:
            inter.modal = data
        elif kind in (6, 7):
            assert inter.message is not None
            inter.original = inter.message
            if kind == 7:
                self._apply_content(inter.message, data, call.files, creating=False)
                updated = inter.message
                resource = {"type": 7, "message": inter.message.payload()}
        if inter.original is not None and kind in (4, 5, 7):
            interaction_info["response_message_id"] = str(inter.original.id)
            interaction_info["response_message_ephemeral"] = inter.original.ephemeral
        inter.callback = CallbackRecord(kind, data, at)
        inter.answered.set()
        if created is not None:
            await self._announce("MESSAGE_CREATE", created)
        if updated is not None:
            await self._announce("MESSAGE_UPDATE", updated)
        if not call.flag("with_response"):
            return _Reply(204)
        answer: dict[str, Any] = {"interaction": interaction_info}
        if resource is not None:
            answer["resource"] = resource
        return _Reply(200, answer)

    def _webhook_target(self, call: _Call, inter: FakeInteraction) -> tuple[str, FakeMessage]:
        if "message_id" not in call.params:
            if inter.original is None or inter.original.deleted:
                raise DiscordError(404, 10008, "Unknown Message (no original response)")
            return "@original", inter.original
        message_id = call.int_param("message_id")
        for message in [inter.original, *inter.followups]:
            if message is not None and message.id == message_id and not message.deleted:
                return str(message_id), message
        raise DiscordError(404, 10008, "Unknown Message (not a message of this interaction)")

    async def _followup(self, call: _Call) -> _Reply:
        inter = self._interaction_for(call)
        if inter.callback is None:
            raise DiscordError(404, 10015, "Unknown Webhook (follow-up before the interaction was answered)")
        body = call.body
        original = inter.original
        if original is not None and original.loading and inter.callback.type == 5:
            # The first follow-up after a deferred ("thinking") response replaces the loading message.
            original.flags &= ~LOADING
            self._apply_content(original, body, call.files, creating=True)
            message = original
            await self._announce("MESSAGE_UPDATE", message)
        else:
            flags = int(body.get("flags") or 0)
            if flags & ~INTERACTION_FLAGS:
                raise DiscordError(400, 50035, f"invalid message flags {flags} for a follow-up")
            message = self._new_message(
                inter.channel,
                self.bot_user,
                body,
                call.files,
                type=0,
                flags=flags,
                interaction=inter,
                webhook=True,
            )
            await self._announce("MESSAGE_CREATE", message)
        inter.followups.append(message)
        return _Reply(200, message.payload()) if call.flag("wait") else _Reply(204)

    async def _get_webhook_message(self, call: _Call) -> _Reply:
        inter = self._interaction_for(call)
        _, message = self._webhook_target(call, inter)
        return _Reply(200, message.payload())

    async def _edit_webhook_message(self, call: _Call) -> _Reply:
        inter = self._interaction_for(call)
        target, message = self._webhook_target(call, inter)
        message.flags &= ~LOADING
        self._apply_content(message, call.body, call.files, creating=False)
        inter.edits.append(EditRecord(target, call.body, time.perf_counter()))
        await self._announce("MESSAGE_UPDATE", message)
        return _Reply(200, message.payload())

    async def _delete_webhook_message(self, call: _Call) -> _Reply:
        inter = self._interaction_for(call)
        _, message = self._webhook_target(call, inter)
        await self._remove(message)
        return _Reply(204)

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

    # ---------------------------------------------------------------------------- channel messages

    async def _create_message(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, "view_channel", "send_messages")
        body = call.body
        if call.files:
            self._require(channel, "attach_files")
        if body.get("embeds"):
            self._require(channel, "embed_links")
        flags = int(body.get("flags") or 0)
        if flags & ~CREATE_FLAGS:
            raise DiscordError(
                400, 50035, f"invalid message flags {flags} (ephemeral only exists for interactions)"
            )
        reference = body.get("message_reference")
        if reference and reference.get("message_id") and reference.get("fail_if_not_exists", True):
            target = self.messages.get(int(reference["message_id"]))
            if target is None or target.deleted:
                raise DiscordError(400, 50035, "Invalid Form Body: Unknown message (message_reference)")
        message = self._new_message(channel, self.bot_user, body, call.files, type=0, flags=flags)
        await self._announce("MESSAGE_CREATE", message)
        return _Reply(200, message.payload())

    async def _get_message(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, "view_channel", "read_message_history")
        return _Reply(200, self._message_in(channel, call.int_param("message_id")).payload())

    async def _list_messages(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        self._require(channel, "view_channel", "read_message_history")
        limit = int(call.query.get("limit", 50))
        ids = sorted(channel.messages, reverse=True)
        if "before" in call.query:
            ids = [i for i in ids if i < int(call.query["before"])]
        if "after" in call.query:
            ids = sorted(i for i in ids if i > int(call.query["after"]))[:limit][::-1]
        return _Reply(200, [channel.messages[i].payload() for i in ids[:limit]])

    async def _edit_message(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if message.author is not self.bot_user and set(call.body) - {"flags"}:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        self._require(channel, "view_channel")
        if call.body.get("embeds"):
            self._require(channel, "embed_links")
        self._apply_content(message, call.body, call.files, creating=False)
        await self._announce("MESSAGE_UPDATE", message)
        return _Reply(200, message.payload())

    async def _delete_message(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if message.author is not self.bot_user:
            self._require(channel, "manage_messages")
        await self._remove(message)
        return _Reply(204)

    async def _set_pinned(self, call: _Call, pinned: bool) -> _Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if channel.guild is not None:
            perms = discord.Permissions(channel.permissions_for(channel.guild.members.get(self.bot_user.id)))
            if not (perms.pin_messages or perms.manage_messages):
                raise DiscordError(403, 50013, "Missing Permissions (pin_messages)", kind="forbidden")
        if pinned and not message.pinned and len(channel.pins) >= 250:
            raise DiscordError(400, 30003, "Maximum number of pins reached (250)")
        if message.pinned == pinned:
            return _Reply(204)
        message.pinned = pinned
        message.pinned_at = _now_iso() if pinned else None
        await self._announce("MESSAGE_UPDATE", message)
        pins_update: dict[str, Any] = {"channel_id": str(channel.id), "last_pin_timestamp": message.pinned_at}
        if channel.guild is not None:
            pins_update["guild_id"] = str(channel.guild.id)
        await self.dispatch("CHANNEL_PINS_UPDATE", pins_update)
        if pinned:
            # Discord posts a system message "Pommel pinned a message to this channel."
            notice = self._new_message(
                channel,
                self.bot_user,
                {"message_reference": {"message_id": message.id, "channel_id": channel.id}},
                [],
                type=6,
                allow_empty=True,
            )
            await self._announce("MESSAGE_CREATE", notice)
        return _Reply(204)

    async def _pin(self, call: _Call) -> _Reply:
        return await self._set_pinned(call, True)

    async def _unpin(self, call: _Call) -> _Reply:
        return await self._set_pinned(call, False)

    async def _list_pins(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        pins = sorted(channel.pins, key=lambda m: m.pinned_at or "", reverse=True)
        limit = int(call.query.get("limit", 50))
        items = [{"pinned_at": m.pinned_at, "message": m.payload()} for m in pins[:limit]]
        return _Reply(200, {"items": items, "has_more": len(pins) > limit})

    async def _list_pins_legacy(self, call: _Call) -> _Reply:
        channel = self._channel(call)
        pins = sorted(channel.pins, key=lambda m: m.pinned_at or "", reverse=True)
        return _Reply(200, [m.payload() for m in pins])


# ------------------------------------------------------------------------------- limits


def _embed_text(embed: Mapping[str, Any]) -> int:
    """The characters of an embed that count towards Discord's 6,000 per message."""
    parts = [embed.get("title"), embed.get("description")]
    parts += [(embed.get("footer") or {}).get("text"), (embed.get("author") or {}).get("name")]
    for entry in embed.get("fields") or []:
        parts += [entry.get("name"), entry.get("value")]
    return sum(len(part) for part in parts if isinstance(part, str))


def _check_message_limits(body: Mapping[str, Any], flags: int) -> None:
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


def _option_response(option: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in option.items() if v is not None and not (k.endswith("_localizations") and not v)}
    if "options" in out:
        out["options"] = [_option_response(o) for o in out["options"]]
    if "choices" in out:
        out["choices"] = [{k: v for k, v in c.items() if v is not None} for c in out["choices"]]
    return out


# ------------------------------------------------------------------------------------ a default world


@dataclass
class World:
    """The cast most tests need: one guild, two text channels, a GM, two players and an admin."""

    guild: FakeGuild
    table: FakeChannel
    """The channel where games are played."""
    lobby: FakeChannel
    gm_role: FakeRole
    admin_role: FakeRole
    gm: FakeUser
    """A game master: has the GM role, no special Discord permissions."""
    player: FakeUser
    player2: FakeUser
    admin: FakeUser
    """Has Manage Server (manage_guild), not the owner."""
    owner: FakeUser


def build_world(fake: FakeDiscord) -> World:
    owner = fake.create_user("owner")
    guild = fake.create_guild("Pommel Test Hall", owner=owner)
    gm_role = guild.create_role("GM", 0, mentionable=True)
    admin_role = guild.create_role("Admin", discord.Permissions(manage_guild=True, manage_messages=True))
    table = guild.create_text_channel("table", topic="where fights happen")
    lobby = guild.create_text_channel("lobby")
    gm = fake.create_user("gamemaster", global_name="Gamemaster")
    player = fake.create_user("alice")
    player2 = fake.create_user("bob")
    admin = fake.create_user("admin")
    guild.add_member(gm, [gm_role])
    guild.add_member(player)
    guild.add_member(player2)
    guild.add_member(admin, [admin_role])
    return World(guild, table, lobby, gm_role, admin_role, gm, player, player2, admin, owner)
