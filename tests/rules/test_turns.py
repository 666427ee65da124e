"""The table's turn flow: Next, Hold and Act over the card initiative (R1, R3, R4, R5).

Every test deals known cards (``deck_dealing``) and checks who acts when. A refused action must change
nothing, the step counter included, so that a button drawn before the refusal is still current.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.rules.dice import ScriptedDice
from bot.rules.errors import RulesError
from bot.rules.initiative import InitiativeState, RollKind, RoundOver
from bot.rules.turns import Advance, ClaimPause, TurnFlow, act, begin_round, deal, hold, next_turn
from tests.rules.conftest import card, deck_dealing

NO_SHUFFLE = ScriptedDice([])
NEVER = ClaimPause.NEVER
JOKERS = ClaimPause.JOKERS
HELD = ClaimPause.HELD


class Table:
    """An initiative state and its turn flow, dealt from a known deck, with the pause for claims."""

    def __init__(self, pause: ClaimPause = NEVER) -> None:
        self.state = InitiativeState()
        self.flow = TurnFlow()
        self.pause = pause

    def deal(self, **cards: str) -> Advance:
        """Deal a round: each keyword is a holder and the code of the card it draws (holders that
        hold a card from an earlier round are named with an empty code and are not dealt)."""
        drawn = [code for code in cards.values() if code]
        if self.state.deck is None:
            self.state.deck = deck_dealing(*drawn)
        else:  # put the wanted cards on top, where they will be after any R2 reshuffle
            deck = self.state.deck
            top = [card(code) for code in drawn]
            free = deck.draw_pile + (deck.discards if self.state.joker_dealt else [])
            assert all(c in free for c in top), "a wanted card is not free to be dealt"
            deck.draw_pile = [c for c in deck.draw_pile if c not in top]
            deck.discards = [c for c in deck.discards if c not in top]
            (deck.discards if self.state.joker_dealt else deck.draw_pile).extend(top[::-1])
        deal(self.state, self.flow, list(cards), NO_SHUFFLE)
        return begin_round(self.state, self.flow, self.pause)

    def next(self) -> Advance:
        return next_turn(self.state, self.flow, self.pause)

    def hold(self, by: str | None = None) -> Advance:
        return hold(self.state, self.flow, self.pause, by)

    def act(self, holder: str) -> Advance:
        return act(self.state, self.flow, holder)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.state.model_dump(), self.flow.model_dump()

    def refused(self, action: Callable[[], Any], match: str) -> None:
        """The action raises a RulesError matching ``match`` and changes nothing, not even the step."""
        before = self.dump()
        with pytest.raises(RulesError, match=match):
            action()
        assert self.dump() == before


def started(advance: Advance) -> str | None:
    return advance.started.holder if advance.started else None


def ended(advance: Advance) -> str | None:
    return advance.ended.holder if advance.ended else None


# --------------------------------------------------------------------------------- Next (R1, R5)


def test_r1_next_ends_each_turn_and_starts_the_next_highest_card() -> None:
    """R1: Next spends the card in play and starts the highest face-up card left, to the last one."""
    table = Table()
    first = table.deal(two="2C", king="KH", ace="AD", ten="10S")
    assert started(first) == "ace"
    seen = []
    for _ in range(3):
        advance = table.next()
        seen.append((ended(advance), started(advance)))
        assert not advance.round_over
    assert seen == [("ace", "king"), ("king", "ten"), ("ten", "two")]
    last = table.next()
    assert (ended(last), last.started, last.round_over) == ("two", None, True)
    assert table.state.acted == ["ace", "king", "ten", "two"]
    assert table.state.is_round_over


def test_r1_same_rank_by_suit_through_next() -> None:
    """R1: of equal ranks ♠ > ♥ > ♦ > ♣."""
    table = Table()
    order = [started(table.deal(c="7C", h="7H", s="7S", d="7D"))]
    order += [started(table.next()) for _ in range(3)]
    assert order == ["s", "h", "d", "c"]


def test_r5_next_after_the_round_is_over_is_refused() -> None:
    """R5: with no face-up card left the GM deals; Next refuses and changes nothing."""
    table = Table()
    table.deal(a="KS")
    assert table.next().round_over
    table.refused(table.next, "Round 1 is over")
    with pytest.raises(RoundOver):
        table.next()


# --------------------------------------------------------------------------------- Act (R3, R4)


def test_r4_act_during_a_turn_is_queued_and_never_interrupts_it() -> None:
    """R4: a held card takes the turn right after the one in progress ends, never interrupting it."""
    table = Table()
    table.deal(a="KS", b="QS", c="2C")
    assert started(table.hold()) == "b"  # a holds its K♠; b's turn begins
    step = table.flow.step
    queued = table.act("a")
    assert queued.queued == "a"
    assert queued.started is None
    assert table.state.turn_of == "b", "the claim interrupted the turn in progress"
    assert table.flow.queued == ["a"]
    assert table.flow.step > step

    after_b = table.next()
    assert (ended(after_b), started(after_b)) == ("b", "a")
    assert after_b.started is not None
    assert after_b.started.claimed
    assert table.flow.queued == []
    after_a = table.next()
    assert (ended(after_a), started(after_a)) == ("a", "c"), "the order did not resume after the claim"


def test_r3_a_held_joker_claim_is_queued_too() -> None:
    """R3: even a Joker never interrupts a turn in progress: its claim waits for that turn to end."""
    table = Table()
    table.deal(a="RJ", b="QS", c="2C")
    table.hold()  # a holds the Joker; b's turn begins
    table.act("a")
    assert table.state.turn_of == "b"
    assert started(table.next()) == "a"
    assert table.state.bonus_for("a", RollKind.ATTACK) == 2


def test_r3_r4_queued_claims_go_in_the_order_they_were_made() -> None:
    """R3, R4: two claims queued during one turn take the next two turns, first come first served."""
    table = Table()
    table.deal(a="KS", b="QS", c="JS", d="2C")
    table.hold()  # a holds
    table.hold()  # b holds; c's turn
    table.act("b")
    table.act("a")
    assert table.flow.queued == ["b", "a"]
    assert started(table.next()) == "b"
    assert table.flow.queued == ["a"]
    assert started(table.next()) == "a"
    assert started(table.next()) == "d"


def test_r4_hold_moves_on_to_a_queued_claim_first() -> None:
    """R4: Hold ends the turn like Next; a claim queued during it goes next."""
    table = Table()
    table.deal(a="KS", b="QS", c="2C")
    table.hold()  # a holds; b's turn
    table.act("a")
    advance = table.hold()  # b holds too
    assert (ended(advance), started(advance)) == ("b", "a")
    assert advance.ended is not None
    assert advance.ended.held


def test_r4_act_between_turns_starts_the_claimed_turn_at_once() -> None:
    """R4: between two turns a held card claims the next turn and it starts now."""
    table = Table(HELD)
    table.deal(a="KS", b="QS", c="2C")
    table.hold()  # a holds; b starts (a just held, so it is not offered)
    advance = table.next()  # b ends: the flow stops to offer the turn to a
    assert advance.offered == ["a"]
    assert table.state.turn_of is None
    claimed = table.act("a")
    assert started(claimed) == "a"
    assert claimed.started is not None
    assert claimed.started.claimed
    assert table.flow.offered == []
    assert "a" not in table.state.held


def test_r3_a_face_up_joker_may_act_between_turns() -> None:
    """R3: a Joker acts whenever its holder chooses, between turns (here before a held Joker)."""
    table = Table(JOKERS)
    table.deal(a="BJ", b="2C")
    table.hold()  # a holds the black Joker; b starts
    table.next()  # round 1 over
    offer = table.deal(a="", b="RJ", c="3C")
    assert offer.offered == ["a"]
    assert started(table.act("b")) == "b"
    assert table.state.turn_of == "b"


def test_r4_act_by_the_holder_whose_turn_it_is_is_refused() -> None:
    """R4: the turn in progress cannot be claimed by its own holder; Hold is the way to wait."""
    table = Table()
    table.deal(a="KS", b="QS")
    table.refused(lambda: table.act("a"), "It is your turn already")


def test_r1_act_by_a_face_up_card_that_is_not_a_joker_is_refused() -> None:
    """R1, R3: a face-up non-Joker acts at its place in the order; the refusal says so."""
    table = Table()
    table.deal(a="KS", b="QS", c="2C")
    message = r"Your card \(2♣\) is face up, so you act when it comes up in the order"
    table.refused(lambda: table.act("c"), message)  # during a's turn
    table.state.end_turn()  # between turns now
    table.refused(lambda: table.act("c"), message)


def test_r4_a_second_act_by_the_same_holder_is_refused() -> None:
    """R4: a claim is queued once; the second click is refused and changes nothing."""
    table = Table()
    table.deal(a="KS", b="QS", c="2C")
    table.hold()
    table.act("a")
    table.refused(lambda: table.act("a"), "already claimed the next turn")
    assert table.flow.queued == ["a"]


def test_r4_act_after_acting_or_without_a_card_is_refused() -> None:
    """R4: a spent card cannot claim; a holder without a card is told it gets one at the next deal."""
    table = Table()
    table.deal(a="KS", b="QS", c="2C")
    table.next()  # a acted; b's turn
    table.refused(lambda: table.act("a"), "already acted this round")
    table.refused(lambda: table.act("stranger"), "no card this round")


def test_r4_hold_by_someone_else_is_refused() -> None:
    """R4: only the holder whose turn it is may hold it."""
    table = Table()
    table.deal(a="KS", b="QS")
    table.refused(lambda: table.hold("b"), "It is not your turn")
    assert table.hold("a").ended is not None


def test_act_or_next_before_the_first_deal_is_refused() -> None:
    table = Table()
    table.refused(table.next, "No cards have been dealt")
    table.refused(lambda: table.act("a"), "No cards have been dealt")


# --------------------------------------------------------------------------------- ClaimPause


def _held_then_next(pause: ClaimPause, held_card: str) -> tuple[Table, Advance]:
    """a holds ``held_card`` at the top of the round; b acts; Next ends b's turn."""
    table = Table(pause)
    if table.deal(a=held_card, b="QS", c="2C").offered:
        table.next()  # HELD offers even a face-up Joker its own turn: decline, the order starts it
    assert table.state.turn_of == "a"
    after_hold = table.hold()
    assert started(after_hold) == "b", "the holder who just held was offered its own turn back"
    return table, table.next()


