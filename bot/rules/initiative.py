"""Lords of Hack card initiative for one fight: dealing, the order of turns, holds and Jokers (R1-R5).

A *holder* is whoever a card is dealt to: a player (whose retainers act on the same card) or an NPC
group the GM defines. Holders are plain string ids; the Discord layer maps them to names.

Every operation checks first and raises :class:`~bot.rules.errors.RulesError` without touching the
state, or else changes the state and returns a small result saying what happened.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from .cards import Card, InitiativeDeck, full_deck
from .dice import DiceSource
from .errors import IllegalAction, RulesError


class RoundOver(IllegalAction):
    """R5: no face-up card is left to act this round; the GM deals the next one."""


class RollKind(StrEnum):
    """The kinds of roll the Joker bonus asks about (R3)."""

    ATTACK = "attack"
    DAMAGE = "damage"
    SKILL = "skill"
    ABILITY_CHECK = "ability check"
    MAGIC = "magic"
    HEAL = "heal"
    MORALE = "morale"
    ACTIVE_DEFENSE = "active defense"
    SAVING_THROW = "saving throw"


DECK_SIZE = len(full_deck())
ROUND_SECONDS = 6
"""R5: a round is six seconds of game time."""
FIGHT_EXPLORATION_MINUTES = 10
"""R5: a whole fight counts as one 10-minute exploration turn."""


def fight_duration(rounds: int) -> str:
    """R5: the game time a fight of ``rounds`` rounds took, for the fight's summary."""
    minutes, seconds = divmod(rounds * ROUND_SECONDS, 60)
    took = f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
    plural = "s" if rounds != 1 else ""
    return f"{rounds} round{plural} ({took}); the fight counts as one {FIGHT_EXPLORATION_MINUTES}-minute turn"


JOKER_BONUS_ROLLS = frozenset(
    {
        RollKind.ATTACK,
        RollKind.DAMAGE,
        RollKind.SKILL,
        RollKind.ABILITY_CHECK,
        RollKind.MAGIC,
        RollKind.HEAL,
        RollKind.MORALE,
    }
)
"""R3: the rolls a Joker's turn improves. Active defense and saving throws are not among them."""


class CardInPlay(BaseModel):
    """A holder and the card it acts on."""

    holder: str
    card: Card


class ReshuffleReason(StrEnum):
    JOKER_ROUND = "a Joker was dealt last round"
    DECK_RAN_OUT = "the deck ran out while dealing"


class Reshuffle(BaseModel):
    """R2: the discards went back into the deck during a deal (worth a line in the log)."""

    reason: ReshuffleReason
    cards: int
    """How many discards were shuffled back in."""
    before: str | None = None
    """For a deck that ran out: the holder about to be dealt when it happened."""


class DealResult(BaseModel):
    """What :meth:`InitiativeState.deal` did."""

    round: int
    dealt: list[CardInPlay]
    """One card per holder that was not holding, in dealing order."""
    kept: list[str]
    """Holders that hold a face-down card from an earlier round and were not dealt (R4)."""
    unplayed: list[CardInPlay]
    """Face-up cards of the ended round that never acted, now discarded."""
    departed: list[CardInPlay]
    """Cards (face up or held) of holders missing from the new deal, now discarded."""
    reshuffles: list[Reshuffle]
    swapped: list[tuple[str, str]] = Field(default_factory=list)
    """R15: pairs whose new cards were swapped after a desperation defense."""
    order: list[CardInPlay]
    joker_dealt: bool


class TurnStarted(BaseModel):
    """A turn began: by the order (:meth:`InitiativeState.start_next_turn`) or by a claim."""

    round: int
    holder: str
    card: Card
    claimed: bool
    """True when the holder claimed the turn with a held card or a Joker (R3, R4)."""

    @property
    def joker(self) -> bool:
        """R3: everything acting on this card gets the Joker bonus this turn."""
        return self.card.is_joker


class TurnEnded(BaseModel):
    """A turn ended: the card was spent (:meth:`InitiativeState.end_turn`) or held (R4)."""

    holder: str
    card: Card
    held: bool
    """True when the card was flipped face down instead of spent."""
    may_claim: list[str]
    """Holders that may claim the next turn now: held cards and unacted Jokers, highest first."""
    up_next: CardInPlay | None
    """The card the order would start next, if any face-up card is left."""
    round_over: bool


class NextTurn(BaseModel):
    """What :meth:`InitiativeState.next_turn` did: the turn it ended (if any) and the one it started."""

    ended: TurnEnded | None
    started: TurnStarted | None
    """None when the ended turn was the last face-up card of the round."""

    @property
    def round_over(self) -> bool:
        return self.started is None


