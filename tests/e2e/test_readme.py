"""The README's "first fight" runs as written: its six commands, parsed from the README itself, through
the fake Discord, each answered without a refusal."""

from __future__ import annotations

import random
import re
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

from bot.rules.dice import RandomDice

from .fake_discord import World
from .fights import StackedDice

README = Path(__file__).resolve().parents[2] / "README.md"
OPTION = re.compile(r"(\w+):")


class StackedDeckSeededDice(RandomDice):
    """Ansel's card (the first dealt) beats the Bandits'; the dice are seeded."""

    def __init__(self) -> None:
        super().__init__(random.Random(7))
        self.deck = StackedDice(["KS", "2C"])

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self.deck.shuffle(items)


def first_fight() -> list[tuple[str, dict[str, Any], str]]:
    """The quick start's commands: (command, options, who types it)."""
    text = README.read_text()
    section = text.split("**A first fight**", 1)[1].split("\n\n")[1]  # the list after its heading
    steps = []
    for item in re.findall(r"^\d\. `/([^`]+)` \(([^)]*)", section, re.MULTILINE):
        typed, who = item
        names = list(OPTION.finditer(typed))
        command = typed[: names[0].start()].strip() if names else typed.strip()
        options: dict[str, Any] = {}
        for here, after in zip(names, [*names[1:], None], strict=False):
            value = typed[here.end() : after.start() if after else len(typed)].strip()
            options[here[1]] = int(value) if re.fullmatch(r"-?\d+", value) else value
        steps.append((command, options, "gm" if who.startswith("the GM") else "player"))
    return steps


async def test_the_readme_s_first_fight_runs_as_written(world: World, start_bot: Any) -> None:
    steps = first_fight()
    assert [command for command, _, _ in steps] == [
        "character create",
        "encounter start",
        "join",
        "npc add",
        "init deal",
        "attack",
    ]
    pommel = await start_bot(dice=StackedDeckSeededDice(), timeout=30)
    for command, options, who in steps:
        user = world.gm if who == "gm" else world.player
        answer = await pommel.slash(command, user=user, channel=world.table, options=options)
        assert answer.content or answer.embeds, command
        assert "Something went wrong" not in answer.content, (command, answer.content)
    assert "how does **Bandit 1** defend?" in answer.content  # the attack asks the GM for a defense
