"""The tracker's line for a combatant: pool, HP and what state it is in (R6, R16, R21, R25); the
ranges of the pairs not at Onset (R12)."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.characters import MAX_NAME_LENGTH
from bot.encounter.document import MAX_COMBATANTS, Combatant, Encounter, Lasting, Side
from bot.rules.engagement import Engagement, Range, pair_key
from bot.rules.morale import MoraleStanding
from bot.rules.pool import MartialPool
from bot.ui.tracker import (
    DESCRIPTION_LIMIT,
    RANGES_SHOWN,
    combatant_line,
    fight_ranges,
    range_line,
    tracker_embed,
    tracker_lines,
)
from tests import sheets


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
    text = tracker_embed(ranged_fight()).description or ""
    assert text.endswith(
        "\n\n**Ranges** (every other pair is at Onset, R12)\n"
        "🤼 Bob — Wolf: Grapple\n"
        "⚔️ Alice — Bandit 1: Melee"
    )
    assert "Alice — Bob" not in text
    assert "Bandit 2 —" not in text
    at_onset = ranged_fight()
    at_onset.engagements = {}  # when every pair is at Onset, there is nothing to list
    assert "**Ranges**" not in (tracker_embed(at_onset).description or "")


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


def test_r12_a_sixty_combatant_fight_shows_ten_pairs_and_counts_the_rest() -> None:
    text = tracker_embed(sixty("Rat")).description or ""
    assert len(text) <= DESCRIPTION_LIMIT
    ranges = text.split("**Ranges** (every other pair is at Onset, R12)\n")[1].splitlines()
    assert ranges[:5] == [f"🤼 Rat {n} — Rat {n + 1}: Grapple" for n in (1, 3, 5, 7, 9)]
    assert len(ranges) == RANGES_SHOWN + 1
    assert ranges[-1] == "… and 20 more pairs at Melee or Grapple"


def test_r12_the_ranges_stay_on_a_sixty_combatant_tracker_of_the_longest_names() -> None:
    """The roster is cut short to fit Discord's limit, not the ranges after it."""
    text = tracker_embed(sixty("_" * (MAX_NAME_LENGTH - 3))).description or ""
    assert len(text) <= DESCRIPTION_LIMIT
    assert "more lines\n\n**Ranges** (every other pair is at Onset, R12)\n🤼 " in text
    assert text.endswith("more pairs at Melee or Grapple")


def test_a_condition_shows_how_long_it_still_lasts() -> None:
    fighter = bandit(
        conditions=["prone", "stunned", "hexed"],
        lasting={"prone": Lasting(rounds_left=2), "stunned": Lasting(until_turn_end=True)},
    )
    assert combatant_line(fighter).endswith("· prone (2 rounds), stunned (to end of next turn), hexed")
    fighter.lasting["prone"].rounds_left = 1
    assert "prone (1 round)," in combatant_line(fighter)
