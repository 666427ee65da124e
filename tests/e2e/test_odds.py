"""``/odds`` end to end: the exact odds of an attack, from numbers anywhere or filled in from a fight.

The expected percentages are the rules core's :func:`attack_odds` for the same inputs, plus cases small
enough to count by hand. Nothing is rolled: the bots run on dice that fail the test if one is.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.records import Reaction, ReactionKind
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.engagement import Range
from bot.rules.morale import MoraleStanding
from bot.rules.odds import AttackOdds, attack_odds
from bot.ui.odds_views import odds_line

from .fake_discord import FakeDiscord, World
from .fights import StackedDice, channel_log, dealt_fight, fight_of, seed_fight
from .harness import RunningBot

NO_DICE = StackedDice()
"""Fails the test if /odds rolls a die (it only computes)."""


def line(odds: AttackOdds, *, active: bool, missile: bool = False) -> str:
    return odds_line(odds, active=active, missile=missile)


async def skirmish(pommel: RunningBot, world: World) -> Encounter:
    """Ansel (player: Prowess 2, Dex +1, arming sword, pool 3) and a Bandit (Prowess 1, Dex +1, messer
    DB 3, light gambeson, pool 2)."""
    return await seed_fight(pommel, world, players=[(world.player, "Ansel")], npcs=[("bandit", 1, "Bandit")])


async def change(pommel: RunningBot, world: World, edit: Any) -> None:
    """Change the stored fight the way other commands would have (spending dice, changing range...)."""
    encounter = await fight_of(pommel, world)
    edit(encounter)
    await pommel.bot.store.save_encounter(encounter)


# ---------------------------------------------------------------------------------- numbers


async def test_r13_one_die_against_passive_20_hits_only_on_a_natural_20(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash("odds", user=world.player, options={"dice": 1, "bonus": 0, "defense": 20})
    assert result.ephemeral
    assert "1 die +0 against passive defense 20 (R13)" in result.content
    # A natural 20 always hits, but 20 + 0 is not above 20, so it is no critical (R16); 2..19 miss
    # (the 20 that would tie is the natural 20 itself, so nothing binds); a 1 fumbles (R18).
    assert "Hit **5.0%** (0.0% critical) · Bind 0.0% · Miss 95.0% (5.0% fumble)" in result.content
    assert "Counterattack" not in result.content  # no counterattack against a passive defense


async def test_r13_r16_one_die_plus_5_against_passive_10_counted_by_hand(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash("odds", user=world.player, options={"dice": 1, "bonus": 5, "defense": 10})
    # 6..20 hit (15 faces), a 5 binds (5 + 5 = 10), 1..4 miss; the natural 20 (25 > 10) is a critical.
    assert "Hit **75.0%** (5.0% critical) · Bind 5.0% · Miss 20.0% (5.0% fumble)" in result.content


@pytest.mark.parametrize(
    ("options", "expected", "active"),
    [
        (
            {"dice": 3, "bonus": 4, "defense": 14, "situation": "disadvantage"},
            {
                "attack_dice": 3,
                "attack_bonus": 4,
                "passive_defense": 14,
                "attack_advantage": Advantage.DISADVANTAGE,
            },
            False,
        ),
        (
            {"dice": 2, "bonus": 5, "defense_dice": 3, "defense_bonus": 4},
            {"attack_dice": 2, "attack_bonus": 5, "defense_dice": 3, "defense_bonus": 4},
            True,
        ),
        (
            {
                "dice": 1,
                "bonus": 6,
                "defense_dice": 2,
                "defense_bonus": 3,
                "void": True,
                "situation": "advantage",
            },
            {
                "attack_dice": 1,
                "attack_bonus": 6,
                "defense_dice": 2,
                "defense_bonus": 3,
                "void": True,
                "attack_advantage": Advantage.ADVANTAGE,
            },
            True,
        ),
    ],
)
async def test_r9_r10_r14_the_odds_are_the_cores_exact_odds(
    world: World, start_bot: Any, options: dict[str, Any], expected: dict[str, Any], active: bool
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash("odds", user=world.player, options=options)
    assert line(attack_odds(**expected), active=active) in result.content
    assert result.errors == []


async def test_r14_a_missile_shows_near_misses_instead_of_binds(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    options = {"dice": 1, "bonus": 3, "defense_dice": 1, "defense_bonus": 2, "missile": True}
    result = await pommel.slash("odds", user=world.player, options=options)
    expected = attack_odds(attack_dice=1, attack_bonus=3, defense_dice=1, defense_bonus=2, missile=True)
    assert expected.near_miss > 0
    assert expected.bind == 0
    assert "Missile attack: 1 die +3 against an active defense of 1 die +2 (R14)" in result.content
    assert line(expected, active=True, missile=True) in result.content


async def test_odds_work_in_a_dm_and_can_be_shown_to_the_channel(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    dm = fake_discord.dm_channel(world.player)
    options = {"bonus": 5, "defense": 10}
    private = await pommel.slash("odds", user=world.player, channel=dm, options=options)
    assert "Hit **75.0%**" in private.content
    shared = await pommel.slash("odds", user=world.player, options={**options, "public": True})
    assert not shared.ephemeral
    assert "Hit **75.0%**" in shared.content
    assert await pommel.bot.store.read_log() == []  # asking the odds leaves no trace in any log


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"dice": 2, "bonus": 3}, "You gave neither of `defense:` and `defense_dice:`"),
        ({"bonus": 3, "defense": 12, "defense_dice": 2}, "You gave both of `defense:` and `defense_dice:`"),
        ({"bonus": 3, "defense": 12, "defense_bonus": 2}, "`defense_bonus:` goes with `defense_dice:`"),
        ({"bonus": 3, "defense": 12, "void": True}, "`void:` is a way to defend actively"),
        ({"bonus": 3, "defense": 12, "who": "Ansel"}, "`who:` name someone in a fight"),
    ],
)
async def test_a_wrong_combination_says_what_works(
    world: World, start_bot: Any, options: dict[str, Any], says: str
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    result = await pommel.slash("odds", user=world.player, options=options)
    assert result.ephemeral
    assert says in result.content
    assert result.errors == []


async def test_a_target_outside_a_fight_says_to_give_numbers(
    fake_discord: FakeDiscord, world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    dm = fake_discord.dm_channel(world.player)
    result = await pommel.slash("odds", user=world.player, channel=dm, options={"target": "Bandit"})
    assert result.ephemeral
    assert "There is no fight in this channel" in result.content
    assert "`defense:` for a passive defense (R13)" in result.content


# ---------------------------------------------------------------------------------- in a fight


async def test_r11_r13_r14_the_fight_fills_in_the_bonus_the_passive_defense_and_the_dice_left(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert result.ephemeral
    text = result.content
    # R11 at Onset: Prowess 2 + the arming sword's Reach 3.
    assert (
        "**Ansel**: 1 die, 3 left this round, Sword, Arming, pierce at Onset range: +5 (Prowess +2, Reach +3)"
        in text
    )
    # R13: 8 + Prowess 1 + Dex 1; 1 die +5 against 10, as counted by hand above.
    assert "**If Bandit defends passively**: 10 (Base +8, Prowess +1, Dex +1) (R13)" in text
    assert "Hit **75.0%** (5.0% critical) · Bind 5.0% · Miss 20.0% (5.0% fumble)" in text
    # R14: both of its dice, Prowess 1 + Dex 1 + the messer's DB 3.
    assert (
        "**If Bandit defends actively with all 2 dice left**: +5 (Prowess +1, Dex +1, Sword, Messer +3) (R14)"
        in text
    )
    assert (
        line(attack_odds(attack_dice=1, attack_bonus=5, defense_dice=2, defense_bonus=5), active=True) in text
    )
    assert await fight_of(pommel, world) == before  # asking changes nothing


async def test_r7_r14_the_active_line_follows_the_dice_left_and_the_free_shield_die(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)

    def spend_one_and_take_a_buckler(encounter: Encounter) -> None:
        bandit = encounter.combatant("Bandit")
        bandit.pool.remaining = 1
        bandit.shield = "buckler"

    await change(pommel, world, spend_one_and_take_a_buckler)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit", "dice": 2})
    text = result.content
    # R13: the buckler's DB 1 joins the passive defense; R14: 1 die + the free shield die, the better DB.
    assert "**If Bandit defends passively**: 11 (Base +8, Prowess +1, Dex +1, Buckler +1)" in text
    assert line(attack_odds(attack_dice=2, attack_bonus=5, passive_defense=11), active=False) in text
    assert "with all 1 die left + 1 free shield die**: +5 (Prowess +1, Dex +1, Sword, Messer +3)" in text
    assert (
        line(attack_odds(attack_dice=2, attack_bonus=5, defense_dice=2, defense_bonus=5), active=True) in text
    )


async def test_r7_a_target_without_dice_left_gets_only_the_passive_line(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)

    def spend_all(encounter: Encounter) -> None:
        encounter.combatant("Bandit").pool.remaining = 0

    await change(pommel, world, spend_all)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "**If Bandit defends passively**: 10" in result.content
    assert "defends actively" not in result.content
    assert "Bandit has no Martial Pool dice left this round" in result.content


async def test_r11_r12_speed_replaces_reach_once_the_pair_is_in_melee(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)

    def short_sword_in_melee(encounter: Encounter) -> None:
        ansel, bandit = encounter.combatant("Ansel"), encounter.combatant("Bandit")
        ansel.weapon = "short_sword"  # Reach 2, Speed 5
        encounter.engagement(ansel, bandit).range = Range.MELEE

    await change(pommel, world, short_sword_in_melee)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "pierce at Melee range: +7 (Prowess +2, Speed +5)" in result.content
    assert (
        line(attack_odds(attack_dice=1, attack_bonus=7, passive_defense=10), active=False) in result.content
    )


async def test_r25_a_frightened_attacker_has_disadvantage(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)

    def frighten(encounter: Encounter) -> None:
        encounter.combatant("Ansel").standing = MoraleStanding.FRIGHTENED

    await change(pommel, world, frighten)
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "Attacking with disadvantage" in result.content
    assert "attacker is frightened: Ansel's morale, R21 (R25)" in result.content
    expected = attack_odds(
        attack_dice=1, attack_bonus=5, passive_defense=10, attack_advantage=Advantage.DISADVANTAGE
    )
    assert line(expected, active=False) in result.content

    # R10: the player's advantage cancels it.
    cancelled = await pommel.slash(
        "odds", user=world.player, options={"target": "Bandit", "situation": "advantage"}
    )
    assert "No net advantage" in cancelled.content
    assert (
        line(attack_odds(attack_dice=1, attack_bonus=5, passive_defense=10), active=False)
        in cancelled.content
    )


async def test_r3_the_joker_turn_adds_its_bonus(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=StackedDice(["BJ", "KS"]))
    await skirmish(pommel, world)
    dealt = await pommel.slash("init deal", user=world.gm)
    assert "**Ansel**'s turn" in dealt.content
    result = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "+7 (Prowess +2, Reach +3, Joker +2)" in result.content


async def test_the_gm_asks_for_an_npc_and_a_player_may_not(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)
    gm = await pommel.slash("odds", user=world.gm, options={"target": "Ansel", "who": "Bandit"})
    # R11: Prowess 1 + the messer's Reach 3 against Ansel's passive 8 + 2 + 1.
    assert "**Bandit**: 1 die, 2 left this round, Sword, Messer" in gm.content
    assert "+4 (Prowess +1, Reach +3)" in gm.content
    assert "**If Ansel defends passively**: 11" in gm.content

    player = await pommel.slash("odds", user=world.player, options={"target": "Ansel", "who": "Bandit"})
    assert player.ephemeral
    assert "Bandit is not yours" in player.content


async def test_r11_r14_an_owed_counterattack_uses_speed(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)

    def owe_a_counterattack(encounter: Encounter) -> None:
        bandit, ansel = encounter.combatant("Bandit"), encounter.combatant("Ansel")
        reason = "Ansel fumbled"
        encounter.reactions.append(
            Reaction(kind=ReactionKind.COUNTERATTACK, by=bandit.id, against=ansel.id, round=0, reason=reason)
        )

    await change(pommel, world, owe_a_counterattack)
    result = await pommel.slash("odds", user=world.gm, options={"target": "Ansel", "who": "Bandit"})
    # R11: a counterattack always uses Speed: the messer's 4, not its Reach 3.
    assert "Sword, Messer, counterattack, chop at Onset range: +5 (Prowess +1, Speed +4)" in result.content


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"target": "Ansel"}, "Ansel cannot attack themselves"),
        ({"target": "Nobody"}, "Nobody called 'Nobody' is in this fight"),
        ({"target": "Bandit", "attack_type": "bash"}, "Sword, Arming cannot bash"),
        ({"target": "Bandit", "defense": 12}, "leave out `defense:`"),
    ],
)
async def test_refusals_in_a_fight(world: World, start_bot: Any, options: dict[str, Any], says: str) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)
    result = await pommel.slash("odds", user=world.player, options=options)
    assert result.ephemeral
    assert says in result.content
    assert result.errors == []
    assert await channel_log(pommel, world) == []


def all_rolled(pommel: RunningBot) -> None:
    """The /attack of the test rolled every scripted face, and no more."""
    dice = pommel.bot.dice
    assert isinstance(dice, ScriptedDice)
    assert dice.remaining == 0, f"{dice.remaining} scripted faces were not rolled"


def quoted_defense(odds: str, heading: str) -> int:
    """The defense total an /odds reply quotes under ``heading`` (``**Bandit is down ...**: 10 (...)``)."""
    found = re.search(rf"\*\*{re.escape(heading)}\*\*: (?:undefended, )?(-?\d+)", odds)
    assert found is not None, odds
    return int(found[1])


def rolled_against(attacked: str) -> int:
    """The defense total an /attack result rolled against (``🛡️ Passive defense (R13): ... = **10**``)."""
    found = re.search(r"🛡️ (?:Passive defense|Undefended) \(R13\): .* = \*\*(-?\d+)\*\*", attacked)
    assert found is not None, attacked
    return int(found[1])


async def test_r13_r25_a_downed_target_is_undefended_and_hit_automatically_in_melee(
    world: World, start_bot: Any
) -> None:
    """The Codex: "Undefended targets have a Passive Defense value of 2 vs melee weapons (roll dice for
    Critical)"; a combatant down is helpless, so undefended (R13): /odds quotes the very defense
    /attack then rolls against, and no active defense. R25: in melee it is hit automatically, and both
    say why. It used to defend with its full passive 10."""

    def fell(encounter: Encounter) -> None:
        encounter.combatant("Bandit").hp = 0

    pommel = await dealt_fight(world, start_bot, faces=[2, 5], edit=fell)
    odds = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "**Bandit is down and cannot defend**: undefended, 2 (R13)" in odds.content
    automatic = attack_odds(attack_dice=1, attack_bonus=5, passive_defense=2, automatic=True)
    assert line(automatic, active=False) in odds.content
    assert "Hit **100.0%**" in odds.content
    assert "Bandit is down: hit automatically in melee (R25)" in odds.content
    assert "defends actively" not in odds.content
    assert "no Martial Pool dice left" not in odds.content

    attacked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert not attacked.ephemeral, attacked.content
    assert "🛡️ Undefended (R13): +2 Undefended = **2**" in attacked.content
    assert "📌 Bandit is down: hit automatically in melee (R25)" in attacked.content
    assert rolled_against(attacked.content) == quoted_defense(
        odds.content, "Bandit is down and cannot defend"
    )
    all_rolled(pommel)


async def test_r13_an_incapacitated_target_shot_at_meets_8_without_being_asked(
    world: World, start_bot: Any
) -> None:
    """The Codex: undefended targets "are considered to have a Passive Defense value of 8 against
    missile weapons". An incapacitated Bandit with dice left used to be asked for an active defense
    against Alice's arrow; now it meets 8 at once, as /odds says."""

    def shot(encounter: Encounter) -> None:
        encounter.combatant("Alice").weapon = "long_bow"
        encounter.combatant("Bandit").add_condition("incapacitated")

    pommel = await dealt_fight(world, start_bot, faces=[1], edit=shot)
    odds = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "**Bandit is incapacitated and cannot defend**: undefended, 8 (R13)" in odds.content
    attacked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert "🛡️ Undefended (R13): +8 Undefended = **8**" in attacked.content
    encounter = await fight_of(pommel, world)
    assert not any(e.pending for e in encounter.exchanges)
    all_rolled(pommel)


