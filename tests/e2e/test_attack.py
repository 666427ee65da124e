"""``/attack`` and the defender's buttons end to end through the fake Discord (R7, R9-R18, R21-R26).

Every fight here is seeded through the store with round 1 dealt from a stacked deck: Alice (player,
pool 3, arming sword: Reach 3, Speed 3, DB 3, 1d8, primary chop/pierce; no armor, passive 11) holds K♠
and has the turn, Bob (player2, the same sheet) holds 7♦, the Bandit (GM, pool 2, messer: Reach 3,
Speed 4, DB 3, 1d6, primary chop; light gambeson: DR 3, Bypass -6, Hardness 1, 10 HP; passive 10,
active +5, 11 HP) holds 2♣. The bot's dice are scripted: the attack's d20s, then the defense's d20s,
then the damage dice, then the crit dice; every test checks that the script was used up exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.records import ExchangeStatus, Reaction, ReactionKind
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Range
from bot.rules.morale import MoraleStanding
from bot.rules.pool import MartialPool, Spend
from bot.table_options import DefensePolicy

from .fake_discord import FakeMessage, World
from .fights import channel_log, dealt_fight, edit_fight, exchange_action, exchange_button, fight_of
from .harness import InteractionResult, RunningBot

BIND = "🔗 **Bind**: the attack is stopped, the weapons are locked"


def policy(chosen: DefensePolicy) -> Callable[[Encounter], None]:
    def edit(encounter: Encounter) -> None:
        encounter.table = encounter.table.model_copy(update={"defense_policy": chosen})

    return edit


PASSIVE_NPCS = policy(DefensePolicy.PASSIVE)


def gear(who: str, **fields: Any) -> Callable[[Encounter], None]:
    """Give ``who`` other gear or numbers (weapon, off_hand, shield, armor_hp, hp...)."""

    def edit(encounter: Encounter) -> None:
        combatant = encounter.combatant(who)
        for key, value in fields.items():
            setattr(combatant, key, value)

    return edit


def both(*edits: Callable[[Encounter], None]) -> Callable[[Encounter], None]:
    def edit(encounter: Encounter) -> None:
        for each in edits:
            each(encounter)

    return edit


def bandits_turn(encounter: Encounter) -> None:
    """Alice's and Bob's turns end: the Bandit's turn is in progress."""
    encounter.next_turn()
    encounter.next_turn()


def actions(message: FakeMessage | InteractionResult | None) -> list[str]:
    """The exchange buttons a message offers, as actions ("passive", "active:1", ...), and others whole;
    not the turn's Next a result offers (``tests/e2e/test_fight_messages.py`` tests that)."""
    found = message.message if isinstance(message, InteractionResult) else message
    if found is None:
        return []
    return [exchange_action(i) for i in found.custom_ids() if not i.startswith("pommel:turn:")]


def labels(message: FakeMessage | InteractionResult) -> list[str]:
    """The labels of the buttons :func:`actions` lists (not the turn's Next)."""
    found = message.message if isinstance(message, InteractionResult) else message
    assert found is not None
    return [
        str(component.get("label"))
        for row in found.components
        for component in row.get("components", [])
        if component.get("type") == 2 and not str(component.get("custom_id")).startswith("pommel:turn:")
    ]


def all_rolled(pommel: RunningBot) -> None:
    """Every scripted face was rolled, and no more were asked for."""
    dice = pommel.bot.dice
    assert isinstance(dice, ScriptedDice)
    assert dice.remaining == 0, f"{dice.remaining} scripted faces were not rolled"


async def attack(pommel: RunningBot, world: World, user: Any = None, **options: Any) -> InteractionResult:
    return await pommel.slash("attack", user=user or world.player, options=options)


async def refused(result: InteractionResult, pommel: RunningBot, world: World, before: Encounter) -> None:
    """The answer was a private refusal and the fight is as it was."""
    assert result.ephemeral, result.content
    assert await fight_of(pommel, world) == before


def pair_range(encounter: Encounter, a: str, b: str) -> Range:
    return encounter.engagement(encounter.combatant(a), encounter.combatant(b)).range


def remaining(encounter: Encounter, who: str) -> int:
    return encounter.combatant(who).pool.remaining


# ---------------------------------------------------------------------------------- R11 bonus, R12 ranges


async def test_r11_r12_reach_at_onset_then_speed_at_melee_on_the_pairs_second_attack_ranges_per_pair(
    world: World, start_bot: Any
) -> None:
    """A short sword (Reach 2, Speed 5): the first attack on the Bandit is at Onset with Reach; the second
    between the same pair puts them in Melee, with Speed; Alice and Bob are still at Onset."""
    pommel = await dealt_fight(
        world, start_bot, faces=[3, 3, 3], edit=both(PASSIVE_NPCS, gear("Alice", weapon="short_sword"))
    )
    first = await attack(pommel, world, target="Bandit")
    assert first.content.splitlines()[:2] == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Short, pierce, 1 die at Onset",
        "🎲 Attack: **3** +2 Prowess +2 Reach = **7**",
    ]
    second = await attack(pommel, world, target="Bandit")
    assert second.content.splitlines()[:2] == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Short, pierce, 1 die at Melee",
        "🎲 Attack: **3** +2 Prowess +5 Speed = **10**",
    ]
    assert f"{BIND} — against the passive defense (R13)" in second.content.splitlines()
    third = await attack(pommel, world, target="Bob")
    assert third.content.splitlines()[:2] == [
        "⚔️ **Alice** attacks **Bob** — Sword, Short, pierce, 1 die at Onset",
        "🎲 Attack: **3** +2 Prowess +2 Reach = **7**",
    ]
    encounter = await fight_of(pommel, world)
    assert pair_range(encounter, "Alice", "Bandit") is Range.MELEE
    assert pair_range(encounter, "Alice", "Bob") is Range.ONSET
    assert remaining(encounter, "Alice") == 0
    all_rolled(pommel)


