"""The Knock-Out threat of a Bash critical end to end (R16's option, R20): the Will save asked with a
button on the attack's result, its outcome applied to the fight.

The fight of tests/e2e/test_attack.py: Alice (player, pool 3) has the turn with a war club (1d10 bash)
against the Bandit (GM, pool 2, WIS +0, light gambeson: DR 3, 11 HP), who defends passively; the
table plays Bash criticals as Knock-Out threats. The dice are scripted: Alice's d20, the club's d10,
the crit d6, then the Will save's dice.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.encounter.document import Encounter
from bot.rules.options import BashCritical, RuleOptions
from bot.rules.pool import Spend

from .fake_discord import World
from .fights import channel_log, dealt_fight, fight_of
from .harness import InteractionResult, RunningBot
from .test_attack import PASSIVE_NPCS, all_rolled, attack, bandits_turn, both, gear, labels, refused

THREAT_LINE = (
    "😵 **Bandit** must make a **Will save** against **11** or be knocked out (R16): d20 +0 WIS, and "
    "Martial Pool dice may join it (R20)."
)


def knockout_option(encounter: Encounter) -> None:
    encounter.options = RuleOptions(bash_critical=BashCritical.KNOCKOUT)


async def knockout_blow(
    world: World, start_bot: Any, save_faces: list[int]
) -> tuple[RunningBot, InteractionResult]:
    """Alice's natural 20 with the club: 6 + a d6 crit of 5 = a threat of 11; 6 - 3 DR = 3 HP lost."""
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[20, 6, 5, *save_faces],
        edit=both(PASSIVE_NPCS, knockout_option, gear("Alice", weapon="war_club")),
    )
    result = await attack(pommel, world, target="Bandit")
    lines = result.content.splitlines()
    assert "💥 **Critical hit!** — a natural 20 (R16)" in lines
    assert (
        "🩸 Damage: Club, War [6] 6 + 1d6 crit [5] = 11 - DR 3 (Gambeson, Light) → **3**; Knock-Out threat: "
        "a Will save against **11** (R16)"
    ) in lines
    assert "❤️ **Bandit**: HP 11 → **8**/11" in lines
    assert THREAT_LINE in lines
    # The GM plays the Bandit: asked in the message, and pinged (the player attacked).
    assert (
        f"😵 <@{world.gm.id}>: **Bandit** must make a Will save against a Knock-Out threat (R16); its "
        "buttons are below."
    ) in lines
    assert result.message is not None
    assert [user.id for user in result.message.mentions] == [world.gm.id]
    assert labels(result) == ["Will save", "Will save +1 die", "Will save +2 dice"]
    return pommel, result


def will_button(result: InteractionResult, dice: int) -> str:
    assert result.message is not None
    found = [i for i in result.message.custom_ids() if i.startswith("pommel:ko:") and i.endswith(f":{dice}")]
    assert len(found) == 1, result.message.custom_ids()
    return found[0]


async def test_r16_a_failed_will_save_knocks_the_target_out(world: World, start_bot: Any) -> None:
    pommel, result = await knockout_blow(world, start_bot, save_faces=[7])
    saved = await pommel.click(result, will_button(result, 0), user=world.gm)
    lines = saved.content.splitlines()
    assert THREAT_LINE not in lines
    assert (
        "😵 Will save against the Knock-Out threat (R16, R20): **7** = **7** vs **11** — **knocked out**: "
        "Bandit is *unconscious* until the condition is removed."
    ) in lines
    assert labels(saved) == []  # the save is made; nothing is left to click
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert bandit.conditions == ["unconscious"]
    assert (bandit.unconscious, bandit.state_label, bandit.hp) == (True, "unconscious", 8)
    assert bandit.pool.spent == {}
    log = [entry.text for entry in await channel_log(pommel, world)]
    assert log[-2].endswith("; damage 3; HP 11 → 8; Knock-Out threat 11: a Will save is owed")
    assert (
        log[-1]
        == "Bandit's Will save against the Knock-Out threat of 11: 7 +0 = 7: knocked out (unconscious)"
    )
    all_rolled(pommel)


async def test_r16_r20_a_will_save_with_pool_dice_that_meets_the_threat_resists_once(
    world: World, start_bot: Any
) -> None:
    pommel, result = await knockout_blow(world, start_bot, save_faces=[4, 11])
    button = will_button(result, 1)
    clicks = await asyncio.gather(
        pommel.click(result, button, user=world.gm), pommel.click(result, button, user=world.gm)
    )
    # A double click acts once: the other is refused, privately.
    assert sorted(click.ephemeral for click in clicks) == [False, True]
    assert "Nothing was changed" in next(click for click in clicks if click.ephemeral).content
    assert (
        "😵 Will save against the Knock-Out threat (R16, R20): ~~4~~, **11** = **11** vs **11** — "
        "**Bandit stays conscious**."
    ) in result.content.splitlines()
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.conditions, bandit.unconscious) == ([], False)
    assert bandit.pool.spent == {Spend.SAVE: 1}
    all_rolled(pommel)


async def test_r16_the_will_save_is_refused_to_anyone_but_the_defenders_side(
    world: World, start_bot: Any
) -> None:
    pommel, result = await knockout_blow(world, start_bot, save_faces=[])
    before = await fight_of(pommel, world)
    stolen = await pommel.click(result, will_button(result, 0), user=world.player)
    assert "Bandit is not yours: only the GM can make the Will save for them." in stolen.content
    await refused(stolen, pommel, world, before)
    all_rolled(pommel)


async def test_r16_a_players_character_makes_its_own_will_save(world: World, start_bot: Any) -> None:
    """The Bandit's war club strikes the helpless Alice on its turn: a natural 20, 6 + a d6 crit of 5 = a
    threat of 11, 6 HP lost. Alice's player is pinged and clicks; Bob's player cannot."""
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[20, 6, 5, 3],
        edit=both(knockout_option, gear("Bandit", weapon="war_club"), bandits_turn),
    )
    result = await pommel.slash(
        "attack", user=world.gm, options={"target": "Alice", "who": "Bandit", "helpless": True}
    )
    assert not result.ephemeral, result.content
    lines = result.content.splitlines()
    assert (
        f"😵 <@{world.player.id}>: **Alice** must make a Will save against a Knock-Out threat (R16); its "
        "buttons are below."
    ) in lines
    assert result.message is not None
    assert [user.id for user in result.message.mentions] == [world.player.id]
    before = await fight_of(pommel, world)
    stolen = await pommel.click(result, will_button(result, 0), user=world.player2)
    assert f"Alice is not yours: only <@{world.player.id}> or the GM can make the Will save" in stolen.content
    await refused(stolen, pommel, world, before)
    saved = await pommel.click(result, will_button(result, 0), user=world.player)
    assert "— **knocked out**: Alice is *unconscious* until the condition is removed." in saved.content
    alice = (await fight_of(pommel, world)).combatant("Alice")
    assert (alice.hp, alice.conditions, alice.out_of_the_fight) == (8, ["unconscious"], True)
    all_rolled(pommel)
