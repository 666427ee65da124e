"""The Encounter document: roster, NPC groups, holders, dealing and the turn buttons (R1-R6, R8).

The document is saved whole as JSON, so every test that changes it could also be a restart: the
round-trip test checks that nothing is lost. A refused request must leave the document unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.catalog import load_catalog
from bot.characters import MAX_NAME_LENGTH, Character
from bot.encounter.combatants import Combatant, Lasting, Side
from bot.encounter.document import MAX_COMBATANTS, Encounter, TrackerMessage, group_holder, player_holder
from bot.rules.cards import full_deck
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.equipment import Armor, MonsterTemplate
from bot.rules.errors import RulesError
from bot.rules.initiative import ReshuffleReason
from bot.rules.options import RuleOptions
from bot.rules.pool import Spend
from bot.rules.turns import ClaimPause
from bot.table_options import TableOptions
from tests.rules.conftest import card, deck_dealing
from tests.sheets import character

NO_SHUFFLE = ScriptedDice([])
ESCAPED = "\\*bold\\*\\_name\\_"
"""How a refusal shows the name ``*bold*_name_``."""
GM = 1
ANN = 11
BOB = 12


def template(name: str = "Bandit", **over: Any) -> MonsterTemplate:
    fields: dict[str, Any] = {
        "key": name.lower().replace(" ", "_"),
        "name": name,
        "source": "house value",
        "prowess": 1,
        "dex_mod": 1,
        "hp": 7,
        "weapon": "arming_sword",
        "morale": 2,
    }
    return MonsterTemplate(**(fields | over))


def mail() -> Armor:
    """Heavy armor with Max Dex +1: it costs a Martial Pool die (R6)."""
    return Armor(
        key="mail",
        name="Mail",
        source="house value",
        dr_pierce=8,
        dr_chop=16,
        dr_slash=24,
        bypass=-5,
        max_dex=1,
        weight="heavy",
        ac_base=15,
    )


def fight(pause: ClaimPause = ClaimPause.NEVER, **options: Any) -> Encounter:
    return Encounter(
        channel_id=100,
        guild_id=10,
        gm_id=GM,
        table=TableOptions(claim_pause=pause),
        options=RuleOptions(**options),
    )


def refused(encounter: Encounter, action: Callable[[], Any], match: str) -> None:
    """A refusal raises RulesError with a reason and leaves the whole document unchanged."""
    before = encounter.model_dump()
    with pytest.raises(RulesError, match=match):
        action()
    assert encounter.model_dump() == before


def names(combatants: list[Combatant]) -> list[str]:
    return [c.name for c in combatants]


# --------------------------------------------------------------------------------- roster and holders


def test_r2_holders_are_players_by_joining_order_then_groups_by_creation() -> None:
    """R2: one card per player (all their characters act on it) and one per NPC group."""
    encounter = fight()
    encounter.add_npcs(template("Wolf"), None, count=2)
    encounter.join(BOB, character("Bors"), None)
    encounter.add_npcs(template("Bandit"), None, count=1)
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Brigit"), None)  # Bob's second character: still one card
    assert encounter.holders() == [player_holder(BOB), player_holder(ANN), "g:wolves", "g:bandit"]
    assert names(encounter.members(player_holder(BOB))) == ["Bors", "Brigit"]


def test_r2_add_npcs_numbers_them_in_one_group_with_one_card() -> None:
    """R2: several NPCs added together form one group that is dealt one card."""
    encounter = fight()
    added = encounter.add_npcs(template("Bandit"), None, count=3, leader=True)
    assert names(added) == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert {c.group for c in added} == {"Bandits"}
    assert {c.holder for c in added} == {group_holder("Bandits")}
    assert [c.leader for c in added] == [True, False, False], "R22: only the first is the leader"
    assert all(c.side is Side.NPC and c.owner_id is None for c in added)
    assert [c.id for c in added] == ["c1", "c2", "c3"]
    assert encounter.groups == ["Bandits"]
    assert encounter.holders() == [group_holder("Bandits")]


def test_r2_a_lone_npc_is_a_group_of_one_named_after_it() -> None:
    encounter = fight()
    (ogre,) = encounter.add_npcs(template("Ogre"), None, count=1)
    assert (ogre.name, ogre.group, ogre.leader) == ("Ogre", "Ogre", False)


def test_r2_a_second_add_to_the_same_group_ignoring_case_joins_it() -> None:
    """R2: the group still has one card; the first spelling of its name stays."""
    encounter = fight()
    encounter.add_npcs(template("Bandit"), None, count=2, leader=True)
    more = encounter.add_npcs(template("Archer"), None, count=1, group="  BANDITS ")
    assert encounter.groups == ["Bandits"]
    assert more[0].group == "Bandits"
    assert more[0].holder == group_holder("Bandits")
    assert not more[0].leader
    assert len(encounter.members(group_holder("Bandits"))) == 3
    assert encounter.holders() == [group_holder("Bandits")]


def test_add_npcs_overrides_replace_the_templates_numbers() -> None:
    """R6: the pool follows the overridden Prowess (+1, at most 4); armor with Max Dex +1 costs a die."""
    encounter = fight()
    (plain,) = encounter.add_npcs(template(), None, count=1)
    assert (plain.prowess, plain.dex_mod, plain.max_hp, plain.morale, plain.pool.size) == (1, 1, 7, 2, 2)
    (tough,) = encounter.add_npcs(
        template(), mail(), count=1, name="Captain", prowess=5, dex_mod=3, hp=30, morale=4
    )
    assert (tough.prowess, tough.dex_mod, tough.max_hp, tough.hp, tough.morale) == (5, 3, 30, 30, 4)
    assert tough.pool.size == 3, "R6: Prowess 5 gives 4, mail costs one"
    (frail,) = encounter.add_npcs(template(), None, count=1, name="Ghost", hp=0, prowess=0)
    assert (frail.max_hp, frail.pool.size) == (1, 1)


def test_add_npcs_refusals_change_nothing() -> None:
    encounter = fight()
    encounter.join(ANN, character("Ansel"), None)
    refused(encounter, lambda: encounter.add_npcs(template(), None, count=0), "at least one NPC")
    refused(encounter, lambda: encounter.add_npcs(template(), None, count=1, name="  "), "needs a name")
    refused(
        encounter,
        lambda: encounter.add_npcs(template(), None, count=1, group="ANSEL"),
        "is a player's character",
    )


def test_same_names_get_a_number_ignoring_case() -> None:
    """Two combatants never share a name (buttons and commands find them by name)."""
    encounter = fight()
    first = encounter.join(ANN, character("Ansel"), None)
    second = encounter.join(BOB, character("ansel"), None)
    (npc,) = encounter.add_npcs(template("Ansel"), None, count=1, group="Thugs")
    third = encounter.join(GM, character("Ansel"), None)
    assert [first.name, second.name, npc.name, third.name] == ["Ansel", "ansel (2)", "Ansel 2", "Ansel (3)"]


def test_a_numbered_name_at_the_length_limit_still_fits() -> None:
    """A name at the limit that needs a number is shortened, not refused with a validation error."""
    long = "A" * MAX_NAME_LENGTH
    encounter = fight()
    encounter.join(ANN, character(long), None)
    twin = encounter.join(BOB, character(long), None)
    assert twin.name.endswith(" (2)")
    assert len(twin.name) <= MAX_NAME_LENGTH


def test_npc_names_at_the_length_limit_are_numbered_within_it() -> None:
    long = "B" * MAX_NAME_LENGTH
    encounter = fight()
    added = encounter.add_npcs(template(), None, count=3, name=long)
    assert [len(c.name) <= MAX_NAME_LENGTH for c in added] == [True] * 3
    assert [c.name[-2:] for c in added] == [" 1", " 2", " 3"]
    refused(encounter, lambda: encounter.add_npcs(template(), None, count=1, name=long + "B"), "at most 64")


def test_a_second_batch_of_the_same_npcs_gets_unique_names() -> None:
    """Names stay unique when the same template is added twice to one group (the second batch is
    told apart by a suffix, "Bandit 1 (2)", rather than numbered on from 3)."""
    encounter = fight()
    encounter.add_npcs(template(), None, count=2)
    again = encounter.add_npcs(template(), None, count=2)
    assert names(again) == ["Bandit 3", "Bandit 4"]
    assert encounter.groups == ["Bandits"]
    assert len({c.name.casefold() for c in encounter.combatants}) == 4


def test_joining_twice_with_one_character_is_refused() -> None:
    encounter = fight()
    encounter.join(ANN, character("Ansel"), None)
    refused(encounter, lambda: encounter.join(ANN, character("ANSEL"), None), "already in this fight")
    encounter.join(BOB, character("Ansel"), None)  # another player's Ansel is someone else


def test_a_fight_holds_at_most_max_combatants_and_a_refusal_changes_nothing() -> None:
    encounter = fight()
    encounter.add_npcs(template("Rat"), None, count=MAX_COMBATANTS - 1)
    refused(encounter, lambda: encounter.add_npcs(template("Wolf"), None, count=2), "at most")
    refused(encounter, lambda: encounter.add_npcs(template("Rat"), None, count=2, group="Rats"), "at most")
    encounter.join(ANN, character("Ansel"), None)
    refused(encounter, lambda: encounter.join(BOB, character("Bors"), None), "at most")
    assert len(encounter.combatants) == MAX_COMBATANTS


def test_combatant_is_found_by_id_or_name_and_a_miss_names_who_is_in() -> None:
    encounter = fight()
    ansel = encounter.join(ANN, character("Ansel"), None)
    assert encounter.combatant("c1") is ansel
    assert encounter.combatant("  ANSEL ") is ansel
    with pytest.raises(RulesError, match="In it: Ansel"):
        encounter.combatant("Bors")


def test_a_miss_quotes_a_long_name_clipped_and_every_name_escaped() -> None:
    """A refusal is shown as written: what the user typed is clipped (a 2100-character value would
    push it past Discord's 2000), and names cannot turn into Markdown."""
    encounter = fight()
    encounter.join(ANN, character("*bold*_name_"), None)
    with pytest.raises(RulesError) as caught:
        encounter.combatant("x" * 2100)
    message = str(caught.value)
    assert message == f"Nobody called '{'x' * 59}…' is in this fight. In it: {ESCAPED}."
    with pytest.raises(RulesError, match=re.escape("Nobody called '\\*\\_x\\_\\*'")):
        encounter.combatant("*_x_*")


def test_refusals_naming_combatants_escape_their_markdown() -> None:
    encounter = fight()
    joined = encounter.join(ANN, character("*bold*_name_"), None)
    escaped = re.escape(ESCAPED)
    refused(encounter, lambda: encounter.join(ANN, character("*bold*_name_"), None), f"^{escaped} is")
    bold = re.escape("'\\*BOLD\\*\\_name\\_' is a player's character")
    refused(encounter, lambda: encounter.add_npcs(template(), None, count=1, group="*BOLD*_name_"), bold)
    encounter.remove(joined)
    refused(encounter, lambda: encounter.remove(joined), f"^{escaped} is not in this fight")


# --------------------------------------------------------------------------------- removing


def dealt(pause: ClaimPause = ClaimPause.NEVER, *codes: str) -> Encounter:
    """Ansel (Ann), Bors (Bob) and two Bandits, dealt ``codes`` in that holder order."""
    encounter = fight(pause)
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Bors"), None)
    encounter.add_npcs(template("Bandit"), None, count=2)
    encounter.initiative.deck = deck_dealing(*codes)
    encounter.deal(NO_SHUFFLE)
    return encounter


def test_r2_removing_the_last_member_discards_the_card_and_drops_its_claim() -> None:
    """R2: a holder leaving the fight gives its card to the discards; its queued claim lapses."""
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")  # Ann K♠, Bob Q♠, Bandits 2♣
    encounter.hold()  # Ann holds; Bob's turn
    encounter.act(player_holder(ANN))
    assert encounter.flow.queued == [player_holder(ANN)]
    step = encounter.flow.step
    assert encounter.remove(encounter.combatant("Ansel")) == player_holder(ANN)
    assert player_holder(ANN) not in encounter.initiative.cards
    assert player_holder(ANN) not in encounter.initiative.held
    assert encounter.initiative.deck is not None
    assert card("KS") in encounter.initiative.deck.discards
    assert encounter.flow.queued == []
    assert encounter.flow.step > step
    assert encounter.holders() == [player_holder(BOB), group_holder("Bandits")]
    assert encounter.initiative.turn_of == player_holder(BOB), "Bob's turn went on"


def test_r2_removing_one_of_a_group_keeps_the_card() -> None:
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    assert encounter.remove(encounter.combatant("Bandit 1")) is None
    assert encounter.initiative.cards[group_holder("Bandits")] == card("2C")
    assert encounter.groups == ["Bandits"]
    assert encounter.remove(encounter.combatant("Bandit 2")) == group_holder("Bandits")
    assert encounter.groups == []
    assert group_holder("Bandits") not in encounter.initiative.cards


def test_r2_removing_the_one_whose_turn_it_is_ends_the_turn() -> None:
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    encounter.remove(encounter.combatant("Ansel"))
    assert encounter.initiative.turn_of is None
    assert encounter.next_turn().started is not None
    assert encounter.initiative.turn_of == player_holder(BOB)


# --------------------------------------------------------------------------------- dealing


def test_r5_r8_deal_refills_every_pool() -> None:
    """R5, R8: each deal refills the pool to its size; unspent dice do not carry over."""
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    for combatant in encounter.combatants:
        combatant.pool.spend(1, Spend.ATTACK)
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
    encounter.deal(NO_SHUFFLE)
    for combatant in encounter.combatants:
        assert combatant.pool.remaining == combatant.pool.size
        assert combatant.pool.spent == {}


@pytest.mark.parametrize(
    ("prowess", "penalty", "minimum", "left"),
    [(3, 1, 1, 3), (0, 1, 1, 1), (0, 1, 0, 0), (3, 3, 2, 2), (3, 3, 1, 1)],
)
def test_r6_desperation_penalty_at_the_next_deal(prowess: int, penalty: int, minimum: int, left: int) -> None:
    """R6, R15: a desperation defense without the initiative costs dice next round, never below the
    option ``desperation_min_pool``; the penalty is then spent."""
    encounter = fight(desperation_min_pool=minimum)
    ansel = encounter.join(ANN, character("Ansel", prowess=prowess), None)
    ansel.pool.penalty_next_round = penalty
    encounter.deal(NO_SHUFFLE)
    assert ansel.pool.remaining == left
    assert ansel.pool.penalty_next_round == 0


def test_deal_with_nobody_in_the_fight_is_refused() -> None:
    encounter = fight()
    refused(encounter, lambda: encounter.deal(NO_SHUFFLE), "Nobody is in the fight")


def test_turn_buttons_before_the_first_deal_are_refused() -> None:
    encounter = fight()
    encounter.join(ANN, character(), None)
    for action in (encounter.next_turn, encounter.hold, lambda: encounter.act(player_holder(ANN))):
        refused(encounter, action, "No cards have been dealt yet")


def test_r1_deal_starts_the_highest_cards_turn() -> None:
    """R1: the new round starts with the highest card (here the Bandits' Ace)."""
    encounter = fight()
    encounter.join(ANN, character("Ansel"), None)
    encounter.add_npcs(template("Bandit"), None, count=2)
    encounter.initiative.deck = deck_dealing("KS", "AC")
    result, advance = encounter.deal(NO_SHUFFLE)
    assert [(entry.holder, entry.card.code) for entry in result.dealt] == [
        (player_holder(ANN), "KS"),
        (group_holder("Bandits"), "AC"),
    ]
    assert advance.started is not None
    assert advance.started.holder == group_holder("Bandits")
    assert encounter.initiative.turn_of == group_holder("Bandits")
    assert result.round == 1


def test_r3_deal_offers_a_held_joker_instead_of_starting() -> None:
    """R3: with the default pause a Joker held from the last round is offered the first turn."""
    encounter = dealt(ClaimPause.JOKERS, "RJ", "QS", "2C")
    encounter.hold()  # Ann holds the Joker
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
    result, advance = encounter.deal(NO_SHUFFLE)
    assert result.kept == [player_holder(ANN)]
    assert advance.offered == [player_holder(ANN)]
    assert advance.started is None
    assert encounter.initiative.turn_of is None
    assert encounter.act(player_holder(ANN)).started is not None


def test_r2_a_joker_round_reshuffles_at_the_next_deal() -> None:
    """R2: a Joker dealt in the round just ended sends every discard back into the deck."""
    encounter = dealt(ClaimPause.NEVER, "RJ", "QS", "2C")
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
    deck = encounter.initiative.deck
    assert deck is not None
    assert len(deck.discards) == 3
    result, _ = encounter.deal(NO_SHUFFLE)
    assert [(r.reason, r.cards) for r in result.reshuffles] == [(ReshuffleReason.JOKER_ROUND, 3)]
    assert len(deck.draw_pile) == 54 - 3
    assert len(deck.discards) == 0


def test_r2_no_reshuffle_after_a_round_without_a_joker() -> None:
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
    result, _ = encounter.deal(NO_SHUFFLE)
    assert result.reshuffles == []


def test_r4_a_held_card_stays_across_a_deal_and_is_not_replaced() -> None:
    """R4: a held card stays face down into the next round; its holder is not dealt a new one."""
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    encounter.hold()
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
    encounter.initiative.deck = deck_dealing("3D", "4D")
    result, _ = encounter.deal(NO_SHUFFLE)
    assert result.kept == [player_holder(ANN)]
    assert [entry.holder for entry in result.dealt] == [player_holder(BOB), group_holder("Bandits")]
    assert encounter.initiative.cards[player_holder(ANN)] == card("KS")
    assert player_holder(ANN) in encounter.initiative.held


def test_r5_deal_during_a_turn_is_refused() -> None:
    encounter = dealt(ClaimPause.NEVER, "KS", "QS", "2C")
    refused(encounter, lambda: encounter.deal(NO_SHUFFLE), "still in progress")


def test_r2_more_holders_than_cards_is_refused_unchanged() -> None:
    """R2: 54 cards; 55 players cannot all be dealt one."""
    encounter = fight()
    for user in range(100, 155):
        encounter.join(user, character(f"Hero {user}"), None)
    refused(encounter, lambda: encounter.deal(NO_SHUFFLE), "only 54 cards free")


# --------------------------------------------------------------------------------- saving


def test_the_document_round_trips_through_json_exactly() -> None:
    """The fight is stored as JSON: a fight in the middle of a round comes back equal, field for field."""
    encounter = dealt(ClaimPause.HELD, "RJ", "QS", "2C")
    encounter.tracker = TrackerMessage(channel_id=100, message_id=555)
    bors = encounter.combatant("Bors")
    bors.conditions.append("prone")
    bors.hp = -2
    bors.pool.spend(1, Spend.ACTIVE_DEFENSE)
    bors.pool.penalty_next_round = 1
    encounter.combatant("Bandit 1").leader = True
    encounter.initiative.swaps.append((player_holder(ANN), player_holder(BOB)))
    encounter.hold()  # the deal started Ann's face-up Joker; she holds; Bob's turn
    encounter.act(player_holder(ANN))  # queued
    encounter.version = 4

    text = encounter.model_dump_json()
    restored = Encounter.model_validate_json(text)
    assert restored == encounter
    assert restored.model_dump() == encounter.model_dump()
    assert restored.model_dump_json() == text
    assert restored.flow.queued == [player_holder(ANN)]
    assert restored.initiative.swaps == [(player_holder(ANN), player_holder(BOB))]
    assert restored.combatant("Bors").pool.spent == {Spend.ACTIVE_DEFENSE: 1}
    # and it plays on the same after the restart
    assert restored.next_turn() == encounter.next_turn()
    assert restored == encounter


# --------------------------------------------------------------------------------- properties

PLAYERS = [(ANN, "Ansel"), (BOB, "Bors"), (13, "Cyne")]
GROUPS = ["Bandits", "Wolves", "BANDITS", "Ansel"]  # the last clashes with a player's character

actions = st.one_of(
    st.tuples(st.just("deal")),
    st.tuples(st.just("next")),
    st.tuples(st.just("next")),
    st.tuples(st.just("hold")),
    st.tuples(st.just("act"), st.integers(min_value=0, max_value=6)),
    st.tuples(st.just("act"), st.integers(min_value=0, max_value=6)),
    st.tuples(st.just("add"), st.sampled_from(GROUPS), st.integers(min_value=1, max_value=3)),
    st.tuples(st.just("remove"), st.integers(min_value=0, max_value=20)),
    st.tuples(st.just("join"), st.sampled_from(PLAYERS)),
)


def apply(encounter: Encounter, action: tuple[Any, ...], dice: RandomDice) -> None:
    name = action[0]
    if name == "deal":
        encounter.deal(dice)
    elif name == "next":
        encounter.next_turn()
    elif name == "hold":
        encounter.hold()
    elif name == "act":
        holders = [*encounter.holders(), "p999"]  # and someone with no card
        encounter.act(holders[action[1] % len(holders)])
    elif name == "add":
        encounter.add_npcs(
            template("Wolf" if action[1] == "Wolves" else "Bandit"), None, count=action[2], group=action[1]
        )
    elif name == "remove":
        if encounter.combatants:
            encounter.remove(encounter.combatants[action[1] % len(encounter.combatants)])
    else:
        user, who = action[1]
        encounter.join(user, character(who), None)


def assert_invariants(encounter: Encounter) -> None:
    state, flow = encounter.initiative, encounter.flow
    holders = encounter.holders()
    # R1, R2: every card is in exactly one place
    if state.deck is not None:
        everything = state.deck.draw_pile + state.deck.discards + list(state.cards.values())
        assert sorted(c.code for c in everything) == sorted(c.code for c in full_deck())
    # R1: the order is total and strictly by rank, then suit
    for entries in (state.order, state.waiting):
        keys = [entry.card.order_key for entry in entries]
        assert all(high > low for high, low in pairwise(keys)), "order is not strict"
    # R4: held cards are cards in play; spent cards are not
    assert set(state.held) <= set(state.cards)
    assert not set(state.acted) & set(state.cards)
    assert set(state.cards) <= set(holders), "a holder that left the fight still has a card"
    # R6, R7, R8: pools stay within their size
    for combatant in encounter.combatants:
        assert 0 <= combatant.pool.remaining <= combatant.pool.size
    # the turn in progress belongs to a holder with a face-up card
    if state.turn_of is not None:
        assert state.turn_of in state.cards
        assert state.turn_of not in state.held
        assert flow.offered == []
    # R3, R4: only eligible claimants are queued or offered, each once
    claimants = set(state.may_claim)
    for waiting in (flow.queued, flow.offered):
        assert set(waiting) <= claimants
        assert len(set(waiting)) == len(waiting)
    # the store keeps it as JSON
    assert Encounter.model_validate_json(encounter.model_dump_json()) == encounter


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    pause=st.sampled_from(list(ClaimPause)),
    top=st.sampled_from([(), ("RJ",), ("KS", "BJ"), ("BJ", "RJ")]),
    steps=st.lists(actions, min_size=10, max_size=50),
)
def test_r1_r4_random_fights_keep_every_invariant(
    seed: int, pause: ClaimPause, top: tuple[str, ...], steps: list[tuple[Any, ...]]
) -> None:
    """R1-R8 over random play: cards are conserved, the order is total, pools stay in bounds, claims
    are eligible, a claim never interrupts a turn, and a refusal changes nothing (not even the step).

    ``top`` puts Jokers on top of the first deal's deck, so that Joker rounds are common."""
    dice = RandomDice.seeded(seed)
    encounter = fight(pause)
    encounter.join(ANN, character("Ansel"), None)
    encounter.add_npcs(template("Bandit"), None, count=2)
    if top:
        encounter.initiative.deck = deck_dealing(*top)
    for action in steps:
        before = encounter.model_dump()
        turn_of = encounter.initiative.turn_of
        try:
            apply(encounter, action, dice)
        except RulesError:
            event(f"{action[0]} refused")
            assert encounter.model_dump() == before, f"refused {action} but changed the fight"
        else:
            if action[0] in ("deal", "next", "hold", "act"):
                assert encounter.flow.step > before["flow"]["step"], f"{action} did not bump the step"
            if action[0] == "act" and turn_of is not None:
                assert encounter.initiative.turn_of == turn_of, "a claim interrupted the turn in progress"
            if action[0] == "next" and turn_of is not None:
                assert encounter.initiative.acted[-1] == turn_of, "Next did not spend the card in play"
            for seen, what in (
                (encounter.flow.queued, "a claim queued"),
                (encounter.flow.offered, "a turn offered"),
                (encounter.initiative.held, "a card held"),
                (encounter.initiative.joker_dealt, "a Joker dealt"),
            ):
                if seen:
                    event(what)
        assert_invariants(encounter)


