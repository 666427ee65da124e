"""The words of ``/move``, ``/range`` and ``/save``: which move it was and what it cost, the range
changed, the save rolled (the log's lines, and the middle of the replies)."""

from __future__ import annotations

from ..encounter.combatants import Combatant
from ..rules.dice import Advantage
from ..rules.engagement import RangeChange
from ..rules.movement import COMBAT_RANGE_COST, RUNNING_MOVES, MoveResult
from ..rules.saves import SaveResult
from .phrases import dice_count, dice_left, ordinal, signed


def move_cost(result: MoveResult, *, combat_range: bool) -> str:
    """What a walking move cost: the move itself (free the first time) and combat range (1 MP)."""
    range_cost = COMBAT_RANGE_COST if combat_range else 0
    move_cost = result.cost - range_cost
    if not result.cost:
        return "free"
    if not range_cost:
        return f"{dice_count(move_cost)} from the Martial Pool"
    if not move_cost:
        return f"free, but {dice_count(range_cost)} from the Martial Pool to enter or leave combat range"
    return (
        f"{dice_count(result.cost)} from the Martial Pool: {move_cost} for the move, "
        f"{range_cost} to enter or leave combat range"
    )


def move_what(result: MoveResult, *, combat_range: bool) -> str:
    """The plain-text middle of a move's reply and log line: which move it was and what it cost."""
    if result.running:
        spent = (
            f"spending the {dice_count(result.cost)} left in the Martial Pool"
            if result.cost
            else "no dice left"
        )
        return f"runs ({RUNNING_MOVES} moves this round, {spent})"
    cost = move_cost(result, combat_range=combat_range)
    return f"moves ({ordinal(result.moves_this_round)} move this round, {cost})"


def move_log_line(by: str, combatant: Combatant, result: MoveResult, *, combat_range: bool) -> str:
    return f"{by}: {combatant.name} {move_what(result, combat_range=combat_range)}, {dice_left(combatant)}"


def range_log_line(
    by: str, mover: Combatant, target: Combatant, change: RangeChange, *, provoked: bool
) -> str:
    line = (
        f"{by}: {mover.name} changed range with {target.name}: {change.old.label} → {change.new.label} "
        f"({dice_count(change.cost)}), {dice_left(mover)}"
    )
    if provoked:
        line += f"; {target.name} may make an opportunity attack on {mover.name}"
    return line


def save_log_line(by: str, combatant: Combatant, result: SaveResult) -> str:
    roll = result.roll
    situation = {Advantage.ADVANTAGE: " with advantage", Advantage.DISADVANTAGE: " with disadvantage"}
    outcome = "saved" if result.success else "failed"
    return (
        f"{by}: {combatant.name} saving throw vs {result.target} "
        f"with {dice_count(roll.committed)} from the pool"
        f"{situation.get(roll.advantage, '')}: {list(roll.faces)} keep {roll.value} {signed(result.bonus)} "
        f"= {result.total}, {outcome}; {dice_left(combatant)}"
    )