@pytest.mark.parametrize(
    ("pause", "held_card", "stops"),
    [
        (JOKERS, "RJ", True),
        (JOKERS, "KS", False),
        (HELD, "RJ", True),
        (HELD, "KS", True),
        (NEVER, "RJ", False),
        (NEVER, "KS", False),
    ],
)
def test_r3_r4_claim_pause_decides_when_next_stops_between_turns(
    pause: ClaimPause, held_card: str, stops: bool
) -> None:
    """R3, R4: JOKERS stops only for a held Joker, HELD for any held card, NEVER never stops."""
    table, advance = _held_then_next(pause, held_card)
    assert ended(advance) == "b"
    if stops:
        assert advance.offered == ["a"]
        assert advance.started is None
        assert not advance.round_over
        assert table.flow.offered == ["a"]
        assert table.state.turn_of is None
    else:
        assert advance.offered == []
        assert started(advance) == "c"
        assert table.flow.offered == []


@pytest.mark.parametrize(("pause", "cards"), [(HELD, ("KS", "QS")), (JOKERS, ("BJ", "RJ"))])
def test_r4_the_holder_who_just_held_is_never_offered_the_turn(
    pause: ClaimPause, cards: tuple[str, str]
) -> None:
    """R4: holding ends one's turn; offering it straight back would make Hold a no-op. Another held
    card the pause stops for is still offered."""
    table = Table(pause)
    table.deal(x=cards[0], a=cards[1], b="2C")
    advance = table.hold()  # x holds; nobody else holds, so a starts at once
    assert advance.offered == []
    assert table.state.turn_of == "a"
    advance = table.hold()  # a holds its Joker too
    assert advance.offered == ["x"]
    assert table.flow.offered == ["x"]


