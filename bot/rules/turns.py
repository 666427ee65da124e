"""The flow of turns at the table: Next, Hold and Act over the initiative of R1-R5.

:class:`~bot.rules.initiative.InitiativeState` knows what is allowed; this module decides what the
buttons of a table do with it:

- **Next** ends the turn in progress and starts the next one. Between those two, a claim queued
  during the turn goes first (R3, R4: a held card or a Joker takes the turn right after the one in
  progress ends, never interrupting it). Depending on :class:`ClaimPause`, the flow may instead stop
  between the turns and offer the turn to the Joker (or held-card) holders who could claim it.
- **Hold** flips the current card face down (R4) and moves on as Next does.
- **Act** claims the next turn for a held card or a Joker: at once between turns, or queued to go
  right after the turn in progress.

Every change bumps :attr:`TurnFlow.step`. Buttons carry the step they were drawn for, so two clicks
on the same button advance the fight once: the second is out of date.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from .dice import DiceSource
from .errors import IllegalAction
from .initiative import DealResult, InitiativeState, TurnEnded, TurnStarted


class ClaimPause(StrEnum):
    """When Next stops between two turns to offer the turn to those who may claim it (R3, R4)."""

    JOKERS = "jokers"
    """Stop when a held Joker could claim (the default: R3 lets a Joker act whenever they choose)."""
    HELD = "held cards"
    """Stop for any held card or Joker (R4); slower at the table, but nobody has to be quick."""
    NEVER = "never"
    """Never stop: holders claim by clicking Act during the turn before theirs."""


class TurnFlow(BaseModel):
    """What the table adds to the initiative state: the step counter and the queued claims."""

    step: int = 0
    """Bumped by every deal, turn start, turn end and claim; buttons name the step they act on."""
    queued: list[str] = Field(default_factory=list)
    """Holders that clicked Act during a turn in progress: they take the next turns, in this order."""
    offered: list[str] = Field(default_factory=list)
    """Holders the turn is offered to now (the flow stopped between turns for them)."""


class Advance(BaseModel):
    """What Next, Hold or Act did."""

    ended: TurnEnded | None = None
    started: TurnStarted | None = None
    queued: str | None = None
    """A holder whose claim now waits for the turn in progress to end."""
    offered: list[str] = Field(default_factory=list)
    """Holders offered the turn between turns; Act takes it, Next lets the order go on."""
    round_over: bool = False


def deal(state: InitiativeState, flow: TurnFlow, holders: list[str], dice: DiceSource) -> DealResult:
    """R2, R5: deal a new round (see :meth:`InitiativeState.deal`); queued claims and offers lapse."""
    result = state.deal(holders, dice)
    flow.queued.clear()
    flow.offered.clear()
    flow.step += 1
    return result


def begin_round(state: InitiativeState, flow: TurnFlow, pause: ClaimPause) -> Advance:
    """R1, R3, R4: right after a deal, the highest card starts, unless the flow stops first to offer
    the turn to held cards (a held Joker by default; see :class:`ClaimPause`)."""
    offered = _offer(state, None, pause)
    if offered or not state.order:
        flow.offered = offered
        return Advance(offered=offered, round_over=not state.order)
    return Advance(started=_start_next(state, flow))


def next_turn(state: InitiativeState, flow: TurnFlow, pause: ClaimPause) -> Advance:
    """R1, R3, R4: end the turn in progress (if any), then start the next one.

    After a turn ends, a queued claim goes first; otherwise the flow may stop for an offer (see
    :class:`ClaimPause`). Called between turns, it starts the next turn at once: that is how the
    table declines an offer.
    """
    if state.turn_of is None:
        started = _start_next(state, flow)
        return Advance(started=started)
    ended = state.end_turn()
    return _after_turn(state, flow, ended, pause)


def hold(state: InitiativeState, flow: TurnFlow, pause: ClaimPause, by: str | None = None) -> Advance:
    """R4: the holder of the turn in progress flips the card face down; the next turn follows."""
    ended = state.hold(by)
    return _after_turn(state, flow, ended, pause)


def act(state: InitiativeState, flow: TurnFlow, holder: str) -> Advance:
    """R3, R4: a held card or a Joker claims the next turn.

    Between turns the claimed turn starts now. During a turn in progress the claim is queued and
    starts when that turn ends; nobody's turn is interrupted.
    """
    if state.turn_of is None:
        started = state.claim(holder)
        flow.queued = [queued for queued in flow.queued if queued != holder]
        flow.offered.clear()
        flow.step += 1
        return Advance(started=started)
    if holder == state.turn_of:
        raise IllegalAction("It is your turn already; Hold flips your card face down if you want to wait.")
    state.check_claim(holder)
    if holder in flow.queued:
        raise IllegalAction("You have already claimed the next turn; it starts when this turn ends.")
    flow.queued.append(holder)
    flow.step += 1
    return Advance(queued=holder)


def drop_holder(flow: TurnFlow, holder: str) -> None:
    """A holder left the fight: its queued claim and any offer to it lapse."""
    flow.queued = [queued for queued in flow.queued if queued != holder]
    flow.offered = [offered for offered in flow.offered if offered != holder]
    flow.step += 1


def _after_turn(state: InitiativeState, flow: TurnFlow, ended: TurnEnded, pause: ClaimPause) -> Advance:
    flow.step += 1
    flow.offered.clear()
    claimants = set(ended.may_claim)
    flow.queued = [queued for queued in flow.queued if queued in claimants]
    if flow.queued:
        started = state.claim(flow.queued.pop(0))
        flow.step += 1
        return Advance(ended=ended, started=started)
    offered = _offer(state, ended.holder, pause)
    if offered and not ended.round_over:
        flow.offered = offered
        return Advance(ended=ended, offered=offered)
    if ended.round_over:
        waiting = [holder for holder in ended.may_claim if holder != ended.holder]
        return Advance(ended=ended, offered=waiting, round_over=True)
    started = state.start_next_turn()
    flow.step += 1
    return Advance(ended=ended, started=started)


def _offer(state: InitiativeState, just_ended: str | None, pause: ClaimPause) -> list[str]:
    """Who the turn is offered to now: held cards (by the pause policy), highest first, never the
    holder who just ended or held their own turn. A face-up Joker is not offered the turn: it leads
    the order anyway (R1)."""
    if pause is ClaimPause.NEVER:
        return []
    return [
        entry.holder
        for entry in state.waiting
        if entry.holder != just_ended and (pause is ClaimPause.HELD or entry.card.is_joker)
    ]


def _start_next(state: InitiativeState, flow: TurnFlow) -> TurnStarted:
    claimants = set(state.may_claim)
    flow.queued = [queued for queued in flow.queued if queued in claimants]
    started = state.claim(flow.queued.pop(0)) if flow.queued else state.start_next_turn()
    flow.offered.clear()
    flow.step += 1
    return started
