"""The tracker's line for a combatant: pool, HP and what state it is in (R6, R16, R21, R25); the
ranges of the pairs not at Onset (R12)."""

from __future__ import annotations

import random
from collections.abc import MutableSequence

from bot.catalog import load_catalog
from bot.characters import MAX_NAME_LENGTH
from bot.encounter.combatants import MAX_CONDITION_LENGTH, MAX_CONDITIONS, Combatant, Lasting, Side
from bot.encounter.document import MAX_COMBATANTS, Encounter
from bot.rules.cards import Card
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Engagement, Range, pair_key
from bot.rules.morale import MoraleStanding
from bot.rules.pool import MartialPool
from bot.ui.buttons import tracker_buttons
from bot.ui.tracker import (
    DESCRIPTION_LIMIT,
    MESSAGE_TEXT_LIMIT,
    RANGES_SHOWN,
    Section,
    combatant_line,
    fight_ranges,
    name,
    packed,
    range_line,
    shrunk,
    tracker_embeds,
    tracker_lines,
)
from tests import sheets
from tests.rules.conftest import deck_dealing


def bandit(**over: object) -> Combatant:
    fields: dict[str, object] = {
        "id": "c1",
        "name": "Bandit",
        "side": Side.NPC,
        "holder": "g:bandit",
        "prowess": 1,
        "max_hp": 11,
        "hp": 11,
        "weapon": "messer",
        "pool": MartialPool.full(2),
    }
    return Combatant.model_validate(fields | over)


def test_a_steady_fighter_shows_its_pool_and_hp_only() -> None:
    assert combatant_line(bandit()) == "Bandit · ●● · HP 11/11"


def test_down_beats_every_other_state() -> None:
    line = combatant_line(bandit(hp=0, nonlethal=3, standing=MoraleStanding.ROUTED))
    assert line.endswith("HP 0/11 · **down**")


def test_r16_nonlethal_damage_as_high_as_the_hp_left_knocks_out() -> None:
    assert combatant_line(bandit(hp=4, nonlethal=4)).endswith("HP 4/11 · **unconscious**")
    assert combatant_line(bandit(hp=4, nonlethal=3)).endswith("HP 4/11")


def test_r21_routed_and_frightened_show_on_the_tracker() -> None:
    assert combatant_line(bandit(standing=MoraleStanding.ROUTED)).endswith("· **routed**")
    assert combatant_line(bandit(standing=MoraleStanding.FRIGHTENED)).endswith("· **frightened**")
    # R21: the GM may rule the Routed Demoralized; the tracker says so like the other standings
    assert combatant_line(bandit(standing=MoraleStanding.DEMORALIZED)).endswith("· **demoralized**")


# ---------------------------------------------------------------------------------- ranges (R12)

CATALOG = load_catalog()


def ranged_fight() -> Encounter:
    """Alice and Bob (players), Bandit 1 and Bandit 2, and a Wolf: Alice and Bandit 1 at Melee, Bob
    and the Wolf at Grapple, Alice and Bob attacked once (at Onset still), everyone else never fought."""
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    for owner, who in ((7, "Alice"), (8, "Bob")):
        sheet = sheets.character(who)
        encounter.join(owner, sheet, CATALOG.armor(sheet.armor))
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2)
    encounter.add_npcs(CATALOG.monster("goblin"), None, count=1, name="Wolf")
    alice, bob = encounter.combatant("Alice"), encounter.combatant("Bob")
    encounter.engagement(encounter.combatant("Bandit 1"), alice).range = Range.MELEE
    encounter.engagement(bob, encounter.combatant("Wolf")).enter_grapple()
    encounter.engagement(alice, bob).record_attack(1)
    assert encounter.engagement_now(alice, bob).range is Range.ONSET
    return encounter


def test_r12_the_tracker_lists_the_pairs_at_melee_or_grapple_and_not_those_at_onset() -> None:
    text = tracker_text(ranged_fight())
    assert text.endswith(
        "\n\n**Ranges** (every other pair is at Onset, R12)\n"
        "🤼 Bob — Wolf: Grapple\n"
        "⚔️ Alice — Bandit 1: Melee"
    )
    assert "Alice — Bob" not in text
    assert "Bandit 2 —" not in text
    at_onset = ranged_fight()
    at_onset.engagements = {}  # when every pair is at Onset, there is nothing to list
    assert "**Ranges**" not in tracker_text(at_onset)


