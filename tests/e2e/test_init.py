"""Card initiative end to end: ``/init`` and the tracker's buttons through the fake Discord (R1-R5).

The deck is stacked with :class:`StackedDice`, so every deal is known; every request the bot sends
is validated against Discord's OpenAPI spec by the fake, and a violation fails the test.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.encounter.document import group_holder, player_holder
from bot.rules.cards import Card

from .fake_discord import FakeUser, World
from .fights import (
    StackedDice,
    button_id,
    channel_log,
    dealt_fight,
    fight_of,
    gather_four_through_commands,
    seed_fight,
    tracker_message,
)
from .harness import BotRunner, InteractionResult, RunningBot


async def press(pommel: RunningBot, world: World, action: str, user: FakeUser) -> InteractionResult:
    """``user`` clicks the live tracker's ``action`` button."""
    tracker = tracker_message(world.table)
    return await pommel.click(tracker, button_id(tracker, action), user=user)


def pinged(result: InteractionResult) -> list[int]:
    assert result.callback is not None
    mentions = result.callback.data.get("allowed_mentions")
    assert mentions is not None
    assert mentions.get("parse") == [], "only listed users may ever be pinged"
    return [int(user) for user in mentions.get("users", [])]


async def start_four(world: World, start_bot: Any, *stacks: list[str]) -> RunningBot:
    """Ansel (player), Brigit (player2), Bandits (2) and Wolves (2): four cards a round."""
    pommel: RunningBot = await start_bot(dice=StackedDice(*stacks))
    await seed_fight(
        pommel,
        world,
        players=[(world.player, "Ansel"), (world.player2, "Brigit")],
        npcs=[("bandit", 2, "Bandits"), ("goblin", 2, "Wolves")],
    )
    return pommel


