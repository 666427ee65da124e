"""Martial Feats, the declared passive Bind, weapon damage in Binds and a spirit driven out, end to end
through the fake Discord (R13, R14, R17, R22, R27).

The fight is test_attack's: Alice (player, arming sword, Prowess 2: an attack of face + 5 at Onset)
holds K♠ and has the turn; the Bandit (GM, messer DB 3, passive 10, pool 2) holds 2♣.
"""

from __future__ import annotations

from typing import Any

from bot.encounter.document import Encounter
from bot.rules.feats import MartialFeat
from bot.rules.options import PassiveTie, RuleOptions
from bot.table_options import DefensePolicy

from .fake_discord import World
from .fights import channel_log, dealt_fight, exchange_button, fight_of
from .test_attack import BIND, actions, all_rolled, attack, labels


def declared_ties(encounter: Encounter) -> None:
    encounter.options = RuleOptions(passive_tie=PassiveTie.DECLARED, weapon_damage_in_binds=True)


async def test_the_gm_grants_a_feat_and_a_player_cannot(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[2])
    granted = await pommel.slash(
        "combatant feat", user=world.gm, options={"who": "Bandit", "feat": "weapon in passive defense"}
    )
    assert not granted.ephemeral, granted.content
    assert granted.content == (
        "🥋 **Bandit** now holds **weapon in passive defense**: its weapon's Defense Bonus counts in "
        "passive defense (R13)."
    )
    assert (await fight_of(pommel, world)).combatant("Bandit").feats == [MartialFeat.PASSIVE_WEAPON]
    again = await pommel.slash(
        "combatant feat", user=world.gm, options={"who": "Bandit", "feat": "weapon in passive defense"}
    )
    assert again.ephemeral
    assert again.content.startswith("Bandit already holds weapon in passive defense; nothing was changed.")
    before = await fight_of(pommel, world)
    player = await pommel.slash(
        "combatant feat", user=world.player, options={"who": "Alice", "feat": "fuhlen"}
    )
    assert player.ephemeral
    assert "Only the GM of this fight" in player.content
    assert await fight_of(pommel, world) == before
    # The passive defense the request offers counts the messer's DB 3 now (R13).
    asked = await attack(pommel, world, target="Bandit")
    assert "Passive **13**" in asked.content
    [entry] = [e for e in await channel_log(pommel, world) if e.kind != "attack"][-1:]
    assert entry.text.endswith("edited Bandit: Martial Feats none → weapon in passive defense")


async def test_a_passive_tie_is_a_miss_the_attacker_declares_a_bind(world: World, start_bot: Any) -> None:
    """Codex: "Either attacker or defender can declare a Bind if they have any MP remaining." With the
    option, the tie is a miss with a button for each side with dice left; Alice's click makes it a Bind,
    and the weapon damage option says the Bandit's messer may be damaged (the GM says how much)."""
    pommel = await dealt_fight(world, start_bot, faces=[5], edit=declared_ties)
    asked = await attack(pommel, world, target="Bandit")
    result = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    lines = result.content.splitlines()
    assert (
        "💨 **Miss**, a tie: a Bind if a side with dice left declares one — against the passive defense (R13)"
        in lines
    )
    assert "⛓️ Alice or Bandit may declare the tie a Bind (R13)." in lines
    assert actions(result) == ["attackerbind", "defenderbind"]
    assert labels(result) == ["Alice: declare a Bind", "Bandit: declare a Bind"]
    declared = await pommel.click(result, exchange_button(result, "attackerbind"), user=world.player)
    lines = declared.content.splitlines()
    assert "⛓️ Alice declares the tie with the passive defense a Bind (R13)." in lines
    assert f"{BIND} — against the passive defense (R13)" in lines
    assert (
        "🗡️ Damage to Weapons During Binds (R17): the Bind may have damaged Bandit's **Sword, Messer**; the "
        "Codex gives no number, so how much is the GM's."
    ) in lines
    assert actions(declared) == []
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Alice").pool.remaining == 2  # nothing spent on declaring
    log = [e.text for e in await channel_log(pommel, world) if e.kind == "attack"]
    assert log[-1].endswith("bind (R13); Alice declares the tie a Bind; Sword, Messer may be damaged")
    all_rolled(pommel)


