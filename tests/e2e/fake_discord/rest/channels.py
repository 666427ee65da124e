"""Routes of channels: their messages and pins."""

from __future__ import annotations

from typing import Any

from ..errors import DiscordError
from ..limits import CREATE_FLAGS
from ..messages import FakeMessage, Messages
from ..model import now_iso
from ..records import Call, Handler, Reply


class ChannelRoutes(Messages):
    """A channel, its messages and its pins."""

    def _route_table(self) -> dict[tuple[str, str], Handler]:
        r = super()._route_table()
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
        return r

    async def _get_channel(self, call: Call) -> Reply:
        channel = self._channel(call)
        return Reply(200, channel.payload())

    async def _create_message(self, call: Call) -> Reply:
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
        return Reply(200, message.payload())

    async def _get_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        self._require(channel, "view_channel", "read_message_history")
        return Reply(200, self._message_in(channel, call.int_param("message_id")).payload())

    async def _list_messages(self, call: Call) -> Reply:
        channel = self._channel(call)
        self._require(channel, "view_channel", "read_message_history")
        limit = int(call.query.get("limit", 50))
        ids = sorted(channel.messages, reverse=True)
        if "before" in call.query:
            ids = [i for i in ids if i < int(call.query["before"])]
        if "after" in call.query:
            ids = sorted(i for i in ids if i > int(call.query["after"]))[:limit][::-1]
        return Reply(200, [channel.messages[i].payload() for i in ids[:limit]])

    async def _edit_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if message.author is not self.bot_user and set(call.body) - {"flags"}:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        self._require(channel, "view_channel")
        if call.body.get("embeds"):
            self._require(channel, "embed_links")
        self._apply_content(message, call.body, call.files, creating=False)
        await self._announce("MESSAGE_UPDATE", message)
        return Reply(200, message.payload())

    async def _delete_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if message.author is not self.bot_user:
            self._require(channel, "manage_messages")
        await self._remove(message)
        return Reply(204)

    async def _set_pinned(self, call: Call, pinned: bool) -> Reply:
        channel = self._channel(call)
        message = self._message_in(channel, call.int_param("message_id"))
        if channel.guild is not None:
            perms = self._bot_permissions(channel)
            if not (perms.pin_messages or perms.manage_messages):
                raise DiscordError(403, 50013, "Missing Permissions (pin_messages)", kind="forbidden")
        if pinned and not message.pinned and len(channel.pins) >= 250:
            raise DiscordError(400, 30003, "Maximum number of pins reached (250)")
        if message.pinned == pinned:
            return Reply(204)
        message.pinned = pinned
        message.pinned_at = now_iso() if pinned else None
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
        return Reply(204)

    async def _pin(self, call: Call) -> Reply:
        return await self._set_pinned(call, True)

    async def _unpin(self, call: Call) -> Reply:
        return await self._set_pinned(call, False)

    def _pins(self, call: Call) -> list[FakeMessage]:
        """The channel's pinned messages, the last pinned first."""
        return sorted(self._channel(call).pins, key=lambda m: m.pinned_at or "", reverse=True)

    async def _list_pins(self, call: Call) -> Reply:
        pins = self._pins(call)
        limit = int(call.query.get("limit", 50))
        items = [{"pinned_at": m.pinned_at, "message": m.payload()} for m in pins[:limit]]
        return Reply(200, {"items": items, "has_more": len(pins) > limit})

    async def _list_pins_legacy(self, call: Call) -> Reply:
        return Reply(200, [m.payload() for m in self._pins(call)])
