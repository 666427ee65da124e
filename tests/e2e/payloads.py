"""Interaction ``data`` built the way Discord's client builds it, from what the bot really synced.

A test names a command and gives option values; these builders look the command up in the fake's store
of synced commands and refuse anything Discord's client would refuse (unknown command, subcommand or
option, a missing required option, a value outside the declared choices or range, a command the user
cannot see).  A typo in a test therefore fails loudly instead of producing an interaction Discord would
never send.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord

from .fake_discord import (
    ADMINISTRATOR,
    CommandNotVisible,
    DispatchError,
    FakeAttachment,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
)

__all__ = ["Resolved", "check_visible", "command_data", "component_data", "modal_submit_data"]

OPTION_TYPE_NAMES = {
    1: "SUB_COMMAND",
    2: "SUB_COMMAND_GROUP",
    3: "STRING",
    4: "INTEGER",
    5: "BOOLEAN",
    6: "USER",
    7: "CHANNEL",
    8: "ROLE",
    9: "MENTIONABLE",
    10: "NUMBER",
    11: "ATTACHMENT",
}
USE_APPLICATION_COMMANDS = discord.Permissions(use_application_commands=True).value


class Resolved:
    """The ``resolved`` map of an interaction: full objects for every id-valued option or select value."""

    def __init__(self, guild: FakeGuild | None, channel: FakeChannel) -> None:
        self.guild = guild
        self.channel = channel
        self.users: dict[str, Any] = {}
        self.members: dict[str, Any] = {}
        self.roles: dict[str, Any] = {}
        self.channels: dict[str, Any] = {}
        self.attachments: dict[str, Any] = {}

    def user(self, value: FakeUser | FakeMember) -> str:
        user = value.user if isinstance(value, FakeMember) else value
        self.users[str(user.id)] = user.payload()
        member = self.guild.members.get(user.id) if self.guild is not None else None
        if member is not None:
            data = {k: v for k, v in member.payload().items() if k not in ("user", "deaf", "mute")}
            data["permissions"] = str(self.channel.permissions_for(member))
            self.members[str(user.id)] = data
        return str(user.id)

    def role(self, role: FakeRole) -> str:
        self.roles[str(role.id)] = role.payload()
        return str(role.id)

    def channel_(self, channel: FakeChannel) -> str:
        data = channel.payload()
        member = None
        if channel.guild is not None:
            member = channel.guild.members.get(channel.guild.fake.bot_user.id)
        data["permissions"] = str(channel.permissions_for(member))
        self.channels[str(channel.id)] = data
        return str(channel.id)

    def attachment(self, attachment: FakeAttachment) -> str:
        self.attachments[str(attachment.id)] = attachment.payload()
        return str(attachment.id)

    def payload(self) -> dict[str, Any] | None:
        out = {
            name: value
            for name, value in (
                ("users", self.users),
                ("members", self.members),
                ("roles", self.roles),
                ("channels", self.channels),
                ("attachments", self.attachments),
            )
            if value
        }
        return out or None


def check_visible(command: Mapping[str, Any], user: FakeUser, channel: FakeChannel) -> None:
    """Refuse a command Discord's client would not offer this user here (contexts, permissions)."""
    name = command["name"]
    contexts = command.get("contexts")
    guild = channel.guild
    if guild is None:
        allowed = 1 in contexts if contexts is not None else command.get("dm_permission", True)
        if not allowed:
            raise CommandNotVisible(f"/{name} is not available in DMs (contexts={contexts})")
        return
    if contexts is not None and 0 not in contexts:
        raise CommandNotVisible(f"/{name} is not available in guilds (contexts={contexts})")
    member = guild.member(user)
    perms = channel.permissions_for(member)
    if perms & ADMINISTRATOR:
        return
    if not perms & USE_APPLICATION_COMMANDS:
        raise CommandNotVisible(f"{user.username} lacks Use Application Commands in #{channel.name}")
    required = command.get("default_member_permissions")
    if required is None:
        return
    needed = int(required)
    if needed == 0 or needed & perms != needed:
        missing = [n for n, v in discord.Permissions(needed & ~perms) if v]
        raise CommandNotVisible(
            f"/{name} needs default_member_permissions {missing or 'administrator'}; "
            f"{user.username} has {[n for n, v in discord.Permissions(perms) if v]}"
        )