async def test_r13_a_helpless_target_is_undefended_as_attack_rolls_against(
    world: World, start_bot: Any
) -> None:
    """R13: the helpless condition leaves the target undefended, in /odds as in /attack."""

    def helpless(encounter: Encounter) -> None:
        encounter.combatant("Bandit").add_condition("helpless")

    pommel = await dealt_fight(world, start_bot, faces=[2, 3], edit=helpless)
    odds = await pommel.slash("odds", user=world.player, options={"target": "Bandit"})
    assert "**Bandit is helpless and cannot defend**: undefended, 2 (R13)" in odds.content
    assert "defends actively" not in odds.content

    attacked = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert "🛡️ Undefended (R13): +2 Undefended = **2**" in attacked.content
    assert rolled_against(attacked.content) == quoted_defense(
        odds.content, "Bandit is helpless and cannot defend"
    )
    all_rolled(pommel)


async def test_r27_a_spirit_target_gets_a_warning(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await seed_fight(pommel, world, players=[(world.player, "Ansel")], npcs=[("ghost", 1, "Ghost")])
    result = await pommel.slash("odds", user=world.player, options={"target": "Ghost"})
    assert "Ghost is a spirit: only a Holy Blessed weapon harms it (R27)." in result.content


async def test_target_autocomplete_lists_the_fight(world: World, start_bot: Any) -> None:
    pommel = await start_bot(dice=NO_DICE)
    await skirmish(pommel, world)
    result = await pommel.autocomplete("odds", user=world.player, focused="target", value="ban")
    assert [choice["name"] for choice in result.choices] == ["Bandit (HP 11/11)"]