def test_group_names_are_plural_in_english() -> None:
    from bot.encounter.document import plural

    assert [plural(n) for n in ("Bandit", "Wolf", "Fox", "Harpy", "Knife", "Boss")] == [
        "Bandits",
        "Wolves",
        "Foxes",
        "Harpies",
        "Knives",
        "Bosses",
    ]


@pytest.mark.parametrize("noun", ["B" * MAX_NAME_LENGTH, "A" * 63 + "y", "W" * 63 + "f", "F" * 62 + "x"])
def test_a_plural_of_a_name_at_the_length_limit_stays_within_it(noun: str) -> None:
    from bot.encounter.document import plural

    assert len(plural(noun)) <= MAX_NAME_LENGTH
    (npc, _) = fight().add_npcs(template(), None, count=2, name=noun)
    assert npc.group is not None
    assert len(npc.group) <= MAX_NAME_LENGTH


def test_a_second_batch_numbers_on_and_a_new_leader_takes_over() -> None:
    """R22: one leader per group; names go on from the numbers taken."""
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    template = load_catalog().monster("bandit")
    first = encounter.add_npcs(template, None, count=2, group="Band", leader=True)
    second = encounter.add_npcs(template, None, count=2, group="band", leader=True)
    assert [c.name for c in first + second] == ["Bandit 1", "Bandit 2", "Bandit 3", "Bandit 4"]
    assert [c.name for c in encounter.combatants if c.leader] == ["Bandit 3"]
    lone = encounter.add_npcs(template, None, count=1)
    assert lone[0].name == "Bandit"