def test_r1_next_between_turns_declines_the_offer_and_starts_the_order() -> None:
    """R1, R3: when the flow stops to offer the turn, Next lets the order go on."""
    table, advance = _held_then_next(JOKERS, "RJ")
    assert advance.offered == ["a"]
    declined = table.next()
    assert declined.ended is None
    assert started(declined) == "c"
    assert table.flow.offered == []
    assert "a" in table.state.held, "declining the offer spent the held Joker"


def test_r3_held_pause_does_not_stop_for_a_face_up_joker_that_leads_the_order() -> None:
    """R1, R3 with HELD: a face-up Joker comes up first anyway, so the deal starts its turn at once
    instead of offering it (no extra click)."""
    table = Table(HELD)
    offer = table.deal(a="RJ", b="2C")
    assert offer.offered == []
    assert offer.started is not None
    assert offer.started.holder == "a"
    assert not offer.started.claimed


def test_r3_begin_round_offers_a_held_joker_after_the_deal() -> None:
    """R3: a Joker held over from the last round may take the first turn of the new one."""
    table = Table(JOKERS)
    table.deal(a="RJ", b="2C")
    table.hold()
    table.next()
    offer = table.deal(a="", b="KS", c="3C")
    assert offer.offered == ["a"]
    assert offer.started is None
    assert table.flow.offered == ["a"]
    assert table.state.turn_of is None
    assert started(table.next()) == "b"


