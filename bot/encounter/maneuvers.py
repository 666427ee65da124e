"""Spending the Martial Pool outside attacks: moving (R19), changing range with one opponent (R12) and
saving throws (R20), and whose pool ``/pool`` shows.

Moving and changing range happen on the combatant's own turn; a saving throw may come at any moment.
Each spends dice from the pool (R7) and returns its log line; a refusal (too many moves, too few dice,
the wrong turn) raises having changed nothing. Pools are not secret: anyone may look at any.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import movement, saves
from ..rules.dice import Advantage, DiceSource
from ..rules.engagement import Range, RangeChange, plan_range_change
from ..rules.errors import IllegalAction, shown
from ..rules.initiative import RollKind
from ..rules.movement import MoveResult
from ..rules.pool import Spend
from ..rules.saves import SaveResult
from ..wording.maneuvers import move_log_line, range_log_line, save_log_line
from .attacks import owe
from .combatants import Combatant
from .document import Encounter
from .done import Done
from .errors import NotAllowed
from .fighters import joker_bonus, may_take_attack_owed, mount_of, require_actions_left
from .morale import propose_closing_check
from .permissions import Actor, acting_combatant, is_gm, require_turn
from .records import MoraleProposal, Reaction, ReactionKind

# ---------------------------------------------------------------------------------- moving (R19)


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """What ``/move`` did: who moved, the move (its cost, the moves this round), and whether it
    entered or left combat range."""

    combatant: Combatant
    result: MoveResult
    combat_range: bool = False


def require_one_way_of_moving(*, run: bool, combat_range: bool) -> None:
    """R19: a run is 4 moves for the whole pool; combat range is one walking move's extra die."""
    if run and combat_range:
        raise IllegalAction(
            "Pick one: `run` (4 moves for your whole pool) or a move with `combat_range` "
            "(entering or leaving combat range, 1 die more)."
        )


def move(
    encounter: Encounter, actor: Actor, *, who: str | None, combat_range: bool, by: str
) -> Done[MoveOutcome]:
    """R19: one walking move on the combatant's turn: the first of a round is free, each further one
    costs a die, up to 3; entering or leaving combat range costs a die more."""
    combatant = _mover(encounter, actor, who)
    result = movement.move(combatant.pool, combatant.moves, combat_range=combat_range)
    encounter.initiative.use_turn(combatant.holder)
    return _moved(combatant, result, combat_range=combat_range, by=by)


def run(encounter: Encounter, actor: Actor, *, who: str | None, by: str) -> Done[MoveOutcome]:
    """R19: running, 4 moves for the whole pool, when no die went to anything but moving."""
    combatant = _mover(encounter, actor, who)
    result = movement.run(combatant.pool, combatant.moves)
    encounter.initiative.use_turn(combatant.holder)
    return _moved(combatant, result, combat_range=False, by=by)


def _mover(encounter: Encounter, actor: Actor, who: str | None) -> Combatant:
    combatant = acting_combatant(encounter, actor, who, "move")
    require_turn(encounter, combatant, "move")
    combatant.require_able("move")
    require_actions_left(encounter, combatant, "move")
    return combatant


def _moved(combatant: Combatant, result: MoveResult, *, combat_range: bool, by: str) -> Done[MoveOutcome]:
    combatant.moves = result.moves_this_round
    line = move_log_line(by, combatant, result, combat_range=combat_range)
    outcome = MoveOutcome(combatant, result, combat_range)
    return Done(outcome, log=[line], kind="move", data=_spent(combatant, result.cost))


# ---------------------------------------------------------------------------------- range (R12)


@dataclass(frozen=True, slots=True)
class RangeOutcome:
    """What ``/range`` did: the pair, the change and its cost, and the opportunity attack leaving
    Grapple gave ``target`` (R12). ``controller`` plays the target (its player or the GM); ``owed`` is
    the opportunity attack ``target`` may now make on ``mover``, whatever gave it."""

    mover: Combatant
    target: Combatant
    change: RangeChange
    reaction: Reaction | None
    controller: int
    owed: Reaction | None = None
    proposals: tuple[MoraleProposal, ...] = ()
    """R25: the morale check a riding horse closing with an enemy is proposed (its NPC group's)."""