async def test_r11_r3_a_joker_turn_adds_2_to_attack_and_damage(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[6, 5], cards=("BJ", "7D", "2C"), edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit")
    lines = result.content.splitlines()
    assert lines[1] == "🎲 Attack: **6** +2 Prowess +3 Reach +2 Joker = **13**"
    assert "🩸 Damage: Sword, Arming [5] 5 +2 Joker = 7 - DR 3 (Gambeson, Light) → **4**" in lines
    assert "❤️ **Bandit**: HP 11 → **7**/11" in lines
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 7
    all_rolled(pommel)


async def test_r11_r26_two_weapons_add_1_and_the_better_damage_counts(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(
        world, start_bot, faces=[5, 2, 6], edit=both(PASSIVE_NPCS, gear("Alice", off_hand="small_dagger"))
    )
    result = await attack(pommel, world, target="Bandit", two_weapons=True)
    lines = result.content.splitlines()
    assert lines[0].endswith("1 die at Onset, two weapons")
    assert lines[1] == "🎲 Attack: **5** +2 Prowess +3 Reach +1 Two weapons = **11**"
    # The dagger's 6 beats the sword's 2, and the dagger's Armor Piercing 2 lowers the DR.
    assert (
        "🩸 Damage: Sword, Arming [2] 2 or Dagger, Small [6] 6 (the better counts, R26) = 6"
        " - DR 1 (Gambeson, Light, after 2 Armor Piercing) → **5**"
    ) in lines
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 6
    all_rolled(pommel)


async def test_r11_r14_4_a_defender_natural_20_misses_and_the_counterattack_button_strikes_back_with_speed(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 20, 12, 3])
    asked = await attack(pommel, world, target="Bandit")
    result = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.gm)
    lines = result.content.splitlines()
    assert "🛡️ Active defense, 1 die: **20** +1 Prowess +1 Dex +3 Sword, Messer = **25**" in lines
    assert "💨 **Miss** — the defender's natural 20 (R14.4)" in lines
    assert "↩️ Bandit may **counterattack** (R14)" in lines
    assert actions(result) == ["counter:1"]
    assert labels(result) == ["Counterattack 1 die"]
    encounter = await fight_of(pommel, world)
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    assert encounter.reactions == [
        Reaction(
            kind=ReactionKind.COUNTERATTACK,
            by=bandit.id,
            against=alice.id,
            round=1,
            reason="won the exchange",
        )
    ]

    # A player cannot use the Bandit's counterattack.
    stolen = await pommel.click(result, exchange_button(result, "counter:1"), user=world.player)
    await refused(stolen, pommel, world, encounter)

    counter = await pommel.click(result, exchange_button(result, "counter:1"), user=world.gm)
    assert counter.callback_type == 4  # a new message: the counterattack asks Alice to defend
    assert counter.content.splitlines()[:3] == [
        "⚔️ **Bandit** attacks **Alice** (counterattack) — Sword, Messer, chop, 1 die at Melee",
        "🎲 Attack: **12** +1 Prowess +4 Speed = **17**",
        f"🛡️ <@{world.player.id}>: how does **Alice** defend? Passive **11**, or active with 1 to 2 of 2 dice "
        "left (R13, R14).",
    ]
    assert actions(result.message) == []  # the result's counterattack button is gone
    encounter = await fight_of(pommel, world)
    assert encounter.reactions == []
    assert encounter.combatant("Bandit").pool.spent == {Spend.ACTIVE_DEFENSE: 1, Spend.COUNTERATTACK: 1}

    hit = await pommel.click(counter, exchange_button(counter, "passive"), user=world.player)
    assert "💥 **Hit** — against the passive defense (R13)" in hit.content
    assert "❤️ **Alice**: HP 14 → **11**/14" in hit.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 11
    all_rolled(pommel)


async def test_r11_a_counterattack_uses_speed_even_at_onset(world: World, start_bot: Any) -> None:
    """Two attacks of 2 dice keep the pair at Onset (R12), and the counterattack still takes Speed."""
    pommel = await dealt_fight(
        world, start_bot, faces=[15, 3, 20, 9, 9], edit=gear("Bandit", pool=MartialPool.full(3))
    )
    asked = await attack(pommel, world, target="Bandit", dice=2)
    result = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.gm)
    assert actions(result) == ["counter:1", "counter:2"]
    counter = await pommel.click(result, exchange_button(result, "counter:2"), user=world.gm)
    assert counter.content.splitlines()[:2] == [
        "⚔️ **Bandit** attacks **Alice** (counterattack) — Sword, Messer, chop, 2 dice at Onset",
        "🎲 Attack: **9**, ~~9~~ +1 Prowess +4 Speed = **14**",
    ]
    assert pair_range(await fight_of(pommel, world), "Alice", "Bandit") is Range.ONSET
    all_rolled(pommel)


async def test_r13_r14_a_defender_with_one_die_left_is_asked_for_its_last_die(
    world: World, start_bot: Any
) -> None:
    """Not "active with 1 to 1 of 1 die left"."""
    pommel = await dealt_fight(world, start_bot, faces=[15], edit=gear("Bandit", pool=MartialPool.full(1)))
    asked = await attack(pommel, world, target="Bandit")
    request = asked.content.splitlines()[2]
    assert request.startswith(f"🛡️ <@{world.gm.id}> (GM): how does **Bandit** defend? Passive **")
    assert request.endswith("**, or active with its last die (R13, R14).")
    assert labels(asked)[1] == "Active 1 die"


async def test_r12_attacks_of_two_dice_each_keep_the_pair_at_onset(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[4, 3, 6, 2], edit=PASSIVE_NPCS)
    await attack(pommel, world, target="Bandit", dice=2)
    await edit_fight(pommel, world, bandits_turn)
    asked = await attack(pommel, world, user=world.gm, target="Alice", dice=2)
    assert asked.content.splitlines()[0] == (
        "⚔️ **Bandit** attacks **Alice** — Sword, Messer, chop, 2 dice at Onset"
    )
    assert asked.content.splitlines()[1] == "🎲 Attack: **6**, ~~2~~ +1 Prowess +3 Reach = **10**"
    encounter = await fight_of(pommel, world)
    assert pair_range(encounter, "Alice", "Bandit") is Range.ONSET
    pair = encounter.engagement(encounter.combatant("Alice"), encounter.combatant("Bandit"))
    assert pair.attacks_this_round == 2
    all_rolled(pommel)


async def test_r12_a_grapple_with_a_small_weapon_that_hits_enters_grapple_and_gives_an_opportunity_attack(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[15, 4],
        edit=both(PASSIVE_NPCS, gear("Alice", weapon="small_dagger"), gear("Bandit", weapon="small_knife")),
    )
    result = await attack(pommel, world, target="Bandit", grapple=True)
    lines = result.content.splitlines()
    assert lines[0] == "⚔️ **Alice** attacks **Bandit** — Dagger, Small, pierce, 1 die at Onset, grapple"
    assert (
        "🤼 **Alice** grapples **Bandit**: they are at Grapple range (R12); "
        "Bandit may take an opportunity attack first."
    ) in lines
    assert not any(line.startswith("🩸") for line in lines)  # the blow is spent seizing the foe
    encounter = await fight_of(pommel, world)
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    assert bandit.hp == 11
    assert pair_range(encounter, "Alice", "Bandit") is Range.GRAPPLE
    assert encounter.reactions == [
        Reaction(
            kind=ReactionKind.OPPORTUNITY,
            by=bandit.id,
            against=alice.id,
            round=1,
            reason="was grappled",
            at=Range.ONSET,  # the target strikes first, before the Grapple holds (R12)
        )
    ]
    all_rolled(pommel)


async def test_r12_the_grappled_target_takes_its_opportunity_attack_out_of_turn(
    world: World, start_bot: Any
) -> None:
    """The Bandit with a knife takes the opportunity attack the grapple gave it, on Alice's turn, with
    Speed (R11); it strikes "first" (R12), at the range the pair had before, and they stay in Grapple."""
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[15, 4, 12],
        edit=both(PASSIVE_NPCS, gear("Alice", weapon="small_dagger"), gear("Bandit", weapon="small_knife")),
    )
    await attack(pommel, world, target="Bandit", grapple=True)
    opportunity = await attack(pommel, world, user=world.gm, who="Bandit", target="Alice")
    assert not opportunity.ephemeral, opportunity.content
    assert opportunity.content.splitlines()[:2] == [
        "⚔️ **Bandit** attacks **Alice** (opportunity attack) — Knife, Small, pierce, 1 die at Onset",
        "🎲 Attack: **12** +1 Prowess +6 Speed = **19**",
    ]
    encounter = await fight_of(pommel, world)
    assert encounter.reactions == []
    assert encounter.combatant("Bandit").pool.spent == {Spend.OPPORTUNITY_ATTACK: 1}
    assert pair_range(encounter, "Alice", "Bandit") is Range.GRAPPLE
    all_rolled(pommel)