def test_removing_a_stranger_is_refused_and_changes_nothing() -> None:
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    template = load_catalog().monster("bandit")
    encounter.add_npcs(template, None, count=1)
    stranger = Encounter(channel_id=9, guild_id=2, gm_id=3).add_npcs(template, None, count=2)[1]
    before = encounter.model_dump()
    with pytest.raises(RulesError):
        encounter.remove(stranger)
    assert encounter.model_dump() == before


def test_a_condition_may_say_how_long_it_lasts_and_removing_it_forgets_that() -> None:
    encounter = fight()
    ansel = encounter.join(BOB, character("Bors"), None)
    ansel.add_condition("Prone", Lasting(rounds_left=2))
    ansel.add_condition("hexed")
    assert ansel.lasting == {"prone": Lasting(rounds_left=2)}
    assert Encounter.model_validate_json(encounter.model_dump_json()) == encounter
    assert ansel.remove_condition("prone") == "Prone"
    assert ansel.lasting == {}
    assert ansel.conditions == ["hexed"]


def test_a_stored_combatant_from_before_durations_still_loads() -> None:
    encounter = fight()
    encounter.join(BOB, character("Bors"), None)
    stored = encounter.model_dump(mode="json")
    for combatant in stored["combatants"]:
        combatant.pop("lasting")
        combatant["conditions"] = ["prone"]
    loaded = Encounter.model_validate(stored)
    assert loaded.combatants[0].conditions == ["prone"]
    assert loaded.combatants[0].lasting == {}