def command_data(
    fake: FakeDiscord,
    command: Mapping[str, Any],
    path: Sequence[str],
    values: Mapping[str, Any],
    channel: FakeChannel,
    *,
    focused: str | None = None,
) -> dict[str, Any]:
    """``data`` of an APPLICATION_COMMAND (or, with ``focused``, AUTOCOMPLETE) interaction."""
    resolved = Resolved(channel.guild, channel)
    data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": command.get("type", 1)}
    if "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    options = _build(command.get("options") or [], list(path), values, resolved, command["name"], focused)
    if options:
        data["options"] = options
    payload = resolved.payload()
    if payload:
        data["resolved"] = payload
    return data


def _build(
    schema: Sequence[Mapping[str, Any]],
    path: list[str],
    values: Mapping[str, Any],
    resolved: Resolved,
    where: str,
    focused: str | None,
) -> list[dict[str, Any]]:
    groups = [o for o in schema if o["type"] in (1, 2)]
    if path:
        head, rest = path[0], path[1:]
        sub = next((o for o in groups if o["name"] == head), None)
        if sub is None:
            raise DispatchError(f"/{where} has no subcommand {head!r}; it has {[o['name'] for o in groups]}")
        if sub["type"] == 2 and not rest:
            names = [o["name"] for o in sub.get("options") or []]
            raise DispatchError(f"/{where} {head} is a group: name one of its subcommands {names}")
        inner = _build(sub.get("options") or [], rest, values, resolved, f"{where} {head}", focused)
        return [{"type": sub["type"], "name": head, "options": inner}]
    if groups:
        raise DispatchError(f"/{where} needs a subcommand: one of {[o['name'] for o in groups]}")
    by_name = {o["name"]: o for o in schema}
    unknown = sorted(set(values) - set(by_name))
    if unknown:
        raise DispatchError(f"/{where} has no option(s) {unknown}; it has {sorted(by_name)}")
    if focused is not None:
        if focused not in by_name:
            raise DispatchError(
                f"/{where} has no option {focused!r} to autocomplete; it has {sorted(by_name)}"
            )
        if not by_name[focused].get("autocomplete"):
            raise DispatchError(f"/{where} option {focused!r} is not an autocomplete option")
    out: list[dict[str, Any]] = []
    for option in schema:
        name = option["name"]
        if name == focused:
            value = values.get(name, "")
            out.append({"type": option["type"], "name": name, "value": value, "focused": True})
            continue
        if name not in values:
            if option.get("required") and focused is None:
                raise DispatchError(f"/{where} needs the required option {name!r}")
            continue
        value = _convert(option, values[name], resolved, f"/{where} {name}")
        out.append({"type": option["type"], "name": name, "value": value})
    return out


def _convert(option: Mapping[str, Any], value: Any, resolved: Resolved, where: str) -> Any:
    kind = option["type"]
    label = OPTION_TYPE_NAMES.get(kind, str(kind))

    def refuse(why: str) -> DispatchError:
        return DispatchError(f"{where} ({label}): {why}, got {value!r}")

    if kind == 3:
        if not isinstance(value, str):
            raise refuse("needs a str")
        if "min_length" in option and len(value) < option["min_length"]:
            raise refuse(f"shorter than min_length {option['min_length']}")
        if "max_length" in option and len(value) > option["max_length"]:
            raise refuse(f"longer than max_length {option['max_length']}")
    elif kind in (4, 10):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (kind == 4 and isinstance(value, float))
        ):
            raise refuse("needs an int" if kind == 4 else "needs a number")
        if "min_value" in option and value < option["min_value"]:
            raise refuse(f"below min_value {option['min_value']}")
        if "max_value" in option and value > option["max_value"]:
            raise refuse(f"above max_value {option['max_value']}")
    elif kind == 5:
        if not isinstance(value, bool):
            raise refuse("needs a bool")
    elif kind == 6:
        if not isinstance(value, FakeUser | FakeMember):
            raise refuse("needs a FakeUser")
        return resolved.user(value)
    elif kind == 7:
        if not isinstance(value, FakeChannel):
            raise refuse("needs a FakeChannel")
        types = option.get("channel_types")
        if types and value.type not in types:
            raise refuse(f"channel type {value.type} is not one of {types}")
        return resolved.channel_(value)
    elif kind == 8:
        if not isinstance(value, FakeRole):
            raise refuse("needs a FakeRole")
        return resolved.role(value)
    elif kind == 9:
        if isinstance(value, FakeRole):
            return resolved.role(value)
        if isinstance(value, FakeUser | FakeMember):
            return resolved.user(value)
        raise refuse("needs a FakeUser or FakeRole")
    elif kind == 11:
        if not isinstance(value, FakeAttachment):
            raise refuse("needs a FakeAttachment (FakeDiscord.attachment)")
        return resolved.attachment(value)
    else:
        raise refuse("unsupported option type")
    choices = option.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise refuse(f"not one of the choices {[c['value'] for c in choices]}")
    return value


