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
from bot.rules.spirits import SpiritTarget

from .fake_discord import World
from .fights import StackedDice, channel_log, dealt_fight, fight_of, seed_fight, stored_tracker
from .harness import RunningBot
from .test_attack import PASSIVE_NPCS, all_rolled, attack, both, gear

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
    assert "Ghost is dissipated and cannot attack (R27)." in result.content
    assert [e for e in await channel_log(pommel, world) if e.kind == "spirit"] == []


# ---------------------------------------------------------------------------------- the effects at 0


@pytest.mark.parametrize(
    ("ability", "effect", "until"),
    [
        ("INT", "feeble-minded", "until healed to INT 3"),
        ("WIS", "stark-raving mad", "until healed to WIS 3"),
        ("CHA", "possessed by the spirit", "until the spirit is driven out"),
    ],
)
async def test_r27_each_score_drained_to_0_gives_its_effect_and_the_body_to_the_gm(
    world: World, start_bot: Any, ability: str, effect: str, until: str
) -> None:
    # Ghost 14 + 3 = 17 against Ansel's 2d20 15, 6 at disadvantage: 6. Ansel's scores are unrated: 7.
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [14, 15, 6]))
    await haunted(pommel, world)
    result = await spirit_attack(pommel, world.gm, target="Ansel", ability=ability, modifier=3, damage=7)
    text = result.content
    assert f"— {ability} (rated 7 + modifier) 7 → **0**" in text
    assert f"{ability} 0: **Ansel is {effect}** (now a condition on Ansel)." in text
    fight = await fight_of(pommel, world)
    ansel = fight.combatant("Ansel")
    assert ansel.conditions == [effect]
    assert ansel.score(SpiritTarget(ability)) == 0
    assert effect.replace("-", "\\-") in stored_tracker(world, fight).embed_text  # Markdown-escaped
    # Ansel's player no longer acts for Ansel: the GM does.
    refused = await pommel.slash("move", user=world.player, options={})
    assert refused.ephemeral
    assert f"Ansel is {effect} (R27): the GM controls them {until}, so only <@{world.gm.id}>" in (
        refused.content
    )
    assert await fight_of(pommel, world) == fight


async def test_r27_a_second_drain_lowers_the_score_the_fight_keeps(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [14, 15, 6, 14, 15, 6]))
    await haunted(pommel, world)
    await spirit_attack(pommel, world.gm, target="Ansel", ability="WIS", modifier=3, damage=4)
    second = await spirit_attack(pommel, world.gm, target="Ansel", ability="WIS", modifier=3, damage=4)
    assert "— WIS 3 → **0**" in second.content
    assert "WIS 0: **Ansel is stark-raving mad**" in second.content


# ---------------------------------------------------------------------------------- driven out, healed


async def test_r27_driven_out_the_person_returns_at_cha_1_frightened_until_healed_to_3(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, [14, 15, 6]))
    await haunted(pommel, world)
    await spirit_attack(pommel, world.gm, target="Ansel", ability="CHA", modifier=3, damage=9)

    not_gm = await pommel.slash("spirit drive-out", user=world.player, options={"target": "Ansel"})
    assert not_gm.ephemeral
    assert "Only the GM of this fight" in not_gm.content

    out = await pommel.slash("spirit drive-out", user=world.gm, options={"target": "Ansel"})
    assert not out.ephemeral, out.content
    assert out.content == (
        "✝️ The spirit is driven out of **Ansel** (R27): Ansel is their own again, at **CHA 1**, and "
        "**Frightened** (attacks at disadvantage) until healed to CHA 3 (`/spirit heal`)."
    )
    fight = await fight_of(pommel, world)
    ansel = fight.combatant("Ansel")
    assert (ansel.conditions, ansel.cha_score, ansel.driven_out, ansel.state_label) == (
        [],
        1,
        True,
        "frightened",
    )
    assert "frightened" in stored_tracker(world, fight).embed_text
    # The player has Ansel back, and Ansel's attacks are at disadvantage (R25's Frightened).
    odds = await pommel.slash("odds", user=world.player, options={"target": "Ghost"})
    assert "frightened" in odds.content.lower()

    healed = await pommel.slash(
        "spirit heal", user=world.gm, options={"target": "Ansel", "ability": "CHA", "points": 1}
    )
    assert healed.content == "🕯️ **Ansel**'s CHA is healed: 1 → **2** (R27)."
    healed = await pommel.slash(
        "spirit heal", user=world.gm, options={"target": "Ansel", "ability": "CHA", "points": 1}
    )
    assert healed.content == (
        "🕯️ **Ansel**'s CHA is healed: 2 → **3** (R27). At CHA 3 Ansel is **no longer Frightened**."
    )
    ansel = (await fight_of(pommel, world)).combatant("Ansel")
    assert (ansel.driven_out, ansel.state_label) == (False, None)
    texts = [e.text for e in await channel_log(pommel, world) if e.kind == "spirit"]
    assert texts[1:] == [
        "The spirit is driven out of Ansel: CHA 1 (was 0), Frightened until healed to CHA 3",
        "Ansel's CHA healed 1 → 2",
        "Ansel's CHA healed 2 → 3; no longer frightened",
    ]


