"""A big fight end to end: 30 combatants with 40-character names and three conditions each, in Melee
by pairs. Everyone stays in view on the tracker (over several embeds of one message) and in
``/encounter show`` (over pages, whose buttons work after a restart); the fake Discord refuses any
message over Discord's limits (2,000 characters of content, 4,096 a description, 6,000 a message, 25
fields, 5 action rows), so every drawing here kept to them."""

from __future__ import annotations

from typing import Any

from bot.encounter.combatants import Lasting
from bot.encounter.document import Encounter
from bot.encounter.records import Blow
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Range
from bot.table_options import DefensePolicy
from bot.ui.encounter_views import OVERVIEW_GONE

from .fake_discord import FakeMessage, World
from .fights import StackedDice, button_id, dealt_fight, fight_of, seed_fight, tracker_message
from .harness import BotRunner, InteractionResult, RunningBot

NAMES = [f"Sworn Blade of the Northern Marches {n:02d}".ljust(40, "x") for n in range(1, 31)]


async def thirty(pommel: RunningBot, world: World) -> Encounter:
    """#table's fight: the 30 NPCs, each on a card of its own, prone (2 rounds), bleeding and
    frightened, in Melee two by two."""
    catalog = pommel.bot.catalog
    encounter = Encounter(channel_id=world.table.id, guild_id=world.guild.id, gm_id=world.gm.id)
    for fighter in NAMES:
        encounter.add_npcs(catalog.monster("bandit"), None, count=1, name=fighter)
    for combatant in encounter.combatants:
        combatant.conditions = ["prone", "bleeding", "frightened"]
        combatant.lasting = {"prone": Lasting(rounds_left=2)}
    everyone = encounter.combatants
    for first, second in zip(everyone[::2], everyone[1::2], strict=True):
        encounter.engagement(first, second).range = Range.MELEE
    return await pommel.bot.store.save_encounter(encounter)


def shown(message: FakeMessage) -> str:
    return "\n".join(embed.get("description", "") for embed in message.embeds)


async def test_the_tracker_of_thirty_shows_everyone_and_whose_turn_it_is_and_whose_is_next(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=StackedDice())
    await thirty(pommel, world)
    await pommel.slash("init deal", user=world.gm)
    for _ in range(12):
        fight = await fight_of(pommel, world)
        tracker = tracker_message(world.table)
        text = shown(tracker)
        assert len(tracker.embeds) > 1  # one description could not hold it
        assert "more lines" not in text
        assert all(f"{fighter} · ●" in text for fighter in NAMES)
        now = fight.initiative.current
        assert now is not None
        assert f"**Now:** {now.card.label} **{fight.holder_name(now.holder)}**" in text
        following = fight.initiative.order[0]
        assert f"{following.card.label} **{fight.holder_name(following.holder)}**" in text
        pressed = await pommel.click(tracker, button_id(tracker, "next"), user=world.gm)
        assert not pressed.ephemeral, pressed.content
    assert len((await fight_of(pommel, world)).initiative.acted) == 12
    private = await pommel.slash("init show", user=world.gm, options={"private": True})
    assert private.ephemeral
    assert len(private.embeds) > 1
    assert all(f"{fighter} · ●" in "\n".join(e["description"] for e in private.embeds) for fighter in NAMES)

    tracker = tracker_message(world.table)
    asked = await pommel.slash("encounter end", user=world.gm)
    assert asked.message is not None
    [end] = [c for c in asked.message.custom_ids() if c.startswith("pommel:end:") and c.endswith(":end")]
    await pommel.click(asked, end, user=world.gm)
    [closed] = tracker.embeds
    assert closed["title"] == "⚔️ Fight over"
    assert all(f"{fighter}: HP 11/11" in closed["description"] for fighter in NAMES)
    assert tracker.components == []


async def pages(pommel: RunningBot, world: World, first: InteractionResult) -> list[str]:
    """The overview's pages, clicking "Next page" until the last."""
    message = first.message
    assert message is not None
    seen = [shown(message)]
    while any(c.endswith(":on") for c in message.custom_ids()):
        [on] = [c for c in message.custom_ids() if c.endswith(":on")]
        if message.component(on).get("disabled"):
            break
        clicked = await pommel.click(message, on, user=world.gm)
        assert clicked.message is message
        seen.append(shown(message))
    return seen


