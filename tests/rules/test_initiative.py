"""Lords of Hack card initiative: dealing, order, holds and Jokers (R1-R5)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.rules.cards import Card, InitiativeDeck, full_deck
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.errors import IllegalAction, RulesError
from bot.rules.initiative import (
    InitiativeState,
    ReshuffleReason,
    RollKind,
    RoundOver,
    fight_duration,
)
from tests.rules.conftest import card, deck_dealing

NO_SHUFFLE = ScriptedDice([])


def dealt_state(**cards: str) -> InitiativeState:
    """Round 1 dealt: each keyword is a holder and the code of its card."""
    state = InitiativeState(deck=deck_dealing(*cards.values()))
    state.deal(list(cards), NO_SHUFFLE)
    return state


def holders_in_order(state: InitiativeState) -> list[str]:
    return [entry.holder for entry in state.order]


def all_cards(state: InitiativeState) -> list[Card]:
    deck = state.deck or InitiativeDeck()
    return deck.draw_pile + deck.discards + list(state.cards.values())


def assert_refused(state: InitiativeState, action: Callable[[], Any], match: str) -> None:
    """A refusal raises RulesError with a reason and changes nothing."""
    before = state.model_dump()
    with pytest.raises(RulesError, match=match):
        action()
    assert state.model_dump() == before


# --------------------------------------------------------------------------------- R1 order


def test_r1_joker_then_ace_then_king_down_to_two() -> None:
    state = dealt_state(two="2C", king="KH", joker="RJ", ace="AD", ten="10S", queen="QC")
    assert holders_in_order(state) == ["joker", "ace", "king", "queen", "ten", "two"]


def test_r1_same_rank_spades_hearts_diamonds_clubs() -> None:
    state = dealt_state(clubs="7C", hearts="7H", spades="7S", diamonds="7D")
    assert holders_in_order(state) == ["spades", "hearts", "diamonds", "clubs"]


def test_r1_black_joker_before_red_joker() -> None:
    state = dealt_state(red="RJ", black="BJ", ace="AS")
    assert holders_in_order(state) == ["black", "red", "ace"]


def test_r1_turns_follow_the_order_and_leave_it() -> None:
    state = dealt_state(a="3H", b="AS", c="9D")
    started = [state.next_turn().started for _ in range(3)]
    assert [turn.holder for turn in started if turn] == ["b", "c", "a"]
    assert state.order == []
    assert state.current is not None
    assert state.current.holder == "a"


def test_r1_deal_result_lists_the_order() -> None:
    state = InitiativeState(deck=deck_dealing("4C", "JH"))
    result = state.deal(["x", "y"], NO_SHUFFLE)
    assert [(e.holder, e.card.code) for e in result.order] == [("y", "JH"), ("x", "4C")]


# --------------------------------------------------------------------------------- R2 dealing


def play_out(state: InitiativeState) -> None:
    while not state.next_turn().round_over:
        pass


def test_r2_reshuffle_after_a_round_with_a_joker() -> None:
    state = dealt_state(a="RJ", b="5H", c="8C")
    assert state.joker_dealt
    play_out(state)
    assert state.deck is not None
    assert len(state.deck.discards) == 3

    result = state.deal(["a", "b", "c"], NO_SHUFFLE)

    assert [r.reason for r in result.reshuffles] == [ReshuffleReason.JOKER_ROUND]
    assert result.reshuffles[0].cards == 3
    assert state.deck.discards == []
    assert len(state.deck.draw_pile) == 51


def test_r2_no_reshuffle_after_a_round_without_a_joker() -> None:
    state = dealt_state(a="AS", b="5H", c="8C")
    assert not state.joker_dealt
    play_out(state)

    result = state.deal(["a", "b", "c"], NO_SHUFFLE)

    assert result.reshuffles == []
    assert state.deck is not None
    assert sorted(c.code for c in state.deck.discards) == ["5H", "8C", "AS"]


def test_r2_joker_held_over_is_not_dealt_so_no_second_reshuffle() -> None:
    state = dealt_state(j="BJ", b="5H")
    state.start_next_turn()
    state.hold()
    play_out(state)
    first = state.deal(["j", "b"], NO_SHUFFLE)
    assert [r.reason for r in first.reshuffles] == [ReshuffleReason.JOKER_ROUND]
    assert not state.joker_dealt
    play_out(state)
    assert state.deal(["j", "b"], NO_SHUFFLE).reshuffles == []


def test_r2_deck_runs_out_mid_deal_shuffles_in_the_discards_only() -> None:
    held, first, second = card("KS"), card("2D"), card("3D")
    others = [c for c in full_deck() if c not in (held, first, second)]
    state = InitiativeState(
        round=1,
        deck=InitiativeDeck(draw_pile=[second, first], discards=others[:-1]),
        cards={"keeper": held, "spent": others[-1]},
        held=["keeper"],
    )

    result = state.deal(["keeper", "spent", "p", "q", "r"], NO_SHUFFLE)

    assert [(e.holder, e.card.code) for e in result.dealt][:2] == [("spent", "2D"), ("p", "3D")]
    assert len(result.reshuffles) == 1
    refill = result.reshuffles[0]
    assert refill.reason is ReshuffleReason.DECK_RAN_OUT
    assert refill.before == "q"
    assert refill.cards == 51  # the old discards and the ended round's face-up card, not KS, 2D or 3D
    assert state.cards["keeper"] == held
    assert Counter(all_cards(state)) == Counter(full_deck())


def test_r2_first_deal_shuffles_a_fresh_deck() -> None:
    state = InitiativeState()
    result = state.deal(["a", "b"], RandomDice.seeded(7))
    assert state.round == result.round == 1
    assert state.deck is not None
    assert len(state.deck.draw_pile) == 52
    assert state.deck.discards == []
    assert Counter(all_cards(state)) == Counter(full_deck())


def test_r2_holders_missing_from_the_deal_lose_their_card() -> None:
    state = dealt_state(a="9H", b="4S")
    state.start_next_turn()
    state.hold()
    result = state.deal(["b", "c"], NO_SHUFFLE)
    assert [(e.holder, e.card.code) for e in result.departed] == [("a", "9H")]
    assert [(e.holder, e.card.code) for e in result.unplayed] == [("b", "4S")]
    assert set(state.cards) == {"b", "c"}
    assert state.held == []
    assert state.deck is not None
    assert card("9H") in state.deck.discards


def test_r2_more_holders_than_cards_is_refused() -> None:
    state = InitiativeState()
    assert_refused(state, lambda: state.deal([f"npc{i}" for i in range(55)], NO_SHUFFLE), "groups")


def test_r2_a_holder_listed_twice_is_refused() -> None:
    state = dealt_state(a="9H")
    assert_refused(state, lambda: state.deal(["a", "b", "a"], NO_SHUFFLE), "more than once: a")


def test_r2_deal_to_nobody_is_refused() -> None:
    state = InitiativeState()
    assert_refused(state, lambda: state.deal([], NO_SHUFFLE), "at least one")


# --------------------------------------------------------------------------------- R3 Jokers


def test_r3_joker_claims_between_turns_but_never_interrupts() -> None:
    state = dealt_state(black="BJ", red="RJ", ace="AS")
    assert state.next_turn().started is not None
    assert state.turn_of == "black"

    assert_refused(state, lambda: state.claim("red"), "interrupt")

    ended = state.end_turn()
    assert ended.may_claim == ["red"]
    started = state.claim("red")
    assert started.claimed
    assert started.joker
    assert state.turn_of == "red"


def test_r3_joker_may_claim_before_a_held_card_acts() -> None:
    state = dealt_state(king="KS", joker="RJ", five="5D")
    state.start_next_turn()
    state.hold()  # the Joker waits
    state.next_turn()  # the King acts
    ended = state.end_turn()
    assert ended.may_claim == ["joker"]
    assert state.claim("joker").joker


def test_r3_a_face_up_card_that_is_not_a_joker_cannot_claim() -> None:
    state = dealt_state(a="AS", b="2C")
    assert_refused(state, lambda: state.claim("b"), "comes up in the order")


@pytest.mark.parametrize("kind", [RollKind.ATTACK, RollKind.DAMAGE, RollKind.MORALE, RollKind.SKILL])
def test_r3_joker_holder_gets_plus_two_on_its_turn(kind: RollKind) -> None:
    state = dealt_state(joker="RJ", other="AS")
    state.start_next_turn()
    assert state.bonus_for("joker", kind) == 2
    assert state.bonus_for("joker", kind, bonus=3) == 3


def test_r3_joker_bonus_scope() -> None:
    state = dealt_state(joker="RJ", other="AS", waiter="KD")
    assert state.bonus_for("joker", RollKind.ATTACK) == 0  # between turns
    state.start_next_turn()
    assert state.bonus_for("joker", RollKind.ACTIVE_DEFENSE) == 0
    assert state.bonus_for("joker", RollKind.SAVING_THROW) == 0
    assert state.bonus_for("other", RollKind.ATTACK) == 0
    assert state.bonus_for("other", RollKind.ACTIVE_DEFENSE) == 0
    state.end_turn()
    state.start_next_turn()  # the Ace: not a Joker turn
    assert state.turn_of == "other"
    assert state.bonus_for("other", RollKind.ATTACK) == 0
    assert state.bonus_for("joker", RollKind.DAMAGE) == 0


def test_r3_held_combatant_next_to_the_joker_gets_nothing() -> None:
    state = dealt_state(joker="BJ", held="QS", last="2C")
    state.start_next_turn()
    state.hold()  # the Joker waits
    state.start_next_turn()
    state.hold()  # so does the Queen
    state.next_turn()
    state.end_turn()
    state.claim("joker")  # a held Joker keeps its bonus (R4 with R3)
    assert state.bonus_for("joker", RollKind.ATTACK) == 2
    assert state.bonus_for("held", RollKind.ATTACK) == 0
    state.end_turn()
    state.claim("held")
    assert state.bonus_for("held", RollKind.ATTACK) == 0


# --------------------------------------------------------------------------------- R4 hold


def test_r4_hold_keeps_the_card_across_a_round_and_is_not_dealt() -> None:
    state = dealt_state(a="KS", b="5H")
    state.start_next_turn()
    ended = state.hold()
    assert ended.held
    assert ended.up_next is not None
    assert ended.up_next.holder == "b"
    assert state.held == ["a"]
    assert "a" not in state.acted
    assert holders_in_order(state) == ["b"]
    assert [e.holder for e in state.waiting] == ["a"]
    play_out(state)

    result = state.deal(["a", "b"], NO_SHUFFLE)

    assert result.kept == ["a"]
    assert [e.holder for e in result.dealt] == ["b"]
    assert state.cards["a"] == card("KS")
    assert state.held == ["a"]
    assert "a" not in holders_in_order(state)


def test_r4_held_card_claims_after_a_turn_and_is_then_spent() -> None:
    state = dealt_state(a="KS", b="5H", c="3C")
    state.start_next_turn()
    state.hold()
    state.next_turn()
    assert state.end_turn().may_claim == ["a"]

    started = state.claim("a")

    assert started.claimed
    assert not started.joker
    assert state.held == []
    state.end_turn()
    assert state.deck is not None
    assert card("KS") in state.deck.discards
    assert "a" in state.acted
    assert holders_in_order(state) == ["c"]


def test_r4_only_the_holder_whose_turn_it_is_may_hold() -> None:
    state = dealt_state(a="KS", b="5H")
    assert_refused(state, state.hold, "No turn is in progress")
    state.start_next_turn()
    assert_refused(state, lambda: state.hold(by="b"), "not your turn")
    assert state.hold(by="a").held


def test_r4_a_turn_used_cannot_be_held_and_the_next_turn_starts_fresh() -> None:
    """R4 holds a card *instead of* acting: once the turn was used, holding it is refused."""
    state = dealt_state(a="KS", b="5H")
    state.start_next_turn()
    state.use_turn("b")  # out of turn (a counterattack): uses nothing of a's turn
    state.use_turn("a")
    assert_refused(state, state.hold, "already used")
    state.end_turn()
    state.start_next_turn()
    assert not state.turn_used
    assert state.hold(by="b").held


def test_r4_held_card_cannot_interrupt_a_turn() -> None:
    state = dealt_state(a="KS", b="5H")
    state.start_next_turn()
    state.hold()
    state.start_next_turn()
    assert_refused(state, lambda: state.claim("a"), "interrupt")


def test_r4_spent_card_cannot_claim_again() -> None:
    state = dealt_state(a="KS", b="5H")
    state.next_turn()
    state.end_turn()
    assert_refused(state, lambda: state.claim("a"), "already acted")
    assert_refused(state, lambda: state.claim("stranger"), "no card")


# --------------------------------------------------------------------------------- R5 round


def test_r5_each_deal_starts_a_round() -> None:
    state = InitiativeState()
    assert state.round == 0
    assert state.is_round_over
    assert_refused(state, state.start_next_turn, "No cards have been dealt")
    state.deal(["a", "b"], RandomDice.seeded(3))
    assert state.round == 1
    play_out(state)
    assert state.acted == ["a", "b"] or state.acted == ["b", "a"]
    state.deal(["a", "b"], RandomDice.seeded(3))
    assert state.round == 2
    assert state.acted == []


def test_r5_after_the_last_turn_the_round_is_over_and_the_gm_deals() -> None:
    state = dealt_state(a="KS", b="5H")
    state.next_turn()
    assert state.next_turn().started is not None
    last = state.next_turn()
    assert last.ended is not None
    assert last.ended.round_over
    assert last.round_over
    assert state.is_round_over
    assert_refused(state, state.next_turn, "deal")
    with pytest.raises(RoundOver, match="Round 1 is over"):
        state.start_next_turn()


def test_r5_deal_is_refused_while_a_turn_is_in_progress() -> None:
    state = dealt_state(a="KS", b="5H")
    state.start_next_turn()
    assert_refused(state, lambda: state.deal(["a", "b"], NO_SHUFFLE), "turn is still in progress")


def test_r5_remove_holder_discards_its_card_and_ends_its_turn() -> None:
    state = dealt_state(a="KS", b="5H", c="2C")
    state.start_next_turn()
    removed = state.remove_holder("a")
    assert removed.card == card("KS")
    assert removed.ended_turn
    assert state.turn_of is None
    state.next_turn()
    state.hold()
    held = state.remove_holder("b")
    assert held.card == card("5H")
    assert not held.ended_turn
    assert state.held == []
    assert_refused(state, lambda: state.remove_holder("a"), "no card")
    assert Counter(all_cards(state)) == Counter(full_deck())


def test_r5_deal_discards_unplayed_face_up_cards() -> None:
    state = dealt_state(a="KS", b="5H")
    state.next_turn()
    state.end_turn()
    result = state.deal(["a", "b"], NO_SHUFFLE)
    assert [(e.holder, e.card.code) for e in result.unplayed] == [("b", "5H")]


# --------------------------------------------------------------------------------- saving


def test_state_round_trips_exactly_through_json() -> None:
    state = dealt_state(a="RJ", b="KS", c="5H", d="10D")
    state.next_turn()
    state.end_turn()
    state.start_next_turn()
    state.hold()
    state.start_next_turn()
    text = state.model_dump_json()

    restored = InitiativeState.model_validate_json(text)

    assert restored == state
    assert restored.model_dump_json() == text
    assert restored.bonus_for("c", RollKind.ATTACK) == state.bonus_for("c", RollKind.ATTACK)
    assert restored.order == state.order


def test_fresh_state_round_trips_through_json() -> None:
    state = InitiativeState()
    assert InitiativeState.model_validate_json(state.model_dump_json()) == state


# --------------------------------------------------------------------------------- properties

PARTY = [f"h{i}" for i in range(8)]
CROWD = [f"npc{i}" for i in range(60)]
MAYBE_SOMEONE = st.sampled_from([*PARTY, None])

operations = st.one_of(
    st.tuples(st.just("deal"), st.lists(st.sampled_from(PARTY), unique=True, min_size=1)),
    st.tuples(st.just("deal"), st.lists(st.sampled_from(PARTY), max_size=4)),  # may repeat, may be empty
    st.tuples(st.just("deal_crowd"), st.integers(min_value=15, max_value=56)),  # 56+3: too many
    st.tuples(st.just("next_turn"), st.none()),
    st.tuples(st.just("start_next_turn"), st.none()),
    st.tuples(st.just("end_turn"), MAYBE_SOMEONE),
    st.tuples(st.just("hold"), MAYBE_SOMEONE),
    st.tuples(st.just("claim"), st.sampled_from(PARTY + CROWD[:3])),
    st.tuples(st.just("remove_holder"), st.sampled_from(PARTY + CROWD[:3])),
)


def apply(state: InitiativeState, operation: tuple[str, Any], dice: RandomDice) -> object:
    name, argument = operation
    if name == "deal":
        return state.deal(argument, dice)
    if name == "deal_crowd":
        return state.deal(PARTY[:3] + CROWD[:argument], dice)
    if name in ("next_turn", "start_next_turn"):
        return getattr(state, name)()
    if name in ("end_turn", "hold"):
        return getattr(state, name)(by=argument)
    return getattr(state, name)(argument)


def runs_short(state: InitiativeState, operation: tuple[str, Any]) -> bool:
    """R2: whether a deal must refill the draw pile from the discards part-way."""
    name, argument = operation
    if not name.startswith("deal") or state.deck is None or state.joker_dealt:
        return False
    holders = argument if name == "deal" else PARTY[:3] + CROWD[:argument]
    needed = len([holder for holder in holders if holder not in state.held])
    return len(state.deck.draw_pile) < needed


def assert_invariants(state: InitiativeState) -> None:
    in_play = list(state.cards.values())
    assert len(set(in_play)) == len(in_play), "a card is in play twice"
    if state.deck is None:
        assert in_play == []
    else:
        everything = all_cards(state)
        assert Counter(everything) == Counter(full_deck())
        assert len(set(everything)) == 54
    assert set(state.held) <= set(state.cards)
    assert len(set(state.held)) == len(state.held)
    assert not set(state.acted) & set(state.cards)
    assert state.turn_of is None or state.turn_of in state.cards

    keys = [entry.card.order_key for entry in state.order]
    assert all(high > low for high, low in pairwise(keys)), "order is not strict"
    face_up = {h for h in state.cards if h not in state.held and h != state.turn_of}
    assert {entry.holder for entry in state.order} == face_up
    assert len(state.order) == len(face_up)

    assert InitiativeState.model_validate_json(state.model_dump_json()) == state


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), steps=st.lists(operations, max_size=60))
def test_r1_r2_r4_cards_are_conserved_and_order_is_total(seed: int, steps: list[tuple[str, Any]]) -> None:
    state = InitiativeState()
    dice = RandomDice.seeded(seed)
    for step in steps:
        before = state.model_dump()
        joker_round = state.joker_dealt
        short = runs_short(state, step)
        try:
            result = apply(state, step, dice)
        except RulesError:
            event(f"{step[0]} refused")
            assert state.model_dump() == before, f"refused {step} but changed the state"
        else:
            if step[0].startswith("deal"):
                reasons = [r.reason for r in getattr(result, "reshuffles", [])]
                for reason in reasons:
                    event(f"reshuffle: {reason}")
                assert (ReshuffleReason.JOKER_ROUND in reasons) == joker_round
                assert (ReshuffleReason.DECK_RAN_OUT in reasons) == short
        assert_invariants(state)


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    deals=st.lists(st.tuples(st.integers(min_value=1, max_value=40), st.booleans()), min_size=2, max_size=8),
)
def test_r2_r4_deck_refills_exactly_when_it_runs_short(seed: int, deals: list[tuple[int, bool]]) -> None:
    state = InitiativeState()
    dice = RandomDice.seeded(seed)
    for size, first_holds in deals:
        holders = PARTY[:1] + CROWD[:size]
        short = runs_short(state, ("deal", holders))
        if short:
            event("deck ran out")
        result = state.deal(holders, dice)
        reasons = [r.reason for r in result.reshuffles]
        assert (ReshuffleReason.DECK_RAN_OUT in reasons) == short
        assert {entry.holder for entry in result.dealt} | set(result.kept) == set(holders)
        assert_invariants(state)
        if first_holds and state.order:
            state.start_next_turn()
            state.hold()
            assert_invariants(state)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), steps=st.lists(operations, max_size=40))
def test_r3_r4_claims_only_between_turns_by_a_held_card_or_a_joker(
    seed: int, steps: list[tuple[str, Any]]
) -> None:
    state = InitiativeState()
    dice = RandomDice.seeded(seed)
    for step in steps:
        name, holder = step
        between_turns = state.round > 0 and state.turn_of is None
        card_of = state.cards.get(holder) if isinstance(holder, str) else None
        held = holder in state.held
        face_up_joker = card_of is not None and not held and card_of.is_joker
        try:
            apply(state, step, dice)
        except RulesError:
            assert not (name == "claim" and between_turns and (held or face_up_joker))
            continue
        if name == "claim":
            assert between_turns
            assert held or face_up_joker
            assert state.turn_of == holder


def test_errors_are_illegal_actions_for_a_player() -> None:
    state = dealt_state(a="KS")
    with pytest.raises(IllegalAction):
        state.claim("a")


def test_r15_desperation_by_the_holder_of_the_initiative_swaps_next_rounds_cards() -> None:
    state = InitiativeState(deck=deck_dealing("KS", "3C", "2D", "QH"))
    state.deal(["ann", "bob"], NO_SHUFFLE)  # ann K♠, bob 3♣
    assert state.start_next_turn().holder == "ann"
    assert state.went_first("ann", "bob")
    assert not state.went_first("bob", "ann")
    state.swap_next_round("ann", "bob")  # bob hit ann, who spent her pool on a desperation defense
    state.next_turn()
    state.end_turn()

    dealt = state.deal(["ann", "bob"], NO_SHUFFLE)  # drawn: ann 2♦, bob Q♥, then swapped
    assert dealt.swapped == [("ann", "bob")]
    assert state.cards == {"ann": card("QH"), "bob": card("2D")}
    assert {entry.holder: entry.card for entry in dealt.dealt} == state.cards
    assert state.swaps == []


def test_r15_no_swap_for_a_holder_that_keeps_a_held_card() -> None:
    state = InitiativeState(deck=deck_dealing("KS", "3C", "QH"))
    state.deal(["ann", "bob"], NO_SHUFFLE)
    state.start_next_turn()
    state.hold()  # ann holds her K♠ into the next round
    state.swap_next_round("ann", "bob")
    state.next_turn()
    state.end_turn()
    dealt = state.deal(["ann", "bob"], NO_SHUFFLE)
    assert dealt.swapped == []
    assert state.cards == {"ann": card("KS"), "bob": card("QH")}


def test_r5_a_round_is_six_seconds_and_a_fight_one_exploration_turn() -> None:
    assert fight_duration(1) == "1 round (6 s); the fight counts as one 10-minute turn"
    assert fight_duration(12).startswith("12 rounds (1 min 12 s)")
