"""What the fake knows (the world, the requests, the problems) and how a test adds to the world."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from aiohttp import web

from ..openapi import Spec, load_spec
from .errors import DispatchError
from .model import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE,
    DISCORD_EPOCH_MS,
    FakeChannel,
    FakeGuild,
    FakeRole,
    FakeUser,
    perm_value,
    shard_of,
)
from .rate_limits import RateLimitHit, RateLimits
from .records import Handler, Problem, RecordedRequest

if TYPE_CHECKING:
    from .gateway import Connection, GatewaySession
    from .interactions import FakeInteraction
    from .messages import FakeAttachment, FakeMessage
    from .records import Fault


log = logging.getLogger(__name__)


class DiscordState:
    """What the fake knows, shared by its parts: the world, the commands, the gateway's sessions, every
    request and every problem."""

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
        rate_limits: RateLimits | bool = True,
        latency: float = 0.0,
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
        self.rate_limits = rate_limits if isinstance(rate_limits, RateLimits) else RateLimits(rate_limits)
        """Discord's per-route buckets and global limit (:mod:`.rate_limits`), on unless a test says."""
        self.rate_limit_hits: list[RateLimitHit] = []
        """Every 429 the fake sent, in order (each is also a ``ratelimit`` problem, unless taken)."""
        self.latency = latency
        """Seconds of round trip added to every REST answer (half before it is handled, half after)."""

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
        self.connections: list[Connection] = []
        self.gateway_log: list[tuple[str, dict[str, Any]]] = []
        """("recv"/"send", payload) of every gateway frame except heartbeats and dispatches."""
        self._changed = asyncio.Condition()
        self.faults: list[Fault] = []
        """Requests to answer badly (:meth:`fail`); each is used up by as many requests as its times."""

        self._routes = self._route_table()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self.port = 0

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
        guild.roles[guild.id] = FakeRole(guild.id, guild, "@everyone", perm_value(everyone))
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

    async def wait_for(self, predicate: Callable[[], bool], *, timeout: float = 60.0, what: str = "") -> None:
        """Wait (on fake-side events, never by polling) until ``predicate()`` holds; ``timeout`` is a hang
        guard, generous for a loaded machine, never a measure of speed."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(predicate), timeout)
            except TimeoutError:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}") from None

    def _route_table(self) -> dict[tuple[str, str], Handler]:
        """(method, spec template) -> handler: each part of the fake adds its own routes."""
        return {}