async def test_three_rounds_with_a_joker_claim_a_held_card_a_reshuffle_and_a_deck_that_runs_out(
    world: World, start_bot: Any
) -> None:
    """R1 order, R2 Joker reshuffle and run-out reshuffle, R3 Joker claim with +2, R4 hold across a round."""
    ansel, brigit = player_holder(world.player.id), player_holder(world.player2.id)
    bandits, wolves = group_holder("Bandits"), group_holder("Wolves")
    pommel = await start_bot(
        dice=StackedDice(
            ["BJ", "KS", "7D", "7C"],  # the first shuffle: dealt to Ansel, Brigit, Bandits, Wolves
            ["5H", "QD", "3S"],  # the Joker reshuffle before round 2 (Brigit keeps her held card)
            ["2H", "9C"],  # the reshuffle when the deck runs out in round 3
        )
    )
    await gather_four_through_commands(pommel, world)

    # Round 1. R1: Joker, then K♠, then 7♦ over 7♣ (same rank: ♦ beats ♣). The Joker's turn starts.
    dealt = await pommel.slash("init deal", user=world.gm)
    assert "**Round 1**" in dealt.content
    assert "🃏 Joker (black) **Ansel** · K♠ **Brigit** · 7♦ **Bandits** · 7♣ **Wolves**" in dealt.content
    assert "▶️ **Ansel**'s turn — 🃏 Joker (black)" in dealt.content
    assert "+2 to attack, damage" in dealt.content
    assert pinged(dealt) == [world.player.id]
    fight = await fight_of(pommel, world)
    assert [entry.holder for entry in fight.initiative.order] == [brigit, bandits, wolves]

    # Ansel holds the Joker to act later (R3); Brigit's K♠ comes up, and she holds too (R4).
    held = await press(pommel, world, "hold", world.player)
    assert "🂠 **Ansel** holds" in held.content
    assert "▶️ **Brigit**'s turn — K♠" in held.content
    held = await press(pommel, world, "hold", world.player2)
    # Between turns the held Joker is offered the turn (R3), and its player is pinged.
    assert "⏸️ Between turns: **Ansel**" in held.content
    assert pinged(held) == [world.player.id]
    claimed = await press(pommel, world, "act", world.player)
    assert "▶️ **Ansel**'s turn (claimed with a Joker) — 🃏 Joker (black)" in claimed.content
    assert "+2 to attack" in claimed.content
    fight = await fight_of(pommel, world)
    assert fight.initiative.turn_of == ansel
    nxt = await press(pommel, world, "next", world.player)
    assert "▶️ **Bandits**' turn — 7♦" in nxt.content
    assert pinged(nxt) == [world.gm.id]  # the GM runs the NPCs and was not the one who clicked
    nxt = await press(pommel, world, "next", world.gm)
    assert "▶️ **Wolves**' turn — 7♣" in nxt.content
    assert pinged(nxt) == []  # the GM clicked: nobody to wake
    over = await press(pommel, world, "next", world.gm)
    assert "⏹️ Round 1 is over" in over.content
    assert "**Brigit**" in over.content  # her held card may still act first

    # Round 2: a Joker was dealt in round 1, so every discard goes back in first (R2). Brigit's held
    # K♠ stays face down across the round (R4): she is not dealt a card.
    dealt = await press(pommel, world, "deal", world.gm)
    assert "**Round 2**" in dealt.content
    assert "🔀 Reshuffled" in dealt.content
    assert "a Joker was dealt last round" in dealt.content
    assert "Still held face down from an earlier round (R4): **Brigit**" in dealt.content
    assert "Q♦ **Bandits** · 5♥ **Ansel** · 3♠ **Wolves**" in dealt.content
    fight = await fight_of(pommel, world)
    assert fight.initiative.cards[brigit] == Card.model_validate("KS")
    assert fight.initiative.turn_of == bandits
    assert all(c.pool.remaining == c.pool.size for c in fight.combatants)  # R5, R8
    # During the Bandits' turn Brigit claims the next turn with her held card: it waits (R4).
    queued = await press(pommel, world, "act", world.player2)
    assert "**Brigit** claims the next turn: it starts when **Bandits**' turn ends" in queued.content
    nxt = await press(pommel, world, "next", world.gm)
    assert "▶️ **Brigit**'s turn (claimed with a held card) — K♠" in nxt.content
    assert pinged(nxt) == [world.player2.id]
    nxt = await press(pommel, world, "next", world.player2)
    assert "▶️ **Ansel**'s turn — 5♥" in nxt.content
    nxt = await press(pommel, world, "next", world.player)
    assert "▶️ **Wolves**' turn — 3♠" in nxt.content
    over = await press(pommel, world, "next", world.gm)
    assert "⏹️ Round 2 is over" in over.content

    # Round 3: no Joker last round, so no reshuffle first. The deck is down to its last two cards
    # (a long fight gets there after a dozen rounds; here the test takes the rest out of the pile),
    # so the discards are shuffled in mid-deal and dealing goes on (R2), which the log records.
    fight = await fight_of(pommel, world)
    assert fight.initiative.deck is not None
    deck = fight.initiative.deck
    last_two = [Card.model_validate("4D"), Card.model_validate("6S")]  # 6♠ is drawn first
    deck.discards += [card for card in deck.draw_pile if card not in last_two]
    deck.draw_pile = last_two
    await pommel.bot.store.save_encounter(fight)
    dealt = await press(pommel, world, "deal", world.gm)
    assert "**Round 3**" in dealt.content
    assert "before dealing to **Bandits**: the deck ran out while dealing" in dealt.content
    assert "9♣ **Wolves** · 6♠ **Ansel** · 4♦ **Brigit** · 2♥ **Bandits**" in dealt.content
    fight = await fight_of(pommel, world)
    dealt_deck = fight.initiative.deck
    assert dealt_deck is not None
    cards = list(fight.initiative.cards.values()) + dealt_deck.draw_pile + dealt_deck.discards
    assert len(cards) == 54
    assert len(set(cards)) == 54
    for user in (world.gm, world.player, world.player2, world.gm):
        await press(pommel, world, "next", user)
    fight = await fight_of(pommel, world)
    assert fight.initiative.is_round_over
    assert fight.initiative.round == 3
    log = await pommel.bot.store.read_log(channel_id=world.table.id)
    assert any("the deck ran out while dealing" in entry.text for entry in log)
    assert [entry.kind for entry in log].count("initiative") >= 15

    # The GM ends the fight: three rounds, 18 s of game time (R5), and the whole log attached.
    asked = await pommel.slash("encounter end", user=world.gm)
    assert asked.message is not None
    ended = await pommel.click(asked, asked.message.custom_ids()[0], user=world.gm)  # "End the fight"
    assert "3 rounds (18 s)" in ended.text
    [attachment] = ended.followups[0].attachments
    document = attachment.data.decode()
    assert "the deck ran out while dealing" in document
    assert "claimed with a Joker" in document


async def test_two_next_clicks_at_the_same_instant_advance_exactly_one_turn(
    world: World, start_bot: Any
) -> None:
    """R1: the player whose turn it is and the GM both click Next at once: one turn ends, one starts."""
    pommel = await start_four(world, start_bot, ["KS", "QS", "JS", "10S"])
    await pommel.slash("init deal", user=world.gm)
    tracker = tracker_message(world.table)
    stale_next = button_id(tracker, "next")
    first, second = await asyncio.gather(
        pommel.click(tracker, stale_next, user=world.player),
        pommel.click(tracker, stale_next, user=world.gm),
    )
    results = sorted([first, second], key=lambda result: result.ephemeral)
    assert not results[0].ephemeral
    assert "▶️ **Brigit**'s turn — Q♠" in results[0].content
    assert results[1].ephemeral
    assert "earlier moment of the fight" in results[1].content
    fight = await fight_of(pommel, world)
    assert fight.initiative.turn_of == player_holder(world.player2.id)
    assert fight.initiative.acted == [player_holder(world.player.id)]
    log = await pommel.bot.store.read_log(channel_id=world.table.id)
    assert sum("'s turn is over" in entry.text for entry in log) == 1


