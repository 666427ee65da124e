from urllib.parse import parse_qs, urlsplit

import discord

from bot.permissions import NEEDS, REQUIRED_PERMISSIONS, invite_url


def test_every_need_is_a_discord_permission_and_nothing_else_is_asked() -> None:
    flags = {need.flag for need in NEEDS}
    assert flags <= set(discord.Permissions.VALID_FLAGS)
    assert bin(REQUIRED_PERMISSIONS.value).count("1") == len(NEEDS)  # one bit each, no other


def test_pommel_asks_for_no_moderation_or_administration() -> None:
    assert not REQUIRED_PERMISSIONS.administrator
    assert not REQUIRED_PERMISSIONS.manage_messages
    assert not REQUIRED_PERMISSIONS.mention_everyone
    assert not REQUIRED_PERMISSIONS.read_message_history


def test_the_invite_asks_for_the_bot_and_its_commands_with_exactly_those_permissions() -> None:
    query = parse_qs(urlsplit(invite_url(1234)).query)
    assert query["client_id"] == ["1234"]
    assert query["scope"] == ["bot applications.commands"]
    assert query["permissions"] == [str(REQUIRED_PERMISSIONS.value)]
