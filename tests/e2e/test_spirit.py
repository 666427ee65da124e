"""``/spirit attack`` end to end (R27): a spirit's d20 + modifier against the defender's ability check,
at disadvantage unless protected; a win drains the ability score, and at 0 the text's effect applies.

Cards are stacked so the Ghost's card comes up first; the dice of the attack are scripted: the spirit's
d20, then the defender's (two at disadvantage or advantage, R10). Damage dice, when given, roll first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.rules.dice import ScriptedDice

from .fake_discord import World
from .fights import StackedDice, channel_log, fight_of, seed_fight, stored_tracker
from .harness import RunningBot

GHOST_FIRST = ["2C", "3C", "KS"]
"""Dealt to Ansel, Brigit, then the Ghost: the Ghost's K♠ acts first (R1)."""
BRIGIT_FIRST = ["2C", "KS", "3C"]


class TableDice(StackedDice):
    """Stacked cards for the deal, scripted faces for the dice."""

    def __init__(self, stack: Sequence[str], faces: Sequence[int]) -> None:
        super().__init__(stack)
        self.faces = ScriptedDice(faces)

    def roll(self, sides: int) -> int:
        return self.faces.roll(sides)


async def haunted(pommel: RunningBot, world: World, *, brigit_is_a_spirit: bool = False) -> Encounter:
    """Ansel (player, WIS +0, CHA +0, proficiency 2), Brigit (player2) and a Ghost (GM); cards dealt."""
    encounter = await seed_fight(
        pommel,
        world,
        players=[(world.player, "Ansel"), (world.player2, "Brigit")],
        npcs=[("ghost", 1, "Ghost")],
    )
    if brigit_is_a_spirit:
        encounter.combatant("Brigit").spirit = True
        await pommel.bot.store.save_encounter(encounter)
    dealt = await pommel.slash("init deal", user=world.gm)
    assert not dealt.ephemeral, dealt.content
    return await fight_of(pommel, world)


async def spirit_attack(pommel: RunningBot, user: Any, **options: Any) -> Any:
    return await pommel.slash("spirit attack", user=user, options=options)


async def test_r27_the_spirit_wins_and_drains_the_rated_score(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [14, 15, 6]))
    await haunted(pommel, world)
    result = await spirit_attack(pommel, world.gm, target="Ansel", ability="WIS", modifier=3, damage=4)
    assert not result.ephemeral
    text = result.content
    assert "👻 **Ghost** makes a spiritual attack on **Ansel**'s WIS (R27)" in text
    assert "Ghost: d20 (**14**) +3 spirit = `17`" in text
    # No protection: disadvantage, so of 15 and 6 the 15 is removed (R10).
    assert "Ansel: 2d20 (~~15~~, **6**) +0 WIS = `6` (at disadvantage: no protection)" in text
    # No WIS score given: rated 7 + modifier (R27).
    assert "**Ghost wins**: 4 WIS drained — WIS (rated 7 + modifier) 7 → **3**" in text
    assert "is stark-raving mad" not in text
    [entry] = [e for e in await channel_log(pommel, world) if e.kind == "spirit"]
    assert entry.text == "Ghost made a spiritual attack on Ansel's WIS: 17 vs 6, won, WIS 7 → 3"
    assert entry.user_id == world.gm.id


async def test_r27_the_defender_resists_and_keeps_its_score(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [5, 12, 18]))
    await haunted(pommel, world)
    result = await spirit_attack(
        pommel, world.gm, target="Ansel", ability="CHA", modifier=3, damage=4, defender_score=12
    )
    # 5 + 3 = 8 against 12 (the 18 removed by disadvantage).
    assert "Ansel: 2d20 (**12**, ~~18~~) +0 CHA = `12`" in result.content
    assert "**Ansel resists**: CHA stays 12." in result.content
    assert "drained" not in result.content
    [entry] = [e for e in await channel_log(pommel, world) if e.kind == "spirit"]
    assert entry.text == "Ghost made a spiritual attack on Ansel's CHA: 8 vs 12, lost, CHA stays 12"


