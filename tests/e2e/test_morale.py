"""Morale end to end: ``/morale`` and the proposal buttons through the fake Discord (R3, R21-R23).

Every die is scripted with :class:`ScriptedDice`; a test that rolls a die it did not expect, or fewer
than it scripted, fails. Fights are seeded through the store with known numbers: the test sheet has
WIS +0, CHA +0 and proficiency 2; a Bandit has morale +0 and a Skeleton none (bot/data/monsters.yaml).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from bot.encounter.document import Encounter
from bot.encounter.morale import group_snapshot, propose_checks
from bot.rules.dice import ScriptedDice
from bot.rules.morale import MoraleStanding, MoraleTriggerReason
from tests.rules.conftest import deck_dealing

from .fake_discord import FakeMessage, World
from .fights import channel_log, fight_of, seed_fight
from .harness import BotRunner, InteractionResult, RunningBot


async def table(
    world: World,
    start_bot: Any,
    faces: Sequence[int],
    *,
    npcs: Sequence[tuple[str, int, str]] = (("bandit", 3, "Bandits"),),
    cards: Sequence[str] = (),
    edit: Callable[[Encounter], None] | None = None,
) -> tuple[RunningBot, ScriptedDice]:
    """A fight run by the GM: Ansel (player), Brigit (player2) and ``npcs``; Bandit 1 leads the
    Bandits. ``cards`` deals round 1 (Ansel, Brigit, then the groups); ``edit`` changes the fight."""
    dice = ScriptedDice(faces)
    pommel: RunningBot = await start_bot(dice=dice)
    encounter = await seed_fight(
        pommel, world, players=[(world.player, "Ansel"), (world.player2, "Brigit")], npcs=npcs
    )
    for combatant in encounter.combatants:
        combatant.leader = combatant.name == "Bandit 1"
    if cards:
        encounter.initiative.deck = deck_dealing(*cards)
        encounter.deal(ScriptedDice([]))
    if edit is not None:
        edit(encounter)
    await pommel.bot.store.save_encounter(encounter)
    return pommel, dice


def pinged(result: InteractionResult) -> list[int]:
    """The users the reply may ping (never anyone else: @everyone and roles are off)."""
    assert result.callback is not None
    mentions = result.callback.data["allowed_mentions"]
    assert mentions.get("parse") == []
    return [int(user) for user in mentions.get("users", [])]


def standings(encounter: Encounter) -> dict[str, MoraleStanding]:
    return {c.name: c.standing for c in encounter.combatants}


def set_standing(**wanted: MoraleStanding) -> Callable[[Encounter], None]:
    """An ``edit`` giving the named combatants (``Bandit_2=...`` for "Bandit 2") a standing."""

    def edit(encounter: Encounter) -> None:
        for key, standing in wanted.items():
            encounter.combatant(key.replace("_", " ")).standing = standing

    return edit


async def check(pommel: RunningBot, world: World, **options: Any) -> InteractionResult:
    return await pommel.slash("morale check", user=world.gm, options=options)


# ----------------------------------------------------------------------------- the check (R21)


async def test_r21_an_npc_group_checks_a_fail_routs_a_pass_holds_and_the_log_keeps_it(
    world: World, start_bot: Any
) -> None:
    """R21: d20 + morale (+0), 11+ holds; a fail Routs. Every member of the group rolls."""
    pommel, dice = await table(world, start_bot, [9, 11, 20])
    result = await check(pommel, world, who="g:bandits")
    assert not result.ephemeral, result.content
    assert "😨 **Morale check** for **Bandits** (R21: 11+ holds)" in result.content
    assert "• **Bandit 1**: **9** +0 morale = `9` vs 11 → 🏃 **Routed**" in result.content
    assert "• **Bandit 2**: **11** +0 morale = `11` vs 11 → ✅ holds" in result.content
    assert "• **Bandit 3**: **20** +0 morale = `20` vs 11 → ✅ holds" in result.content
    assert "**2 of 3 hold.**" in result.content
    assert "Routed: flees by the nearest safe way" in result.content
    assert dice.remaining == 0
    fight = await fight_of(pommel, world)
    assert standings(fight)["Bandit 1"] is MoraleStanding.ROUTED
    assert standings(fight)["Bandit 2"] is MoraleStanding.STEADY
    [entry] = [entry for entry in await channel_log(pommel, world) if entry.kind == "morale"]
    assert entry.text == (
        "Gamemaster: morale check for Bandits: Bandit 1 9 keep 9 +0 = 9 routed; "
        "Bandit 2 11 keep 11 +0 = 11 holds; Bandit 3 20 keep 20 +0 = 20 holds"
    )


async def test_r21_cannot_escape_makes_a_fail_frightened_and_disadvantage_keeps_the_lower_die(
    world: World, start_bot: Any
) -> None:
    """R21: a routed combatant that cannot escape is Frightened; R10: disadvantage is 2d20 keep low."""
    pommel, dice = await table(world, start_bot, [17, 6])
    result = await check(pommel, world, who="Bandit 2", cannot_escape=True, situation="disadvantage")
    assert "for **Bandit 2** with disadvantage" in result.content
    assert "they cannot escape: a fail Frightens" in result.content
    assert "• **Bandit 2**: ~~17~~, **6** +0 morale = `6` vs 11 → 😱 **Frightened**" in result.content
    assert "Frightened: cannot get away, may surrender to a merciful enemy" in result.content
    fight = await fight_of(pommel, world)
    assert standings(fight)["Bandit 2"] is MoraleStanding.FRIGHTENED
    assert standings(fight)["Bandit 1"] is MoraleStanding.STEADY
    assert dice.remaining == 0


async def test_r21_monsters_without_a_morale_number_never_check(world: World, start_bot: Any) -> None:
    """R21: the Skeletons (no morale number) roll no die and stay Steady."""
    pommel, _ = await table(world, start_bot, [], npcs=[("skeleton", 2, "Skeletons")])
    result = await check(pommel, world, who="Skeletons")
    assert not result.ephemeral, result.content
    assert "• **Skeleton 1**: no morale number — never checks (R21)" in result.content
    assert "• **Skeleton 2**: no morale number — never checks (R21)" in result.content
    assert "hold." not in result.content
    assert all(s is MoraleStanding.STEADY for s in standings(await fight_of(pommel, world)).values())


async def test_r21_a_pc_checks_with_wis_and_proficiency_only_when_the_gm_asks(
    world: World, start_bot: Any
) -> None:
    """R21: d20 + WIS + proficiency for a player character; R22: the GM asks, the player is pinged."""

    def wise(encounter: Encounter) -> None:
        encounter.combatant("Ansel").wis_mod = 1

    pommel, _ = await table(world, start_bot, [7], edit=wise)
    result = await check(pommel, world, who="Ansel")
    assert (
        f"• **Ansel** (<@{world.player.id}>): **7** +1 WIS +2 proficiency = `10` vs 11 → 🏃 **Routed**"
        in result.content
    )
    assert pinged(result) == [world.player.id]
    assert standings(await fight_of(pommel, world))["Ansel"] is MoraleStanding.ROUTED


async def test_r3_the_joker_adds_2_to_morale_on_the_groups_joker_turn(world: World, start_bot: Any) -> None:
    """R3: the Bandits act on the Joker, and it is their turn: +2 to their morale checks."""
    pommel, _ = await table(world, start_bot, [9, 8, 8], cards=["2C", "3C", "BJ"])
    assert (await fight_of(pommel, world)).initiative.turn_of == "g:bandits"
    result = await check(pommel, world, who="Bandits")
    assert "• **Bandit 1**: **9** +0 morale +2 Joker = `11` vs 11 → ✅ holds" in result.content
    assert "• **Bandit 2**: **8** +0 morale +2 Joker = `10` vs 11 → 🏃 **Routed**" in result.content


async def test_r21_the_fallen_and_the_already_routed_do_not_check_again(world: World, start_bot: Any) -> None:
    """R21, R23: a routed combatant comes back only through a rally, so a new check passes it over."""

    def losses(encounter: Encounter) -> None:
        encounter.combatant("Bandit 1").hp = 0
        encounter.combatant("Bandit 2").standing = MoraleStanding.ROUTED

    pommel, dice = await table(world, start_bot, [14], edit=losses)
    result = await check(pommel, world, who="Bandits")
    assert "• **Bandit 3**: **14**" in result.content
    assert "Not checking: **Bandit 1** (down), **Bandit 2** (already routed)" in result.content
    assert dice.remaining == 0
    refused = await check(pommel, world, who="Bandit 2")
    assert refused.ephemeral
    assert "Bandit 2 is already routed" in refused.content
    assert "/morale rally" in refused.content


async def test_a_player_cannot_call_a_morale_check(world: World, start_bot: Any) -> None:
    """R22: morale checks are the GM's call; a player's attempt rolls nothing and changes nothing."""
    pommel, _ = await table(world, start_bot, [])
    before = await fight_of(pommel, world)
    for who in ("Bandits", "Brigit", "Ansel"):
        result = await pommel.slash("morale check", user=world.player, options={"who": who})
        assert result.ephemeral
        assert f"Only the GM of this fight (<@{world.gm.id}>) can call for a morale check." == result.content
    assert await fight_of(pommel, world) == before


# ----------------------------------------------------------------------------- the rally (R23)


async def test_r23_the_leader_rallies_routed_allies_and_frightened_ones_reroll_at_disadvantage(
    world: World, start_bot: Any
) -> None:
    """R23: the leader's CHA check has no disadvantage; routed allies re-roll, frightened ones at
    disadvantage; a pass brings them back to Steady."""
    edit = set_standing(Bandit_2=MoraleStanding.ROUTED, Bandit_3=MoraleStanding.FRIGHTENED)
    # CHA 11 + 0 succeeds; Bandit 2 rolls 12 (back); Bandit 3 rolls 18 and 5, keeps 5 (still frightened).
    pommel, dice = await table(world, start_bot, [11, 12, 18, 5], cards=["2C", "3C", "KS"], edit=edit)
    result = await pommel.slash("morale rally", user=world.gm, options={"who": "Bandit 1"})
    assert not result.ephemeral, result.content
    assert (
        "📯 **Bandit 1** spends their action to rally their allies "
        "(R23: CHA check, 11+; as the group's leader)" in result.content
    )
    assert (
        "CHA check: **11** +0 CHA = `11` vs 11 → **success**: the shaken allies re-roll morale"
        in result.content
    )
    assert "• **Bandit 2** (routed): **12** +0 morale = `12` vs 11 → ✅ back in the fight" in result.content
    assert (
        "• **Bandit 3** (frightened, at disadvantage): ~~18~~, **5** +0 morale = `5` vs 11 → still frightened"
        in (result.content)
    )
    assert "**1 of 2 rally.**" in result.content
    assert dice.remaining == 0
    fight = await fight_of(pommel, world)
    assert standings(fight)["Bandit 2"] is MoraleStanding.STEADY
    assert standings(fight)["Bandit 3"] is MoraleStanding.FRIGHTENED
    log = [entry.text for entry in await channel_log(pommel, world) if entry.kind == "morale"]
    assert log == ["Gamemaster: Bandit 1 rallied (CHA 11 keep 11 +0 = 11) and succeeded; back: Bandit 2"]


async def test_r23_a_pc_who_is_no_leader_rallies_the_party_at_disadvantage(
    world: World, start_bot: Any
) -> None:
    """R23: Ansel is no group's leader, so his CHA check is at disadvantage; Brigit re-rolls with
    WIS + proficiency (R21) and is pinged."""
    edit = set_standing(Brigit=MoraleStanding.ROUTED, Bandit_2=MoraleStanding.ROUTED)
    pommel, dice = await table(world, start_bot, [15, 12, 9], cards=["KS", "2C", "3C"], edit=edit)
    result = await pommel.slash("morale rally", user=world.player)
    assert "at disadvantage: not the group's leader" in result.content
    assert "CHA check with disadvantage: ~~15~~, **12** +0 CHA = `12` vs 11 → **success**" in result.content
    assert (
        f"• **Brigit** <@{world.player2.id}> (routed): "
        "**9** +0 WIS +2 proficiency = `11` vs 11 → ✅ back in the fight" in result.content
    )
    assert "Bandit 2" not in result.content  # an enemy is nobody's ally
    assert pinged(result) == [world.player2.id]
    assert dice.remaining == 0
    fight = await fight_of(pommel, world)
    assert standings(fight)["Brigit"] is MoraleStanding.STEADY
    assert standings(fight)["Bandit 2"] is MoraleStanding.ROUTED


async def test_r23_a_failed_cha_check_rallies_nobody(world: World, start_bot: Any) -> None:
    edit = set_standing(Bandit_2=MoraleStanding.ROUTED)
    pommel, dice = await table(world, start_bot, [10], cards=["2C", "3C", "KS"], edit=edit)
    result = await pommel.slash("morale rally", user=world.gm, options={"who": "Bandit 1"})
    assert "= `10` vs 11 → **fails**: nobody rallies" in result.content
    assert dice.remaining == 0
    assert standings(await fight_of(pommel, world))["Bandit 2"] is MoraleStanding.ROUTED


async def test_r23_a_routed_rallier_and_a_rally_off_turn_are_refused(world: World, start_bot: Any) -> None:
    """R23: only someone who has not failed morale rallies; R1: and only on their own turn."""
    edit = set_standing(Ansel=MoraleStanding.ROUTED, Brigit=MoraleStanding.ROUTED)
    pommel, _ = await table(world, start_bot, [], cards=["KS", "2C", "3C"], edit=edit)
    before = await fight_of(pommel, world)
    routed = await pommel.slash("morale rally", user=world.player)
    assert routed.ephemeral
    assert (
        routed.content
        == "Ansel is routed and cannot rally others; only someone who has not failed morale can."
    )
    off_turn = await pommel.slash("morale rally", user=world.player2)
    assert off_turn.ephemeral
    assert off_turn.content == "Brigit can rally their allies only on their own turn, and it is Ansel's turn."
    assert await fight_of(pommel, world) == before


# ----------------------------------------------------------------------------- proposals (R22)


async def propose_leader_down(pommel: RunningBot, world: World) -> None:
    """What the /attack code does after damage: the Bandits' leader falls, and R22 proposes a check."""
    encounter = await fight_of(pommel, world)
    before = group_snapshot(encounter, "Bandits")
    encounter.combatant("Bandit 1").hp = 0
    [proposal] = propose_checks(encounter, before)
    assert (proposal.id, proposal.reason) == (1, MoraleTriggerReason.LEADER_LOST)
    await pommel.bot.store.save_encounter(encounter)


