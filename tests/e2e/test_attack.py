"""``/attack`` and the defender's buttons end to end through the fake Discord (R9-R18, R22, R24-R26).

Every fight here is seeded through the store with round 1 dealt from a stacked deck: Alice (player,
pool 3, arming sword) holds K♠ and has the turn, Bob (player2, pool 3) holds 7♦, the Bandit (GM, pool
2, messer, light gambeson) holds 2♣. The bot's dice are scripted: every d20 and damage die is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.rules.dice import ScriptedDice

from .fake_discord import FakeMessage, World
from .fights import StackedDice, fight_of, seed_fight
from .harness import RunningBot

ROUND_ONE = ("KS", "7D", "2C")


async def dealt_fight(world: World, start_bot: Any, faces: Sequence[int] = ()) -> RunningBot:
    pommel: RunningBot = await start_bot(dice=ScriptedDice(faces))
    encounter = await seed_fight(
        pommel,
        world,
        players=[(world.player, "Alice"), (world.player2, "Bob")],
        npcs=[("bandit", 1, "Bandit")],
    )
    encounter.deal(StackedDice(list(ROUND_ONE)))
    await pommel.bot.store.save_encounter(encounter)
    return pommel


def button(message: FakeMessage, action: str) -> str:
    for custom_id in message.custom_ids():
        if custom_id.split(":")[4:] == action.split(":"):
            return custom_id
    raise AssertionError(f"no {action} button: {message.custom_ids()}")


async def test_r14_7_an_active_defense_that_loses_takes_the_damage_less_dr(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[14, 7, 9, 6])
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit", "dice": 2})
    print(asked.content)
    assert asked.message is not None
    result = await pommel.click(asked.message, button(asked.message, "active:1"), user=world.gm)
    print(result.content)
    fight = await fight_of(pommel, world)
    assert fight.combatant("Bandit").hp == 8
