"""The world the fake keeps: users, roles, members, channels and guilds, with Discord's permissions."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord

from .errors import DispatchError

if TYPE_CHECKING:
    from .messages import FakeMessage
    from .state import DiscordState


DISCORD_EPOCH_MS = 1420070400000


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that gets a guild's events, Discord's formula; direct messages go to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value

CHATTING = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
).value
"""What every set below grants: to read a channel and write in it, with embeds, files and reactions."""

DEFAULT_EVERYONE = (
    CHATTING
    | discord.Permissions(
        create_instant_invite=True,
        change_nickname=True,
        send_messages_in_threads=True,
        create_public_threads=True,
        use_application_commands=True,
        connect=True,
        speak=True,
    ).value
)
"""What ``@everyone`` may do in a new guild (roughly Discord's defaults)."""

DEFAULT_BOT_PERMISSIONS = (
    CHATTING
    | discord.Permissions(send_messages_in_threads=True, manage_messages=True, pin_messages=True).value
)
"""The bot's managed role: what an invite link with sensible scopes would grant."""

DM_APP_PERMISSIONS = CHATTING | discord.Permissions(use_application_commands=True).value

THREAD_TYPES = (10, 11, 12)
"""Announcement, public and private threads."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def perm_value(value: int | discord.Permissions) -> int:
    return value.value if isinstance(value, discord.Permissions) else int(value)


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
    joined_at: str = field(default_factory=now_iso)

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
        self.overwrites[target.id] = (kind, perm_value(allow), perm_value(deny))

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
                    "archive_timestamp": now_iso(),
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
    fake: DiscordState
    locale: str = "en-US"
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    joined_at: str = field(default_factory=now_iso)

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
            permissions=perm_value(permissions),
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