async def test_a_restart_between_two_turns_then_the_old_trackers_next_button_goes_on(
    world: World, bot_runner: BotRunner
) -> None:
    """Nothing is lost across a restart: the same tracker message's Next button starts the next turn."""
    first = await bot_runner.start_bot(dice=StackedDice(["KS", "QS", "JS", "10S"]))
    await seed_fight(first, world, players=[(world.player, "Ansel"), (world.player2, "Brigit")])
    await first.slash("init deal", user=world.gm)
    tracker = tracker_message(world.table)
    before = await fight_of(first, world)
    await first.close()

    second = await bot_runner.start_bot(dice=StackedDice())
    assert await fight_of(second, world) == before
    result = await second.click(tracker, button_id(tracker, "next"), user=world.player)
    assert not result.ephemeral, result.content
    assert "**Ansel**'s turn is over." in result.content
    assert "▶️ **Brigit**'s turn — Q♠" in result.content
    assert tracker_message(world.table).id == tracker.id  # edited in place, not reposted
    assert "**Now:** Q♠ **Brigit**" in tracker_message(world.table).embeds[0]["description"]


async def test_a_player_cannot_act_for_another_players_card_and_nothing_changes(
    world: World, start_bot: Any
) -> None:
    """Permissions: Next, Hold and Act belong to the card's player or the GM."""
    pommel = await start_four(world, start_bot, ["KS", "BJ", "JS", "10S"])
    await pommel.slash("init deal", user=world.gm)  # Brigit's Joker comes up first
    before = await fight_of(pommel, world)
    refusals = [
        await press(pommel, world, "next", world.player),
        await press(pommel, world, "hold", world.player),
        await pommel.slash("init next", user=world.player),
        await pommel.slash("init hold", user=world.player),
        await pommel.slash("init act", user=world.player, options={"card": "Bandits"}),
        await pommel.slash("init deal", user=world.player),
    ]
    for refused in refusals:
        assert refused.ephemeral, refused.content
    assert "only <@" in refusals[0].content
    assert "or the GM can end the turn of it" in refusals[0].content
    assert "Only the GM of this fight" in refusals[-1].content
    assert await fight_of(pommel, world) == before
    allowed = await press(pommel, world, "hold", world.player2)
    assert "🂠 **Brigit** holds" in allowed.content


async def test_next_from_anyone_but_the_gm_is_refused_between_turns(world: World, start_bot: Any) -> None:
    """R3: while the turn is offered to a held Joker, only the GM or the offered player move on."""
    pommel = await start_four(world, start_bot, ["BJ", "KS", "JS", "10S"])
    await pommel.slash("init deal", user=world.gm)
    await press(pommel, world, "hold", world.player)  # Ansel holds the Joker
    offered = await press(pommel, world, "next", world.player2)  # Brigit's turn ends: offer to Ansel
    assert "⏸️ Between turns: **Ansel**" in offered.content
    fight = await fight_of(pommel, world)
    assert fight.initiative.turn_of is None
    assert fight.flow.offered == [player_holder(world.player.id)]
    refused = await pommel.slash("init next", user=world.player2)
    assert refused.ephemeral
    assert "Only the GM" in refused.content
    declined = await pommel.slash("init next", user=world.player)  # Ansel lets the order go on
    assert "▶️ **Bandits**' turn — J♠" in declined.content


async def test_repost_option_moves_the_tracker_to_the_bottom_at_each_turn(
    world: World, start_bot: Any
) -> None:
    """Play-by-post: with repost on, the old tracker is deleted and a new one posted below the turn."""
    pommel = await start_four(world, start_bot, ["KS", "QS", "JS", "10S"])
    fight = await fight_of(pommel, world)
    fight.table = fight.table.model_copy(update={"repost_tracker": True})
    await pommel.bot.store.save_encounter(fight)
    await pommel.slash("init deal", user=world.gm)
    first = tracker_message(world.table)
    assert world.table.history[-1].id == first.id
    await press(pommel, world, "next", world.player)
    second = tracker_message(world.table)
    assert second.id != first.id
    assert first.id not in world.table.messages
    assert world.table.history[-1].id == second.id
    saved = await fight_of(pommel, world)
    assert saved.tracker is not None
    assert saved.tracker.message_id == second.id


