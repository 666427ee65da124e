"""Moving in a fight and what it costs in Martial Pool dice (R19)."""

from __future__ import annotations

from pydantic import BaseModel

from .errors import IllegalAction
from .pool import MartialPool, Spend

FREE_MOVES = 1
MAX_WALKING_MOVES = 3
RUNNING_MOVES = 4
COMBAT_RANGE_COST = 1
SHIELD_WALL_MOVES = 1
"""R25: "It takes half of one's move allowance to form or maintain a shield wall": the wall takes one
of the round's moves (the free one, R19), so a man in it walks at most 2 more, each for a die."""


class MoveResult(BaseModel):
    """What a move cost and how many moves the combatant has made this round."""

    cost: int
    moves_this_round: int
    running: bool = False
    dice_left: int


def move(pool: MartialPool, moves_this_round: int, *, combat_range: bool = False) -> MoveResult:
    """R19: the first move of a round is free, each further one costs 1 MP, up to 3 in all; entering or
    leaving combat range costs 1 MP more. Refusals change nothing."""
    if moves_this_round >= MAX_WALKING_MOVES:
        raise IllegalAction(
            f"You have already moved {moves_this_round} times this round; 3 moves is the most, "
            "unless you run (4 moves, spending your whole pool) at the start of your movement."
        )
    cost = (0 if moves_this_round < FREE_MOVES else 1) + (COMBAT_RANGE_COST if combat_range else 0)
    if cost:
        pool.spend(cost, Spend.MOVEMENT)
    return MoveResult(cost=cost, moves_this_round=moves_this_round + 1, dice_left=pool.remaining)


def run(pool: MartialPool, moves_this_round: int) -> MoveResult:
    """R19: running is 4 moves and spends the whole pool, so it is refused once dice went to anything
    but movement this round (they could not all go to movement any more)."""
    if moves_this_round >= RUNNING_MOVES:
        raise IllegalAction("You have already run this round.")
    if pool.spent_on_other_than(Spend.MOVEMENT):
        raise IllegalAction(
            "Running spends your whole Martial Pool on movement, and you have already spent dice on "
            "something else this round. You can still walk (up to 3 moves)."
        )
    cost = pool.spend_all(Spend.MOVEMENT)
    return MoveResult(cost=cost, moves_this_round=RUNNING_MOVES, running=True, dice_left=pool.remaining)
