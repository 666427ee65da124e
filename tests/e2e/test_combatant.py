"""``/combatant hp | condition | edit`` end to end: who may change whom, and what the table reads."""

from __future__ import annotations

from typing import Any

import pytest

from .fake_discord import World
from .fights import channel_log, fight_of, join, start, stored_tracker
from .harness import RunningBot


async def table(pommel: RunningBot, world: World) -> None:
    """A fight run by the GM: Alice (player), Bob (player2) and a Bandit."""
    await start(pommel, world)
    await join(pommel, world, world.player, "Alice")
    await join(pommel, world, world.player2, "Bob")
    await pommel.slash("npc add", user=world.gm, options={"template": "bandit"})


# ---------------------------------------------------------------------------------- hp


async def test_the_gm_takes_hp_and_the_table_sees_it(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    result = await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit", "change": "-5"})
    assert not result.ephemeral
    assert result.content == "❤️ **Bandit**: HP 11 → **6**/11"
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Bandit").hp == 6
    assert "Bandit · ●● · HP 6/11" in stored_tracker(world, encounter).embed_text
    assert (await channel_log(pommel, world))[-1].text == "Gamemaster: Bandit HP 11 → 6 (-5)"


@pytest.mark.parametrize(
    ("changes", "hp", "says"),
    [
        (["-4", "+ 5"], 14, "HP 10 → **14**/14"),  # never above the maximum
        (["-4", "+ 2"], 12, "HP 10 → **12**/14"),
        (["9"], 9, "HP 14 → **9**/14"),
        (["-40"], -14, "HP 14 → **-14**/14 — **down**"),  # never below minus the maximum
        (["-14"], 0, "**0**/14 — **down**"),
    ],
)
async def test_a_player_changes_their_own_hp(
    world: World, start_bot: Any, changes: list[str], hp: int, says: str
) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    for change in changes:
        result = await pommel.slash(
            "combatant hp", user=world.player, options={"who": "Alice", "change": change}
        )
    assert says in result.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == hp


@pytest.mark.parametrize("change", ["-0", "+3", "14"])
async def test_an_hp_change_that_changes_nothing_is_answered_privately_and_posts_nothing(
    world: World, start_bot: Any, change: str
) -> None:
    """`-0`, a heal at full HP or setting the HP it has posted a public line about nothing."""
    pommel = await start_bot()
    await table(pommel, world)
    before = len(world.table.history)
    result = await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": change})
    assert result.ephemeral
    assert result.content == (
        f"Alice is at HP 14/14, and `{change}` leaves it there: nothing was changed or posted."
    )
    assert len(world.table.history) == before


async def test_an_hp_change_in_other_digits_is_not_taken_for_a_number(world: World, start_bot: Any) -> None:
    """`٣` (an Arabic-Indic three) was taken as HP 3."""
    pommel = await start_bot()
    await table(pommel, world)
    result = await pommel.slash("combatant hp", user=world.player, options={"who": "Alice", "change": "٣"})
    assert result.ephemeral
    assert "is not an HP change" in result.content
    assert (await fight_of(pommel, world)).combatant("Alice").hp == 14


@pytest.mark.parametrize("who", ["Bob", "Bandit"])
async def test_a_player_cannot_change_someone_elses_hp(world: World, start_bot: Any, who: str) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("combatant hp", user=world.player, options={"who": who, "change": "-3"})
    assert result.ephemeral
    assert f"{who} is not yours" in result.content
    assert await fight_of(pommel, world) == before


@pytest.mark.parametrize("change", ["lots", "-", "5d6", "+-3", "123456"])
async def test_a_bad_hp_change_says_how_to_write_one(world: World, start_bot: Any, change: str) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash(
        "combatant hp", user=world.gm, options={"who": "Bandit", "change": change}, enforce_permissions=False
    )
    assert result.ephemeral
    assert result.errors == []
    assert "-5 to take 5 HP" in result.content or "isn't something I can use" in result.content
    assert await fight_of(pommel, world) == before


async def test_hp_autocompletes_the_fights_combatants(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    everyone = await pommel.autocomplete("combatant hp", user=world.player, focused="who")
    assert [choice["name"] for choice in everyone.choices] == [
        "Alice (HP 14/14)",
        "Bob (HP 14/14)",
        "Bandit (HP 11/11)",
    ]
    some = await pommel.autocomplete("combatant hp", user=world.player, focused="who", value="b")
    assert [choice["value"] for choice in some.choices] == ["c2", "c3"]
    result = await pommel.slash("combatant hp", user=world.gm, options={"who": "c3", "change": "-1"})
    assert "**Bandit**" in result.content


async def test_hp_without_a_fight_says_how_to_start_one(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    result = await pommel.slash("combatant hp", user=world.gm, options={"who": "x", "change": "-1"})
    assert result.ephemeral
    assert "/encounter start" in result.content
    empty = await pommel.autocomplete("combatant hp", user=world.gm, focused="who")
    assert empty.choices == []


# ---------------------------------------------------------------------------------- conditions


async def test_conditions_are_added_and_removed(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    added = await pommel.slash(
        "combatant condition",
        user=world.player,
        options={"who": "Alice", "action": "add", "condition": "prone"},
    )
    assert not added.ephemeral
    assert added.content == "🩹 **Alice** is now *prone*. Conditions: prone."
    await pommel.slash(
        "combatant condition",
        user=world.gm,
        options={"who": "Alice", "action": "add", "condition": "Stunned "},
    )
    encounter = await fight_of(pommel, world)
    assert encounter.combatant("Alice").conditions == ["prone", "Stunned"]
    assert "Alice · ●●● · HP 14/14 · prone, Stunned" in stored_tracker(world, encounter).embed_text

    again = await pommel.slash(
        "combatant condition",
        user=world.player,
        options={"who": "Alice", "action": "add", "condition": "PRONE"},
    )
    assert again.ephemeral
    assert "Alice is already prone." in again.content

    removed = await pommel.slash(
        "combatant condition",
        user=world.player,
        options={"who": "Alice", "action": "remove", "condition": "stunned"},
    )
    assert removed.content == "🩹 **Alice** is no longer *Stunned*. Conditions: prone."
    missing = await pommel.slash(
        "combatant condition",
        user=world.player,
        options={"who": "Alice", "action": "remove", "condition": "blinded"},
    )
    assert missing.ephemeral
    assert "Alice is not blinded. Conditions now: prone." in missing.content
    assert (await fight_of(pommel, world)).combatant("Alice").conditions == ["prone"]
    assert (await channel_log(pommel, world))[-1].text == "Alice: Alice is no longer Stunned"


async def test_a_condition_may_last_some_rounds_or_to_the_end_of_the_next_turn(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    added = await pommel.slash(
        "combatant condition",
        user=world.gm,
        options={"who": "Alice", "action": "add", "condition": "prone", "rounds": 2},
    )
    assert added.content == "🩹 **Alice** is now *prone*. Conditions: prone (2 rounds)."
    assert (await channel_log(pommel, world))[-1].text == "Gamemaster: Alice is now prone (2 rounds)"
    await pommel.slash(
        "combatant condition",
        user=world.gm,
        options={"who": "Alice", "action": "add", "condition": "stunned", "until_next_turn_end": True},
    )
    encounter = await fight_of(pommel, world)
    shown = "Alice · ●●● · HP 14/14 · prone (2 rounds), stunned (to end of next turn)"
    assert shown in stored_tracker(world, encounter).embed_text

    both = await pommel.slash(
        "combatant condition",
        user=world.gm,
        options={
            "who": "Bob",
            "action": "add",
            "condition": "dazed",
            "rounds": 1,
            "until_next_turn_end": True,
        },
    )
    assert both.ephemeral
    assert "Give the condition one duration" in both.content
    assert "not both" in both.content
    assert (await fight_of(pommel, world)).combatant("Bob").conditions == []


async def test_at_most_eight_conditions(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    for n in range(8):
        await pommel.slash(
            "combatant condition",
            user=world.gm,
            options={"who": "Bandit", "action": "add", "condition": f"hex {n}"},
        )
    ninth = await pommel.slash(
        "combatant condition", user=world.gm, options={"who": "Bandit", "action": "add", "condition": "hex 9"}
    )
    assert ninth.ephemeral
    assert "already has 8 conditions" in ninth.content
    assert len((await fight_of(pommel, world)).combatant("Bandit").conditions) == 8


async def test_a_player_cannot_change_someone_elses_conditions(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash(
        "combatant condition",
        user=world.player2,
        options={"who": "Alice", "action": "add", "condition": "prone"},
    )
    assert result.ephemeral
    assert "Alice is not yours" in result.content
    assert await fight_of(pommel, world) == before


async def test_a_condition_is_text_that_cannot_ping_or_format(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    result = await pommel.slash(
        "combatant condition",
        user=world.gm,
        options={"who": "Bandit", "action": "add", "condition": "**@everyone**"},
    )
    assert "\\*\\*\\@everyone\\*\\*" in result.content
    assert result.message is not None
    assert not result.message.mention_everyone


async def test_condition_suggestions_follow_the_action(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    await pommel.slash(
        "combatant condition", user=world.gm, options={"who": "Alice", "action": "add", "condition": "prone"}
    )
    adding = await pommel.autocomplete(
        "combatant condition",
        user=world.player,
        focused="condition",
        options={"who": "Alice", "action": "add"},
    )
    offered = [choice["value"] for choice in adding.choices]
    assert "stunned" in offered
    assert "frightened" in offered
    assert "prone" not in offered  # Alice is prone already
    removing = await pommel.autocomplete(
        "combatant condition",
        user=world.player,
        focused="condition",
        options={"who": "Alice", "action": "remove"},
    )
    assert [choice["value"] for choice in removing.choices] == ["prone"]


# ---------------------------------------------------------------------------------- edit


async def test_r27_the_gm_edits_int_the_kept_scores_and_a_spirits_hit_dice(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    result = await pommel.slash(
        "combatant edit",
        user=world.gm,
        options={"who": "Bandit", "int": 1, "wis_score": 11, "hit_dice": 4},
    )
    assert not result.ephemeral, result.content
    assert "- INT: 0 → **1**" in result.content
    assert "- WIS score: none → **11**" in result.content
    assert "- Hit Dice: none → **4**" in result.content
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.int_mod, bandit.wis_score, bandit.hit_dice) == (1, 11, 4)


async def test_r6_the_gm_edits_stats_and_the_pool_follows(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    result = await pommel.slash(
        "combatant edit",
        user=world.gm,
        options={
            "who": "Bandit",
            "prowess": 3,
            "max_hp": 8,
            "name": "Bandit Chief",
            "shield": "buckler",
            "off_hand": "none",  # R26: the off hand holds the buckler, so the dagger goes
        },
    )
    assert not result.ephemeral
    assert result.content.startswith("✏️ **Bandit** changed:")
    assert "- Prowess: 1 → **3**" in result.content
    assert "- max HP: 11 → **8**" in result.content
    assert "- HP: 11 → **8**" in result.content
    assert "- shield: none → **Buckler**" in result.content
    assert "- off hand: Dagger, Small → **none**" in result.content
    assert "- Martial Pool: 2 → **4**" in result.content  # R6: Prowess 3 + 1
    chief = (await fight_of(pommel, world)).combatant("Bandit Chief")
    assert (chief.prowess, chief.max_hp, chief.hp, chief.shield, chief.off_hand) == (3, 8, 8, "buckler", None)
    assert (chief.pool.size, chief.pool.remaining) == (4, 2)  # the new dice come at the next refill (R8)

    armored = await pommel.slash(
        "combatant edit", user=world.gm, options={"who": "Alice", "armor": "full_plate"}
    )
    assert "- armor: No Armor → **Harness, Full**" in armored.content
    alice = (await fight_of(pommel, world)).combatant("Alice")
    assert (alice.pool.size, alice.pool.remaining) == (2, 2)  # R6: heavy armor costs a die


async def test_edit_refuses_unknown_gear_clashing_names_and_a_shield_with_two_hands(
    world: World, start_bot: Any
) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    unknown = await pommel.slash(
        "combatant edit", user=world.gm, options={"who": "Alice", "weapon": "longswrd"}
    )
    assert unknown.ephemeral
    assert "There is no weapon called 'longswrd'" in unknown.content
    clash = await pommel.slash("combatant edit", user=world.gm, options={"who": "Alice", "name": "bob"})
    assert "Bob is already in this fight" in clash.content
    hands = await pommel.slash(
        "combatant edit", user=world.gm, options={"who": "Alice", "weapon": "greatsword", "shield": "heater"}
    )
    assert "needs both hands" in hands.content
    nothing = await pommel.slash("combatant edit", user=world.gm, options={"who": "Alice"})
    assert "Say what to change" in nothing.content
    assert await fight_of(pommel, world) == before


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"weapon": "greatsword"}, "Greatsword cannot be used for two-weapon fighting"),
        ({"shield": "heater"}, "The off hand can hold a shield or a second weapon, not both"),
        ({"off_hand": "sabre"}, "Only one of the two weapons may be a martial weapon"),
    ],
    ids=["two-handed weapon", "shield", "second martial weapon"],
)
async def test_r26_edit_refuses_gear_a_two_weapon_fighter_cannot_hold(
    world: World, start_bot: Any, options: dict[str, str], says: str
) -> None:
    """R26, as /character refuses it: the Bandit fights with a messer and an off-hand small dagger."""
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    assert before.combatant("Bandit").off_hand == "small_dagger"
    refused = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bandit", **options})
    assert refused.ephemeral
    assert says in refused.content
    assert refused.errors == []
    assert await fight_of(pommel, world) == before


async def test_r26_a_two_handed_weapon_once_the_off_hand_is_put_away(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    offered = await pommel.autocomplete("combatant edit", user=world.gm, focused="off_hand", value="")
    assert offered.choices[0] == {"name": "No off-hand weapon", "value": "none"}
    result = await pommel.slash(
        "combatant edit", user=world.gm, options={"who": "Bandit", "weapon": "greatsword", "off_hand": "none"}
    )
    assert "- weapon: Sword, Messer → **Greatsword**" in result.content
    assert "- off hand: Dagger, Small → **none**" in result.content
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.weapon, bandit.off_hand) == ("greatsword", None)


async def test_other_numbers_stay_editable_whatever_the_hands_hold(world: World, start_bot: Any) -> None:
    """The R26 check runs when the gear in hand changes, so gear from before it cannot block an HP fix."""
    pommel = await start_bot()
    await table(pommel, world)
    encounter = await fight_of(pommel, world)
    encounter.combatant("Bandit").weapon = "greatsword"  # saved before /combatant edit checked R26
    await pommel.bot.store.save_encounter(encounter)
    result = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bandit", "max_hp": 9})
    assert "- max HP: 11 → **9**" in result.content


async def test_edit_takes_a_shield_away(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    await pommel.slash("combatant edit", user=world.gm, options={"who": "Alice", "shield": "heater"})
    choices = await pommel.autocomplete("combatant edit", user=world.gm, focused="shield", value="no")
    assert choices.choices[0] == {"name": "No shield", "value": "none"}
    result = await pommel.slash("combatant edit", user=world.gm, options={"who": "Alice", "shield": "none"})
    assert "- shield: Heater Shield → **none**" in result.content
    assert (await fight_of(pommel, world)).combatant("Alice").shield is None


async def test_a_player_cannot_edit_even_their_own_combatant(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    before = await fight_of(pommel, world)
    result = await pommel.slash("combatant edit", user=world.player, options={"who": "Alice", "prowess": 5})
    assert result.ephemeral
    assert "Only the GM of this fight" in result.content
    assert await fight_of(pommel, world) == before


async def test_r17_the_gm_repairs_broken_armor_and_a_split_shield(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    fight = await fight_of(pommel, world)
    fight.combatant("Bandit").armor_hp = 0
    fight.combatant("Bandit").shield_hp = 2
    await pommel.bot.store.save_encounter(fight)
    result = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bandit", "repair": True})
    assert not result.ephemeral, result.content
    assert "- armor HP: 0 → **whole**" in result.content
    assert "- shield HP: 2 → **whole**" in result.content
    bandit = (await fight_of(pommel, world)).combatant("Bandit")
    assert (bandit.armor_hp, bandit.shield_hp) == (None, None)
    again = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bandit", "repair": True})
    assert again.ephemeral
    assert "nothing changed" in again.content


async def test_r23_the_gm_makes_a_player_character_the_partys_leader(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await table(pommel, world)
    made = await pommel.slash("combatant edit", user=world.gm, options={"who": "Alice", "leader": True})
    assert made.content == "✏️ **Alice** changed:\n- leader: no → **yes**"
    moved = await pommel.slash("combatant edit", user=world.gm, options={"who": "Bob", "leader": True})
    assert moved.content == "✏️ **Bob** changed:\n- Alice leader: yes → **no**\n- leader: no → **yes**"
    fight = await fight_of(pommel, world)
    assert [(c.name, c.leader) for c in fight.combatants] == [
        ("Alice", False),
        ("Bob", True),
        ("Bandit", False),
    ]


async def test_r22_the_gm_taking_a_leaders_hp_to_0_proposes_the_groups_morale_check(
    world: World, start_bot: Any
) -> None:
    """Damage dealt by hand (/combatant hp) is a trigger too: the leader of the Bandits is down."""
    pommel = await start_bot()
    await start(pommel, world)
    added = await pommel.slash(
        "npc add",
        user=world.gm,
        options={"template": "bandit", "count": 3, "group": "Bandits", "leader": True},
    )
    assert not added.ephemeral, added.content
    result = await pommel.slash(
        "combatant hp", user=world.player, options={"who": "Bandit 1", "change": "-11"}
    )
    assert result.ephemeral  # a player cannot hurt the GM's NPC by hand
    result = await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit 1", "change": "-11"})
    lines = result.content.splitlines()
    assert lines[0] == "❤️ **Bandit 1**: HP 11 → **0**/11 — **down**"
    assert "**Bandits** should check morale (R22)" in lines[1]
    assert "Bandit 1, the leader, is down." in lines[1]
    assert result.message is not None
    assert result.message.custom_ids() == [f"pommel:morale:1:{(await fight_of(pommel, world)).tag}"]
    again = await pommel.slash("combatant hp", user=world.gm, options={"who": "Bandit 2", "change": "-11"})
    assert again.message is not None
    assert again.message.custom_ids() == []  # the open proposal will answer for this too