async def test_encounter_show_pages_through_all_thirty_and_its_buttons_outlive_a_restart(
    world: World, bot_runner: BotRunner
) -> None:
    pommel = await bot_runner.start_bot()
    fight = await thirty(pommel, world)
    first = await pommel.slash("encounter show", user=world.gm)
    assert first.ephemeral
    seen = await pages(pommel, world, first)
    assert len(seen) > 1
    everything = "\n".join(seen)
    assert all(f"**{fighter}** ({fighter}) · HP 11/11" in everything for fighter in NAMES)
    assert everything.count("— Sworn Blade") == len(NAMES) // 2  # every pair at Melee
    assert "more lines" not in everything
    assert "more pairs" not in everything
    message = first.message
    assert message is not None
    assert message.embeds[0]["footer"]["text"] == f"Page {len(seen)} of {len(seen)}"

    await pommel.close()
    again = await bot_runner.start_bot()
    [back] = [c for c in message.custom_ids() if c.endswith(":back")]
    clicked = await again.click(message, back, user=world.gm)
    assert clicked.message is message
    assert shown(message) == seen[-2]
    assert message.embeds[0]["footer"]["text"] == f"Page {len(seen) - 1} of {len(seen)}"
    assert fight.tag in back

    asked = await again.slash("encounter end", user=world.gm)
    assert asked.message is not None
    [end] = [c for c in asked.message.custom_ids() if c.startswith("pommel:end:") and c.endswith(":end")]
    await again.click(asked, end, user=world.gm)
    [on] = [c for c in message.custom_ids() if c.endswith(":on")]
    refused = await again.click(message, on, user=world.gm)
    assert refused.ephemeral
    assert refused.content == OVERVIEW_GONE
    assert message.embeds[0]["footer"]["text"] == f"Page {len(seen) - 1} of {len(seen)}"


LONG = [f"{'Sworn Blade of the Northern Marches, Called the Unbowed':.<58} No {n:02d}" for n in range(1, 25)]
"""Names of 64 characters, the longest a name may be."""


def crowd(encounter: Encounter) -> None:
    """Bob and 23 Bandits, named in 64 characters, attacked the 24th this round; NPCs defend passively."""
    bandits = [c for c in encounter.combatants if c.group == "Bandits"]
    for bandit, fighter in zip(bandits, LONG, strict=True):
        bandit.name = fighter
    target = bandits[-1]
    for by in [encounter.combatant("Bob"), *bandits[:-1]]:
        encounter.blows.append(Blow(by=by.id, against=target.id))
    encounter.table = encounter.table.model_copy(update={"defense_policy": DefensePolicy.PASSIVE})


async def test_an_attack_on_a_target_of_24_attackers_keeps_its_outcome_damage_and_hp_left(
    world: World, start_bot: Any
) -> None:
    """The situation names the first attackers and counts the rest; the message keeps every line after
    its headline whole (before, it was cut from the end: "💥 **Critic…")."""
    pommel = await dealt_fight(
        world, start_bot, [18, 17, 5, 5, 5, 5, 5, 5], npcs=(("bandit", 24, "Bandits"),), edit=crowd
    )
    result = await pommel.slash("attack", user=world.player, options={"target": LONG[-1]})
    assert not result.ephemeral, result.content
    lines = result.content.splitlines()
    named = ", ".join(["Bob", *LONG[:5]])
    assert f"2+ attackers against a lone footman: {named} and 19 more on {LONG[-1]} this round" in lines[0]
    assert lines[-2].startswith("🩸 Damage: ")
    assert lines[-1].startswith(f"❤️ **{LONG[-1]}**: HP ")
    assert not any(line.endswith("…") for line in lines)


async def test_a_morale_check_of_thirty_long_names_gives_every_outcome(world: World, start_bot: Any) -> None:
    """Each member's line gets shorter (its dice are in the log), none is cut off; before, the longest
    lines were cut to nothing, outcomes and all."""
    faces = [9, 15] * 15
    pommel = await start_bot(dice=ScriptedDice(faces))
    encounter = await seed_fight(pommel, world, npcs=[("bandit", 30, "Bandits")])
    for bandit, fighter in zip(encounter.combatants, [*LONG, *NAMES[:6]], strict=True):
        bandit.name = fighter
    await pommel.bot.store.save_encounter(encounter)
    result = await pommel.slash("morale check", user=world.gm, options={"who": "g:bandits"})
    assert not result.ephemeral, result.content
    lines = result.content.splitlines()
    members = [line for line in lines if line.startswith("• **")]
    assert len(members) == 30
    for line, face in zip(members, faces, strict=True):
        outcome = "🏃 **Routed**" if face < 11 else "✅ holds"
        assert line.endswith(f"**: `{face}` → {outcome}")
    assert members[0].startswith("• **Sworn Blade o…No 01**: ")
    assert "**15 of 30 hold.**" in lines
    assert lines[-1].startswith("Routed: flees by the nearest safe way")
