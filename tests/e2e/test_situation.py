"""Every Lords of Hack situation end to end (R25): the fight's state, set by ``/situation`` or as other
commands leave it, applied by ``/attack`` and ``/odds`` alike, each named in the message with where it
came from.

The fight: Alice and Bob (players) against three Bandits, with a Heavy Warhorse and a Riding Horse in
it; Alice's turn. Each case sets one situation and checks the attack's headline and the odds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.encounter.document import Encounter
from bot.encounter.records import Blow
from bot.rules.armor_class import Opening
from bot.rules.engagement import Distance, Range
from bot.rules.equipment import Size
from bot.rules.morale import MoraleStanding
from bot.table_options import DefensePolicy

from .fake_discord import World
from .fights import channel_log, dealt_fight, edit_fight, exchange_button, fight_of, tracker_message
from .harness import RunningBot

CARDS = ("KS", "7D", "4C", "3C", "2C")
"""Alice K♠ first, then Bob, the Bandits, the warhorse, the riding horse."""
NPCS = (("bandit", 3, "Bandits"), ("heavy_warhorse", 1, "Destriers"), ("riding_horse", 1, "Nags"))
HORSE, NAG = "Heavy Warhorse", "Riding Horse"

Edit = Callable[[Encounter], None]


def on(who: str, **fields: Any) -> Edit:
    def edit(encounter: Encounter) -> None:
        combatant = encounter.combatant(who)
        for key, value in fields.items():
            setattr(combatant, key, value)

    return edit


def placed(who: str, **fields: Any) -> Edit:
    def edit(encounter: Encounter) -> None:
        position = encounter.combatant(who).position
        for key, value in fields.items():
            setattr(position, key, value)

    return edit


def riding(rider: str, horse: str) -> Edit:
    def edit(encounter: Encounter) -> None:
        encounter.combatant(rider).position.mount = encounter.combatant(horse).id

    return edit


def attacked(against: str, *by: str, spears: bool = False) -> Edit:
    def edit(encounter: Encounter) -> None:
        target = encounter.combatant(against).id
        for name in by:
            encounter.blows.append(
                Blow(by=encounter.combatant(name).id, against=target, long_spear_or_bill=spears)
            )

    return edit


def apart(a: str, b: str, distance: Distance | None = None, at: Range | None = None) -> Edit:
    def edit(encounter: Encounter) -> None:
        engagement = encounter.engagement(encounter.combatant(a), encounter.combatant(b))
        if distance is not None:
            engagement.distance = distance
        if at is not None:
            engagement.range = at

    return edit


def last_struck(who: str, whom: str) -> Edit:
    def edit(encounter: Encounter) -> None:
        encounter.combatant(who).last_target = encounter.combatant(whom).id

    return edit


def prone(who: str) -> Edit:
    def edit(encounter: Encounter) -> None:
        encounter.combatant(who).add_condition("prone")

    return edit


def together(*edits: Edit) -> Edit:
    def edit(encounter: Encounter) -> None:
        for each in edits:
            each(encounter)

    return edit


def passive_npcs(encounter: Encounter) -> None:
    """NPCs defend passively: the attack resolves at once."""
    encounter.table = encounter.table.model_copy(update={"defense_policy": DefensePolicy.PASSIVE})


BOW = on("Alice", weapon="long_bow")
KNIGHT = together(on("Alice", knightly_combat=True), riding("Alice", HORSE))

# (id, what the fight holds, the target, options of the attack, the situation as the message names it)
CASES: list[tuple[str, Edit, str, dict[str, Any], str]] = [
    (
        "untrained mounted melee",
        riding("Alice", HORSE),
        "Bandit 1",
        {},
        "melee from horseback without Knightly Combat: Alice rides Heavy Warhorse without Knightly Combat",
    ),
    (
        "ranged from a moving horse",
        together(BOW, riding("Alice", HORSE), on(HORSE, moves=1)),
        "Bandit 1",
        {},
        "shooting from a moving horse: Alice rides Heavy Warhorse, which moved this round",
    ),
    (
        "footman against a rider",
        riding("Bandit 1", NAG),
        "Bandit 1",
        {},
        "on foot against a rider (no long spear or bill): Bandit 1 is mounted, Alice on foot",
    ),
    (
        "knight against a footman",
        KNIGHT,
        "Bandit 1",
        {},
        "Knightly rider against a footman: Alice rides Heavy Warhorse with Knightly Combat, "
        "Bandit 1 is on foot",
    ),
    (
        "knight against the man who struck his horse",
        together(KNIGHT, on("Bandit 1", weapon="bill"), last_struck("Bandit 1", HORSE)),
        "Bandit 1",
        {},
        "Knightly rider against the man who struck his horse: Bandit 1's last attack was on Heavy Warhorse",
    ),
    (
        "prone target in melee",
        prone("Bandit 1"),
        "Bandit 1",
        {},
        "prone target, in melee: Bandit 1's condition",
    ),
    (
        "prone target at range",
        together(BOW, prone("Bandit 1")),
        "Bandit 1",
        {},
        "prone target, at range: Bandit 1's condition",
    ),
    (
        "two attackers on a lone footman",
        attacked("Bandit 1", "Bob"),
        "Bandit 1",
        {},
        "2+ attackers against a lone footman: Bob, Alice on Bandit 1 this round",
    ),
    (
        "four men on a large monster",
        together(on("Bandit 3", size=Size.LARGE), attacked("Bandit 3", "Bob", "Bandit 1", "Bandit 2")),
        "Bandit 3",
        {},
        "4+ men against a large monster: Bob, Bandit 1, Bandit 2, Alice on Bandit 3 this round",
    ),
    (
        "five attackers on two footmen",
        together(
            placed("Bandit 1", beside=None),
            lambda e: setattr(e.combatant("Bandit 1").position, "beside", e.combatant("Bandit 2").id),
            attacked("Bandit 1", "Bob", HORSE),
            attacked("Bandit 2", NAG, "Bandit 3"),
        ),
        "Bandit 1",
        {},
        "5+ attackers against two footmen: Bob, Heavy Warhorse, Riding Horse, Bandit 3, Alice on Bandit 1 "
        "and the ally beside this round",
    ),
    (
        "long spears on a lone horseman",
        together(
            on("Alice", weapon="long_spear"),
            riding("Bandit 1", NAG),
            attacked("Bandit 1", "Bob", spears=True),
        ),
        "Bandit 1",
        {},
        "2+ riders or long spears against a lone horseman: Bob, Alice on Bandit 1 this round",
    ),
    (
        "shield wall",
        together(on("Bandit 1", shield="round_shield"), placed("Bandit 1", shield_wall=True)),
        "Bandit 1",
        {},
        "target in a shield wall: Bandit 1 stands in a shield wall",
    ),
    (
        "attacker scaling",
        placed("Alice", scaling=True),
        "Bandit 1",
        {},
        "attacker is scaling: Alice is scaling",
    ),
    (
        "target scaling",
        placed("Bandit 1", scaling=True),
        "Bandit 1",
        {},
        "target is scaling: Bandit 1 is scaling",
    ),
    ("attacker unseen", placed("Alice", unseen=True), "Bandit 1", {}, "attacker unseen: Alice is unseen"),
    (
        "unseen declared by the GM",
        together(),
        "Bandit 1",
        {"unseen": True},
        "attacker unseen: declared with `unseen:`",
    ),
    (
        "ranged at 150 feet",
        together(BOW, apart("Alice", "Bandit 1", Distance.VERY_FAR)),
        "Bandit 1",
        {},
        "ranged attack at 150' or more: Alice and Bandit 1 are 150' or more apart",
    ),
    (
        "thrown at 25 feet",
        together(on("Alice", weapon="javelin"), apart("Alice", "Bandit 1", Distance.MIDDLE)),
        "Bandit 1",
        {},
        "thrown attack at 25' or more: Alice and Bandit 1 are 25' to 50' apart",
    ),
    (
        "cover",
        together(BOW, placed("Bandit 1", cover=1)),
        "Bandit 1",
        {},
        "target has cover: Bandit 1 has 25% cover",
    ),
    (
        "shooting into a melee with an ally",
        together(BOW, apart("Bob", "Bandit 1", at=Range.MELEE)),
        "Bandit 1",
        {},
        "shooting into a melee with an ally: Bandit 1 is in melee with Bob",
    ),
]


async def fight(world: World, start_bot: Any, faces: list[int], edit: Edit | None = None) -> RunningBot:
    return await dealt_fight(world, start_bot, faces=faces, cards=CARDS, npcs=NPCS, edit=edit)


@pytest.mark.parametrize(
    ("edit", "target", "options", "reason"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
async def test_r25_each_situation_is_applied_from_the_fight_and_named_with_its_source(
    world: World, start_bot: Any, edit: Edit, target: str, options: dict[str, Any], reason: str
) -> None:
    pommel = await fight(world, start_bot, [9, 12, 14], edit)
    odds = await pommel.slash("odds", user=world.player, options={"target": target, **options})
    assert not odds.ephemeral or "🎯" in odds.content, odds.content
    assert reason in odds.content, odds.content
    asked = await pommel.slash("attack", user=world.player, options={"target": target, **options})
    assert not asked.ephemeral, asked.content
    headline = asked.content.splitlines()[0]
    assert reason in headline, headline
    exchange = (await fight_of(pommel, world)).exchanges[-1]
    assert reason in exchange.situations
    logged = (await channel_log(pommel, world))[-1].text
    assert logged.endswith("]")
    assert reason in logged  # the log keeps the reasons, for the GM reading it later


async def test_r25_an_incapacitated_target_is_hit_automatically_in_melee(
    world: World, start_bot: Any
) -> None:
    """A 1 would fumble; against an incapacitated target in melee it hits (R25), and says why."""
    pommel = await fight(world, start_bot, [1, 4], together(on("Bandit 1", conditions=["incapacitated"])))
    await edit_fight(pommel, world, passive_npcs)
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    lines = result.content.splitlines()
    assert "📌 Bandit 1 is incapacitated: hit automatically in melee (R25)" in lines
    assert "💥 **Hit** — a helpless target is hit automatically in melee (R25)" in lines


async def test_r25_a_thrown_weapon_past_50_feet_is_refused_and_nothing_is_spent(
    world: World, start_bot: Any
) -> None:
    edit = together(on("Alice", weapon="javelin"), apart("Alice", "Bandit 1", Distance.FAR))
    pommel = await fight(world, start_bot, [], edit)
    before = await fight_of(pommel, world)
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert result.ephemeral
    assert "thrown weapons reach 50' at most (R25)" in result.content
    assert await fight_of(pommel, world) == before


async def test_r25_scaling_with_a_two_handed_weapon_is_refused(world: World, start_bot: Any) -> None:
    pommel = await fight(
        world, start_bot, [], together(on("Alice", weapon="longsword"), placed("Alice", scaling=True))
    )
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert result.ephemeral
    assert "no two-handed weapons while scaling (R25)" in result.content


async def test_r25_a_fumble_shooting_into_the_melee_hits_the_ally(world: World, start_bot: Any) -> None:
    """Disadvantage (two dice, the highest removed): 1 and 1, a fumble; Bob is the one ally in the melee."""
    pommel = await fight(world, start_bot, [1, 1], together(BOW, apart("Bob", "Bandit 1", at=Range.MELEE)))
    await edit_fight(pommel, world, passive_npcs)
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert (
        "🎯 Shooting into the melee, the fumble hits **Bob** instead of Bandit 1 (R25): the GM applies the "
        "damage with `/combatant hp`."
    ) in result.content.splitlines()


async def test_r25_a_knights_lance_charge_from_a_heavy_warhorse_doubles_damage_and_the_horse_tramples(
    world: World, start_bot: Any
) -> None:
    """Advantage (Knightly rider against a footman): 15 and 3, the 15 counts; the lance's 1d10 shows 6,
    doubled. The warhorse is owed a trample on the same target: its button attacks out of turn, with
    advantage as the second attacker of a lone footman (14 and 4, hooves 1d8 showing 5)."""
    edit = together(KNIGHT, on("Alice", weapon="lance"))
    pommel = await fight(world, start_bot, [15, 3, 6, 14, 4, 5], edit)
    await edit_fight(pommel, world, passive_npcs)
    result = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1", "charge": True})
    lines = result.content.splitlines()
    assert (
        "📌 Lance charge from Heavy Warhorse, a heavy warhorse, with Knightly Combat: double damage (R25)"
        in lines
    )
    assert "📌 Heavy Warhorse tramples on the charge: it may attack Bandit 1 with its hooves (R25)" in lines
    damage = next(line for line in lines if line.startswith("🩸"))
    assert damage.startswith("🩸 Damage: Lance, War [6] 6 +6 lance charge (double, R25) = 12")
    assert result.message is not None
    trample = exchange_button(result, "counter:1")
    assert result.message.component(trample)["label"] == "Heavy Warhorse: Trample 1 die"
    trampled = await pommel.click(result, trample, user=world.gm)
    assert trampled.content.startswith("⚔️ **Heavy Warhorse** attacks **Bandit 1** (trample) — Hooves, bash")
    assert (
        "with advantage (2+ attackers against a lone footman: Alice, Heavy Warhorse on Bandit 1 this round)"
        in trampled.content.splitlines()[0]
    )
    assert (await fight_of(pommel, world)).reactions == []


async def test_r25_a_window_makes_the_target_at_least_ac_17_against_missiles(
    world: World, start_bot: Any
) -> None:
    pommel = await fight(
        world, start_bot, [12, 14, 4], together(BOW, placed("Bandit 1", opening=Opening.WINDOW))
    )
    result = await pommel.slash(
        "attack", user=world.player, options={"target": "Bandit 1", "against_ac": True}
    )
    assert "target has cover: Bandit 1 is behind a window" in result.content
    assert "against **AC 17** (at least 17 through a window, R25) (R24)" in result.content


async def test_r14_cover_adds_free_dice_to_the_active_defense_against_a_missile(
    world: World, start_bot: Any
) -> None:
    """The Bandit shoots at Alice behind 50% cover (disadvantage: 12 and 14, the 14 drops); Alice defends
    with 1 die and gets 2 free ones from the cover."""

    def bandits_turn(encounter: Encounter) -> None:
        encounter.next_turn()
        encounter.next_turn()

    edit = together(on("Bandit 1", weapon="long_bow"), placed("Alice", cover=2), bandits_turn)
    pommel = await fight(world, start_bot, [12, 14, 3, 18, 5], edit)
    asked = await pommel.slash("attack", user=world.gm, options={"target": "Alice", "who": "Bandit 1"})
    assert "target has cover: Alice has 50% cover" in asked.content.splitlines()[0]
    assert (
        "active with 1 to 3 of 3 dice left (+2 dice free from 50% cover against the missile) (R13, R14)"
        in (asked.content)
    )
    result = await pommel.click(asked, exchange_button(asked, "active:1"), user=world.player)
    assert "🧱 Alice's cover: +2 dice free against the missile (one per 25%, R14)" in result.content
    assert "🛡️ Active defense, 1 die: ~~3~~, **18**, ~~5~~" in result.content


# ----------------------------------------------------------------------------- /situation


async def test_situation_set_puts_it_in_the_tracker_and_the_attack_reads_it(
    world: World, start_bot: Any
) -> None:
    pommel = await fight(world, start_bot, [9, 12])
    reply = await pommel.slash(
        "situation set",
        user=world.gm,
        options={"who": "Bandit 1", "cover": 50, "prone": True, "scaling": True},
    )
    assert not reply.ephemeral, reply.content
    assert "📍 **Bandit 1**'s situation (R25):" in reply.content
    assert "- cover: 0% → **50%**" in reply.content
    tracker = tracker_message(world.table)
    assert "Bandit 1 · ●● · HP 11/11 · prone · *scaling, 50% cover*" in tracker.embeds[0]["description"]
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert (
        "prone target, in melee: Bandit 1's condition; target is scaling: Bandit 1 is scaling"
        in asked.content
    )


async def test_situation_set_is_refused_to_a_player_for_someone_elses_combatant(
    world: World, start_bot: Any
) -> None:
    pommel = await fight(world, start_bot, [])
    reply = await pommel.slash("situation set", user=world.player, options={"who": "Bob", "unseen": True})
    assert reply.ephemeral
    assert "not yours" in reply.content


async def test_situation_mount_and_dismount_through_the_commands(world: World, start_bot: Any) -> None:
    pommel = await fight(world, start_bot, [])
    mounted = await pommel.slash(
        "situation mount", user=world.player, options={"who": "Alice", "horse": HORSE}
    )
    assert (
        "Mounting takes Alice's whole round: no quick, move or active action left this round (R25)."
        in mounted.content
    )
    assert "on Heavy Warhorse" in tracker_message(world.table).embeds[0]["description"]
    refused = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert refused.ephemeral
    assert "forfeited this round's actions" in refused.content
    # R25: the full round leaves no quick action either; next round, or a rider already up, may.
    refused = await pommel.slash(
        "situation dismount", user=world.player, options={"who": "Alice", "quick_check": "failed"}
    )
    assert refused.ephemeral
    assert "forfeited this round's actions" in refused.content
    await edit_fight(pommel, world, on("Alice", forfeit_round=0, moves=0))
    down = await pommel.slash(
        "situation dismount", user=world.player, options={"who": "Alice", "quick_check": "failed"}
    )
    assert "falls prone" in down.content
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Alice").position.mount is None
    assert encounter.combatant("Alice").condition_named("prone") == "prone"


async def test_situation_distance_sets_the_band_for_missiles(world: World, start_bot: Any) -> None:
    pommel = await fight(world, start_bot, [], BOW)
    reply = await pommel.slash(
        "situation distance",
        user=world.player,
        options={"who": "Alice", "other": "Bandit 2", "distance": "very far"},
    )
    assert "- distance to Bandit 2: under 25' → **150' or more**" in reply.content
    odds = await pommel.slash("odds", user=world.player, options={"target": "Bandit 2"})
    assert "ranged attack at 150' or more: Alice and Bandit 2 are 150' or more apart" in odds.content


async def test_r25_a_riding_horse_is_proposed_a_morale_check_at_every_deal(
    world: World, start_bot: Any
) -> None:
    def round_over(encounter: Encounter) -> None:
        while encounter.initiative.turn_of is not None:
            encounter.next_turn()

    pommel = await fight(world, start_bot, [], round_over)
    dealt = await pommel.slash("init deal", user=world.gm)
    assert (
        "should check morale: Riding Horse: a riding horse checks morale every round of combat, "
        "or bolts (R25)." in dealt.content
    )


async def test_the_gm_makes_a_combatant_a_mount_and_gives_knightly_combat(
    world: World, start_bot: Any
) -> None:
    pommel = await fight(world, start_bot, [])
    edited = await pommel.slash(
        "combatant edit", user=world.gm, options={"who": "Bob", "steed": "warhorse", "knightly_combat": True}
    )
    assert "- Knightly Combat: no → **yes**" in edited.content
    assert "- mount: none → **warhorse**" in edited.content
    mounted = await pommel.slash(
        "situation mount", user=world.player, options={"who": "Alice", "horse": "Bob"}
    )
    assert not mounted.ephemeral, mounted.content
    assert (await fight_of(pommel, world)).combatant("Alice").position.mount == (
        await fight_of(pommel, world)
    ).combatant("Bob").id


async def test_r21_merciful_names_the_surrender_of_a_frightened_target(world: World, start_bot: Any) -> None:
    pommel = await fight(world, start_bot, [9, 12], on("Bandit 1", standing=MoraleStanding.FRIGHTENED))
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1", "merciful": True})
    assert (
        "📌 Bandit 1 is frightened and Alice shows mercy: it may surrender instead of fighting (R21); "
        "the GM decides"
    ) in asked.content.splitlines()
    odds = await pommel.slash("odds", user=world.player, options={"target": "Bandit 1", "merciful": True})
    assert "Bandit 1 is frightened and Alice shows mercy" in odds.content


async def test_r25_getting_up_armed_takes_the_whole_round(world: World, start_bot: Any) -> None:
    """Lords of Hack: "Getting up from a prone position, while carrying combat arms, takes an entire
    round's actions." It used to be only noted: the attack after it was allowed."""
    pommel = await fight(world, start_bot, [], prone("Alice"))
    reply = await pommel.slash("situation set", user=world.player, options={"who": "Alice", "prone": False})
    assert "- prone: yes → **no**" in reply.content
    assert (
        "📌 Getting up while carrying combat arms takes Alice's whole round (R25): no move and no attack "
        "left this round."
    ) in reply.content
    refused = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    assert refused.ephemeral
    assert "forfeited this round's actions" in refused.content


