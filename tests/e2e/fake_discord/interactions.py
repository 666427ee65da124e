"""Interactions: what the fake sends, and the answers through their token (callback, follow-ups, edits)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import DiscordError
from .limits import EPHEMERAL, INTERACTION_FLAGS, LOADING
from .messages import FakeAttachment, FakeMessage, Messages
from .model import FakeChannel, FakeGuild, FakeMember, FakeUser
from .records import Call, Handler, Reply


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


class Interactions(Messages):
    """Interactions sent to the bot, and the routes of its answers through their token (a callback within
    the deadline, then follow-ups and edits of its messages)."""

    def _route_table(self) -> dict[tuple[str, str], Handler]:
        r = super()._route_table()
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
        return r

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
            "app_permissions": str(self._bot_permissions(channel).value),
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
        """Dispatch INTERACTION_CREATE, stamping the send time for latency measurements: the moment the
        user's action reached Discord, which it then takes half a round trip (``latency``) to the bot."""
        inter.dispatched_at = time.perf_counter()
        if self.latency:
            await asyncio.sleep(self.latency / 2)
        await self.dispatch("INTERACTION_CREATE", inter.payload)

    # ------------------------------------------------------------------------ interaction answers

    def _interaction_for(self, call: Call, *, id_param: str | None = None) -> FakeInteraction:
        token = call.params.get("interaction_token") or call.params["webhook_token"]
        inter = self._interactions_by_token.get(token)
        if id_param is not None:
            if inter is None or inter.id != call.int_param(id_param):
                raise DiscordError(404, 10062, "Unknown interaction")
        else:
            if call.int_param("webhook_id") != self.application_id or inter is None:
                raise DiscordError(404, 10015, "Unknown Webhook")
        return inter

    async def _callback(self, call: Call) -> Reply:
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
            created = self._respond(inter, data, call.files, flags=int(data.get("flags") or 0))
            resource = {"type": 4, "message": created.payload()}
        elif kind == 5:
            created = self._respond(inter, {}, [], flags=LOADING | (int(data.get("flags") or 0) & EPHEMERAL))
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
            return Reply(204)
        answer: dict[str, Any] = {"interaction": interaction_info}
        if resource is not None:
            answer["resource"] = resource
        return Reply(200, answer)

    def _respond(
        self, inter: FakeInteraction, body: Mapping[str, Any], files: list[FakeAttachment], *, flags: int
    ) -> FakeMessage:
        """The interaction's original response (a deferred one is a loading message until followed up)."""
        kind = 20 if inter.type == 2 else 0
        inter.original = self._new_message(
            inter.channel, self.bot_user, body, files, type=kind, flags=flags, interaction=inter, webhook=True
        )
        return inter.original

    def _webhook_target(self, call: Call, inter: FakeInteraction) -> tuple[str, FakeMessage]:
        if "message_id" not in call.params:
            if inter.original is None or inter.original.deleted:
                raise DiscordError(404, 10008, "Unknown Message (no original response)")
            return "@original", inter.original
        message_id = call.int_param("message_id")
        for message in [inter.original, *inter.followups]:
            if message is not None and message.id == message_id and not message.deleted:
                return str(message_id), message
        raise DiscordError(404, 10008, "Unknown Message (not a message of this interaction)")

    async def _followup(self, call: Call) -> Reply:
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
        return Reply(200, message.payload()) if call.flag("wait") else Reply(204)

    async def _get_webhook_message(self, call: Call) -> Reply:
        inter = self._interaction_for(call)
        _, message = self._webhook_target(call, inter)
        return Reply(200, message.payload())

    async def _edit_webhook_message(self, call: Call) -> Reply:
        inter = self._interaction_for(call)
        target, message = self._webhook_target(call, inter)
        message.flags &= ~LOADING
        self._apply_content(message, call.body, call.files, creating=False)
        inter.edits.append(EditRecord(target, call.body, time.perf_counter()))
        await self._announce("MESSAGE_UPDATE", message)
        return Reply(200, message.payload())

    async def _delete_webhook_message(self, call: Call) -> Reply:
        inter = self._interaction_for(call)
        _, message = self._webhook_target(call, inter)
        await self._remove(message)
        return Reply(204)