async def test_r27_only_a_possessed_person_has_a_spirit_to_drive_out(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    await haunted(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("spirit drive-out", user=world.gm, options={"target": "Brigit"})
    assert result.ephemeral
    assert "Brigit is not possessed" in result.content
    assert await fight_of(pommel, world) == before


# ---------------------------------------------------------------------------------- spirits at 0 HP


async def test_r27_a_holy_blessed_blow_dissipates_the_spirit_for_100_over_its_hd_days(
    world: World, start_bot: Any
) -> None:
    """Alice's arming sword, Holy Blessed: 15 + 2 Prowess + 3 Reach = 20 against the Ghost's passive 11;
    5 damage takes its last 3 HP: dissipated for 100 / 5 HD = 20 days."""
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[15, 5],
        npcs=(("ghost", 1, "Ghost"),),
        edit=both(PASSIVE_NPCS, gear("Ghost", hp=3)),
    )
    result = await attack(pommel, world, target="Ghost", holy_blessed=True)
    lines = result.content.splitlines()
    assert "❤️ **Ghost**: HP 3 → **-2**/22 — **dissipated**" in lines
    assert "✨ Ghost is not killed but dissipated for 20 days (100 ÷ 5 HD, rounded up; R27)." in lines
    [entry] = [e for e in await channel_log(pommel, world) if e.kind == "attack"]
    assert entry.text.endswith(
        "; Ghost is not killed but dissipated for 20 days (100 ÷ 5 HD, rounded up; R27)"
    )
    fight = await fight_of(pommel, world)
    assert "dissipated" in stored_tracker(world, fight).embed_text
    all_rolled(pommel)


async def test_r27_no_physical_weapon_harms_a_spirit_unless_holy_blessed(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, npcs=(("ghost", 1, "Ghost"),), edit=PASSIVE_NPCS)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, target="Ghost")
    assert result.ephemeral
    assert "Ghost is a spirit: physical weapons, even magical ones, do nothing to it unless Holy Blessed" in (
        result.content
    )
    assert await fight_of(pommel, world) == before
    all_rolled(pommel)


async def test_r27_a_spirits_standard_attack_is_only_for_other_spirits(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    await haunted(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("attack", user=world.gm, options={"target": "Ansel", "who": "Ghost"})
    assert result.ephemeral
    assert "Ghost is a spirit: its standard attack is only for other spirits" in result.content
    assert "`/spirit attack`" in result.content
    assert await fight_of(pommel, world) == before


async def test_r27_a_demon_brought_to_0_hp_is_sent_back_to_hell(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=TableDice(GHOST_FIRST, []))
    await seed_fight(pommel, world, players=[(world.player, "Ansel")], npcs=[("demon", 1, "Demon")])
    result = await pommel.slash("combatant hp", user=world.gm, options={"who": "Demon", "change": "-36"})
    assert result.content.splitlines() == [
        "❤️ **Demon**: HP 36 → **0**/36 — **sent back to Hell**",
        "✨ Demon is not killed but sent back to Hell for 13 days (100 ÷ 8 HD, rounded up; R27).",
    ]
    [entry] = await channel_log(pommel, world)
    assert entry.text.endswith(
        "Demon HP 36 → 0 (-36) (sent back to Hell); Demon is not killed but sent back to Hell for 13 days "
        "(100 ÷ 8 HD, rounded up; R27)"
    )


async def test_r27_a_possessed_character_is_defended_by_the_gm(world: World, start_bot: Any) -> None:
    """Possessed, Ansel is the GM's: Brigit's attack on Ansel asks the GM for the defense, not Ansel's
    player, and Ansel's player's click is refused."""
    pommel = await start_bot(dice=TableDice(BRIGIT_FIRST, [9]))
    encounter = await haunted(pommel, world)
    encounter.combatant("Ansel").conditions = ["possessed by the spirit"]
    await pommel.bot.store.save_encounter(encounter)
    asked = await pommel.slash("attack", user=world.player2, options={"target": "Ansel"})
    assert f"🛡️ <@{world.gm.id}> (GM): how does **Ansel** defend?" in asked.content
    assert asked.message is not None
    assert [user.id for user in asked.message.mentions] == [world.gm.id]
    before = await fight_of(pommel, world)
    passive = next(i for i in asked.message.custom_ids() if i.endswith(":passive"))
    refused = await pommel.click(asked, passive, user=world.player)
    assert refused.ephemeral
    assert "Ansel is possessed by the spirit (R27): the GM controls them until the spirit is driven out" in (
        refused.content
    )
    assert await fight_of(pommel, world) == before