async def test_r12_the_grapple_result_offers_the_opportunity_attack_as_a_button(
    world: World, start_bot: Any
) -> None:
    """R12: the result of a grapple that holds offers the target's opportunity attack with 1..k dice;
    the GM's click makes it (Speed, R11), and the button is gone from the result afterwards."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 4, 12], edit=gear("Alice", weapon="small_dagger"))
    asked = await attack(pommel, world, target="Bandit", grapple=True)
    grappled = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert actions(grappled) == ["counter:1", "counter:2"]
    labels = [c["label"] for row in grappled.components for c in row["components"]]
    assert labels == ["Opportunity attack 1 die", "Opportunity attack 2 dice"]
    refused = await pommel.click(grappled, exchange_button(grappled, "counter:1"), user=world.player)
    assert refused.ephemeral
    struck = await pommel.click(grappled, exchange_button(grappled, "counter:1"), user=world.gm)
    assert not struck.ephemeral, struck.content
    assert struck.content.splitlines()[:2] == [
        "⚔️ **Bandit** attacks **Alice** (opportunity attack) — Sword, Messer, chop, 1 die at Onset",
        "🎲 Attack: **12** +1 Prowess +4 Speed = **17**",
    ]
    assert actions(world.table.messages[grappled.message.id]) == []  # type: ignore[union-attr]
    encounter = await fight_of(pommel, world)
    assert encounter.reactions == []
    assert encounter.combatant("Bandit").pool.spent == {Spend.OPPORTUNITY_ATTACK: 1}
    all_rolled(pommel)


async def test_r12_a_grappled_target_with_a_size_m_weapon_can_still_take_its_opportunity_attack(
    world: World, start_bot: Any
) -> None:
    """R12: "the target may take an opportunity attack first": first, before the Grapple, so a Bandit
    with its messer (size M) is not shut out of the attack the rules just gave it."""
    pommel = await dealt_fight(
        world, start_bot, faces=[15, 4, 12], edit=both(PASSIVE_NPCS, gear("Alice", weapon="small_dagger"))
    )
    await attack(pommel, world, target="Bandit", grapple=True)
    opportunity = await attack(pommel, world, user=world.gm, who="Bandit", target="Alice")
    assert not opportunity.ephemeral, opportunity.content
    assert opportunity.content.splitlines()[:2] == [
        "⚔️ **Bandit** attacks **Alice** (opportunity attack) — Sword, Messer, chop, 1 die at Onset",
        "🎲 Attack: **12** +1 Prowess +4 Speed = **17**",
    ]
    assert pair_range(await fight_of(pommel, world), "Alice", "Bandit") is Range.GRAPPLE
    all_rolled(pommel)


async def test_r12_a_size_m_weapon_cannot_grapple_and_nothing_is_spent(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, target="Bandit", grapple=True)
    await refused(result, pommel, world, before)
    assert "A size M weapon (Sword, Arming) cannot start a grapple" in result.content
    assert remaining(before, "Alice") == 3


def grappled_with_a_dagger_in_the_off_hand(encounter: Encounter) -> None:
    """Alice (arming sword, size M) and the Bandit at Grapple; she carries a rondel dagger (size S)."""
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    alice.off_hand = "rondel_dagger"
    encounter.engagement(alice, bandit).enter_grapple()


@pytest.mark.parametrize(
    ("hand", "line"),
    [
        ("off hand", "🎲 Attack: **12** +2 Prowess +5 Speed = **19**"),
        ("unarmed", "🎲 Attack: **12** +2 Prowess"),
    ],
)
async def test_r12_at_grapple_a_fighter_strikes_with_its_off_hand_weapon_or_unarmed(
    world: World, start_bot: Any, hand: str, line: str
) -> None:
    """A grappled fighter with a long weapon was told "only unarmed attacks or size S or T weapons can"
    and had no way to make one; `hand:` chooses the off-hand dagger or bare hands."""
    pommel = await dealt_fight(world, start_bot, faces=[12, 3], edit=grappled_with_a_dagger_in_the_off_hand)
    main = await attack(pommel, world, target="Bandit")
    assert main.ephemeral
    assert "strike with the off hand or unarmed instead" in main.content
    asked = await attack(pommel, world, target="Bandit", hand=hand)
    assert not asked.ephemeral, asked.content
    assert any(text.startswith(line) for text in asked.content.splitlines()), asked.content
    encounter = await fight_of(pommel, world)
    weapon = "rondel_dagger" if hand == "off hand" else "unarmed"
    assert encounter.exchanges[-1].weapon == weapon
    assert encounter.combatant("Alice").pool.spent == {Spend.ATTACK: 1}


async def test_r26_an_off_hand_attack_needs_an_off_hand_weapon_and_not_two_weapons(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, target="Bandit", hand="off hand")
    await refused(result, pommel, world, before)
    assert "Alice has no off-hand weapon" in result.content
    both = await attack(pommel, world, target="Bandit", hand="unarmed", two_weapons=True)
    await refused(both, pommel, world, before)
    assert "`two_weapons:` strikes with both hands (R26)" in both.content


# ---------------------------------------------------------------------------------- R13 passive defense


@pytest.mark.parametrize(
    ("face", "outcome", "hp"),
    [
        (6, "💥 **Hit** — against the passive defense (R13)", 9),
        (4, "💨 **Miss** — against the passive defense (R13)", 11),
        (5, f"{BIND} — against the passive defense (R13)", 11),
    ],
    ids=["r13_above_hits", "r13_below_misses", "r13_a_tie_is_a_bind"],
)
async def test_r13_passive_defense_hit_miss_and_tie_is_a_bind(
    world: World, start_bot: Any, face: int, outcome: str, hp: int
) -> None:
    faces = [face, 5] if face == 6 else [face]
    pommel = await dealt_fight(world, start_bot, faces=faces)
    asked = await attack(pommel, world, target="Bandit")
    assert asked.content.splitlines()[2] == (
        f"🛡️ <@{world.gm.id}> (GM): how does **Bandit** defend? Passive **10**, or active with 1 to 2 of 2 "
        "dice left (R13, R14)."
    )
    assert actions(asked) == ["passive", "active:1", "active:2", "void:1", "void:2"]
    result = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert result.callback_type == 7  # the request is edited into the result
    lines = result.content.splitlines()
    assert "🛡️ Passive defense (R13): +8 Base +1 Prowess +1 Dex = **10**" in lines
    assert outcome in lines
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == hp
    assert remaining(encounter, "Bandit") == 2
    assert encounter.exchanges[-1].status is ExchangeStatus.RESOLVED
    assert actions(result) == []
    all_rolled(pommel)


async def test_r13_a_helpless_target_defends_with_2_in_melee(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[2, 3])
    result = await attack(pommel, world, target="Bandit", helpless=True)
    lines = result.content.splitlines()
    assert "🛡️ Undefended (R13): +2 Undefended = **2**" in lines
    assert "💥 **Hit** — against the passive defense (R13)" in lines
    assert actions(result) == []  # nobody was asked
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 11
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R14 active defense


async def defended(
    pommel: RunningBot, world: World, defense: str, *, user: Any = None, **options: Any
) -> InteractionResult:
    """Alice attacks the Bandit with ``options``, and the GM clicks the Bandit's ``defense`` button."""
    asked = await attack(pommel, world, target="Bandit", **options)
    assert not asked.ephemeral, asked.content
    return await pommel.click(asked, exchange_button(asked, defense), user=user or world.gm)


