"""The Martial Pool: size, spending, refilling and the desperation penalty (R6, R7, R8, R15)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.errors import NotEnoughDice, RulesError
from bot.rules.pool import MartialPool, Spend, pool_size
from tests.rules.conftest import gambeson, mail

# --------------------------------------------------------------------------------- R6 size


@pytest.mark.parametrize(
    ("prowess", "size"),
    [(0, 1), (1, 2), (2, 3), (3, 4), (6, 4), (20, 4)],
)
def test_r6_pool_is_prowess_plus_one_clamped_1_to_4(prowess: int, size: int) -> None:
    assert pool_size(prowess) == size


@pytest.mark.parametrize(("prowess", "size"), [(1, 1), (2, 2), (3, 3), (6, 3)])
def test_r6_heavy_armor_max_dex_1_costs_one_die(prowess: int, size: int) -> None:
    assert pool_size(prowess, mail(max_dex=1)) == size


def test_r6_armor_max_dex_0_also_costs_one_die() -> None:
    assert pool_size(3, mail(max_dex=0)) == 3


def test_r6_heavy_armor_never_takes_the_pool_below_1() -> None:
    assert pool_size(0, mail()) == 1


@pytest.mark.parametrize("max_dex", [2, 3, None])
def test_r6_armor_with_max_dex_above_1_or_uncapped_costs_nothing(max_dex: int | None) -> None:
    assert pool_size(2, gambeson(max_dex=max_dex)) == 3


# --------------------------------------------------------------------------------- R7 spending


def test_r7_spend_lowers_remaining_and_records_the_purpose() -> None:
    pool = MartialPool.full(4)
    assert pool.spend(2, Spend.ATTACK) == 2
    assert pool.spend(1, Spend.MOVEMENT) == 1
    assert pool.remaining == 1
    assert pool.spent == {Spend.ATTACK: 2, Spend.MOVEMENT: 1}


def test_r7_spending_exactly_what_remains_is_allowed() -> None:
    pool = MartialPool.full(3)
    assert pool.spend(3, Spend.ACTIVE_DEFENSE) == 0
    assert pool.remaining == 0


def test_r7_overspend_is_refused_with_the_number_left_and_nothing_changes() -> None:
    pool = MartialPool.full(4)
    pool.spend(2, Spend.ATTACK)
    before = pool.model_dump()

    with pytest.raises(NotEnoughDice, match=r"only 2 dice remain") as refused:
        pool.spend(3, Spend.ATTACK)

    assert refused.value.left == 2
    assert refused.value.wanted == 3
    assert "Nothing was spent" in refused.value.message
    assert pool.model_dump() == before


def test_r7_overspend_with_one_die_left_says_one_die() -> None:
    pool = MartialPool.full(2)
    pool.spend(1, Spend.MOVEMENT)
    before = pool.model_dump()
    with pytest.raises(NotEnoughDice, match=r"only 1 die remain"):
        pool.spend(2, Spend.SAVE)
    assert pool.model_dump() == before


def test_r7_spending_from_an_empty_pool_is_refused() -> None:
    pool = MartialPool.full(1)
    pool.spend(1, Spend.ATTACK)
    before = pool.model_dump()
    with pytest.raises(NotEnoughDice, match=r"only 0 dice remain"):
        pool.spend(1, Spend.COUNTERATTACK)
    assert pool.model_dump() == before


@pytest.mark.parametrize("dice", [0, -1])
def test_r7_spending_zero_or_fewer_dice_is_refused_and_nothing_changes(dice: int) -> None:
    pool = MartialPool.full(3)
    before = pool.model_dump()
    with pytest.raises(RulesError, match="at least one die"):
        pool.spend(dice, Spend.ATTACK)
    assert pool.model_dump() == before


def test_r7_spend_all_takes_every_die_left() -> None:
    pool = MartialPool.full(4)
    pool.spend(1, Spend.ATTACK)
    assert pool.spend_all(Spend.DESPERATION_DEFENSE) == 3
    assert pool.remaining == 0
    assert pool.spent == {Spend.ATTACK: 1, Spend.DESPERATION_DEFENSE: 3}


# --------------------------------------------------------------------------------- R8 refill


def test_r8_refill_restores_the_size_and_clears_the_spending() -> None:
    pool = MartialPool.full(4)
    pool.spend(3, Spend.ATTACK)
    assert pool.refill(4) == 4
    assert pool.remaining == 4
    assert pool.spent == {}


def test_r8_unspent_dice_do_not_carry_over() -> None:
    pool = MartialPool.full(2)  # nothing spent this round
    assert pool.refill(2) == 2
    assert pool.remaining == 2
    assert pool.size == 2


def test_r8_refill_to_a_new_size_is_clamped_1_to_4() -> None:
    pool = MartialPool.full(3)
    assert pool.refill(6) == 4
    assert pool.size == 4
    assert pool.refill(0) == 1
    assert pool.size == 1


# --------------------------------------------------------------------------------- R15 penalty at refill


def test_r15_desperation_penalty_costs_one_die_at_the_next_refill_only() -> None:
    pool = MartialPool.full(3)
    pool.spend_all(Spend.DESPERATION_DEFENSE)
    pool.penalty_next_round += 1

    assert pool.refill(3) == 2
    assert pool.penalty_next_round == 0
    pool.spend(2, Spend.ATTACK)
    assert pool.refill(3) == 3


def test_r15_desperation_penalty_never_takes_the_pool_below_1() -> None:
    pool = MartialPool.full(1)
    pool.penalty_next_round = 1
    assert pool.refill(1) == 1
    assert pool.remaining == 1


def test_r15_two_penalties_never_take_the_pool_below_1() -> None:
    pool = MartialPool.full(2)
    pool.penalty_next_round = 2
    assert pool.refill(2) == 1


# --------------------------------------------------------------------------------- properties

_SPEND = st.tuples(st.just("spend"), st.integers(min_value=-1, max_value=5), st.sampled_from(list(Spend)))
_REFILL = st.tuples(st.just("refill"), st.integers(min_value=-2, max_value=7), st.integers(0, 3))


@given(
    size=st.integers(min_value=1, max_value=4),
    steps=st.lists(st.one_of(_SPEND, _REFILL), max_size=30),
)
def test_r7_r8_pool_stays_within_0_and_its_size_and_refusals_change_nothing(
    size: int, steps: list[tuple[str, int, object]]
) -> None:
    pool = MartialPool.full(size)
    for action, number, extra in steps:
        if action == "spend":
            assert isinstance(extra, Spend)
            before = pool.model_dump()
            if 1 <= number <= pool.remaining:
                left = pool.spend(number, extra)
                assert left == before["remaining"] - number
            else:
                with pytest.raises(RulesError):
                    pool.spend(number, extra)
                assert pool.model_dump() == before
        else:
            assert isinstance(extra, int)
            pool.penalty_next_round = extra
            pool.refill(number)
            assert pool.spent == {}
            assert pool.penalty_next_round == 0
            assert pool.remaining >= 1
        assert 0 <= pool.remaining <= pool.size
        assert 1 <= pool.size <= 4
        assert sum(pool.spent.values()) <= pool.size