async def morale_button(pommel: RunningBot, world: World, *, dismiss: bool = False) -> str:
    """The custom id of proposal #1's roll (or dismiss) button, which names the fight."""
    tag = (await fight_of(pommel, world)).tag
    return f"pommel:morale:1:dismiss:{tag}" if dismiss else f"pommel:morale:1:{tag}"


async def proposals_message(pommel: RunningBot, world: World) -> FakeMessage:
    listed = await pommel.slash("morale proposals", user=world.gm)
    assert not listed.ephemeral, listed.content
    assert listed.message is not None
    return listed.message


async def test_r22_a_proposed_check_is_rolled_by_the_gms_button_once(world: World, start_bot: Any) -> None:
    """R22: the bot proposes, the GM confirms: the group rolls once; a second click rolls nothing."""
    pommel, dice = await table(world, start_bot, [5, 14])
    await propose_leader_down(pommel, world)
    message = await proposals_message(pommel, world)
    assert "😨 #1 **Bandits** should check morale (R22): Bandit 1, the leader, is down." in message.content
    roll = await morale_button(pommel, world)
    assert message.custom_ids() == [roll, await morale_button(pommel, world, dismiss=True)]

    player = await pommel.click(message, roll, user=world.player)
    assert player.ephemeral
    assert "Only the GM of this fight" in player.content

    rolled = await pommel.click(message, roll, user=world.gm)
    assert not rolled.ephemeral, rolled.content
    assert "Proposed (R22, #1): Bandit 1, the leader, is down." in rolled.content
    assert "• **Bandit 2**: **5** +0 morale = `5` vs 11 → 🏃 **Routed**" in rolled.content
    assert "• **Bandit 3**: **14** +0 morale = `14` vs 11 → ✅ holds" in rolled.content
    assert "Not checking: **Bandit 1** (down)" in rolled.content
    assert dice.remaining == 0
    after = await fight_of(pommel, world)
    assert after.morale_proposals == []
    assert standings(after)["Bandit 2"] is MoraleStanding.ROUTED

    assert message.custom_ids() == []  # rolled: its buttons went (a double click is refused, below)
    assert await fight_of(pommel, world) == after
    checks = [entry for entry in await channel_log(pommel, world) if entry.kind == "morale"]
    assert len(checks) == 1