async def test_r14_1_both_natural_1s_are_a_bind_and_nobody_fumbles(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[1, 1])
    result = await defended(pommel, world, "active:1")
    lines = result.content.splitlines()
    assert f"{BIND} — both counting dice are natural 1s (R14.1)" in lines
    assert "fumble" not in result.content
    assert actions(result) == []
    encounter = await fight_of(pommel, world)
    assert (encounter.combatant("Bandit").hp, remaining(encounter, "Bandit")) == (11, 1)
    assert encounter.reactions == []
    all_rolled(pommel)


async def test_r14_2_a_defender_natural_1_is_a_hit_whatever_the_totals(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3, 1, 4])
    result = await defended(pommel, world, "active:1", bonus=-5)
    lines = result.content.splitlines()
    assert "🎲 Attack: **3** +2 Prowess +3 Reach -5 Situational = **3**" in lines
    assert "🛡️ Active defense, 1 die: **1** +1 Prowess +1 Dex +3 Sword, Messer = **6**" in lines
    assert "💥 **Hit** — the defender's counting die is a natural 1 (R14.2)" in lines
    assert "❤️ **Bandit**: HP 11 → **10**/11" in lines
    assert actions(result) == ["desperate"]
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 10
    all_rolled(pommel)


async def test_r14_3_an_attacker_natural_20_hits_but_is_no_critical_unless_its_total_is_above(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 15, 6])
    result = await defended(pommel, world, "active:1", bonus=-20)
    lines = result.content.splitlines()
    assert "🎲 Attack: **20** +2 Prowess +3 Reach -20 Situational = **5**" in lines
    assert "💥 **Hit** — a natural 20 (R14.3)" in lines
    assert "🩸 Damage: Sword, Arming [6] 6 = 6 - DR 3 (Gambeson, Light) → **3**" in lines  # no crit die
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 8
    all_rolled(pommel)


async def test_r14_3_r14_4_both_natural_20s_the_hit_lands_and_the_defender_may_counterattack(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 20, 7])
    result = await defended(pommel, world, "active:1")
    lines = result.content.splitlines()
    assert "💥 **Hit** — a natural 20 (R14.3)" in lines  # 25 against 25: no critical
    assert "↩️ Bandit may **counterattack** (R14)" in lines
    assert "❤️ **Bandit**: HP 11 → **7**/11" in lines
    assert actions(result) == ["counter:1"]  # R14.3: a natural 20 hits whatever a desperation defense rolls
    encounter = await fight_of(pommel, world)
    assert [r.kind for r in encounter.reactions] == [ReactionKind.COUNTERATTACK]
    all_rolled(pommel)


async def test_r14_5_an_attacker_fumble_misses_and_offers_the_counterattack(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[1, 1, 8])
    result = await defended(pommel, world, "active:1", dice=2)
    lines = result.content.splitlines()
    assert "🎲 Attack: **1**, ~~1~~ +2 Prowess +3 Reach = **6**" in lines
    assert (
        "🤦 **Miss — Alice fumbles** (dropped weapon or similar: the GM decides) — "
        "the attacker fumbled (R14.5)"
    ) in lines
    assert "↩️ Bandit may **counterattack** (R14)" in lines
    assert actions(result) == ["counter:1"]
    encounter = await fight_of(pommel, world)
    assert [r.kind for r in encounter.reactions] == [ReactionKind.COUNTERATTACK]
    assert encounter.combatant("Bandit").hp == 11
    all_rolled(pommel)


async def test_r14_6_the_same_faces_are_a_bind_whatever_the_totals(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12, 12])
    result = await defended(pommel, world, "active:1", bonus=5)
    lines = result.content.splitlines()
    assert "🎲 Attack: **12** +2 Prowess +3 Reach +5 Situational = **22**" in lines  # against 17
    assert f"{BIND} — the counting dice show the same number (R14.6)" in lines
    assert lines[lines.index(f"{BIND} — the counting dice show the same number (R14.6)") + 1] == (
        "⛓️ What may follow the Bind: either side may try to seize or disarm the other's weapon, or use a "
        "Martial Feat a Bind triggers (the GM rules on it)."
    )  # a Bind used to say nothing of what may follow
    assert actions(result) == []
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 11
    all_rolled(pommel)


async def test_r14_6_a_void_defense_with_the_same_faces_is_no_bind_the_totals_decide(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12, 12, 5])
    result = await defended(pommel, world, "void:1")
    lines = result.content.splitlines()
    assert "🛡️ Active defense, 1 die, void: **12** +1 Prowess +1 Dex = **14**" in lines
    assert "💥 **Hit** — totals compared (R14.7)" in lines
    assert "❤️ **Bandit**: HP 11 → **9**/11" in lines
    encounter = await fight_of(pommel, world)
    assert encounter.exchanges[-1].defense is not None
    assert encounter.exchanges[-1].defense.void
    assert encounter.combatant("Bandit").hp == 9
    all_rolled(pommel)


async def test_r14_7_an_active_defense_that_loses_takes_the_damage_less_dr(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[14, 7, 9, 6])
    result = await defended(pommel, world, "active:1", dice=2)
    lines = result.content.splitlines()
    assert lines == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Arming, pierce, 2 dice at Onset",
        "🎲 Attack: **14**, ~~7~~ +2 Prowess +3 Reach = **19**",
        "🛡️ Active defense, 1 die: **9** +1 Prowess +1 Dex +3 Sword, Messer = **14**",
        "💥 **Hit** — totals compared (R14.7)",
        "🩸 Damage: Sword, Arming [6] 6 = 6 - DR 3 (Gambeson, Light) → **3**",
        "❤️ **Bandit**: HP 11 → **8**/11",
        "😱 Bandit may make a **desperation defense** with the last die left (R15).",
    ]
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == 8
    assert encounter.combatant("Bandit").pool.spent == {Spend.ACTIVE_DEFENSE: 1}
    assert encounter.combatant("Alice").pool.spent == {Spend.ATTACK: 2}
    log = [entry.text for entry in await channel_log(pommel, world) if entry.kind == "attack"]
    assert log == [
        "Alice attacks Bandit: 14 (7) = 19; awaiting the defense",
        "Alice → Bandit: attack 14 (7) = 19 vs active 9 = 14: hit (R14.7); damage 3; HP 11 → 8",
    ]
    all_rolled(pommel)


async def test_r14_7_a_higher_active_defense_misses(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[10, 11])
    result = await defended(pommel, world, "active:1")
    assert "💨 **Miss** — totals compared (R14.7)" in result.content.splitlines()  # 15 against 16
    assert actions(result) == []
    all_rolled(pommel)


async def test_r14_a_shield_adds_a_free_die_to_the_active_defense(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 5, 16], edit=gear("Bandit", shield="buckler"))
    asked = await attack(pommel, world, target="Bandit")
    assert asked.content.splitlines()[2] == (
        f"🛡️ <@{world.gm.id}> (GM): how does **Bandit** defend? Passive **11**, or active with 1 to 2 of 2 "
        "dice left (+1 free die with the shield) (R13, R14)."
    )
    assert actions(asked) == [
        "passive", "active:1", "active:2", "shield:1", "shield:2", "void:1", "void:2"
    ]  # fmt: skip
    result = await pommel.click(asked, exchange_button(asked, "shield:1"), user=world.gm)
    lines = result.content.splitlines()
    assert (
        "🛡️ Active defense, 1 die, with the shield: ~~5~~, **16** +1 Prowess +1 Dex +3 Sword, Messer = **21**"
        in (lines)
    )
    assert "💨 **Miss** — totals compared (R14.7)" in lines
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").pool.spent == {Spend.ACTIVE_DEFENSE: 1}  # the shield's die is free
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R15 desperation