async def test_r25_a_failed_leap_to_ones_feet_stays_prone_and_the_table_sees_it(
    world: World, start_bot: Any
) -> None:
    pommel = await fight(world, start_bot, [], prone("Alice"))
    reply = await pommel.slash(
        "situation set", user=world.player, options={"who": "Alice", "prone": False, "get_up_check": "failed"}
    )
    assert not reply.ephemeral
    assert "- getting up: prone → **check failed, still prone**" in reply.content
    assert "📌 The Acrobatics or Athletics check failed: Alice stays prone (R25)." in reply.content
    assert (await fight_of(pommel, world)).combatant("Alice").condition_named("prone") == "prone"
    up = await pommel.slash(
        "situation set", user=world.player, options={"who": "Alice", "prone": False, "get_up_check": "passed"}
    )
    assert "- prone: yes → **no**" in up.content
    assert (await fight_of(pommel, world)).combatant("Alice").forfeit_round == 0


@pytest.mark.parametrize("nature", ["construct", "huge"])
async def test_r25_numbers_give_no_advantage_against_a_construct_or_a_huge_monster(
    world: World, start_bot: Any, nature: str
) -> None:
    fields: dict[str, Any] = {"constructed": True} if nature == "construct" else {"size": Size.VERY_LARGE}
    pommel = await fight(
        world, start_bot, [9], together(on("Bandit 1", **fields), attacked("Bandit 1", "Bob"))
    )
    asked = await pommel.slash("attack", user=world.player, options={"target": "Bandit 1"})
    headline = asked.content.splitlines()[0]
    assert headline == "⚔️ **Alice** attacks **Bandit 1** — Sword, Arming, pierce, 1 die at Onset", headline


