"""A click goes to its button's handler straight from its custom id (``bot/interactions/buttons.py``):
discord.py's rebuilding of the whole message as a View is skipped, what the user sees is the same, and a
click on a button its message does not show acts on nothing, as under discord.py's own dispatch."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.interactions.buttons import shows

from .fake_discord import World
from .fights import button_id, tracker_message
from .test_init import start_four


async def test_a_click_is_answered_without_rebuilding_its_message_as_a_view(
    world: World, start_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pommel = await start_four(world, start_bot, ["KS", "QS", "JS", "10S"])
    await pommel.slash("init deal", user=world.gm)

    def rebuilt(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a Pommel click rebuilt its message as a View")

    monkeypatch.setattr(discord.ui.View, "from_message", rebuilt)
    tracker = tracker_message(world.table)
    result = await pommel.click(tracker, button_id(tracker, "next"), user=world.player)
    assert not result.ephemeral, result.content
    assert "**Ansel**'s turn is over." in result.content
    assert "▶️ **Brigit**'s turn — Q♠" in result.content


def test_a_click_counts_only_on_a_button_its_message_shows() -> None:
    row = discord.ActionRow(
        {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "pommel:turn:next:3:abc"}]}
    )
    message: Any = SimpleNamespace(components=[row])
    assert shows(message, 2, "pommel:turn:next:3:abc")
    assert not shows(message, 2, "pommel:turn:next:2:abc")  # drawn for an earlier step, gone since
    assert not shows(message, 3, "pommel:turn:next:3:abc")  # not a select