def test_r12_a_pair_with_a_combatant_who_left_is_not_shown() -> None:
    encounter = ranged_fight()
    wolf = encounter.combatant("Wolf")
    encounter.remove(wolf)
    # A range kept for someone no longer in the fight is not listed either, however it got there.
    encounter.engagements[pair_key(wolf.id, encounter.combatant("Alice").id)] = Engagement(
        range=Range.GRAPPLE
    )
    text = "\n".join(tracker_lines(encounter))
    assert "Wolf" not in text
    assert text.endswith("**Ranges** (every other pair is at Onset, R12)\n⚔️ Alice — Bandit 1: Melee")


def test_r12_ranges_are_ordered_closest_first_then_by_names_and_names_are_escaped() -> None:
    encounter = ranged_fight()
    encounter.rename(encounter.combatant("Bandit 2"), "Zed*")
    encounter.engagement(encounter.combatant("Zed*"), encounter.combatant("Alice")).range = Range.MELEE
    encounter.engagement(encounter.combatant("Wolf"), encounter.combatant("Alice")).range = Range.MELEE
    assert [range_line(pair) for pair in fight_ranges(encounter)] == [
        "🤼 Bob — Wolf: Grapple",
        "⚔️ Alice — Bandit 1: Melee",
        "⚔️ Alice — Wolf: Melee",
        "⚔️ Alice — Zed\\*: Melee",
    ]


def sixty(name: str) -> Encounter:
    """A fight of MAX_COMBATANTS NPCs called ``name`` 1, 2, ..., paired off at Grapple (30 pairs)."""
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    while len(encounter.combatants) < MAX_COMBATANTS:
        encounter.add_npcs(CATALOG.monster("bandit"), None, count=20, name=name, group=name)
    everyone = encounter.combatants
    for first, second in zip(everyone[::2], everyone[1::2], strict=True):
        encounter.engagement(first, second).enter_grapple()
    return encounter


def tracker_text(encounter: Encounter) -> str:
    """The tracker's descriptions, one after the other, each checked against Discord's limits."""
    embeds = tracker_embeds(encounter)
    descriptions = [embed.description or "" for embed in embeds]
    assert all(len(text) <= DESCRIPTION_LIMIT for text in descriptions)
    assert sum(map(len, descriptions)) <= MESSAGE_TEXT_LIMIT
    assert len(embeds) <= 10
    return "\n".join(descriptions)


def roster_of(text: str) -> list[str]:
    return text.split("**Combatants**\n")[1].split("\n\n")[0].splitlines()


def test_r12_a_sixty_combatant_fight_shows_ten_pairs_and_counts_the_rest() -> None:
    text = tracker_text(sixty("Rat"))
    ranges = text.split("**Ranges** (every other pair is at Onset, R12)\n")[1].splitlines()
    assert ranges[:5] == [f"🤼 Rat {n} — Rat {n + 1}: Grapple" for n in (1, 3, 5, 7, 9)]
    assert len(ranges) == RANGES_SHOWN + 1
    assert ranges[-1] == "… and 20 more pairs at Melee or Grapple"
    assert len(roster_of(text)) == MAX_COMBATANTS
    assert "more lines" not in text


def test_a_sixty_combatant_tracker_of_the_longest_names_shows_everyone_in_short() -> None:
    """Nobody is left out to fit Discord's limits: the lines get shorter, and the ranges are counted."""
    longest = "_" * (MAX_NAME_LENGTH - 3)
    text = tracker_text(sixty(longest))
    roster = roster_of(text)
    assert len(roster) == MAX_COMBATANTS
    names = [line.split(" · ")[0].removesuffix(" (leader)") for line in roster]
    assert all("…" in shown and shown.endswith(f"_ {n}") for n, shown in enumerate(names, start=1))
    assert "more lines" not in text
    assert text.endswith("**Ranges**: 30 pairs at Melee or Grapple (`/encounter show`)")