async def test_a_bind_gives_a_bind_attack_button_to_the_holder_of_mutieren(
    world: World, start_bot: Any
) -> None:
    """Codex: a Bind "can trigger certain Martial Feats": the Bandit, with Bind & Strike, may strike Alice
    at once; its button is on the result."""

    def feats(encounter: Encounter) -> None:
        encounter.combatant("Bandit").feats = [MartialFeat.BIND_AND_STRIKE]

    pommel = await dealt_fight(world, start_bot, faces=[5, 9], edit=feats)
    asked = await attack(pommel, world, target="Bandit")
    result = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    lines = result.content.splitlines()
    assert f"{BIND} — against the passive defense (R13)" in lines
    assert "⛓️ Bandit may make a **Bind attack** on Alice (bind & strike on the Bind, R14)" in lines
    assert labels(result) == ["Bandit: Bind attack 1 die", "Bandit: Bind attack 2 dice"]
    struck = await pommel.click(result, exchange_button(result, "counter:1"), user=world.gm)
    assert "Bandit** attacks **Alice**" in struck.content
    assert "(bind attack)" in struck.content
    all_rolled(pommel)


async def test_r22_a_demon_driven_out_is_proposed_a_morale_check(world: World, start_bot: Any) -> None:
    """Lords of Hack: "A demon, ghost or spirit that has been driven out of a person by divine means."
    The GM names the Demon driven out of Alice: a morale check is proposed, with its button."""

    def possessed(encounter: Encounter) -> None:
        encounter.combatant("Alice").add_condition("possessed by the spirit")
        encounter.combatant("Alice").cha_score = 0

    pommel = await dealt_fight(
        world, start_bot, npcs=(("bandit", 1, "Bandit"), ("demon", 1, "Demon")), edit=possessed
    )
    fight = await fight_of(pommel, world)
    fight.combatant("Demon").morale = 1
    await pommel.bot.store.save_encounter(fight)
    out = await pommel.slash(
        "spirit drive-out", user=world.gm, options={"target": "Alice", "spirit": "Demon"}
    )
    assert not out.ephemeral, out.content
    lines = out.content.splitlines()
    assert lines[0].startswith("✝️ **Demon** is driven out of **Alice** (R27)")
    assert lines[1].startswith("😨 #1 **Demon** should check morale (R22)")
    assert labels(out) == ["Roll morale: Demon"]
    assert [p.group for p in (await fight_of(pommel, world)).morale_proposals] == ["Demon"]


async def test_r17_attacking_a_shield_like_armor_damages_its_hp_after_toughness(
    world: World, start_bot: Any
) -> None:
    """Codex: "A shield used for Passive Defense may also be targeted for attack like Armor." The Bandit's
    buckler (DB 1, Toughness 6, 10 HP): Alice's 15 + 5 = 20 beats its passive 11; her 8 damage less
    Toughness 6 takes 2 of the buckler's HP, and the Bandit none of its own."""

    def buckler(encounter: Encounter) -> None:
        encounter.combatant("Bandit").shield = "buckler"
        encounter.table = encounter.table.model_copy(update={"defense_policy": DefensePolicy.PASSIVE})

    pommel = await dealt_fight(world, start_bot, faces=[15, 8], edit=buckler)
    struck = await attack(pommel, world, target="Bandit", at_shield=True)
    lines = struck.content.splitlines()
    assert lines[0].endswith("1 die at Onset, at the shield")
    assert "🩸 Damage: Sword, Arming [8] 8 = 8 - Toughness 6 → **2** to Buckler's HP (R17)" in lines
    assert "🛡️ Bandit's shield: 8 HP left" in lines
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.hp, bandit.shield_hp) == (11, 8)
    log = [e.text for e in await channel_log(pommel, world) if e.kind == "attack"]
    assert log[-1].endswith("hit (R13); 2 to the shield, 8 HP left")
    before = await fight_of(pommel, world)
    at_bob = await attack(pommel, world, target="Bob", at_shield=True)
    assert at_bob.ephemeral
    assert "Bob carries no shield to attack." in at_bob.content
    assert await fight_of(pommel, world) == before
    all_rolled(pommel)