async def test_r27_a_tie_goes_to_the_defender(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [9, 12, 12]))
    await haunted(pommel, world)
    result = await spirit_attack(pommel, world.gm, target="Ansel", ability="WIS", modifier=3, damage=2)
    assert "`12`" in result.content
    assert "**Ansel resists** (a tie goes to the defender): WIS stays 7." in result.content


@pytest.mark.parametrize(
    ("protection", "faces", "defender_roll", "wins"),
    [
        # Unprotected, the 16 is removed by disadvantage: 12 < 13 and the spirit wins.
        (None, [10, 16, 12], "2d20 (~~16~~, **12**) +0 WIS = `12` (at disadvantage: no protection)", True),
        # Baptized: one plain die; the same 16 now counts and the spirit loses.
        ("baptized", [10, 16], "d20 (**16**) +0 WIS = `16` (a plain roll: protected (baptized))", False),
        ("circumcised Jew", [10, 16], "(a plain roll: protected (a circumcised Jew))", False),
    ],
)
async def test_r27_a_protection_negates_the_disadvantage(
    world: World, start_bot: Any, protection: str | None, faces: list[int], defender_roll: str, wins: bool
) -> None:
    dice = TableDice(GHOST_FIRST, faces)
    pommel = await start_bot(dice=dice)
    await haunted(pommel, world)
    options: dict[str, Any] = {"target": "Ansel", "ability": "WIS", "modifier": 3, "damage": 1}
    if protection is not None:
        options["protection"] = protection
    result = await spirit_attack(pommel, world.gm, **options)
    assert defender_roll in result.content
    assert ("**Ghost wins**" in result.content) is wins
    assert dice.faces.remaining == 0  # a protected defender rolled one die, not two


async def test_r27_confirmation_adds_proficiency_and_communion_gives_advantage(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [15, 4, 11]))
    await haunted(pommel, world)
    result = await spirit_attack(
        pommel,
        world.gm,
        target="Ansel",
        ability="CHA",
        modifier=2,
        damage=3,
        protection="baptized",
        confirmed=True,
        communion=True,
    )
    # Protected and with communion: advantage, keep the 11; + CHA 0 + proficiency 2 = 13 < 17.
    assert "Ansel: 2d20 (~~4~~, **11**) +0 CHA +2 proficiency = `13`" in result.content
    assert "(with advantage: protected (baptized), communion in the last week)" in result.content
    assert "**Ghost wins**" in result.content


async def test_r27_a_score_drained_to_0_gives_the_effect_and_a_condition(
    world: World, start_bot: Any
) -> None:
    # The 1d6 damage rolls first (a 5), then the spirit's 14, then Ansel's 3 and 2 (the 3 removed).
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [5, 14, 3, 2]))
    await haunted(pommel, world)
    result = await spirit_attack(
        pommel, world.gm, target="Ansel", ability="CHA", modifier=3, damage_dice="1d6", defender_score=4
    )
    text = result.content
    assert "**Ghost wins**: 5 CHA drained (rolled 1d6 (5) = `5`) — CHA 4 → **0**" in text
    assert "CHA 0: **Ansel is possessed by the spirit** (now a condition on Ansel)." in text
    fight = await fight_of(pommel, world)
    assert fight.combatant("Ansel").conditions == ["possessed by the spirit"]
    assert "possessed by the spirit" in stored_tracker(world, fight).embed_text  # the table sees it
    [entry] = [e for e in await channel_log(pommel, world) if e.kind == "spirit"]
    assert entry.text.endswith("won, CHA 4 → 0; Ansel is possessed by the spirit")


async def test_r27_r3_the_joker_turn_adds_to_attack_and_damage(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(["2C", "3C", "BJ"], [10, 8, 3]))
    await haunted(pommel, world)
    result = await spirit_attack(pommel, world.gm, target="Brigit", ability="WIS", modifier=0, damage=2)
    assert "Ghost: d20 (**10**) +0 spirit +2 Joker = `12`" in result.content
    assert "**Ghost wins**: 4 WIS drained with the Joker's bonus — WIS (rated 7 + modifier) 7 → **3**" in (
        result.content
    )


