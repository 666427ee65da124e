"""Routes of application commands, global and per guild."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import DiscordError
from ..records import Call, Handler, Reply
from ..state import DiscordState


class CommandRoutes(DiscordState):
    """Application commands as the bot syncs them: global, or of one guild."""

    def _route_table(self) -> dict[tuple[str, str], Handler]:
        r = super()._route_table()
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            r["GET", prefix + "/commands"] = self._list_commands
            r["PUT", prefix + "/commands"] = self._bulk_commands
            r["POST", prefix + "/commands"] = self._create_command
            r["GET", prefix + "/commands/{command_id}"] = self._get_command
            r["PATCH", prefix + "/commands/{command_id}"] = self._edit_command
            r["DELETE", prefix + "/commands/{command_id}"] = self._delete_command
        return r

    def _command_store(self, call: Call) -> tuple[int | None, dict[int, dict[str, Any]]]:
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

    async def _list_commands(self, call: Call) -> Reply:
        _, store = self._command_store(call)
        return Reply(200, list(store.values()))

    async def _bulk_commands(self, call: Call) -> Reply:
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
        return Reply(200, list(store.values()))

    async def _create_command(self, call: Call) -> Reply:
        guild_id, store = self._command_store(call)
        response = self._command_response(call.body, guild_id)
        created = int(response["id"]) not in store
        store[int(response["id"])] = response
        return Reply(201 if created else 200, response)

    def _stored_command(self, call: Call) -> tuple[int | None, dict[int, dict[str, Any]], int]:
        guild_id, store = self._command_store(call)
        command_id = call.int_param("command_id")
        if command_id not in store:
            raise DiscordError(404, 10063, "Unknown application command", kind="not_found")
        return guild_id, store, command_id

    async def _get_command(self, call: Call) -> Reply:
        _, store, command_id = self._stored_command(call)
        return Reply(200, store[command_id])

    async def _edit_command(self, call: Call) -> Reply:
        guild_id, store, command_id = self._stored_command(call)
        merged = {**store[command_id], **call.body}
        store[command_id] = self._command_response(merged, guild_id)
        return Reply(200, store[command_id])

    async def _delete_command(self, call: Call) -> Reply:
        _, store, command_id = self._stored_command(call)
        del store[command_id]
        return Reply(204)


def _option_response(option: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in option.items() if v is not None and not (k.endswith("_localizations") and not v)}
    if "options" in out:
        out["options"] = [_option_response(o) for o in out["options"]]
    if "choices" in out:
        out["choices"] = [{k: v for k, v in c.items() if v is not None} for c in out["choices"]]
    return out
