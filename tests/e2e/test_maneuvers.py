"""``/move``, ``/range``, ``/save`` and ``/pool`` end to end through the fake Discord (R7, R12, R19, R20).

Every fight here is seeded through the store with round 1 dealt from a stacked deck: Alice (player,
pool 3) holds K♠ and has the turn, Bob (player2, pool 3) holds 7♦, the Bandit (GM, pool 2) holds 2♣.
The bot's own dice are scripted, so every save rolls known faces; a test that expects no roll gives
the bot no faces, and any roll would fail it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.encounter.document import Encounter, player_holder
from bot.encounter.records import Reaction, ReactionKind
from bot.rules.engagement import Range
from bot.rules.pool import Spend
from bot.table_options import DefensePolicy

from .fake_discord import World
from .fights import (
    channel_log,
    dealt_fight,
    edit_fight,
    exchange_action,
    fight_of,
    seed_fight,
    stored_tracker,
    tracker_message,
)


def two_turns_on(encounter: Encounter) -> None:
    """Alice's and Bob's turns end: the Bandit's turn is in progress."""
    encounter.next_turn()
    encounter.next_turn()


def grapple(alice_and: str) -> Callable[[Encounter], None]:
    """Put Alice and ``alice_and`` in Grapple range (as a grapple attack would have, R12)."""

    def edit(encounter: Encounter) -> None:
        encounter.engagement(encounter.combatant("Alice"), encounter.combatant(alice_and)).enter_grapple()

    return edit


def spent(encounter: Encounter, who: str) -> dict[Spend, int]:
    return dict(encounter.combatant(who).pool.spent)


# ---------------------------------------------------------------------------------- /move (R19)


async def test_r19_the_first_move_is_free_then_one_die_each_and_a_fourth_is_refused(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)

    first = await pommel.slash("move", user=world.player)
    assert not first.ephemeral
    assert first.content == "🏃 **Alice** moves (1st move this round, free) — 3/3 dice left"
    second = await pommel.slash("move", user=world.player)
    assert second.content == (
        "🏃 **Alice** moves (2nd move this round, 1 die from the Martial Pool) — 2/3 dice left"
    )
    third = await pommel.slash("move", user=world.player)
    assert third.content == (
        "🏃 **Alice** moves (3rd move this round, 1 die from the Martial Pool) — 1/3 dice left. "
        "That was the last move this round: 3 is the most (R19)."
    )
    encounter = await fight_of(pommel, world)
    alice = encounter.combatant("Alice")
    assert (alice.moves, alice.pool.remaining, spent(encounter, "Alice")) == (3, 1, {Spend.MOVEMENT: 2})
    assert "Alice · ●○○ · HP 14/14" in stored_tracker(world, encounter).embed_text

    log = await channel_log(pommel, world)
    assert [entry.kind for entry in log] == ["move", "move", "move"]
    assert log[-1].text == (
        "Alice: Alice moves (3rd move this round, 1 die from the Martial Pool), 1/3 dice left"
    )

    fourth = await pommel.slash("move", user=world.player)
    assert fourth.ephemeral
    assert "already moved 3 times this round; 3 moves is the most" in fourth.content
    assert await fight_of(pommel, world) == encounter
    assert len(await channel_log(pommel, world)) == 3


async def test_r19_entering_combat_range_costs_a_die_even_on_the_free_move(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)
    first = await pommel.slash("move", user=world.player, options={"combat_range": True})
    assert first.content == (
        "🏃 **Alice** moves (1st move this round, free, but 1 die from the Martial Pool to enter or "
        "leave combat range) — 2/3 dice left"
    )
    second = await pommel.slash("move", user=world.player, options={"combat_range": True})
    assert second.content == (
        "🏃 **Alice** moves (2nd move this round, 2 dice from the Martial Pool: 1 for the move, 1 to "
        "enter or leave combat range) — 0/3 dice left"
    )
    encounter = await fight_of(pommel, world)
    assert spent(encounter, "Alice") == {Spend.MOVEMENT: 3}

    # R7: the third move needs a die and none is left: refused with the number left, nothing spent.
    third = await pommel.slash("move", user=world.player)
    assert third.ephemeral
    assert "only 0 dice remain in your Martial Pool this round. Nothing was spent." in third.content
    assert await fight_of(pommel, world) == encounter


