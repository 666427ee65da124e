"""Roll many, keep one; advantage and disadvantage on a pool roll (R9, R10)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.dice import Advantage, ScriptedDice, roll_pool
from bot.rules.errors import RulesError

# --------------------------------------------------------------------------------- R9 keep one


def test_r9_the_highest_die_counts() -> None:
    roll = roll_pool(ScriptedDice([7, 15, 3]), 3)
    assert roll.faces == (7, 15, 3)
    assert roll.counting == 1
    assert roll.value == 15
    assert roll.dropped == (0, 2)
    assert roll.committed == 3


def test_r9_a_tie_for_highest_counts_the_first_of_them() -> None:
    roll = roll_pool(ScriptedDice([9, 9]), 2)
    assert roll.counting == 0
    assert roll.value == 9


def test_r9_the_owner_may_choose_another_die() -> None:
    roll = roll_pool(ScriptedDice([7, 15, 3]), 3)
    chosen = roll.choose(0)
    assert chosen.value == 7
    assert chosen.faces == (7, 15, 3)
    assert roll.value == 15  # the original roll is unchanged


def test_r9_choosing_a_die_that_does_not_exist_is_refused() -> None:
    roll = roll_pool(ScriptedDice([7, 15]), 2)
    with pytest.raises(RulesError, match="no die number 3"):
        roll.choose(2)


def test_r9_index_of_face_finds_a_die_to_force_a_bind() -> None:
    roll = roll_pool(ScriptedDice([7, 15, 12]), 3)
    assert roll.index_of_face(12) == 2
    assert roll.index_of_face(4) is None


def test_r9_a_single_die_showing_1_fumbles() -> None:
    roll = roll_pool(ScriptedDice([1]), 1)
    assert roll.value == 1
    assert roll.natural_1
    assert roll.fumble


def test_r9_every_die_showing_1_fumbles() -> None:
    roll = roll_pool(ScriptedDice([1, 1, 1]), 3)
    assert roll.fumble


def test_r9_a_1_beside_a_higher_die_does_not_fumble() -> None:
    roll = roll_pool(ScriptedDice([1, 7]), 2)
    assert roll.value == 7
    assert not roll.fumble


def test_r9_choosing_the_1_from_1_and_7_is_not_a_fumble() -> None:
    chosen = roll_pool(ScriptedDice([1, 7]), 2).choose(0)
    assert chosen.value == 1
    assert chosen.natural_1
    assert not chosen.fumble


def test_r9_natural_20_counts_when_any_die_shows_it() -> None:
    roll = roll_pool(ScriptedDice([4, 20, 11]), 3)
    assert roll.natural_20
    assert roll.value == 20


def test_r9_free_dice_join_the_roll_but_are_not_committed() -> None:
    roll = roll_pool(ScriptedDice([6, 18]), 1, free=1)
    assert roll.committed == 1
    assert roll.faces == (6, 18)
    assert roll.value == 18


def test_r9_a_roll_needs_at_least_one_die() -> None:
    with pytest.raises(RulesError, match="at least one die"):
        roll_pool(ScriptedDice([]), 0)


def test_r10_disadvantage_on_a_roll_of_no_dice_is_refused() -> None:
    with pytest.raises(RulesError, match="at least one die"):
        roll_pool(ScriptedDice([12]), 0, Advantage.DISADVANTAGE)


# --------------------------------------------------------------------------------- R10 advantage


def test_r10_advantage_adds_one_free_die() -> None:
    roll = roll_pool(ScriptedDice([5, 17]), 1, Advantage.ADVANTAGE)
    assert roll.faces == (5, 17)
    assert roll.committed == 1
    assert roll.removed is None
    assert roll.value == 17


def test_r10_advantage_on_a_pool_roll_adds_one_die_to_the_pool() -> None:
    roll = roll_pool(ScriptedDice([5, 8, 13]), 2, Advantage.ADVANTAGE)
    assert len(roll.faces) == 3
    assert roll.value == 13


def test_r10_single_die_disadvantage_is_2d20_keep_low() -> None:
    roll = roll_pool(ScriptedDice([5, 18]), 1, Advantage.DISADVANTAGE)
    assert roll.faces == (5, 18)
    assert roll.removed == 1
    assert roll.value == 5


def test_r10_disadvantage_removes_the_highest_then_the_highest_left_counts() -> None:
    roll = roll_pool(ScriptedDice([3, 15, 9]), 2, Advantage.DISADVANTAGE)
    assert roll.committed == 2
    assert roll.removed == 1
    assert roll.value == 9


def test_r10_disadvantage_removes_only_one_of_two_equal_highest() -> None:
    roll = roll_pool(ScriptedDice([12, 12]), 1, Advantage.DISADVANTAGE)
    assert roll.removed == 0
    assert roll.value == 12


def test_r10_the_removed_die_cannot_be_chosen() -> None:
    roll = roll_pool(ScriptedDice([3, 15, 9]), 2, Advantage.DISADVANTAGE)
    assert roll.available == (0, 2)
    with pytest.raises(RulesError, match="taken away by disadvantage"):
        roll.choose(1)
    assert roll.choose(0).value == 3


def test_r10_removed_20_does_not_count_as_natural_20() -> None:
    roll = roll_pool(ScriptedDice([20, 6]), 1, Advantage.DISADVANTAGE)
    assert roll.value == 6
    assert not roll.natural_20
    assert roll.index_of_face(20) is None


def test_r10_keep_low_1_fumbles_because_the_removed_die_is_gone() -> None:
    roll = roll_pool(ScriptedDice([1, 20]), 1, Advantage.DISADVANTAGE)
    assert roll.value == 1
    assert roll.fumble


@pytest.mark.parametrize(
    ("advantages", "disadvantages", "net"),
    [
        (0, 0, Advantage.NONE),
        (1, 0, Advantage.ADVANTAGE),
        (0, 1, Advantage.DISADVANTAGE),
        (1, 1, Advantage.NONE),
        (3, 1, Advantage.NONE),
        (2, 0, Advantage.ADVANTAGE),
    ],
)
def test_r10_one_advantage_and_one_disadvantage_cancel(
    advantages: int, disadvantages: int, net: Advantage
) -> None:
    assert Advantage.net(advantages, disadvantages) is net


def test_r10_combining_opposite_sources_cancels() -> None:
    assert Advantage.ADVANTAGE.combine(Advantage.DISADVANTAGE) is Advantage.NONE
    assert Advantage.ADVANTAGE.combine(Advantage.ADVANTAGE) is Advantage.ADVANTAGE
    assert Advantage.NONE.combine(Advantage.DISADVANTAGE) is Advantage.DISADVANTAGE


# --------------------------------------------------------------------------------- properties


@st.composite
def _pool_rolls(draw: st.DrawFn) -> tuple[int, int, Advantage, list[int]]:
    committed = draw(st.integers(min_value=0, max_value=4))
    free = draw(st.integers(min_value=0, max_value=4))
    advantage = draw(st.sampled_from(list(Advantage)))
    if committed + free == 0:
        committed = 1  # a roll of no dice is refused (see the R9/R10 refusal tests)
    total = committed + free + (advantage is not Advantage.NONE)
    faces = draw(st.lists(st.integers(min_value=1, max_value=20), min_size=total, max_size=total))
    return committed, free, advantage, faces


@given(_pool_rolls())
def test_r9_r10_counting_die_is_available_and_the_highest_available(
    case: tuple[int, int, Advantage, list[int]],
) -> None:
    committed, free, advantage, faces = case
    dice = ScriptedDice(faces)
    roll = roll_pool(dice, committed, advantage, free=free)

    assert dice.remaining == 0
    assert roll.faces == tuple(faces)
    assert roll.counting in roll.available
    assert roll.value == max(faces[i] for i in roll.available)
    if advantage is Advantage.DISADVANTAGE:
        assert roll.removed is not None
        assert faces[roll.removed] == max(faces)
        assert len(roll.available) == len(faces) - 1
    else:
        assert roll.removed is None
    assert roll.fumble == all(faces[i] == 1 for i in roll.available)