def component_data(
    message: FakeMessage, custom_id: str, values: Sequence[Any] | None, channel: FakeChannel
) -> dict[str, Any]:
    """``data`` of a MESSAGE_COMPONENT interaction: a button click, or a select with ``values``."""
    if message.deleted:
        raise DispatchError(f"message {message.id} was deleted; nobody can click on it")
    component = message.component(custom_id)
    kind = component["type"]
    if component.get("disabled"):
        raise DispatchError(f"component {custom_id!r} on message {message.id} is disabled")
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
    if kind == 2:
        if values is not None:
            raise DispatchError(f"{custom_id!r} is a button: it takes no values")
        return data
    if kind not in (3, 5, 6, 7, 8):
        raise DispatchError(f"{custom_id!r} is a component of type {kind}, which users cannot interact with")
    if values is None:
        raise DispatchError(f"{custom_id!r} is a select: pass values")
    low, high = component.get("min_values", 1), component.get("max_values", 1)
    if not low <= len(values) <= high:
        raise DispatchError(f"select {custom_id!r} takes {low}..{high} values, got {len(values)}")
    resolved = Resolved(channel.guild, channel)
    out: list[str] = []
    for value in values:
        if kind == 3:
            allowed = [o["value"] for o in component.get("options", [])]
            if value not in allowed:
                raise DispatchError(f"select {custom_id!r} has no option {value!r}; it has {allowed}")
            out.append(value)
        elif kind in (5, 7) and isinstance(value, FakeUser | FakeMember):
            out.append(resolved.user(value))
        elif kind in (6, 7) and isinstance(value, FakeRole):
            out.append(resolved.role(value))
        elif kind == 8 and isinstance(value, FakeChannel):
            out.append(resolved.channel_(value))
        else:
            raise DispatchError(f"select {custom_id!r} (type {kind}) cannot take {value!r}")
    data["values"] = out
    payload = resolved.payload()
    if payload:
        data["resolved"] = payload
    return data


def modal_submit_data(modal: Mapping[str, Any], values: Mapping[str, str | Sequence[str]]) -> dict[str, Any]:
    """``data`` of a MODAL_SUBMIT for the modal the bot opened, with text (or select) values by custom_id."""
    unused = set(values)

    def answer(component: Mapping[str, Any]) -> dict[str, Any]:
        custom_id = str(component.get("custom_id"))
        kind = component["type"]
        if kind == 4:
            value = values.get(custom_id, component.get("value") or "")
            if not isinstance(value, str):
                raise DispatchError(f"text input {custom_id!r} takes a str")
            if component.get("required", True) and not value:
                raise DispatchError(f"text input {custom_id!r} is required")
            unused.discard(custom_id)
            return {"type": 4, "custom_id": custom_id, "value": value}
        if kind == 3:
            chosen = values.get(custom_id, [])
            unused.discard(custom_id)
            return {"type": 3, "custom_id": custom_id, "values": list(chosen)}
        return {"type": kind}

    rows: list[dict[str, Any]] = []
    for row in modal.get("components") or []:
        if row["type"] == 1:
            rows.append({"type": 1, "components": [answer(c) for c in row.get("components") or []]})
        elif row["type"] == 18:
            rows.append({"type": 18, "component": answer(row["component"])})
        else:
            rows.append({"type": row["type"]})
    if unused:
        raise DispatchError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unused)}")
    return {"custom_id": modal["custom_id"], "components": rows}
