"""Cards and the deck (R1, R2): codes, labels, order and exact save/restore."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.rules.cards import Card, InitiativeDeck, full_deck, in_initiative_order
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.errors import RulesError


def test_r1_the_deck_has_54_distinct_cards_two_of_them_jokers() -> None:
    deck = full_deck()
    assert len(deck) == 54
    assert len(set(deck)) == 54
    assert sum(card.is_joker for card in deck) == 2


def test_r1_the_whole_order_top_and_bottom() -> None:
    order = [card.code for card in in_initiative_order(full_deck())]
    assert order[:7] == ["BJ", "RJ", "AS", "AH", "AD", "AC", "KS"]
    assert order[-4:] == ["2S", "2H", "2D", "2C"]


@pytest.mark.parametrize("card", full_deck(), ids=lambda c: c.code)
def test_r1_every_card_saves_as_its_code_and_comes_back(card: Card) -> None:
    assert card.model_dump_json() == f'"{card.code}"'
    assert Card.model_validate(card.code) == card


def test_r1_labels_show_rank_and_suit_symbol() -> None:
    assert Card.model_validate("10h").label == "10♥"
    assert Card.model_validate("QS").label == "Q♠"
    assert Card.model_validate("RJ").label == "🃏 Joker (red)"


@pytest.mark.parametrize("code", ["1S", "11H", "AX", "", "J", "JOKER", "0C"])
def test_r1_a_bad_card_code_is_refused(code: str) -> None:
    with pytest.raises(ValidationError):
        Card.model_validate(code)


def test_r2_an_empty_draw_pile_takes_the_shuffled_discards() -> None:
    deck = InitiativeDeck(draw_pile=[], discards=[Card.model_validate("5D")])
    draw = deck.draw(ScriptedDice([]))
    assert draw.reshuffled
    assert draw.card.code == "5D"
    assert deck.size == 0


def test_r2_nothing_left_to_deal_is_refused_plainly() -> None:
    with pytest.raises(RulesError, match="Every card of the deck is in play"):
        InitiativeDeck().draw(ScriptedDice([]))


@given(seed=st.integers(0, 2**32), draws=st.integers(0, 54))
def test_r2_a_deck_saves_and_restores_exactly_mid_game(seed: int, draws: int) -> None:
    dice = RandomDice.seeded(seed)
    deck = InitiativeDeck.shuffled(dice)
    drawn = [deck.draw(dice).card for _ in range(draws)]
    deck.discard(drawn[: draws // 2])
    restored = InitiativeDeck.model_validate_json(deck.model_dump_json())
    assert restored == deck
    assert restored.draw_pile == deck.draw_pile
    assert sorted(restored.draw_pile + restored.discards + drawn[draws // 2 :]) == sorted(full_deck())


def test_r2_a_saved_pile_reads_as_the_54_shared_cards() -> None:
    """A pile is read code by code from the 54 cards (no validation card by card), so the same cards
    come back, and a pile that is not all known codes still gets each card's own validation."""
    deck = InitiativeDeck.model_validate_json('{"draw_pile": ["AS", "10H", "BJ"], "discards": ["2C"]}')
    assert [card.code for card in deck.draw_pile] == ["AS", "10H", "BJ"]
    assert all(card is next(c for c in full_deck() if c == card) for card in deck.draw_pile)
    assert deck.model_dump() == {"draw_pile": ["AS", "10H", "BJ"], "discards": ["2C"]}
    mixed = InitiativeDeck.model_validate({"draw_pile": [{"rank": 3, "suit": 2}, "as"]})
    assert [card.code for card in mixed.draw_pile] == ["3D", "AS"]
    with pytest.raises(ValidationError) as refused:
        InitiativeDeck.model_validate_json('{"draw_pile": ["AS", "ZZ"]}')
    assert [error["loc"] for error in refused.value.errors()] == [("draw_pile", 1)]
    with pytest.raises(ValidationError):
        InitiativeDeck.model_validate_json('{"draw_pile": "AS"}')


def test_r1_a_card_neither_ranked_with_a_suit_nor_a_joker_with_a_colour_is_refused() -> None:
    """Checked where a card is built (from fields or an unknown code), the 54 known codes being sound."""
    for fields in ({"rank": 15, "suit": 1}, {"rank": 5, "joker": 1}, {"rank": 5}, {"rank": 15}):
        with pytest.raises(
            ValidationError, match="either a Joker with a colour or a ranked card with a suit"
        ):
            Card.model_validate(fields)
    with pytest.raises(ValidationError, match="either a Joker"):
        InitiativeDeck.model_validate({"draw_pile": ["AS", {"rank": 15, "suit": 1}]})
    assert Card.model_validate("9d").code == "9D"
    assert InitiativeDeck.model_validate({"draw_pile": [Card(rank=2, suit=1)]}).draw_pile[0].code == "2C"