class HolderRemoved(BaseModel):
    """What :meth:`InitiativeState.remove_holder` did."""

    holder: str
    card: Card | None
    """The discarded card; None when the holder had already acted this round."""
    ended_turn: bool
    """True when the removed holder's turn was in progress (that turn is over)."""


class InitiativeState(BaseModel):
    """The initiative of one fight (R1-R5), saved whole as JSON.

    ``cards`` holds every card in play, face up or held; ``held`` names the holders whose card is
    face down. A card leaves ``cards`` for the discard pile when its holder's turn ends (the holder
    is then in ``acted``), at the next deal, or when its holder leaves the fight.
    """

    round: int = 0
    """0 before the first deal; each deal adds one (R5)."""
    deck: InitiativeDeck | None = None
    cards: dict[str, Card] = Field(default_factory=dict)
    held: list[str] = Field(default_factory=list)
    acted: list[str] = Field(default_factory=list)
    turn_of: str | None = None
    """The holder whose turn is in progress; None between turns."""
    turn_used: bool = False
    """Someone acting on the card of the turn in progress has done something only that turn allows
    (attacked, moved, rallied...): the card can no longer be held (R4 holds it instead of acting)."""
    joker_dealt: bool = False
    """R2: a Joker was dealt in the round now in play, so the next deal reshuffles first."""
    swaps: list[tuple[str, str]] = Field(default_factory=list)
    """R15: pairs of holders whose cards swap at the next deal."""

    # ----------------------------------------------------------------------------- views

    @property
    def order(self) -> list[CardInPlay]:
        """R1: the face-up cards still to act this round, highest first.

        The turn in progress and held cards are not in it (held cards are :attr:`waiting`).
        """
        face_up = [
            CardInPlay(holder=holder, card=card)
            for holder, card in self.cards.items()
            if holder not in self.held and holder != self.turn_of
        ]
        return _highest_first(face_up)

    @property
    def waiting(self) -> list[CardInPlay]:
        """R4: the held (face-down) cards, highest first; each may claim a turn between turns."""
        return _highest_first([CardInPlay(holder=h, card=self.cards[h]) for h in self.held])

    @property
    def current(self) -> CardInPlay | None:
        """The turn in progress, if any."""
        if self.turn_of is None:
            return None
        return CardInPlay(holder=self.turn_of, card=self.cards[self.turn_of])

    @property
    def may_claim(self) -> list[str]:
        """R3, R4: who may claim the next turn once no turn is in progress, highest card first."""
        claimants = [
            CardInPlay(holder=holder, card=card)
            for holder, card in self.cards.items()
            if holder != self.turn_of and (holder in self.held or card.is_joker)
        ]
        return [entry.holder for entry in _highest_first(claimants)]

    @property
    def is_round_over(self) -> bool:
        """R5: no turn in progress and no face-up card left to act; the GM should deal.

        Held cards do not keep a round going: they wait, across rounds if need be (R4).
        """
        return self.turn_of is None and all(holder in self.held for holder in self.cards)

    # ----------------------------------------------------------------------------- dealing

    def deal(self, holders: list[str], dice: DiceSource) -> DealResult:
        """R2, R4, R5: start the next round and deal one card to each holder that is not holding.

        The ended round's face-up cards go to the discards, and so does the card (even a held one)
        of any holder missing from ``holders``: the list names everyone still in the fight. If a
        Joker was dealt in the round just ended, all discards are shuffled into the deck before
        dealing. If the deck runs out while dealing, the discards are shuffled in and dealing goes
        on. The first deal shuffles a fresh deck.
        """
        if self.turn_of is not None:
            raise IllegalAction("A turn is still in progress. End it before dealing the next round.")
        if not holders:
            raise IllegalAction("Name at least one combatant to deal a card to.")
        repeated = sorted({holder for holder in holders if holders.count(holder) > 1})
        if repeated:
            raise IllegalAction(
                f"Each combatant gets one card; listed more than once: {', '.join(repeated)}."
            )
        keeping = [holder for holder in holders if holder in self.held]
        needed = len(holders) - len(keeping)
        free = DECK_SIZE - len(keeping)
        if needed > free:
            raise RulesError(
                f"There are {needed} combatants to deal to but only {free} cards free "
                f"({len(keeping)} held). Put some NPCs together in groups so that fewer cards are needed."
            )

        deck = self.deck if self.deck is not None else InitiativeDeck.shuffled(dice)
        self.deck = deck
        unplayed = [
            CardInPlay(holder=h, card=c) for h, c in self.cards.items() if h in holders and h not in self.held
        ]
        departed = [CardInPlay(holder=h, card=c) for h, c in self.cards.items() if h not in holders]
        deck.discard([entry.card for entry in unplayed + departed])
        self.cards = {holder: self.cards[holder] for holder in keeping}
        self.held = [holder for holder in self.held if holder in keeping]

        reshuffles: list[Reshuffle] = []
        if self.joker_dealt:
            reshuffles.append(Reshuffle(reason=ReshuffleReason.JOKER_ROUND, cards=len(deck.discards)))
            deck.reshuffle(dice)

        dealt: list[CardInPlay] = []
        for holder in holders:
            if holder in keeping:
                continue
            discards = len(deck.discards)
            draw = deck.draw(dice)
            if draw.reshuffled:
                ran_out = Reshuffle(reason=ReshuffleReason.DECK_RAN_OUT, cards=discards, before=holder)
                reshuffles.append(ran_out)
            self.cards[holder] = draw.card
            dealt.append(CardInPlay(holder=holder, card=draw.card))

        fresh = {entry.holder for entry in dealt}
        swapped = [(a, b) for a, b in self.swaps if a in fresh and b in fresh]
        for a, b in swapped:
            self.cards[a], self.cards[b] = self.cards[b], self.cards[a]
        self.swaps = []
        dealt = [CardInPlay(holder=entry.holder, card=self.cards[entry.holder]) for entry in dealt]

        self.round += 1
        self.acted = []
        self.joker_dealt = any(entry.card.is_joker for entry in dealt)
        return DealResult(
            round=self.round,
            dealt=dealt,
            kept=keeping,
            unplayed=unplayed,
            departed=departed,
            reshuffles=reshuffles,
            swapped=swapped,
            order=self.order,
            joker_dealt=self.joker_dealt,
        )

    # ----------------------------------------------------------------------------- turns

    def start_next_turn(self) -> TurnStarted:
        """R1: begin the turn of the highest face-up card still to act.

        Raises :class:`RoundOver` when none is left: the GM should deal the next round (R5).
        """
        self._require_dealt()
        self._require_between_turns("start the next one")
        order = self.order
        if not order:
            raise RoundOver(self._round_over_message())
        upcoming = order[0]
        self.turn_of = upcoming.holder
        self.turn_used = False
        return TurnStarted(round=self.round, holder=upcoming.holder, card=upcoming.card, claimed=False)

    def end_turn(self, by: str | None = None) -> TurnEnded:
        """R4: end the turn in progress; acting spent its card, which goes to the discards.

        ``by``, when given, must be the holder whose turn it is. The result names who may claim the
        next turn (held cards and unacted Jokers, R3, R4) and which card the order would start.
        """
        holder = self._require_turn_of(by, "end")
        assert self.deck is not None
        card = self.cards.pop(holder)
        self.deck.discard([card])
        self.acted.append(holder)
        self.turn_of = None
        return self._turn_ended(holder, card, held=False)

    def hold(self, by: str | None = None) -> TurnEnded:
        """R4: the holder whose turn is in progress flips its card face down instead of acting.

        The turn ends without spending the card; the card stays held across deals until its holder
        claims a turn with it (:meth:`claim`).
        """
        holder = self._require_turn_of(by, "hold")
        if self.turn_used:
            raise IllegalAction(
                "This turn was already used, so the card can no longer be held: R4 holds a card "
                "instead of acting. End the turn with Next."
            )
        self.held.append(holder)
        self.turn_of = None
        return self._turn_ended(holder, self.cards[holder], held=True)

    def use_turn(self, holder: str) -> None:
        """R4: ``holder`` acted on its turn in progress (an attack, a move...), so it can no longer hold
        its card; acting out of turn (a counterattack, R14) uses nothing."""
        if holder == self.turn_of:
            self.turn_used = True

    def claim(self, holder: str) -> TurnStarted:
        """R3, R4: between two turns, a held card or an unacted Joker takes the next turn.

        A held card acts now and is spent when the turn ends. A Joker never interrupts a turn in
        progress, and a face-up card that is not a Joker waits for its place in the order (R1).
        """
        self._require_dealt()
        self._require_between_turns("claim the next turn")
        card = self.check_claim(holder)
        if holder in self.held:
            self.held.remove(holder)
        self.turn_of = holder
        self.turn_used = False
        return TurnStarted(round=self.round, holder=holder, card=card, claimed=True)

    def check_claim(self, holder: str) -> Card:
        """R3, R4: refuse a claim by anyone but a held card or a face-up Joker; returns the card."""
        if holder not in self.cards:
            if holder in self.acted:
                raise IllegalAction("You have already acted this round; you get a new card at the next deal.")
            raise IllegalAction("You have no card this round; you will be dealt one at the next deal.")
        card = self.cards[holder]
        if holder not in self.held and not card.is_joker:
            raise IllegalAction(
                f"Your card ({card.label}) is face up, so you act when it comes up in the order. "
                "Only a held card or a Joker can claim a turn."
            )
        return card

    def next_turn(self) -> NextTurn:
        """R1, R5: end the turn in progress (if any), then start the highest face-up card left.

        With no turn in progress and no face-up card left, raises :class:`RoundOver`. When the turn
        it ends was the round's last, it returns ``started=None``: the GM should deal.
        """
        if self.turn_of is None:
            return NextTurn(ended=None, started=self.start_next_turn())
        ended = self.end_turn()
        started = self.start_next_turn() if ended.up_next is not None else None
        return NextTurn(ended=ended, started=started)

    def bonus_for(self, holder: str, roll_kind: RollKind, bonus: int = 2) -> int:
        """R3: the Joker bonus to one roll, ``bonus`` (``RuleOptions.joker_bonus``) or 0.

        It applies only while the turn in progress is on a Joker, only to rolls by that card's
        holder (its retainers included), and only to the kinds in :data:`JOKER_BONUS_ROLLS`.
        """
        if holder != self.turn_of or roll_kind not in JOKER_BONUS_ROLLS:
            return 0
        return bonus if self.cards[holder].is_joker else 0

    def went_first(self, holder: str, other: str) -> bool:
        """R15: whether ``holder`` has the initiative over ``other`` this round: it acted (or is acting)
        before ``other`` did. A holder still waiting for its card, or holding it, has not acted yet."""

        def position(who: str) -> int:
            if who in self.acted:
                return self.acted.index(who)
            if who == self.turn_of:
                return len(self.acted)
            return len(self.acted) + 1

        return position(holder) < position(other)

    def swap_next_round(self, holder: str, other: str) -> None:
        """R15: a desperation defense by the holder of the initiative: the two swap initiative next
        round, so their newly dealt cards are exchanged at the next deal (a held card is not swapped)."""
        if holder == other:
            raise IllegalAction("A combatant cannot swap initiative with itself.")
        self.swaps.append((holder, other))

    # ----------------------------------------------------------------------------- leaving

    def remove_holder(self, holder: str) -> HolderRemoved:
        """R2: a combatant leaves the fight; its card, face up or held, goes to the discards.

        If its turn was in progress, that turn is over (no one else's turn starts by itself).
        """
        if holder not in self.cards and holder not in self.acted:
            raise IllegalAction("That combatant has no card in this fight, so there is nothing to remove.")
        card = self.cards.pop(holder, None)
        if card is not None:
            assert self.deck is not None
            self.deck.discard([card])
        if holder in self.held:
            self.held.remove(holder)
        if holder in self.acted:
            self.acted.remove(holder)
        ended_turn = self.turn_of == holder
        if ended_turn:
            self.turn_of = None
        return HolderRemoved(holder=holder, card=card, ended_turn=ended_turn)

    # ----------------------------------------------------------------------------- checks

    def _require_dealt(self) -> None:
        if self.round == 0:
            raise IllegalAction("No cards have been dealt yet. The GM deals to start round 1.")

    def _require_between_turns(self, doing: str) -> None:
        if self.turn_of is not None:
            raise IllegalAction(
                f"A turn is in progress and nobody may interrupt it, not even a Joker. "
                f"Wait until it ends to {doing}."
            )

    def _require_turn_of(self, by: str | None, doing: str) -> str:
        if self.turn_of is None:
            raise IllegalAction(f"No turn is in progress, so there is no turn to {doing}.")
        if by is not None and by != self.turn_of:
            raise IllegalAction(f"It is not your turn: only the combatant whose turn it is can {doing} it.")
        return self.turn_of

    def _round_over_message(self) -> str:
        message = f"Round {self.round} is over: every face-up card has acted. The GM deals the next round."
        if self.held:
            message += " Held cards may still claim a turn before the deal."
        return message

    def _turn_ended(self, holder: str, card: Card, *, held: bool) -> TurnEnded:
        order = self.order
        return TurnEnded(
            holder=holder,
            card=card,
            held=held,
            may_claim=self.may_claim,
            up_next=order[0] if order else None,
            round_over=not order,
        )


def _highest_first(entries: list[CardInPlay]) -> list[CardInPlay]:
    """R1: holders sorted by their cards, highest first."""
    return sorted(entries, key=lambda entry: entry.card.order_key, reverse=True)
