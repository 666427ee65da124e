"""Every GM-only command, refused to a player in one place: privately, with nothing changed.

The list is checked against the synced commands: a new command whose description starts with "GM:"
must be added here, so no GM-only command goes untested.
"""

from __future__ import annotations

from typing import Any

from .fake_discord import FakeDiscord, World
from .fights import StackedDice, seed_fight
from .harness import RunningBot


def gm_only_commands(world: World) -> dict[str, dict[str, Any]]:
    """Each GM-only command with options that would work for the GM."""
    return {
        "encounter end": {},
        "encounter reopen": {},  # refused as a fight runs; a player's refusal: test_encounter.py
        "encounter recover": {},  # nothing set aside here; a player's refusal: test_encounter.py
        "encounter undo": {},  # players_undo off, the default
        "encounter redo": {},
        "encounter options": {"joker_bonus": 3},
        "encounter gm": {"member": world.player2},
        "init deal": {},
        "npc add": {"template": "bandit", "count": 2},
        "npc remove": {"who": "Bandit 1"},
        "combatant edit": {"who": "Brigit", "prowess": 4},
        "combatant feat": {"who": "Brigit", "feat": "fuhlen"},
        "morale check": {"who": "Bandit 1"},
        "morale recheck": {"who": "Bandit 1"},
        "morale set": {"who": "Bandit 2", "standing": "routed"},
        "spirit drive-out": {"target": "Ansel"},
        "spirit heal": {"target": "Ansel", "ability": "CHA", "points": 1},
    }


def synced_gm_commands(fake: FakeDiscord, world: World) -> set[str]:
    found = set()
    for command in fake.commands_for(world.guild):
        if command.get("type", 1) != 1:
            continue
        root = command["name"]
        for sub in command.get("options", []):
            if sub.get("type") == 1 and sub["description"].startswith("GM:"):
                found.add(f"{root} {sub['name']}")
        if command["description"].startswith("GM:") and not any(
            sub.get("type") == 1 for sub in command.get("options", [])
        ):
            found.add(root)
    return found


async def test_every_gm_only_command_is_refused_to_a_player_and_changes_nothing(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    pommel: RunningBot = await start_bot(dice=StackedDice())
    await seed_fight(
        pommel,
        world,
        players=[(world.player, "Ansel"), (world.player2, "Brigit")],
        npcs=[("bandit", 2, "Bandit")],
    )
    commands = gm_only_commands(world)
    # /encounter gm also tells anyone who runs fights here, and a fight may let players undo and redo
    # their own changes, so their descriptions have no "GM:".
    assert synced_gm_commands(fake_discord, world) == set(commands) - {
        "encounter gm",
        "encounter undo",
        "encounter redo",
    }
    before = await pommel.bot.store.load_encounter(world.table.id)
    log_before = await pommel.bot.store.read_log(channel_id=world.table.id)

    for command, options in commands.items():
        refused = await pommel.slash(command, user=world.player, options=options)
        assert refused.ephemeral, f"/{command}: {refused.content}"
        if command == "encounter recover":  # says there is nothing to recover, to anyone
            assert "nothing to recover" in refused.content, refused.content
            continue
        assert "GM" in refused.content, f"/{command}: {refused.content}"

    assert await pommel.bot.store.load_encounter(world.table.id) == before
    assert await pommel.bot.store.read_log(channel_id=world.table.id) == log_before

    # The same commands work for the GM (so the refusals above were about who asked).
    for command in (
        "npc add",
        "combatant edit",
        "init deal",
        "encounter options",
        "morale set",
        "npc remove",
    ):
        allowed = await pommel.slash(command, user=world.gm, options=commands[command])
        assert not allowed.ephemeral, f"/{command}: {allowed.content}"