def test_r4_begin_round_offers_held_cards_only_when_the_table_stops_for_them() -> None:
    """R4: with HELD a held card is offered the first turn; with JOKERS the highest card starts."""
    for pause, expected in ((HELD, (["a"], None)), (JOKERS, ([], "b"))):
        table = Table(pause)
        table.deal(a="KS", b="2C")
        table.hold()
        table.next()
        offer = table.deal(a="", b="QS")
        assert (offer.offered, started(offer)) == expected


def test_r5_round_over_with_held_cards_waiting() -> None:
    """R5, R4: the last face-up card's end closes the round and names the held cards still waiting
    (but not the one that just held). They may claim before the deal; Next may not."""
    table = Table(NEVER)
    table.deal(a="KS", b="QS", c="2C")
    table.hold()  # a holds
    table.next()  # b acts; c starts
    advance = table.next()  # c acts: round over
    assert advance.round_over
    assert advance.started is None
    assert advance.offered == ["a"]
    table.refused(table.next, "Held cards may still claim a turn before the deal")
    assert started(table.act("a")) == "a"
    final = table.next()
    assert final.round_over
    assert final.offered == []


def test_r5_the_last_card_holding_closes_the_round_without_offering_it_back() -> None:
    """R4, R5: when the last face-up card holds, the round is over and it is not offered its turn."""
    table = Table(HELD)
    table.deal(a="KS")
    advance = table.hold()
    assert advance.round_over
    assert advance.offered == []


def test_r2_deal_clears_queued_claims_and_offers() -> None:
    """R2, R5: a new deal starts afresh; claims and offers of the old round lapse."""
    table, _advance = _held_then_next(HELD, "KS")
    assert table.flow.offered == ["a"]
    deal(table.state, table.flow, ["a", "b", "c"], NO_SHUFFLE)
    assert table.flow.offered == []

    flow = TurnFlow(queued=["a"], offered=["b"], step=7)
    state = InitiativeState()
    deal(state, flow, ["a", "b"], NO_SHUFFLE)
    assert (flow.queued, flow.offered, flow.step) == ([], [], 8)


def test_r5_deal_during_a_turn_is_refused_and_changes_nothing() -> None:
    table = Table()
    table.deal(a="KS", b="QS")
    table.refused(lambda: deal(table.state, table.flow, ["a", "b"], NO_SHUFFLE), "still in progress")


# --------------------------------------------------------------------------------- the step counter


def test_every_change_bumps_the_step_and_refusals_do_not() -> None:
    """A button carries the step it was drawn for: any change makes it stale, a refusal does not."""
    table = Table(HELD)
    steps = [table.flow.step]

    def changed(action: Callable[[], Any]) -> None:
        action()
        steps.append(table.flow.step)
        assert steps[-1] > steps[-2], f"{action} changed the fight without bumping the step"

    changed(lambda: table.deal(a="KS", b="QS", c="JS", d="2C"))  # a starts
    changed(table.hold)  # a holds, b starts
    changed(lambda: table.act("a"))  # queued
    table.refused(lambda: table.act("a"), "already claimed")
    table.refused(lambda: table.act("d"), "face up")
    table.refused(lambda: table.act("b"), "your turn already")
    changed(table.next)  # b ends, a claims
    changed(table.hold)  # a holds again: the flow offers nothing (a just held), c starts
    changed(table.next)  # c ends: offered a
    assert table.flow.offered == ["a"]
    changed(table.next)  # declined: d starts
    changed(table.next)  # d ends: round over
    table.refused(table.next, "over")
    changed(lambda: table.act("a"))
    changed(table.next)
    assert table.state.is_round_over