async def test_r22_a_proposals_button_still_rolls_after_a_restart(
    world: World, bot_runner: BotRunner
) -> None:
    """R22: the proposal lives in the fight document and the button's id names it, so a GM who clicks
    after the bot came back up gets the check."""
    first, _ = await table(world, bot_runner.start_bot, [])
    await propose_leader_down(first, world)
    message = await proposals_message(first, world)
    await first.close()

    dice = ScriptedDice([13, 2])
    second = await bot_runner.start_bot(dice=dice)
    rolled = await second.click(message, await morale_button(second, world), user=world.gm)
    assert not rolled.ephemeral, rolled.content
    assert "• **Bandit 3**: **2** +0 morale = `2` vs 11 → 🏃 **Routed**" in rolled.content
    assert dice.remaining == 0


async def test_r22_two_clicks_at_the_same_instant_roll_the_check_once(world: World, start_bot: Any) -> None:
    pommel, dice = await table(world, start_bot, [15, 15])
    await propose_leader_down(pommel, world)
    message = await proposals_message(pommel, world)
    roll = await morale_button(pommel, world)
    first, second = await asyncio.gather(
        pommel.click(message, roll, user=world.gm),
        pommel.click(message, roll, user=world.gm),
    )
    assert sorted([first.ephemeral, second.ephemeral]) == [False, True]
    assert dice.remaining == 0
    assert len([entry for entry in await channel_log(pommel, world) if entry.kind == "morale"]) == 1


