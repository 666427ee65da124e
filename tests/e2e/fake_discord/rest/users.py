"""Routes of users, members, the application and the gateway's address."""

from __future__ import annotations

from typing import Any

from ..errors import DiscordError
from ..records import Call, Handler, Reply
from ..state import DiscordState


class UserRoutes(DiscordState):
    """Users, DM channels, guild members, the application and where the gateway is."""

    def _route_table(self) -> dict[tuple[str, str], Handler]:
        r = super()._route_table()
        r["GET", "/gateway"] = self._get_gateway
        r["GET", "/gateway/bot"] = self._get_gateway_bot
        r["GET", "/users/@me"] = self._get_me
        r["GET", "/users/{user_id}"] = self._get_user
        r["POST", "/users/@me/channels"] = self._create_dm
        r["GET", "/oauth2/applications/@me"] = self._get_application
        r["GET", "/guilds/{guild_id}/members/{user_id}"] = self._get_member
        return r

    async def _get_gateway(self, call: Call) -> Reply:
        return Reply(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: Call) -> Reply:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        reply = {
            "url": self.gateway_url.rstrip("/"),
            "shards": self.shard_count,
            "session_start_limit": limit,
        }
        return Reply(200, reply)

    async def _get_me(self, call: Call) -> Reply:
        me = self.bot_user.payload() | {
            "mfa_enabled": False,
            "locale": "en-US",
            "verified": True,
            "email": None,
        }
        return Reply(200, me)

    async def _get_user(self, call: Call) -> Reply:
        user = self.users.get(call.int_param("user_id"))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User", kind="not_found")
        return Reply(200, user.payload())

    async def _create_dm(self, call: Call) -> Reply:
        user = self.users.get(int(call.body["recipient_id"]))
        if user is None:
            raise DiscordError(400, 50035, "Invalid Form Body: unknown recipient_id")
        return Reply(200, self.dm_channel(user).payload())

    async def _get_application(self, call: Call) -> Reply:
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
        return Reply(200, app)

    async def _get_member(self, call: Call) -> Reply:
        guild = self.guilds.get(call.int_param("guild_id"))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild", kind="not_found")
        member = guild.members.get(call.int_param("user_id"))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member", kind="not_found")
        return Reply(200, member.payload())