async def test_r15_a_desperation_defense_that_does_better_stands_and_costs_a_die_next_round(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 6, 18])
    hit = await defended(pommel, world, "active:1")
    assert actions(hit) == ["desperate"]
    assert labels(hit) == ["Desperation defense (1 die)"]
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 8

    saved = await pommel.click(hit, exchange_button(hit, "desperate"), user=world.gm)
    lines = saved.content.splitlines()
    assert (
        "😱 Desperation defense (R15): **18** +1 Prowess +1 Dex +3 Sword, Messer = **23** — it stands"
        in lines
    )
    assert "📉 Bandit loses 1 die next round (R6, R15)." in lines
    assert "💨 **Miss** — totals compared (R14.7)" in lines
    assert not any(line.startswith("🩸") for line in lines)
    assert actions(saved) == []
    encounter = await fight_of(pommel, world)
    bandit = encounter.combatant("Bandit")
    assert bandit.hp == 11  # the blow is taken back
    assert bandit.pool.spent == {Spend.ACTIVE_DEFENSE: 1, Spend.DESPERATION_DEFENSE: 1}
    assert bandit.pool.penalty_next_round == 1
    assert encounter.initiative.swaps == []
    all_rolled(pommel)


async def test_r15_a_desperation_defense_that_does_worse_leaves_the_first_defense_standing(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 6, 5])
    hit = await defended(pommel, world, "active:1")
    worse = await pommel.click(hit, exchange_button(hit, "desperate"), user=world.gm)
    lines = worse.content.splitlines()
    assert (
        "😱 Desperation defense (R15): **5** +1 Prowess +1 Dex +3 Sword, Messer = **10** — "
        "the first defense was better and stands"
    ) in lines
    assert "💥 **Hit** — totals compared (R14.7)" in lines
    assert "❤️ **Bandit**: HP 11 → **8**/11" in lines
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == 8  # counted once, not twice
    assert encounter.combatant("Bandit").pool.penalty_next_round == 1
    all_rolled(pommel)


async def test_r15_a_higher_desperation_defense_that_still_loses_is_not_called_the_worse_one(
    world: World, start_bot: Any
) -> None:
    """The desperation 12 (17) beats the first defense's 9 (14) but still loses to the attack's 20: the
    first defense stands, and the message no longer says it "was better"."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 6, 12])
    hit = await defended(pommel, world, "active:1")
    desperate = await pommel.click(hit, exchange_button(hit, "desperate"), user=world.gm)
    assert (
        "😱 Desperation defense (R15): **12** +1 Prowess +1 Dex +3 Sword, Messer = **17** — "
        "no better an outcome, so the first defense stands"
    ) in desperate.content.splitlines()
    all_rolled(pommel)


async def test_r15_a_desperation_defense_by_the_side_with_the_initiative_swaps_it_next_round(
    world: World, start_bot: Any
) -> None:
    """Alice (K♠) went before the Bandit (2♣): her desperation defense swaps initiative, no die lost."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 4, 17, 3], edit=bandits_turn)
    asked = await attack(pommel, world, user=world.gm, target="Alice")
    hit = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.player)
    assert "❤️ **Alice**: HP 14 → **10**/14" in hit.content.splitlines()
    assert labels(hit) == ["Desperation defense (2 dice)"]
    saved = await pommel.click(hit, exchange_button(hit, "desperate"), user=world.player)
    lines = saved.content.splitlines()
    assert (
        "😱 Desperation defense (R15): **17**, ~~3~~ +2 Prowess +1 Dex +3 Sword, Arming = **23** — it stands"
        in (lines)
    )
    assert "🔄 Alice had the initiative: the two swap it next round (R15)." in lines
    encounter = await fight_of(pommel, world)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    assert alice.hp == 14
    assert alice.pool.penalty_next_round == 0
    assert encounter.initiative.swaps == [(alice.holder, bandit.holder)]
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R16 criticals


@pytest.mark.parametrize(
    ("attack_type", "die"),
    [("pierce", 6), ("chop", 8), ("slash", 10)],
    ids=["pierce_d6", "chop_d8", "slash_d10"],
)
async def test_r16_a_critical_rolls_the_crit_die_of_the_attack_type(
    world: World, start_bot: Any, attack_type: str, die: int
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 5, 4], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit", attack_type=attack_type)
    lines = result.content.splitlines()
    assert "💥 **Critical hit!** — a natural 20 (R16)" in lines
    assert f"🩸 Damage: Sword, Arming [5] 5 + 1d{die} crit [4] = 9 - DR 3 (Gambeson, Light) → **6**" in lines
    assert "❤️ **Bandit**: HP 11 → **5**/11" in lines
    all_rolled(pommel)


async def test_r16_a_natural_20_below_the_passive_defense_hits_without_a_critical(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 5], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit", bonus=-20)
    lines = result.content.splitlines()
    assert "💥 **Hit** — a natural 20 (R16)" in lines  # 5 against 10
    assert "🩸 Damage: Sword, Arming [5] 5 = 5 - DR 3 (Gambeson, Light) → **2**" in lines
    all_rolled(pommel)


async def test_r16_a_dynamic_critical_rolls_a_crit_die_per_attack_die_of_a_primary_type(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 3, 5, 4, 2], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit", dice=2)
    lines = result.content.splitlines()
    assert (
        "🩸 Damage: Sword, Arming [5] 5 + 2d6 dynamic crit [4, 2] = 11 - DR 3 (Gambeson, Light) → **8**"
        in lines
    )
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 3
    all_rolled(pommel)


async def test_r16_a_critical_of_a_type_that_is_not_primary_is_not_dynamic(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20, 3, 5, 4], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit", dice=2, attack_type="slash")
    assert "🩸 Damage: Sword, Arming [5] 5 + 1d10 crit [4] = 9 - DR 3 (Gambeson, Light) → **6**" in (
        result.content.splitlines()
    )
    all_rolled(pommel)


async def test_r16_a_bash_critical_is_nonlethal(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(
        world, start_bot, faces=[20, 6, 5], edit=both(PASSIVE_NPCS, gear("Alice", weapon="war_club"))
    )
    result = await attack(pommel, world, target="Bandit")
    lines = result.content.splitlines()
    assert (
        "🩸 Damage: Club, War [6] 6 + 1d6 crit [5] = 11 - DR 3 (Gambeson, Light) → **3** + **5 nonlethal** "
        "(Bash critical, R16)"
    ) in lines
    assert "❤️ **Bandit**: HP 11 → **8**/11, nonlethal 5" in lines
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.hp, bandit.nonlethal) == (8, 5)
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R17 armor, R18 fumble


