"""Lords of Hack initiative cards: the 54-card deck and the order of cards (R1, R2)."""

from __future__ import annotations

from enum import IntEnum
from functools import cached_property
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    model_serializer,
    model_validator,
)

from .dice import DiceSource
from .errors import RulesError


class Suit(IntEnum):
    """R1: same rank breaks ties ♠ > ♥ > ♦ > ♣ (the value is the tie-break weight)."""

    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    SPADES = 4

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self.value - 1]

    @property
    def letter(self) -> str:
        return "CDHS"[self.value - 1]


class JokerColor(IntEnum):
    """R1: of two Jokers the black (big) one ranks above the red one (display order only, R3)."""

    RED = 1
    BLACK = 2


JOKER_RANK = 15
ACE = 14
_RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_FROM_NAME = {name: rank for rank, name in _RANK_NAMES.items()}


class Card(BaseModel):
    """One playing card. Saved as a short code: ``AS``, ``10H``, ``2C``, ``BJ``/``RJ`` for Jokers."""

    model_config = ConfigDict(frozen=True)

    rank: int = Field(ge=2, le=JOKER_RANK)
    suit: Suit | None = None
    joker: JokerColor | None = None

    @model_validator(mode="wrap")
    @classmethod
    def _from_code(cls, value: Any, handler: ModelWrapValidatorHandler[Card]) -> Card:
        if isinstance(value, str):
            # Cards are frozen, so the 54 of them can be shared: a saved deck loads without building
            # 54 new cards (a fight's document is read on every command), nor checking them again.
            known = _CARDS_BY_CODE.get(value)
            if known is not None:
                return known
            value = cls.parse_code(value)
        card = handler(value)
        if (card.rank == JOKER_RANK) != (card.joker is not None) or (card.suit is None) == (
            card.joker is None
        ):
            raise ValueError("a card is either a Joker with a colour or a ranked card with a suit")
        return card

    @model_serializer
    def _to_code(self) -> str:
        return self.code

    @staticmethod
    def parse_code(code: str) -> dict[str, Any]:
        code = code.strip().upper()
        if code in ("BJ", "RJ"):
            color = JokerColor.BLACK if code == "BJ" else JokerColor.RED
            return {"rank": JOKER_RANK, "joker": color}
        rank_text, suit_letter = code[:-1], code[-1:]
        if suit_letter not in "CDHS" or not suit_letter:
            raise ValueError(f"{code!r} is not a card code")
        numeric = int(rank_text) if rank_text.isdigit() and 2 <= int(rank_text) <= 10 else 0
        rank = _RANK_FROM_NAME.get(rank_text) or numeric
        if not rank:
            raise ValueError(f"{code!r} is not a card code")
        return {"rank": rank, "suit": Suit(" CDHS".index(suit_letter))}

    @property
    def is_joker(self) -> bool:
        return self.joker is not None

    @cached_property
    def code(self) -> str:
        if self.joker is not None:
            return "BJ" if self.joker is JokerColor.BLACK else "RJ"
        assert self.suit is not None
        return f"{_RANK_NAMES.get(self.rank, str(self.rank))}{self.suit.letter}"

    @cached_property
    def order_key(self) -> tuple[int, int]:
        """R1: sort descending by this key: Jokers (black first), Ace, King ... 2, then the suit."""
        tie = self.joker.value if self.joker is not None else self.suit.value if self.suit else 0
        return (self.rank, tie)

    @property
    def label(self) -> str:
        """How a message shows the card: ``A♠``, ``10♥``, ``🃏 Joker (black)``."""
        if self.joker is not None:
            return f"🃏 Joker ({'black' if self.joker is JokerColor.BLACK else 'red'})"
        assert self.suit is not None
        return f"{_RANK_NAMES.get(self.rank, str(self.rank))}{self.suit.symbol}"

    def __str__(self) -> str:
        return self.label

    def __lt__(self, other: Card) -> bool:
        return self.order_key < other.order_key