async def test_r25_forming_a_shield_wall_takes_half_of_ones_move(world: World, start_bot: Any) -> None:
    """Lords of Hack: "It takes half of one's move allowance to form or maintain a shield wall." Alice
    forms one on her turn: that is her free move, so her next move costs a die (both were free)."""
    pommel = await fight(world, start_bot, [], on("Alice", shield="round_shield"))
    formed = await pommel.slash(
        "situation set", user=world.player, options={"who": "Alice", "shield_wall": True}
    )
    assert "- shield wall: no → **yes**" in formed.content
    assert (
        "📌 Forming a shield wall takes half of Alice's move (R25): move 1 of the round, free (R19); keeping "
        "it takes one move of every round."
    ) in formed.content
    moved = await pommel.slash("move", user=world.player)
    assert "2nd move this round, 1 die from the Martial Pool" in moved.content


async def test_r25_a_riding_horse_closing_with_an_enemy_is_proposed_its_morale_check(
    world: World, start_bot: Any
) -> None:
    """Lords of Hack: "A riding horse, mule, pony or draft horse must make a morale check before closing
    with an enemy". Alice closes on the Riding Horse: the GM is pinged with the check and its button."""
    pommel = await fight(world, start_bot, [], riding("Alice", NAG))
    closed = await pommel.slash("range", user=world.player, options={"target": "Bandit 1", "range": "melee"})
    assert (
        "😨 #1 **Nags** should check morale (R22) (round 1): Riding Horse closes with Bandit 1: a riding "
        f"horse checks morale before closing with an enemy, or bolts (R25). <@{world.gm.id}>"
    ) in closed.content
    assert closed.message is not None
    labels = [closed.message.component(custom_id).get("label") for custom_id in closed.message.custom_ids()]
    assert "Roll morale: Nags" in labels


async def test_r25_a_warhorse_that_carried_its_moving_rider_does_not_strike(
    world: World, start_bot: Any
) -> None:
    """Lords of Hack: a warhorse "will strike out with its hooves any combat round when it does not
    move"; carrying Alice on her move is moving. The GM's /attack for it is refused, changing nothing."""

    def horses_turn(encounter: Encounter) -> None:
        encounter.initiative.turn_of = encounter.combatant(HORSE).holder

    pommel = await fight(
        world, start_bot, [], together(riding("Alice", HORSE), on("Alice", moves=1), horses_turn)
    )
    before = await fight_of(pommel, world)
    refused = await pommel.slash("attack", user=world.gm, options={"who": HORSE, "target": "Bob"})
    assert refused.ephemeral
    assert (
        "Heavy Warhorse carried Alice, who moved this round: a warhorse strikes with its hooves only in a "
        "round it does not move (R25)."
    ) in refused.content
    assert await fight_of(pommel, world) == before
