"""Moving in a fight and what it costs (R19)."""

from __future__ import annotations

import pytest

from bot.rules.errors import IllegalAction, NotEnoughDice
from bot.rules.movement import move, run
from bot.rules.pool import MartialPool, Spend


def test_r19_first_move_of_the_round_is_free() -> None:
    pool = MartialPool.full(3)
    result = move(pool, 0)
    assert result.cost == 0
    assert result.moves_this_round == 1
    assert result.dice_left == 3
    assert pool.spent == {}


def test_r19_second_and_third_moves_cost_1_mp_each() -> None:
    pool = MartialPool.full(3)
    move(pool, 0)
    second = move(pool, 1)
    third = move(pool, 2)
    assert (second.cost, third.cost) == (1, 1)
    assert third.moves_this_round == 3
    assert pool.remaining == 1
    assert pool.spent == {Spend.MOVEMENT: 2}


def test_r19_a_fourth_walking_move_is_refused_and_nothing_changes() -> None:
    pool = MartialPool.full(4)
    for made in range(3):
        move(pool, made)
    before = pool.model_dump()
    with pytest.raises(IllegalAction, match="3 moves is the most"):
        move(pool, 3)
    assert pool.model_dump() == before


def test_r19_free_move_into_combat_range_costs_1() -> None:
    pool = MartialPool.full(3)
    result = move(pool, 0, combat_range=True)
    assert result.cost == 1
    assert pool.remaining == 2


def test_r19_paid_move_into_or_out_of_combat_range_costs_2() -> None:
    pool = MartialPool.full(3)
    result = move(pool, 1, combat_range=True)
    assert result.cost == 2
    assert pool.remaining == 1


def test_r19_a_move_the_pool_cannot_pay_for_is_refused_and_nothing_changes() -> None:
    pool = MartialPool.full(1)
    before = pool.model_dump()
    with pytest.raises(NotEnoughDice, match="only 1 die remain"):
        move(pool, 1, combat_range=True)
    assert pool.model_dump() == before


def test_r19_run_is_four_moves_and_spends_the_whole_pool() -> None:
    pool = MartialPool.full(4)
    result = run(pool, 0)
    assert result.running
    assert result.moves_this_round == 4
    assert result.cost == 4
    assert result.dice_left == 0
    assert pool.spent == {Spend.MOVEMENT: 4}


def test_r19_run_after_walking_spends_what_is_left() -> None:
    pool = MartialPool.full(3)
    move(pool, 0)
    move(pool, 1)
    result = run(pool, 2)
    assert result.cost == 2
    assert pool.remaining == 0


def test_r19_run_is_refused_after_spending_on_an_attack_and_nothing_changes() -> None:
    pool = MartialPool.full(4)
    pool.spend(1, Spend.ATTACK)
    before = pool.model_dump()
    with pytest.raises(IllegalAction, match="already spent dice on something else"):
        run(pool, 0)
    assert pool.model_dump() == before


def test_r19_running_twice_is_refused() -> None:
    pool = MartialPool.full(4)
    run(pool, 0)
    with pytest.raises(IllegalAction, match="already run"):
        run(pool, 4)