async def test_r22_the_gm_may_dismiss_a_proposal_and_nothing_is_rolled(world: World, start_bot: Any) -> None:
    pommel, _ = await table(world, start_bot, [])
    await propose_leader_down(pommel, world)
    message = await proposals_message(pommel, world)
    dismissed = await pommel.click(message, await morale_button(pommel, world, dismiss=True), user=world.gm)
    assert not dismissed.ephemeral, dismissed.content
    assert (
        "**Bandits** makes no morale check for proposal #1 (leader lost). Nothing was rolled."
        in dismissed.content
    )
    fight = await fight_of(pommel, world)
    assert fight.morale_proposals == []
    assert all(s is MoraleStanding.STEADY for s in standings(fight).values())
    assert message.custom_ids() == []  # dismissed: its buttons went
    empty = await pommel.slash("morale proposals", user=world.gm)
    assert empty.ephemeral
    assert "No morale check is waiting (R22)" in empty.content


async def test_r22_a_group_with_a_proposal_comes_first_in_check_autocomplete_and_its_check_settles_it(
    world: World, start_bot: Any
) -> None:
    pommel, _ = await table(
        world, start_bot, [12, 12], npcs=[("goblin", 2, "Wolves"), ("bandit", 3, "Bandits")]
    )
    await propose_leader_down(pommel, world)
    offered = await pommel.autocomplete("morale check", user=world.gm, focused="who")
    names = [choice["name"] for choice in offered.choices]
    assert names[:2] == [
        "Bandits (the whole group of 3) — proposed: leader lost",
        "Wolves (the whole group of 2)",
    ]
    assert "Ansel (HP 14/14)" in names
    result = await check(pommel, world, who=offered.choices[0]["value"])
    assert "This check also settles the proposed check #1." in result.content
    assert (await fight_of(pommel, world)).morale_proposals == []