async def test_r17_armor_piercing_lowers_the_dr(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(
        world, start_bot, faces=[15, 5], edit=both(PASSIVE_NPCS, gear("Alice", weapon="small_dagger"))
    )
    result = await attack(pommel, world, target="Bandit")
    assert "🩸 Damage: Dagger, Small [5] 5 = 5 - DR 1 (Gambeson, Light, after 2 Armor Piercing) → **4**" in (
        result.content.splitlines()
    )
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 7
    all_rolled(pommel)


async def test_r17_bypassing_the_armor_takes_its_penalty_and_a_hit_ignores_dr(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[16, 5], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit", bypass_armor=True)
    lines = result.content.splitlines()
    assert lines[0].endswith("1 die at Onset, bypassing the armor")
    assert lines[1] == "🎲 Attack: **16** +2 Prowess +3 Reach -6 Bypass Gambeson, Light = **15**"
    assert "🩸 Damage: Sword, Arming [5] 5 = 5; Gambeson, Light bypassed: no DR (R17) → **5**" in lines
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 6
    all_rolled(pommel)


async def test_r17_attacking_the_armor_damages_its_hp_after_hardness_and_broken_armor_gives_no_dr(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 7, 15, 8, 15, 5], edit=PASSIVE_NPCS)
    first = await attack(pommel, world, target="Bandit", at_armor=True)
    lines = first.content.splitlines()
    assert lines[0].endswith("1 die at Onset, at the armor")
    assert "🩸 Damage: Sword, Arming [7] 7 = 7 - Hardness 1 → **6** to Gambeson, Light's HP (R17)" in lines
    assert "🪖 Bandit's armor: 4 HP left" in lines
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.hp, bandit.armor_hp) == (11, 4)

    second = await attack(pommel, world, target="Bandit", at_armor=True)
    assert (
        "🪖 Bandit's armor: 0 HP left — **broken**: no protection until repaired"
        in second.content.splitlines()
    )

    third = await attack(pommel, world, target="Bandit")
    broken = "🩸 Damage: Sword, Arming [5] 5 = 5 - DR 0 (Gambeson, Light: broken, R17) → **5**"
    assert broken in third.content.splitlines()
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.hp, bandit.armor_hp) == (6, 0)
    all_rolled(pommel)


async def test_r17_a_bind_against_an_active_shield_damages_the_shield(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12, 3, 12, 8], edit=gear("Bandit", shield="buckler"))
    result = await defended(pommel, world, "shield:1")
    lines = result.content.splitlines()
    assert f"{BIND} — the counting dice show the same number (R14.6)" in lines
    assert "🛡️ The Bind strikes the shield (R17): 8 - Toughness 6 = **2** to Buckler; 8 HP left" in lines
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.hp, bandit.shield_hp) == (11, 8)
    all_rolled(pommel)


async def test_r18_a_fumble_against_the_passive_defense_misses_without_a_counterattack(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[1], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit")
    assert (
        "🤦 **Miss — Alice fumbles** (dropped weapon or similar: the GM decides) — "
        "every die that could count shows 1 (R18)"
    ) in result.content.splitlines()
    assert actions(result) == []
    assert (await fight_of(pommel, world)).reactions == []
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R9 another die


async def test_r9_the_defender_counts_its_other_die_to_turn_the_hit_into_a_bind(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 16, 15, 6])
    hit = await defended(pommel, world, "active:2", bonus=5)
    lines = hit.content.splitlines()
    assert "🛡️ Active defense, 2 dice: **16**, ~~15~~ +1 Prowess +1 Dex +3 Sword, Messer = **21**" in lines
    assert "💥 **Hit** — totals compared (R14.7)" in lines  # 25 against 21
    assert "🎯 Bandit may count the **15** instead: a Bind (R9)." in lines
    assert actions(hit) == ["defenderdie"]
    assert labels(hit) == ["Bandit: count the 15 (Bind)"]
    assert (await fight_of(pommel, world)).combatant("Bandit").hp == 8

    before = await fight_of(pommel, world)
    stolen = await pommel.click(hit, exchange_button(hit, "defenderdie"), user=world.player)
    await refused(stolen, pommel, world, before)

    bind = await pommel.click(hit, exchange_button(hit, "defenderdie"), user=world.gm)
    lines = bind.content.splitlines()
    assert "🎯 Bandit counts another die to force a Bind (R9)." in lines
    assert f"{BIND} — the counting dice show the same number (R14.6)" in lines
    assert not any(line.startswith("🩸") for line in lines)
    assert actions(bind) == []
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == 11  # the HP come back
    defense = encounter.exchanges[-1].defense
    assert defense is not None
    assert defense.roll is not None
    assert defense.roll.value == 15
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R7 spending


async def test_r7_an_attack_with_more_dice_than_remain_is_refused_with_the_number_left(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, target="Bandit", dice=4)
    await refused(result, pommel, world, before)
    assert "only 3 dice remain in your Martial Pool this round. Nothing was spent." in result.content


async def test_r7_two_attacks_at_once_cannot_overdraw_the_pool(world: World, start_bot: Any) -> None:
    def two_dice_spent(encounter: Encounter) -> None:
        encounter.combatant("Alice").pool.spend(2, Spend.MOVEMENT)

    pommel = await dealt_fight(world, start_bot, faces=[3], edit=both(PASSIVE_NPCS, two_dice_spent))
    results = await asyncio.gather(
        attack(pommel, world, target="Bandit"), attack(pommel, world, target="Bandit")
    )
    answered = sorted(result.ephemeral for result in results)
    assert answered == [False, True]
    refusal = next(result for result in results if result.ephemeral)
    assert "only 0 dice remain in your Martial Pool this round. Nothing was spent." in refusal.content
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Alice").pool.remaining == 0
    assert encounter.combatant("Alice").pool.spent == {Spend.MOVEMENT: 2, Spend.ATTACK: 1}
    assert len(encounter.exchanges) == 1
    all_rolled(pommel)


# ---------------------------------------------------------------------------------- R21-R23, R25 morale


def bandits_led_by_the_first(encounter: Encounter) -> None:
    """Bandits 1 (the leader, 2 HP left) and 2; NPC defenses are passive."""
    leader = encounter.combatant("Bandit 1")
    leader.leader, leader.hp = True, 2


async def test_r22_the_gm_whose_own_defense_click_proposes_a_morale_check_gets_no_second_message(
    world: World, start_bot: Any
) -> None:
    """The GM picked the leader's passive defense and it went down: besides the result, which names the
    proposal and carries its button, a message was posted that pinged nobody and said the same."""
    pommel = await dealt_fight(
        world, start_bot, faces=[15, 6], npcs=[("bandit", 2, "Bandits")], edit=bandits_led_by_the_first
    )
    asked = await attack(pommel, world, target="Bandit 1")
    assert asked.message is not None
    posted = len(world.table.history)
    result = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert "😨 #1 **Bandits** should check morale (R22)" in result.content
    assert actions(result) == [f"pommel:morale:1:{(await fight_of(pommel, world)).tag}"]
    assert world.table.history[posted:] == []
    assert not result.followups