async def test_r19_running_spends_the_whole_pool_and_ends_the_moving(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    await pommel.slash("move", user=world.player)
    ran = await pommel.slash("move", user=world.player, options={"run": True})
    assert not ran.ephemeral
    assert ran.content == (
        "🏃 **Alice** runs (4 moves this round, spending the 3 dice left in the Martial Pool) — "
        "0/3 dice left. No more moves this round (R19)."
    )
    encounter = await fight_of(pommel, world)
    alice = encounter.combatant("Alice")
    assert (alice.moves, alice.pool.remaining, spent(encounter, "Alice")) == (4, 0, {Spend.MOVEMENT: 3})

    again = await pommel.slash("move", user=world.player, options={"run": True})
    assert again.ephemeral
    assert "You have already run this round." in again.content
    walk = await pommel.slash("move", user=world.player)
    assert walk.ephemeral
    assert "already moved 4 times" in walk.content
    assert await fight_of(pommel, world) == encounter


async def test_r19_running_is_refused_once_dice_went_to_something_else(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[12, 5])
    await pommel.slash("save", user=world.player, options={"target": 10, "dice": 1})
    before = await fight_of(pommel, world)
    assert spent(before, "Alice") == {Spend.SAVE: 1}

    ran = await pommel.slash("move", user=world.player, options={"run": True})
    assert ran.ephemeral
    assert "already spent dice on something else this round. You can still walk" in ran.content
    assert await fight_of(pommel, world) == before
    walked = await pommel.slash("move", user=world.player)
    assert "1st move this round, free" in walked.content


async def test_r19_run_and_combat_range_together_are_refused(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    both = await pommel.slash("move", user=world.player, options={"run": True, "combat_range": True})
    assert both.ephemeral
    assert "Pick one: `run`" in both.content
    assert await fight_of(pommel, world) == before


async def test_r1_moving_out_of_turn_is_refused(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await pommel.slash("move", user=world.player2)
    assert result.ephemeral
    assert result.content == "Bob can move only on their own turn, and it is Alice's turn."
    assert await fight_of(pommel, world) == before
    assert await channel_log(pommel, world) == []


async def test_a_player_cannot_move_another_players_combatant(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await pommel.slash("move", user=world.player2, options={"who": "Alice"})
    assert result.ephemeral
    assert result.content == f"Alice is not yours: only <@{world.player.id}> or the GM can move for them."
    assert await fight_of(pommel, world) == before


async def test_the_gm_moves_the_npc_whose_turn_it_is(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    early = await pommel.slash("move", user=world.gm, options={"who": "Bandit"})
    assert early.content == "Bandit can move only on their own turn, and it is Alice's turn."

    await edit_fight(pommel, world, two_turns_on)
    moved = await pommel.slash("move", user=world.gm)  # the Bandit is the only one on its card
    assert moved.content == "🏃 **Bandit** moves (1st move this round, free) — 2/2 dice left"
    assert (await fight_of(pommel, world)).combatant("Bandit").moves == 1


async def test_a_fallen_combatant_cannot_move(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)

    def fall(encounter: Encounter) -> None:
        encounter.combatant("Alice").hp = 0

    before = await edit_fight(pommel, world, fall)
    result = await pommel.slash("move", user=world.player)
    assert result.ephemeral
    assert result.content == "Alice is down and cannot move."
    assert await fight_of(pommel, world) == before


async def test_moving_before_the_first_deal_says_the_gm_deals_first(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    result = await pommel.slash("move", user=world.player)
    assert result.ephemeral
    assert "the GM deals the cards first (/init deal)" in result.content


async def test_move_autocompletes_the_fights_combatants(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    choices = await pommel.autocomplete("move", user=world.gm, focused="who", value="b")
    assert [choice["value"] for choice in choices.choices] == ["c2", "c3"]


# ---------------------------------------------------------------------------------- /range (R12)


async def test_r12_a_range_change_costs_a_die_per_step(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    closer = await pommel.slash("range", user=world.player, options={"target": "c3", "range": "melee"})
    assert not closer.ephemeral
    assert closer.content == (
        "↔️ **Alice** changes range with **Bandit**: Onset → **Melee** (1 die from the Martial Pool, "
        "1 per step) — 2/3 dice left"
    )
    encounter = await fight_of(pommel, world)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    assert encounter.engagement(alice, bandit).range is Range.MELEE
    assert spent(encounter, "Alice") == {Spend.RANGE_CHANGE: 1}
    assert encounter.reactions == []
    log = await channel_log(pommel, world)
    assert [(entry.kind, entry.text) for entry in log] == [
        ("range", "Alice: Alice changed range with Bandit: Onset → Melee (1 die), 2/3 dice left")
    ]

    back = await pommel.slash("range", user=world.player, options={"target": "Bandit", "range": "onset"})
    assert "Melee → **Onset** (1 die from the Martial Pool, 1 per step) — 1/3 dice left" in back.content
    encounter = await fight_of(pommel, world)
    assert encounter.engagement(alice, bandit).range is Range.ONSET
    assert encounter.engagement(alice, encounter.combatant("Bob")).range is Range.ONSET  # per pair


async def test_r12_leaving_grapple_provokes_an_opportunity_attack(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    await edit_fight(pommel, world, grapple("Bandit"))

    result = await pommel.slash("range", user=world.player, options={"target": "Bandit", "range": "melee"})
    assert not result.ephemeral
    assert result.content == (
        "↔️ **Alice** changes range with **Bandit**: Grapple → **Melee** (1 die from the Martial Pool, "
        "1 per step) — 2/3 dice left\n"
        "⚠️ Leaving Grapple provokes an opportunity attack (R12): **Bandit** may now attack **Alice** "
        "(the buttons below, or `/attack`) before the round ends (it costs Martial Pool dice, and Bandit "
        f"has 2/2 left). <@{world.gm.id}>"
    )
    assert [exchange_action(i) for i in result.message.custom_ids()] == ["counter:1", "counter:2"]  # type: ignore[union-attr]
    assert result.callback is not None
    mentions = result.callback.data["allowed_mentions"]
    assert (mentions["parse"], mentions["users"]) == ([], [world.gm.id])  # only the Bandit's GM
    encounter = await fight_of(pommel, world)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    assert encounter.engagement(alice, bandit).range is Range.MELEE
    assert encounter.reactions == [
        Reaction(
            kind=ReactionKind.OPPORTUNITY,
            by=bandit.id,
            against=alice.id,
            round=1,
            reason="Alice left Grapple range",
        )
    ]
    log = await channel_log(pommel, world)
    assert log[-1].text.endswith("; Bandit may make an opportunity attack on Alice")

    owed = await pommel.slash("pool", user=world.gm, options={"who": "Bandit"})
    assert owed.ephemeral
    assert (
        "May make: opportunity attack on **Alice** (Alice left Grapple range) with `/attack`" in owed.content
    )


async def test_r12_the_opportunity_attack_for_leaving_grapple_is_a_button_on_the_range_message(
    world: World, start_bot: Any
) -> None:
    """R12, R11: the GM clicks the Bandit's opportunity attack on /range's reply: one die at Melee with
    Speed; Alice is asked to defend, and the reply's buttons are gone."""
    pommel = await dealt_fight(world, start_bot, faces=[12])
    await edit_fight(pommel, world, grapple("Bandit"))
    moved = await pommel.slash("range", user=world.player, options={"target": "Bandit", "range": "melee"})
    assert moved.message is not None
    struck = await pommel.click(moved.message, moved.message.custom_ids()[0], user=world.gm)
    assert not struck.ephemeral, struck.content
    assert struck.content.splitlines()[:2] == [
        "⚔️ **Bandit** attacks **Alice** (opportunity attack) — Sword, Messer, chop, 1 die at Melee",
        "🎲 Attack: **12** +1 Prowess +4 Speed = **17**",
    ]
    assert world.table.messages[moved.message.id].custom_ids() == []
    encounter = await fight_of(pommel, world)
    assert encounter.reactions == []
    assert encounter.combatant("Bandit").pool.spent == {Spend.OPPORTUNITY_ATTACK: 1}


async def test_r12_grapple_to_onset_takes_two_steps_and_two_dice(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    await edit_fight(pommel, world, grapple("Bob"))
    result = await pommel.slash("range", user=world.player, options={"target": "Bob", "range": "onset"})
    assert "Grapple → **Onset** (2 dice from the Martial Pool, 1 per step) — 1/3 dice left" in result.content
    assert f"<@{world.player2.id}>" in result.content  # Bob's player is told of the opportunity attack
    encounter = await fight_of(pommel, world)
    assert [r.by for r in encounter.reactions] == [encounter.combatant("Bob").id]


async def test_r12_asking_for_grapple_is_refused_and_points_at_attack(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await pommel.slash("range", user=world.player, options={"target": "Bandit", "range": "grapple"})
    assert result.ephemeral
    assert "Grapple range is entered only by a successful unarmed or size S/T attack" in result.content
    assert "/attack with grapple on" in result.content
    assert await fight_of(pommel, world) == before


async def test_r12_a_range_change_is_refused_without_the_dice(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    await edit_fight(pommel, world, grapple("Bandit"))

    def spend_two(encounter: Encounter) -> None:
        encounter.combatant("Alice").pool.spend(2, Spend.ATTACK)

    before = await edit_fight(pommel, world, spend_two)
    result = await pommel.slash("range", user=world.player, options={"target": "Bandit", "range": "onset"})
    assert result.ephemeral
    assert result.content == (
        "You asked for 2 dice for range change, but only 1 die remain in your Martial Pool this round. "
        "Nothing was spent."
    )
    after = await fight_of(pommel, world)
    assert after == before
    assert after.reactions == []  # no opportunity attack for a change that did not happen


@pytest.mark.parametrize(
    ("target", "wanted", "says"),
    [
        ("Bandit", "onset", "You are already at Onset range with that opponent."),
        ("Alice", "melee", "Range is kept between two combatants"),
        ("Nobody", "melee", "Nobody called 'Nobody' is in this fight."),
    ],
)
async def test_r12_a_range_change_that_makes_no_sense_is_refused(
    world: World, start_bot: Any, target: str, wanted: str, says: str
) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await pommel.slash("range", user=world.player, options={"target": target, "range": wanted})
    assert result.ephemeral
    assert says in result.content
    assert await fight_of(pommel, world) == before


async def test_r1_changing_range_out_of_turn_is_refused(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    before = await fight_of(pommel, world)
    result = await pommel.slash("range", user=world.player2, options={"target": "Bandit", "range": "melee"})
    assert result.ephemeral
    assert result.content == "Bob can change range only on their own turn, and it is Alice's turn."
    assert await fight_of(pommel, world) == before


async def test_range_autocompletes_its_target(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    choices = await pommel.autocomplete("range", user=world.player, focused="target", value="ban")
    assert [choice["name"] for choice in choices.choices] == ["Bandit (HP 11/11)"]


async def test_r12_two_attacks_in_a_round_put_the_pair_in_melee_and_the_tracker_pool_and_overview_say_so(
    world: World, start_bot: Any
) -> None:
    """R11, R12: the second 1-die attack between Alice and the Bandit puts the pair in Melee; the tracker,
    /pool and /encounter show list that pair, and no pair still at Onset."""

    def passive_npcs(encounter: Encounter) -> None:
        encounter.table = encounter.table.model_copy(update={"defense_policy": DefensePolicy.PASSIVE})

    pommel = await dealt_fight(world, start_bot, faces=[3, 3], edit=passive_npcs)
    first = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert "1 die at Onset" in first.content.splitlines()[0]
    assert "**Ranges**" not in tracker_message(world.table).embed_text
    second = await pommel.slash("attack", user=world.player, options={"target": "Bandit"})
    assert "1 die at Melee" in second.content.splitlines()[0]

    ranges = "**Ranges** (every other pair is at Onset, R12)\n⚔️ Alice — Bandit: Melee"
    tracker = tracker_message(world.table)
    assert tracker.id == stored_tracker(world, await fight_of(pommel, world)).id
    assert (tracker.embeds[0]["description"] or "").endswith(f"Bandit · ●● · HP 11/11\n\n{ranges}")
    pool = await pommel.slash("pool", user=world.player)
    assert (
        pool.content.splitlines()[-1] == "Ranges: at Melee with **Bandit**; at Onset with everyone else (R12)"
    )
    bobs = await pommel.slash("pool", user=world.player2)
    assert "Ranges" not in bobs.content
    overview = await pommel.slash("encounter show", user=world.gm)
    assert (overview.embeds[0]["description"] or "").endswith(ranges)


# ---------------------------------------------------------------------------------- /save (R20)


async def test_r20_a_save_with_two_pool_dice_rolls_three_and_keeps_the_highest(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[4, 17, 9])
    result = await pommel.slash("save", user=world.player, options={"target": 15, "dice": 2, "bonus": 3})
    assert not result.ephemeral
    assert result.content == (
        "🛡️ **Alice** makes a saving throw against **15** with 1 free die + 2 dice from the Martial Pool, "
        "keeping the highest (R20)\n"
        "~~4~~, **17**, ~~9~~ → 17 +3 = `20` vs 15: ✅ **saved** — 1/3 dice left"
    )
    encounter = await fight_of(pommel, world)
    assert spent(encounter, "Alice") == {Spend.SAVE: 2}
    assert "Alice · ●○○" in stored_tracker(world, encounter).embed_text
    entry = (await channel_log(pommel, world))[-1]
    assert entry.kind == "save"
    assert entry.text == (
        "Alice: Alice saving throw vs 15 with 2 dice from the pool: [4, 17, 9] keep 17 +3 = 20, "
        "saved; 1/3 dice left"
    )
    assert entry.data["faces"] == [4, 17, 9]
    assert entry.data["private"] is False


async def test_r20_a_save_is_allowed_out_of_turn_and_always_has_its_free_die(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[6])
    before = await fight_of(pommel, world)
    result = await pommel.slash("save", user=world.player2, options={"target": 12, "bonus": 2})
    assert not result.ephemeral
    assert result.content == (
        "🛡️ **Bob** makes a saving throw against **12** with 1 free die, keeping the highest (R20)\n"
        "**6** → 6 +2 = `8` vs 12: ❌ **failed** — 3/3 dice left"
    )
    assert (await fight_of(pommel, world)).combatant("Bob").pool == before.combatant("Bob").pool


async def test_r7_a_save_asking_for_more_dice_than_remain_is_refused_and_rolls_nothing(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot)  # no faces: any roll would fail the test
    await pommel.slash("move", user=world.player)
    await pommel.slash("move", user=world.player)
    before = await fight_of(pommel, world)
    log_before = await channel_log(pommel, world)

    result = await pommel.slash("save", user=world.player, options={"target": 15, "dice": 3})
    assert result.ephemeral
    assert result.content == (
        "You asked for 3 dice for saving throw, but only 2 dice remain in your Martial Pool this round. "
        "Nothing was spent."
    )
    assert await fight_of(pommel, world) == before
    assert await channel_log(pommel, world) == log_before


async def test_r3_a_save_on_a_joker_turn_gets_no_joker_bonus(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[10], cards=("BJ", "7D", "2C"))
    current = (await fight_of(pommel, world)).initiative.current
    assert current is not None
    assert (current.holder, current.card.is_joker) == (player_holder(world.player.id), True)
    result = await pommel.slash("save", user=world.player, options={"target": 12, "bonus": 1})
    assert "**10** → 10 +1 = `11` vs 12: ❌ **failed**" in result.content
    assert "Joker" not in result.content


async def test_r10_a_save_with_disadvantage_strikes_the_highest_die(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[18, 6, 11])
    result = await pommel.slash(
        "save", user=world.player, options={"target": 11, "dice": 1, "situation": "disadvantage"}
    )
    assert "with disadvantage (the highest die is removed, R10)" in result.content
    assert "~~18~~, ~~6~~, **11** → 11 +0 = `11` vs 11: ✅ **saved** — 2/3 dice left" in result.content


async def test_a_private_save_is_shown_only_to_its_roller_but_still_spends_and_logs(
    world: World, start_bot: Any
) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[3, 15])
    result = await pommel.slash(
        "save", user=world.player2, options={"target": 14, "dice": 1, "private": True}
    )
    assert result.ephemeral
    assert "`15` vs 14: ✅ **saved** — 2/3 dice left" in result.content
    assert spent(await fight_of(pommel, world), "Bob") == {Spend.SAVE: 1}
    entry = (await channel_log(pommel, world))[-1]
    assert (entry.kind, entry.data["private"]) == ("save", True)


async def test_the_gm_saves_for_an_npc_but_a_player_cannot(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[20])
    refused = await pommel.slash("save", user=world.player, options={"target": 10, "who": "Bandit"})
    assert refused.ephemeral
    assert refused.content == "Bandit is not yours: only the GM can make a saving throw for them."
    saved = await pommel.slash("save", user=world.gm, options={"target": 10, "who": "Bandit"})
    assert "**Bandit** makes a saving throw" in saved.content
    assert "**20** → 20 +0 = `20` vs 10: ✅ **saved** — 2/2 dice left" in saved.content


# ---------------------------------------------------------------------------------- /pool


async def test_pool_shows_a_players_dice_spending_moves_and_penalty(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot, faces=[9, 2])
    await pommel.slash("move", user=world.player)
    await pommel.slash("move", user=world.player)
    await pommel.slash("save", user=world.player, options={"target": 5, "dice": 1})

    def desperate(encounter: Encounter) -> None:
        encounter.combatant("Alice").pool.penalty_next_round = 1

    await edit_fight(pommel, world, desperate)
    result = await pommel.slash("pool", user=world.player)
    assert result.ephemeral
    assert result.content == (
        "🎲 **Martial Pool** — round 1\n"
        "\n"
        "**Alice** · ●○○ 1/3 dice left\n"
        "Spent this round: 1 on movement, 1 on saving throw\n"
        "Moves: 2 this round (the next costs 1 die; 3 is the most)\n"
        "Next round: 1 die fewer at the refill (desperation defense, R6)"
    )


async def test_pool_for_the_gm_shows_the_npcs_whose_turn_it_is(world: World, start_bot: Any) -> None:
    pommel = await dealt_fight(world, start_bot)
    early = await pommel.slash("pool", user=world.gm)
    assert early.ephemeral
    assert "No NPC group's turn is in progress: name a combatant with `who:`" in early.content

    await edit_fight(pommel, world, two_turns_on)
    result = await pommel.slash("pool", user=world.gm)
    assert "**Bandit** · ●● 2/2 dice left" in result.content
    assert "Moves: none yet this round (the first is free)" in result.content
    assert "Alice" not in result.content


async def test_pools_are_not_secret_but_need_a_name_without_a_combatant(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    await seed_fight(pommel, world, players=[(world.player, "Alice")])
    alices = await pommel.slash("pool", user=world.player2, options={"who": "Alice"})
    assert alices.ephemeral
    assert alices.content == (
        "🎲 **Martial Pool** — no cards dealt yet; every pool refills at each deal (R8)\n\n"
        "**Alice** · ●●● 3/3 dice left\n"
        "Spent this round: nothing yet\n"
        "Moves: none yet this round (the first is free)"
    )
    stranger = await pommel.slash("pool", user=world.player2)
    assert stranger.ephemeral
    assert "You have no combatant in this fight. Name one with `who:`" in stranger.content


async def test_pool_without_a_fight_says_how_to_start_one(world: World, start_bot: Any) -> None:
    pommel = await start_bot()
    result = await pommel.slash("pool", user=world.player)
    assert result.ephemeral
    assert "/encounter start" in result.content