# ----------------------------------------------------------------------------- the GM's ruling


async def test_r21_the_gm_rules_a_cornered_routed_bandit_frightened(world: World, start_bot: Any) -> None:
    pommel, _ = await table(world, start_bot, [], edit=set_standing(Bandit_2=MoraleStanding.ROUTED))
    result = await pommel.slash(
        "morale set", user=world.gm, options={"who": "Bandit 2", "standing": "frightened"}
    )
    assert result.content.startswith(
        "🎭 Gamemaster rules that **Bandit 2** is now **frightened** (was routed)."
    )
    assert standings(await fight_of(pommel, world))["Bandit 2"] is MoraleStanding.FRIGHTENED
    refused = await pommel.slash(
        "morale set", user=world.player, options={"who": "Ansel", "standing": "steady"}
    )
    assert refused.ephemeral
    assert "Only the GM" in refused.content


async def test_r21_the_gm_rules_a_routed_bandit_demoralized_and_the_table_sees_what_it_does(
    world: World, start_bot: Any
) -> None:
    """Lords of Hack: "the GM may rule them to be Demoralized if the defeat was especially severe": a
    standing the GM sets, shown on the tracker, which no recheck brings back; a Routed one rechecks."""
    pommel, _ = await table(
        world,
        start_bot,
        [12],
        cards=("KS", "QS", "JS"),
        edit=set_standing(Bandit_2=MoraleStanding.ROUTED, Bandit_3=MoraleStanding.ROUTED),
    )
    ruled = await pommel.slash(
        "morale set", user=world.gm, options={"who": "Bandit 2", "standing": "demoralized"}
    )
    assert ruled.content == (
        "🎭 Gamemaster rules that **Bandit 2** is now **demoralized** (was routed). Demoralized: flees like "
        "the Routed, and neither a morale recheck nor a rally brings it back; only the GM's ruling "
        "(`/morale set`)."
    )
    rechecked = await pommel.slash("morale recheck", user=world.gm, options={"who": "Bandits"})
    lines = rechecked.content.splitlines()
    assert lines[0].startswith("😨 **Morale recheck** for **Bandits**")
    assert "• **Bandit 3**: **12** +0 morale = `12` vs 11 → ✅ back to normal" in lines
    assert "**Bandit 2** (demoralized: no recheck brings it back (R21))" in rechecked.content
    encounter = await fight_of(pommel, world)
    assert standings(encounter)["Bandit 2"] is MoraleStanding.DEMORALIZED
    assert standings(encounter)["Bandit 3"] is MoraleStanding.STEADY
    assert (await channel_log(pommel, world))[-1].text.startswith("Gamemaster: morale recheck for Bandits: ")
    again = await pommel.slash("morale recheck", user=world.gm, options={"who": "Bandit 2"})
    assert again.ephemeral
    assert "Nobody there may recheck morale: Bandit 2 is demoralized" in again.content