def change_range(
    encounter: Encounter, actor: Actor, *, target: str, to: Range, who: str | None, by: str
) -> Done[RangeOutcome]:
    """R12, R19: the mover changes its range with ``target`` on its turn, 1 die per step; leaving
    Grapple gives the target an opportunity attack, if it can make one (in the fight, dice left)."""
    mover = acting_combatant(encounter, actor, who, "change range")
    opponent = encounter.combatant(target)
    if opponent.id == mover.id:
        raise IllegalAction(
            f"Range is kept between two combatants; name the opponent {shown(mover.name)} "
            "closes with or draws back from as `target:`."
        )
    require_turn(encounter, mover, "change range")
    mover.require_able("change range")
    change = plan_range_change(encounter.engagement_now(mover, opponent), to)
    mover.pool.spend(change.cost, Spend.RANGE_CHANGE)
    encounter.initiative.use_turn(mover.holder)
    encounter.engagement(mover, opponent).range = change.new
    reaction = None
    if change.provokes_opportunity_attack and may_take_attack_owed(opponent):
        reason = f"{mover.name} left Grapple range"
        reaction = owe(encounter, ReactionKind.OPPORTUNITY, opponent, mover, reason)
    controller = opponent.owner_id if opponent.owner_id is not None else encounter.gm_id
    owed = encounter.reaction(opponent, mover, ReactionKind.OPPORTUNITY)
    line = range_log_line(by, mover, opponent, change, provoked=reaction is not None)
    proposals: list[MoraleProposal] = []
    closing = change.old is Range.ONSET and change.new is not Range.ONSET
    horse = mover if mover.steed is not None else mount_of(encounter, mover)
    if closing and horse is not None and opponent.side is not mover.side:
        proposals = propose_closing_check(encounter, horse, opponent)
    outcome = RangeOutcome(mover, opponent, change, reaction, controller, owed, tuple(proposals))
    return Done(outcome, log=[line], kind="range", data=_spent(mover, change.cost))


# ---------------------------------------------------------------------------------- saves (R20)


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """What ``/save`` did: who saved, the roll, and the part of its bonus a Joker's turn added (R3)."""

    combatant: Combatant
    result: SaveResult
    joker: int = 0


def saving_throw(
    encounter: Encounter,
    actor: Actor,
    rolling: DiceSource,
    *,
    who: str | None,
    target: int,
    dice: int,
    bonus: int,
    advantage: Advantage,
    private: bool,
    by: str,
) -> Done[SaveOutcome]:
    """R20: one free die, plus ``dice`` from the pool, the highest counting, against ``target``; at any
    moment, on anyone's turn. ``private`` only marks the log entry (the cog shows the reply privately)."""
    combatant = acting_combatant(encounter, actor, who, "make a saving throw")
    if dice:
        combatant.pool.spend(dice, Spend.SAVE)
    joker = joker_bonus(encounter, combatant, RollKind.SAVING_THROW)
    result = saves.saving_throw(
        rolling, pool_dice=dice, bonus=bonus + joker, target=target, advantage=advantage
    )
    data: dict[str, object] = {
        "combatant": combatant.id,
        "faces": list(result.roll.faces),
        "counting": result.roll.counting,
        "bonus": result.bonus,
        "total": result.total,
        "target": target,
        "success": result.success,
        "spent": dice,
        "private": private,
        "by": by,
    }
    line = save_log_line(by, combatant, result)
    outcome = SaveOutcome(combatant, result, joker)
    return Done(outcome, log=[line], kind="save", data=data)


# ---------------------------------------------------------------------------------- /pool


def pool_subjects(encounter: Encounter, actor: Actor, who: str | None) -> list[Combatant]:
    """Whose pool ``/pool`` shows: the one named (anyone's: pools are not secret), else the user's own
    combatants, else for the GM the NPCs whose card has the turn."""
    if who:
        return [encounter.combatant(who)]
    own = [c for c in encounter.combatants if c.owner_id == actor.user_id]
    if own:
        return own
    if is_gm(encounter, actor):
        turn_of = encounter.initiative.turn_of
        if turn_of is not None and encounter.is_npc_holder(turn_of):
            return encounter.members(turn_of)
        raise IllegalAction(
            "No NPC group's turn is in progress: name a combatant with `who:` to see its pool."
        )
    raise NotAllowed(
        "You have no combatant in this fight. Name one with `who:` to see its pool (pools are not "
        "secret), or bring your character in with /join."
    )


def _spent(combatant: Combatant, cost: int) -> dict[str, object]:
    return {"combatant": combatant.id, "spent": cost, "left": combatant.pool.remaining}