async def test_hidden_npc_cards_show_only_when_their_turn_comes(world: World, start_bot: Any) -> None:
    pommel = await start_four(world, start_bot, ["KS", "QS", "AS", "10S"])
    fight = await fight_of(pommel, world)
    fight.table = fight.table.model_copy(update={"hide_npc_cards": True})
    await pommel.bot.store.save_encounter(fight)
    dealt = await pommel.slash("init deal", user=world.gm)
    assert "A♠" not in dealt.content.split("▶️")[0]
    assert "🂠 **Bandits**, **Wolves** (NPC cards hidden until their turn)" in dealt.content
    assert "▶️ **Bandits**' turn — A♠" in dealt.content  # revealed when the turn starts
    description = tracker_message(world.table).embeds[0]["description"]
    assert "🂠 **Wolves**" in description
    assert "10♠" not in description
    private = await pommel.slash("init show", user=world.gm, options={"private": True})
    assert private.ephemeral
    assert "10♠ **Wolves**" in private.embeds[0]["description"]


async def test_a_reposted_tracker_shows_a_change_made_while_it_was_being_posted(
    world: World, start_bot: Any
) -> None:
    """With repost on, a Next and an HP change at the same instant: the tracker at the bottom ends up
    showing both (the repost's own save of where the tracker is must not hide the HP change)."""
    pommel = await start_four(world, start_bot, ["KS", "QS", "JS", "10S"])
    await pommel.slash("encounter options", user=world.gm, options={"repost_tracker": True})
    await pommel.slash("init deal", user=world.gm)
    for hp in range(13, 5, -1):
        tracker = tracker_message(world.table)
        await asyncio.gather(
            pommel.click(tracker, button_id(tracker, "next"), user=world.gm),
            pommel.slash("combatant hp", user=world.gm, options={"who": "Ansel", "change": str(hp)}),
        )
        fight = await fight_of(pommel, world)
        description = tracker_message(world.table).embeds[0]["description"]
        assert f"Ansel · ●●● · HP {hp}/14" in description
        assert fight.tracker is not None
        assert fight.tracker.message_id == tracker_message(world.table).id
        if fight.initiative.is_round_over:
            await pommel.slash("init deal", user=world.gm)


async def test_removing_the_group_whose_turn_it_is_says_the_turn_is_over(
    world: World, start_bot: Any
) -> None:
    """R2: the card of a group that leaves is discarded; if its turn was on, the table is told."""
    pommel = await start_four(world, start_bot, ["KS", "QS", "AS", "10S"])
    dealt = await pommel.slash("init deal", user=world.gm)
    assert "▶️ **Bandits**' turn — A♠" in dealt.content
    for who in ("Bandit 1", "Bandit 2"):
        removed = await pommel.slash("npc remove", user=world.gm, options={"who": who})
        assert not removed.ephemeral, removed.content
    assert "Their turn was in progress and is over" in removed.content
    fight = await fight_of(pommel, world)
    assert fight.initiative.turn_of is None
    nxt = await pommel.slash("init next", user=world.gm)
    assert "▶️ **Ansel**'s turn — K♠" in nxt.content


# --------------------------------------------------------------------------------- conditions that run out


async def test_conditions_run_out_at_the_deal_and_at_their_holders_turn_end_and_the_table_is_told(
    world: World, start_bot: Any
) -> None:
    """Alice's K♠, then Bob's 7♦, then the Bandit's 2♣ (round 1 dealt)."""
    pommel = await dealt_fight(world, start_bot)
    for who, condition, duration in (
        ("Alice", "prone", {"rounds": 2}),
        ("Bob", "stunned", {"until_next_turn_end": True}),
        ("Bandit", "hexed", {}),
    ):
        options = {"who": who, "action": "add", "condition": condition, **duration}
        await pommel.slash("combatant condition", user=world.gm, options=options)

    alice_done = await pommel.slash("init next", user=world.gm)
    assert "no longer" not in alice_done.content
    assert (await fight_of(pommel, world)).combatant("Bob").conditions == ["stunned"]
    bob_done = await pommel.slash("init next", user=world.gm)
    assert "⌛ Bob is no longer stunned (it ran out)." in bob_done.content
    assert "Bob is no longer stunned (it ran out)." in (await channel_log(pommel, world))[-1].text
    await pommel.slash("init next", user=world.gm)

    first = await pommel.slash("init deal", user=world.gm)
    assert "no longer" not in first.content
    assert "Alice · ●●● · HP 14/14 · prone (1 round)" in tracker_message(world.table).embed_text
    for _ in range(3):
        await pommel.slash("init next", user=world.gm)
    second = await pommel.slash("init deal", user=world.gm)
    assert "⌛ Alice is no longer prone (it ran out)." in second.content
    assert "Alice is no longer prone (it ran out)." in (await channel_log(pommel, world))[-1].text
    fight = await fight_of(pommel, world)
    assert fight.combatant("Alice").conditions == []
    assert fight.combatant("Bandit").conditions == ["hexed"]