def _the_54_cards() -> tuple[Card, ...]:
    cards = [Card(rank=rank, suit=suit) for suit in Suit for rank in range(2, ACE + 1)]
    cards += [Card(rank=JOKER_RANK, joker=color) for color in JokerColor]
    return tuple(cards)


_DECK = _the_54_cards()
_CARDS_BY_CODE: dict[str, Card] = {}
_CARDS_BY_CODE.update((card.code, card) for card in _DECK)


def full_deck() -> list[Card]:
    """R1: the 54 cards, 52 ranked cards and two Jokers, in a fixed (unshuffled) order. Cards are
    frozen, so every deck shares the same 54 (a loaded deck too: see :data:`CardPile`)."""
    return list(_DECK)


_ANY_CARDS = TypeAdapter(list[Card])


def _pile_from_codes(value: Any) -> list[Card]:
    """A pile as saved (its cards' codes), without validating 54 cards one by one: each code is looked
    up among the 54. Anything else (a card given as fields, a code in lower case, a wrong code) takes
    the card's own validation, and its errors."""
    if isinstance(value, list):
        try:
            return [_CARDS_BY_CODE[item] for item in value]  # the usual case: every one a known code
        except (KeyError, TypeError):
            pass
        cards = [
            _CARDS_BY_CODE.get(item) if isinstance(item, str) else item if isinstance(item, Card) else None
            for item in value
        ]
        # By identity: ``None in cards`` would compare each card with None through pydantic's __eq__.
        if not any(card is None for card in cards):
            return cards  # type: ignore[return-value]  # no None among them
    return _ANY_CARDS.validate_python(value)


def _pile_codes(cards: list[Card]) -> list[str]:
    return [card.code for card in cards]


CardPile = Annotated[list[Card], PlainValidator(_pile_from_codes), PlainSerializer(_pile_codes)]
"""A list of cards saved as a list of codes, read and written in one step (a fight's document holds
the deck's 54 cards, and is read and written on every command: card by card, that was two thirds of it)."""


def in_initiative_order(cards: list[Card]) -> list[Card]:
    """R1: highest first."""
    return sorted(cards, key=lambda c: c.order_key, reverse=True)


class Draw(BaseModel):
    """What one draw did: the card, and whether the discards had to be shuffled back in (R2)."""

    card: Card
    reshuffled: bool


class InitiativeDeck(BaseModel):
    """R2: the deck that persists between rounds: a draw pile and a discard pile.

    Cards in play (dealt this round, or held) belong to neither pile; the caller owns them until it
    discards them. The whole state saves and restores exactly with ``model_dump``/``model_validate``.
    """

    draw_pile: CardPile = Field(default_factory=list)
    """Top of the pile is the end of the list."""
    discards: CardPile = Field(default_factory=list)

    @classmethod
    def shuffled(cls, dice: DiceSource) -> InitiativeDeck:
        cards = full_deck()
        dice.shuffle(cards)
        return cls(draw_pile=cards)

    def draw(self, dice: DiceSource) -> Draw:
        """Take the top card; an empty pile first takes the shuffled discards (R2)."""
        reshuffled = False
        if not self.draw_pile:
            if not self.discards:
                raise RulesError(
                    "Every card of the deck is in play, so no card can be dealt. "
                    "Discard held cards or end the round first."
                )
            self.reshuffle(dice)
            reshuffled = True
        return Draw(card=self.draw_pile.pop(), reshuffled=reshuffled)

    def discard(self, cards: list[Card]) -> None:
        self.discards.extend(cards)

    def reshuffle(self, dice: DiceSource) -> None:
        """R2: the discards go back into the draw pile, which is shuffled."""
        self.draw_pile.extend(self.discards)
        self.discards.clear()
        dice.shuffle(self.draw_pile)

    @property
    def size(self) -> int:
        return len(self.draw_pile) + len(self.discards)
