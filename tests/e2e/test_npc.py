"""``/npc add`` and ``/npc remove`` end to end: groups share one card (R2), names never ping."""

from __future__ import annotations

from typing import Any

import pytest

from bot.characters import MAX_NAME_LENGTH
from bot.encounter.combatants import Side
from bot.encounter.document import Encounter
from bot.rules.dice import RandomDice

from .fake_discord import DispatchError, FakeDiscord, World
from .fights import channel_log, fight_of, join, start, stored_tracker
from .harness import RunningBot


async def dealt(pommel: RunningBot, world: World) -> Encounter:
    """Deal round 1 straight through the store (the /init commands have tests of their own)."""
    encounter = await fight_of(pommel, world)
    encounter.deal(RandomDice.seeded(7))
    return await pommel.bot.store.save_encounter(encounter)


async def test_r2_three_npcs_are_numbered_in_one_group_with_one_card(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("npc add", user=world.gm, options={"template": "bandit", "count": 3})
    assert not result.ephemeral
    assert (
        "**Bandit 1**, **Bandit 2**, **Bandit 3** join the fight in the group **Bandits**" in result.content
    )
    assert "act on the group's card" in result.content

    encounter = await fight_of(pommel, world)
    assert [c.name for c in encounter.combatants] == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert {c.group for c in encounter.combatants} == {"Bandits"}
    assert all(c.side is Side.NPC and c.max_hp == 11 and c.weapon == "messer" for c in encounter.combatants)
    assert encounter.holders() == ["g:bandits"]
    assert "Bandit 3" in stored_tracker(world, encounter).embed_text
    [*_, entry] = await channel_log(pommel, world)
    assert entry.text == "Gamemaster added Bandit 1, Bandit 2, Bandit 3 (Bandit) to the group Bandits"


async def test_npc_add_takes_a_name_a_group_a_leader_and_overrides(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash(
        "npc add", user=world.gm, options={"template": "goblin", "count": 2, "group": "Raiders"}
    )
    result = await pommel.slash(
        "npc add",
        user=world.gm,
        options={
            "template": "orc_brute",
            "name": "Grukk",
            "group": "raiders",
            "leader": True,
            "prowess": 4,
            "hp": 40,
            "morale": 3,
        },
    )
    assert "**Grukk** (leader) joins the fight in the group **Raiders**" in result.content
    encounter = await fight_of(pommel, world)
    grukk = encounter.combatant("Grukk")
    assert (grukk.group, grukk.leader, grukk.prowess, grukk.max_hp, grukk.morale) == (
        "Raiders",
        True,
        4,
        40,
        3,
    )
    assert grukk.pool.size == 4
    assert encounter.holders() == ["g:raiders"]  # one group, one card

    await pommel.slash(
        "npc add", user=world.gm, options={"template": "goblin", "group": "Raiders", "leader": True}
    )
    leaders = [c.name for c in (await fight_of(pommel, world)).combatants if c.leader]
    assert leaders == ["Goblin"]  # R22: one leader per group; the new one takes over


async def test_an_unknown_template_is_refused_with_suggestions(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash("npc add", user=world.gm, options={"template": "goblni"})
    assert result.ephemeral
    assert "There is no monster called 'goblni'" in result.content
    assert "goblin" in result.content
    assert (await fight_of(pommel, world)).combatants == []


async def test_npc_add_autocompletes_monster_templates(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    result = await pommel.autocomplete("npc add", user=world.gm, focused="template", value="band")
    assert [choice["value"] for choice in result.choices] == ["bandit", "bandit_captain"]


async def test_everyone_as_an_npc_name_pings_nobody(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash(
        "npc add", user=world.gm, options={"template": "goblin", "name": "@everyone", "group": "@here"}
    )
    assert "@everyone" in result.content
    assert result.callback is not None
    assert result.callback.data.get("allowed_mentions") == {"parse": []}
    assert result.message is not None
    assert not result.message.mention_everyone
    assert result.message.mentions == []
    assert result.message.mention_roles == []

    tracker = stored_tracker(world, await fight_of(pommel, world))
    assert "@everyone" in tracker.embed_text
    for body in tracker.bodies:
        assert body.get("allowed_mentions") == {"parse": []}
    assert not tracker.mention_everyone


async def test_names_cannot_break_the_formatting(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash(
        "npc add", user=world.gm, options={"template": "goblin", "name": "**Big** _Gob_"}
    )
    assert "\\*\\*Big\\*\\* \\_Gob\\_" in result.content


async def test_remove_one_npc_keeps_its_group(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit", "count": 2})
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "Bandit 2"})
    assert not result.ephemeral
    assert result.content == "🚪 **Bandit 2** leaves the fight."
    encounter = await fight_of(pommel, world)
    assert [c.name for c in encounter.combatants] == ["Bandit 1"]
    assert encounter.groups == ["Bandits"]
    assert "Bandit 2" not in stored_tracker(world, encounter).embed_text


async def test_r2_removing_a_whole_group_discards_its_card(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit", "count": 2})
    before = await dealt(pommel, world)
    card = before.initiative.cards["g:bandits"]

    choices = await pommel.autocomplete("npc remove", user=world.gm, focused="who", value="band")
    values = [choice["value"] for choice in choices.choices]
    assert values[0] == "g:bandits"  # the whole group first
    assert "the whole group of 2" in choices.choices[0]["name"]
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "g:bandits"})
    assert "**Bandit 1**, **Bandit 2** leave the fight" in result.content
    assert f"Nobody is left in **Bandits**: its card ({card.label}) is discarded (R2)." in result.content

    encounter = await fight_of(pommel, world)
    assert [c.name for c in encounter.combatants] == ["Alice"]
    assert encounter.groups == []
    assert "g:bandits" not in encounter.initiative.cards
    texts = [entry.text for entry in await channel_log(pommel, world)]
    assert f"the card of Bandits ({card.label}) was discarded" in texts


async def test_a_hidden_card_stays_hidden_when_discarded(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await pommel.slash("npc add", user=world.gm, options={"template": "goblin"})
    await pommel.slash("encounter options", user=world.gm, options={"hide_npc_cards": True})
    card = (await dealt(pommel, world)).initiative.cards["g:goblin"]
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "Goblin"})
    assert "its card is discarded" in result.content
    assert card.label not in result.content


async def test_remove_refuses_a_players_character(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "Alice"})
    assert result.ephemeral
    assert "Alice is a player's character, not an NPC" in result.content
    assert len((await fight_of(pommel, world)).combatants) == 1


async def test_remove_names_who_is_there_when_nobody_matches(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await pommel.slash("npc add", user=world.gm, options={"template": "wolf"})
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "Dragon"})
    assert result.ephemeral
    assert "Nobody called 'Dragon' is in this fight. In it: Wolf." in result.content


# ---------------------------------------------------------------------------------- Discord's limits

LONGEST = "_" * MAX_NAME_LENGTH
"""A name at the length limit that escaping doubles: the longest a reply can make it."""


async def test_adding_twenty_with_the_longest_name_replies_within_discords_limit(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    result = await pommel.slash(
        "npc add", user=world.gm, options={"template": "bandit", "count": 20, "name": LONGEST}
    )
    assert not result.ephemeral
    assert len(result.content) <= 2000
    assert "more (see the tracker) join the fight in the group" in result.content
    encounter = await fight_of(pommel, world)
    assert len(encounter.combatants) == 20
    (group,) = encounter.groups
    assert len(group) <= MAX_NAME_LENGTH


async def test_removing_a_group_of_sixty_with_the_longest_names_replies_within_discords_limit(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    for _ in range(3):
        await pommel.slash(
            "npc add",
            user=world.gm,
            options={"template": "bandit", "count": 20, "name": LONGEST, "group": LONGEST},
        )
    assert len((await fight_of(pommel, world)).combatants) == 60
    result = await pommel.slash("npc remove", user=world.gm, options={"who": LONGEST})
    assert not result.ephemeral
    assert len(result.content) <= 2000
    assert "more (see the tracker) leave the fight." in result.content
    assert (await fight_of(pommel, world)).combatants == []


async def test_refusals_escape_the_names_they_quote(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await start(pommel, world)
    await join(pommel, world, world.player, "*bold*_name_")
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "*bold*_name_"})
    assert result.ephemeral
    assert result.content.startswith("\\*bold\\*\\_name\\_ is a player's character, not an NPC")
    result = await pommel.slash("npc remove", user=world.gm, options={"who": "**x**"})
    assert result.content == ("Nobody called '\\*\\*x\\*\\*' is in this fight. In it: \\*bold\\*\\_name\\_.")


@pytest.mark.parametrize(
    ("command", "capped", "others"),
    [
        ("npc add", ("template",), {}),
        ("npc remove", ("who",), {}),
        ("combatant hp", ("who",), {"change": "-1"}),
        ("combatant condition", ("who",), {"condition": "prone"}),
        ("combatant edit", ("who", "weapon", "armor", "shield", "off_hand"), {"who": "Alice"}),
    ],
)
async def test_discord_refuses_overlong_values_of_the_options_that_name_things(
    fake_discord: FakeDiscord,
    world: World,
    start_bot: Any,
    command: str,
    capped: tuple[str, ...],
    others: dict[str, str],
) -> None:
    """A value quoted back in a refusal can never take it past Discord's 2000 characters."""
    pommel = await start_bot()
    root, sub = command.split()
    synced = fake_discord.find_command(root, world.guild)
    (subcommand,) = [option for option in synced["options"] if option["name"] == sub]
    limits = {option["name"]: option.get("max_length") for option in subcommand["options"]}
    assert {name: limits[name] for name in capped} == dict.fromkeys(capped, 100)
    await start(pommel, world)
    for name in capped:
        with pytest.raises(DispatchError, match="longer than max_length 100"):
            await pommel.slash(command, user=world.gm, options={**others, name: "x" * 2100})