async def test_a_player_plays_their_own_spirit_but_not_another_players(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(BRIGIT_FIRST, [18, 2, 5]))
    await haunted(pommel, world, brigit_is_a_spirit=True)
    before = await fight_of(pommel, world)

    refused = await spirit_attack(
        pommel, world.player, who="Brigit", target="Ansel", ability="WIS", modifier=1, damage=1
    )
    assert refused.ephemeral
    assert "Brigit is not yours: only" in refused.content
    assert await fight_of(pommel, world) == before

    allowed = await spirit_attack(pommel, world.player2, target="Ansel", ability="WIS", modifier=1, damage=1)
    assert not allowed.ephemeral, allowed.content
    assert "👻 **Brigit** makes a spiritual attack on **Ansel**'s WIS" in allowed.content


@pytest.mark.parametrize(
    ("user", "options", "says"),
    [
        ("player", {"target": "Brigit"}, "Ansel is not a spirit; only spirits make spiritual attacks (R27)"),
        ("gm", {"target": "Ansel", "who": "Brigit"}, "Brigit is not a spirit"),
        ("player", {"target": "Ansel", "who": "Ghost"}, "Ghost is not yours"),
        ("gm", {"target": "Ghost"}, "Ghost cannot attack itself"),
        ("gm", {"target": "Ansel", "ability": "INT"}, "give it with `defender_modifier:`"),
        ("gm", {"target": "Ansel", "damage": None}, "You gave neither of `damage:` and `damage_dice:`"),
        ("gm", {"target": "Ansel", "damage_dice": "1d6"}, "You gave both of `damage:` and `damage_dice:`"),
        ("gm", {"target": "Ansel", "damage": None, "damage_dice": "lots"}, "not dice notation"),
        ("gm", {"target": "Nobody"}, "Nobody called 'Nobody' is in this fight"),
    ],
)
async def test_refusals_change_nothing_and_log_nothing(
    world: World, start_bot: Any, user: str, options: dict[str, Any], says: str
) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    await haunted(pommel, world)
    before = await fight_of(pommel, world)
    log_before = await channel_log(pommel, world)
    asked = {"ability": "WIS", "modifier": 2, "damage": 3} | options
    asked = {name: value for name, value in asked.items() if value is not None}
    result = await spirit_attack(pommel, getattr(world, user), **asked)
    assert result.ephemeral
    assert says in result.content
    assert result.errors == []
    assert await fight_of(pommel, world) == before
    assert await channel_log(pommel, world) == log_before


async def test_r1_a_spirit_attacks_only_on_its_own_turn(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(BRIGIT_FIRST, []))
    await haunted(pommel, world)
    result = await spirit_attack(
        pommel, world.gm, who="Ghost", target="Ansel", ability="WIS", modifier=2, damage=1
    )
    assert result.ephemeral
    assert (
        "Ghost can make a spiritual attack only on their own turn, and it is Brigit's turn." in result.content
    )


async def test_r27_a_spirit_does_not_spiritually_attack_another_spirit(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    await haunted(pommel, world, brigit_is_a_spirit=True)
    result = await spirit_attack(
        pommel, world.gm, who="Ghost", target="Brigit", ability="WIS", modifier=2, damage=1
    )
    assert result.ephemeral
    assert "Brigit is a spirit too" in result.content


async def test_r27_a_dissipated_spirit_cannot_attack(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    encounter = await haunted(pommel, world)
    encounter.combatant("Ghost").hp = 0
    await pommel.bot.store.save_encounter(encounter)
    result = await spirit_attack(pommel, world.gm, target="Ansel", ability="WIS", modifier=2, damage=1)
    assert result.ephemeral
    assert "Ghost is down and cannot attack (R27)." in result.content
    assert [e for e in await channel_log(pommel, world) if e.kind == "spirit"] == []