async def test_r22_the_leader_going_down_proposes_a_morale_check_and_the_gm_rolls_it_r21(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[15, 6, 14],
        npcs=[("bandit", 2, "Bandits")],
        edit=both(PASSIVE_NPCS, bandits_led_by_the_first),
    )
    result = await attack(pommel, world, target="Bandit 1")
    lines = result.content.splitlines()
    assert "❤️ **Bandit 1**: HP 2 → **-1**/11 — **down**" in lines
    assert lines[-2:] == [
        "😨 #1 **Bandits** should check morale (R22) (round 1): Bandit 1, the leader, is down. "
        "1 of 2 are out of the fight.",
        f"🏳️ <@{world.gm.id}>: a morale check is proposed (R22); its buttons are below.",
    ]
    assert [user.id for user in result.message.mentions] == [world.gm.id]  # type: ignore[union-attr]
    encounter = await fight_of(pommel, world)
    roll = f"pommel:morale:1:{encounter.tag}"
    assert actions(result) == [roll]
    assert labels(result) == ["Roll morale: Bandits"]
    assert [(p.id, p.group) for p in encounter.morale_proposals] == [(1, "Bandits")]

    player = await pommel.click(result, roll, user=world.player)
    assert player.ephemeral
    assert await fight_of(pommel, world) == encounter
    rolled = await pommel.click(result, roll, user=world.gm)
    assert not rolled.ephemeral, rolled.content
    assert rolled.text.splitlines()[:5] == [
        "😨 **Morale check** for **Bandits** (R21: 11+ holds)",
        "Proposed (R22, #1): Bandit 1, the leader, is down. 1 of 2 are out of the fight.",
        "• **Bandit 2**: **14** +0 morale = `14` vs 11 → ✅ holds",
        "Not checking: **Bandit 1** (down)",
        "**1 of 1 hold.**",
    ]
    after = await fight_of(pommel, world)
    assert after.combatant("Bandit 2").standing is MoraleStanding.STEADY
    assert after.morale_proposals == []
    all_rolled(pommel)


async def test_r25_a_frightened_attacker_attacks_at_disadvantage(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[18, 6],
        edit=both(bandits_turn, gear("Bandit", standing=MoraleStanding.FRIGHTENED)),
    )
    asked = await attack(pommel, world, user=world.gm, target="Alice")
    lines = asked.content.splitlines()
    assert lines[0] == (
        "⚔️ **Bandit** attacks **Alice** — Sword, Messer, chop, 1 die at Onset, "
        "at disadvantage (attacker is frightened: Bandit's morale, R21)"
    )
    assert (
        lines[1] == "🎲 Attack: ~~18~~, **6** +1 Prowess +3 Reach = **10**"
    )  # one extra die, the highest removed
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").pool.spent == {Spend.ATTACK: 1}  # the extra die is free
    all_rolled(pommel)


async def test_r25_a_prone_target_is_attacked_with_advantage_in_melee(world: World, start_bot: Any) -> None:
    """R25, R10: the fight knows the target is prone (a condition): advantage in melee, one free die."""
    pommel = await dealt_fight(world, start_bot, faces=[5, 17], edit=both(bandits_turn, prone("Alice")))
    asked = await attack(pommel, world, user=world.gm, target="Alice")
    lines = asked.content.splitlines()
    assert lines[0].endswith("1 die at Onset, with advantage (prone target, in melee: Alice's condition)")
    assert lines[1] == "🎲 Attack: ~~5~~, **17** +1 Prowess +3 Reach = **21**"
    all_rolled(pommel)


async def test_r25_r10_a_frightened_attacker_against_a_prone_target_has_neither(
    world: World, start_bot: Any
) -> None:
    cancelled = await dealt_fight(
        world,
        start_bot,
        faces=[9],
        edit=both(bandits_turn, prone("Alice"), gear("Bandit", standing=MoraleStanding.FRIGHTENED)),
    )
    asked = await attack(cancelled, world, user=world.gm, target="Alice")
    first = asked.content.splitlines()[0]
    assert first.endswith(
        "advantage and disadvantage cancel (prone target, in melee: Alice's condition; "
        "attacker is frightened: Bandit's morale, R21)"
    )
    all_rolled(cancelled)


def prone(who: str) -> Callable[[Encounter], None]:
    def edit(encounter: Encounter) -> None:
        encounter.combatant(who).add_condition("prone")

    return edit


# ---------------------------------------------------------------------------------- R24 against AC


async def test_r24_against_ac_is_a_plain_d20_against_the_armor_class(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[11, 5, 7])
    hit = await attack(pommel, world, target="Bandit", against_ac=True)
    assert hit.content.splitlines() == [
        "⚔️ **Alice** attacks **Bandit** against AC — Sword, Arming",
        "🎲 **11** +2 Prowess +3 Reach = **16** against **AC 13** (R24)",  # light armor 12 + Dex 1
        "💥 **Hit**",
        "🩸 Damage: Sword, Arming [5] 5 = 5 → **5**",
        "❤️ **Bandit**: HP 11 → **6**/11",
    ]
    assert actions(hit) == []  # nobody is asked to defend
    miss = await attack(pommel, world, target="Bandit", against_ac=True)
    assert miss.content.splitlines()[1:] == [
        # R12: the pair's second attack of the round closes to Melee, where the sword's Speed counts
        "🎲 **7** +2 Prowess +3 Speed = **12** against **AC 13** (R24)",
        "💨 **Miss**",
    ]
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == 6
    assert encounter.combatant("Alice").pool.spent == {Spend.ATTACK: 2}
    assert encounter.engagement_now(encounter.combatant("Alice"), encounter.combatant("Bandit")).range is (
        Range.MELEE
    )
    all_rolled(pommel)


async def test_r24_magic_ac_the_gm_gives_is_met_by_an_attack_against_ac(world: World, start_bot: Any) -> None:
    """Lords of Hack: "Magic items and spells can add additional points of Armor Class". The GM gives
    the Bandit +4 magic AC with `/combatant edit magic_ac:`; Alice's 16 that hit its AC 13 now misses
    its AC 17."""
    pommel = await dealt_fight(world, start_bot, faces=[11])
    edited = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bandit", "magic_ac": 4})
    assert "- magic AC: 0 → **4**" in edited.content
    miss = await attack(pommel, world, target="Bandit", against_ac=True)
    assert miss.content.splitlines()[1:] == [
        "🎲 **11** +2 Prowess +3 Reach = **16** against **AC 17** (R24)",
        "💨 **Miss**",
    ]
    all_rolled(pommel)


async def test_r24_a_wolf_in_its_hide_is_ac_13_as_its_modifier_says(world: World, start_bot: Any) -> None:
    """Lords of Hack: "Monster Armor Class is determined by adding one of the 3 modifiers to 10". The
    wolf (AC modifier 3) is AC 13; its natural hide used to count as worn armor, 10 + DEX = 12."""
    pommel = await dealt_fight(world, start_bot, faces=[7], npcs=(("wolf", 1, "Wolf"),))
    result = await attack(pommel, world, target="Wolf", against_ac=True)
    assert result.content.splitlines()[1:] == [
        "🎲 **7** +2 Prowess +3 Reach = **12** against **AC 13** (R24)",
        "💨 **Miss**",
    ]
    all_rolled(pommel)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"grapple": True}, "a grapple is a Martial Pool attack (R12)"),
        ({"bypass_armor": True}, "`bypass_armor:` aims past armor"),
        ({"at_armor": True}, "`at_armor:` strikes the armor's HP"),
        ({"helpless": True}, "`helpless:` is the undefended defense"),
        ({"dice": 2}, "An attack against AC is one plain d20 (R24)"),
    ],
)
async def test_r24_options_that_cannot_go_with_against_ac_are_refused_and_nothing_is_spent(
    world: World, start_bot: Any, options: dict[str, object], named: str
) -> None:
    """Conflicting options used to be dropped silently (a grapple against AC dealt damage, no word)."""
    pommel = await dealt_fight(world, start_bot, faces=[11, 5])
    refused = await attack(pommel, world, target="Bandit", against_ac=True, **options)
    assert refused.ephemeral
    assert named in refused.content
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Alice").pool.spent == {}
    assert encounter.combatant("Bandit").hp == 11