NEW_IN_R27 = ("int_mod", "int_score", "wis_score", "cha_score", "demon", "hit_dice", "driven_out")
"""The combatant's fields added for spirits (R27); documents saved before them must still load."""


def test_a_fight_saved_before_the_spirit_fields_still_loads() -> None:
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    encounter.join(11, character("Ansel"), None)
    encounter.add_npcs(load_catalog().monster("ghost"), None, count=1)
    saved = encounter.model_dump(mode="json")
    for combatant in saved["combatants"]:
        for field in NEW_IN_R27:
            del combatant[field]
    loaded = Encounter.model_validate(saved)
    ghost = loaded.combatant("Ghost")
    assert (ghost.hit_dice, ghost.demon, ghost.int_score, ghost.driven_out) == (None, False, None, False)
    assert ghost.state_label is None


def test_a_sheet_saved_before_int_and_the_scores_still_loads() -> None:
    document = character("Ansel").model_dump()
    for field in ("intelligence", "int_score", "wis_score", "cha_score"):
        del document[field]
    sheet = Character.model_validate(document)
    assert (sheet.intelligence, sheet.int_score, sheet.wis_score, sheet.cha_score) == (0, None, None, None)


def test_r27_a_spirit_at_0_hp_is_dissipated_a_demon_sent_back() -> None:
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    ghost, demon = (
        encounter.add_npcs(load_catalog().monster(key), None, count=1)[0] for key in ("ghost", "demon")
    )
    ghost.hp = demon.hp = 0
    assert (ghost.state_label, demon.state_label) == ("dissipated", "sent back to Hell")
    assert (ghost.hit_dice, demon.hit_dice) == (5, 8)


def test_r16_the_knocked_out_condition_puts_its_holder_out_of_the_fight() -> None:
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    ansel = encounter.join(11, character("Ansel"), None)
    ansel.add_condition("Unconscious")
    assert (ansel.unconscious, ansel.out_of_the_fight, ansel.state_label) == (True, True, "unconscious")
    ansel.hp = 0
    assert (ansel.unconscious, ansel.state_label) == (False, "down")