class Shuffled:
    def roll(self, sides: int) -> int:
        raise AssertionError("no die is rolled at a deal")

    def shuffle(self, items: MutableSequence[Card]) -> None:
        random.Random(3).shuffle(items)


def test_the_longest_fight_a_document_allows_shows_everyone_and_whose_turn_is_now_and_next() -> None:
    """50 cards of names that escape to twice their length, 60 combatants with 8 conditions of the
    longest each, all at Grapple, 20 cards acted: nothing is left out, only shortened."""
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    for n in range(50):
        encounter.add_npcs(CATALOG.monster("bandit"), None, count=1, name="*" * 60 + f"{n:04d}")
    encounter.deal(Shuffled())
    for n in range(MAX_COMBATANTS - 50):
        group = encounter.combatants[n].group
        encounter.add_npcs(CATALOG.monster("bandit"), None, count=1, name="*" * 60 + f"x{n:03d}", group=group)
    for combatant in encounter.combatants:
        combatant.conditions = [f"{'_' * (MAX_CONDITION_LENGTH - 3)}{k:03d}" for k in range(MAX_CONDITIONS)]
    everyone = encounter.combatants
    for first, second in zip(everyone[::2], everyone[1::2], strict=True):
        encounter.engagement(first, second).enter_grapple()
    encounter.initiative.acted = [entry.holder for entry in encounter.initiative.order[:20]]
    del encounter.initiative.order[:20]
    text = tracker_text(encounter)
    assert len(text) > DESCRIPTION_LIMIT
    now = encounter.initiative.current
    assert now is not None
    assert f"**Now:** {now.card.label} **{name(encounter.holder_name(now.holder))}**" in text
    following = encounter.initiative.order[0]
    assert f"**Still to act**\n{following.card.label} **\\*" in text
    roster = roster_of(text)
    assert len(roster) == MAX_COMBATANTS
    assert all(line.split(" · ")[0].endswith(f"{n:04d}"[-3:]) for n, line in enumerate(roster[:50]))
    assert "more lines" not in text


def test_a_condition_shows_how_long_it_still_lasts() -> None:
    fighter = bandit(
        conditions=["prone", "stunned", "hexed"],
        lasting={"prone": Lasting(rounds_left=2), "stunned": Lasting(until_turn_end=True)},
    )
    assert combatant_line(fighter).endswith("· prone (2 rounds), stunned (to end of next turn), hexed")
    fighter.lasting["prone"].rounds_left = 1
    assert "prone (1 round)," in combatant_line(fighter)


def test_packing_keeps_a_section_whole_where_it_fits_and_never_exceeds_a_description() -> None:
    first = ["a" * 30, "b" * 30]
    second = ["", "c" * 50]
    assert packed([first, second], 100) == ["a" * 30 + "\n" + "b" * 30, "c" * 50]
    assert packed([first, second], 200) == ["a" * 30 + "\n" + "b" * 30 + "\n\n" + "c" * 50]
    assert packed([["x" * 150]], 100) == ["x" * 99 + "…"]


def test_shrinking_goes_from_the_last_section_up_and_never_shrinks_the_first() -> None:
    sections = [
        Section([["now " * 10]]),
        Section([["", "order " * 10], ["", "order"]]),
        Section([["", "roster " * 10], ["", "roster"]]),
    ]
    assert shrunk(sections, 200) == [section.levels[0] for section in sections]
    assert shrunk(sections, 150) == [["now " * 10], ["", "order " * 10], ["", "roster"]]
    assert shrunk(sections, 60) == [["now " * 10], ["", "order"], ["", "roster"]]


def test_r4_hold_is_offered_only_while_the_turn_is_unused() -> None:
    """R4 holds a card instead of acting: once the turn was used, the tracker's Hold is greyed out."""
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    encounter.join(11, sheets.character("Ansel"), None)
    encounter.initiative.deck = deck_dealing("KS")
    encounter.deal(ScriptedDice([]))

    def hold_disabled() -> bool:
        [hold] = [button for button in tracker_buttons(encounter) if button.label == "Hold"]
        return bool(hold.disabled)

    assert not hold_disabled()
    encounter.initiative.use_turn(encounter.initiative.turn_of or "")
    assert hold_disabled()
