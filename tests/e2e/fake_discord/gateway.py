"""The gateway: websocket connections, sessions that survive them (RESUME), shards and dispatches."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import zlib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import discord
from aiohttp import WSMsgType, web

from .model import FakeChannel, shard_of
from .state import DiscordState

log = logging.getLogger(__name__)

MEMBERS_INTENT = discord.Intents(members=True).value
GUILD_MESSAGES_INTENT = discord.Intents(guild_messages=True).value
DIRECT_MESSAGES_INTENT = discord.Intents(dm_messages=True).value


class Connection:
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
    connection: Connection | None = None
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

    async def emit(self, event: str, data: Mapping[str, Any]) -> None:
        """Number a dispatch, keep it for RESUME and send it if connected (the caller holds ``lock``)."""
        self.seq += 1
        frame = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.buffer.append((self.seq, frame))
        if self.connection is not None:
            await self.connection.send(frame)

    def gets(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of that guild (None: of direct messages, shard 0)."""
        shard_id, count = self.shard
        return shard_of(guild_id, count) == shard_id


class Gateway(DiscordState):
    """The gateway side: sessions identify, resume and get the dispatches of their shard."""

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
                await session.emit(event, data)

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

    async def _send_op(self, conn: Connection, frame: dict[str, Any]) -> None:
        if frame["op"] != 11:
            self.gateway_log.append(("send", frame))
        async with conn.session.lock if conn.session else conn.lock:
            await conn.send(frame)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoclose=True)
        await ws.prepare(request)
        conn = Connection(ws, request.query, request.path)
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

    async def _on_gateway_frame(self, conn: Connection, text: str) -> None:
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

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> None:
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
                await session.emit(event, payload)

    def _shard_refused(self, shard: Any) -> tuple[int, str] | None:
        """Discord's close code and reason for an IDENTIFY's ``shard`` it would refuse, or None."""
        if shard is None:
            return (4011, "Sharding required") if self.shard_count > 1 else None
        valid = isinstance(shard, list) and len(shard) == 2 and all(isinstance(n, int) for n in shard)
        if not valid or not 0 <= shard[0] < shard[1] or shard[1] != self.shard_count:
            return 4010, "Invalid shard"
        return None

    async def _resume(self, conn: Connection, data: dict[str, Any]) -> None:
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

    async def _request_members(self, conn: Connection, data: dict[str, Any]) -> None:
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