# ---------------------------------------------------------------------------------- who may do what


async def test_a_player_cannot_attack_with_another_players_combatant(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, user=world.player2, who="Alice", target="Bandit")
    await refused(result, pommel, world, before)
    assert result.content == f"Alice is not yours: only <@{world.player.id}> or the GM can attack for them."


async def test_r1_attacking_out_of_turn_is_refused_when_no_counterattack_is_owed(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await attack(pommel, world, user=world.player2, target="Bandit")
    await refused(result, pommel, world, before)
    assert result.content == (
        "Bob can attack only on their own turn, and it is Alice's turn; out of turn only a counterattack "
        "(R14) or an opportunity attack (R12) the rules give is allowed."
    )


async def test_r14_a_counterattack_owed_may_be_taken_out_of_turn_with_attack(
    world: World, start_bot: Any
) -> None:
    """The counterattack the button offers can also be typed: /attack on the attacker, out of turn."""
    pommel = await dealt_fight(world, start_bot, faces=[15, 20, 4])
    await defended(pommel, world, "active:1")
    counter = await attack(pommel, world, user=world.gm, who="Bandit", target="Alice")
    assert counter.content.splitlines()[0] == (
        "⚔️ **Bandit** attacks **Alice** (counterattack) — Sword, Messer, chop, 1 die at Melee"
    )
    before = await fight_of(pommel, world)
    assert before.reactions == []
    again = await attack(pommel, world, user=world.gm, who="Bandit", target="Alice")
    await refused(again, pommel, world, before)  # owed once
    all_rolled(pommel)


async def test_a_player_cannot_click_the_defense_of_someone_elses_combatant(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15], edit=bandits_turn)
    asked = await attack(pommel, world, user=world.gm, target="Alice")
    before = await fight_of(pommel, world)
    stolen = await pommel.click(asked, exchange_button(asked, "passive"), user=world.player2)
    await refused(stolen, pommel, world, before)
    assert stolen.content == f"Alice is not yours: only <@{world.player.id}> or the GM can defend for them."
    assert before.exchanges[-1].status is ExchangeStatus.AWAITING_DEFENSE
    assert "how does **Alice** defend?" in asked.content  # the request still stands, buttons and all
    assert "passive" in actions(asked)


async def test_a_double_click_on_a_defense_button_resolves_once(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 9, 6])
    asked = await attack(pommel, world, target="Bandit")
    defense = exchange_button(asked, "active:1")
    clicks = await asyncio.gather(
        pommel.click(asked, defense, user=world.gm), pommel.click(asked, defense, user=world.gm)
    )
    assert sorted(click.ephemeral for click in clicks) == [False, True]
    second = next(click for click in clicks if click.ephemeral)
    assert "Nothing was changed" in second.content
    encounter = await fight_of(pommel, world)
    bandit = encounter.combatant("Bandit")
    assert (bandit.hp, bandit.pool.remaining) == (8, 1)  # one blow, one die
    assert "❤️ **Bandit**: HP 11 → **8**/11" in asked.content.splitlines()

    all_rolled(pommel)


# ---------------------------------------------------------------------------------- defense policy


async def test_defense_policy_passive_answers_for_the_npc_at_once(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12, 4], edit=PASSIVE_NPCS)
    result = await attack(pommel, world, target="Bandit")
    assert result.callback_type == 4
    assert result.content.splitlines() == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Arming, pierce, 1 die at Onset",
        "🎲 Attack: **12** +2 Prowess +3 Reach = **17**",
        "🛡️ Passive defense (R13): +8 Base +1 Prowess +1 Dex = **10**",
        "💥 **Hit** — against the passive defense (R13)",
        "🩸 Damage: Sword, Arming [4] 4 = 4 - DR 3 (Gambeson, Light) → **1**",
        "❤️ **Bandit**: HP 11 → **10**/11",
    ]
    assert actions(result) == []
    encounter = await fight_of(pommel, world)
    assert encounter.exchanges[-1].status is ExchangeStatus.RESOLVED
    assert remaining(encounter, "Bandit") == 2
    all_rolled(pommel)


async def test_defense_policy_active_with_all_dice_rolls_every_die_left_for_the_npc(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[15, 4, 9, 6], edit=policy(DefensePolicy.ACTIVE_ALL))
    result = await attack(pommel, world, target="Bandit")
    lines = result.content.splitlines()
    assert "🛡️ Active defense, 2 dice: ~~4~~, **9** +1 Prowess +1 Dex +3 Sword, Messer = **14**" in lines
    assert "💥 **Hit** — totals compared (R14.7)" in lines
    assert actions(result) == []  # no die left for a desperation defense
    encounter = await fight_of(pommel, world)
    bandit = encounter.combatant("Bandit")
    assert (bandit.hp, bandit.pool.spent) == (8, {Spend.ACTIVE_DEFENSE: 2})
    all_rolled(pommel)


async def test_defense_policy_does_not_answer_for_players(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(
        world, start_bot, faces=[15], edit=both(bandits_turn, policy(DefensePolicy.PASSIVE))
    )
    asked = await attack(pommel, world, user=world.gm, target="Alice")
    assert f"🛡️ <@{world.player.id}>: how does **Alice** defend?" in asked.content
    assert "⏰ If nobody picks by <t:" in asked.content
    assert "the defense is passive." in asked.content
    assert (await fight_of(pommel, world)).exchanges[-1].status is ExchangeStatus.AWAITING_DEFENSE
    all_rolled(pommel)


# ----------------------------------------------------------------------------- nobody pinged for their act


async def test_the_gm_is_not_pinged_by_an_npc_attacking_an_npc_nor_by_the_defense_their_undo_asks_again(
    world: World, start_bot: Any
) -> None:
    """The GM's Bandit attacks the GM's Wolf: the request asks the GM, who is not pinged for it (the GM
    made the attack). The GM defends, then undoes the defense: the request posted again pings nobody
    either (the GM undid it)."""
    pommel = await dealt_fight(
        world,
        start_bot,
        faces=[2],
        cards=("2C", "3C", "KS", "4C"),
        npcs=(("bandit", 1, "Bandit"), ("wolf", 1, "Wolves")),
    )
    asked = await attack(pommel, world, user=world.gm, target="Wolf", who="Bandit")
    assert not asked.ephemeral, asked.content
    assert f"<@{world.gm.id}> (GM): how does **Wolf** defend?" in asked.content
    assert asked.message is not None
    assert asked.message.mentions == []
    answered = await pommel.click(asked, exchange_button(asked, "passive"), user=world.gm)
    assert not answered.ephemeral, answered.content
    before = len(world.table.history)
    undo = await pommel.slash("encounter undo", user=world.gm)
    [confirm] = [c for c in undo.message.custom_ids() if c.startswith("pommel:undo:")] if undo.message else []
    await pommel.click(undo, confirm, user=world.gm)
    [again] = [m for m in world.table.history[before:] if "how does **Wolf** defend?" in m.content]
    assert again.mentions == []
    assert pinged_nobody(again)


def pinged_nobody(message: FakeMessage) -> bool:
    return not (message.allowed_mentions or {}).get("users")


async def test_a_player_attacking_an_npc_still_pings_the_gm_for_its_defense(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12])
    asked = await attack(pommel, world, target="Bandit")
    assert asked.message is not None
    assert [user.id for user in asked.message.mentions] == [world.gm.id]
