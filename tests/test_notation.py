"""``/roll dice`` notation: d20's parsing, Pommel's dice, the limits, the naturals."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.notation import EXAMPLES, MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_SIDES, NotationError, roll_notation
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.errors import RulesError


def test_keep_highest_strikes_dropped_dice() -> None:
    roll = roll_notation("4d20kh1+5", ScriptedDice([8, 19, 18, 5]))
    assert roll.total == 24
    assert roll.breakdown == "4d20kh1 (~~8~~, 19, ~~18~~, ~~5~~) + 5 = `24`"
    assert not roll.natural_20
    assert not roll.natural_1


def test_dice_come_from_the_injected_source_not_random() -> None:
    dice = ScriptedDice([3, 5])
    assert roll_notation("2d6+3", dice).total == 11
    assert dice.remaining == 0


def test_natural_20_on_a_kept_d20_is_marked() -> None:
    roll = roll_notation("1d20+1", ScriptedDice([20]))
    assert roll.natural_20
    assert "**20**" in roll.breakdown


def test_natural_on_a_dropped_d20_does_not_count() -> None:
    roll = roll_notation("2d20kl1", ScriptedDice([20, 7]))
    assert not roll.natural_20
    assert "~~**20**~~" in roll.breakdown


def test_natural_1_is_marked() -> None:
    assert roll_notation("1d20", ScriptedDice([1])).natural_1


def test_a_20_on_a_d100_is_not_a_natural_20() -> None:
    assert not roll_notation("1d100", ScriptedDice([20])).natural_20


def test_advantage_word_rolls_two_d20_keep_high() -> None:
    roll = roll_notation("1d20+2 adv", ScriptedDice([4, 15]))
    assert roll.expression == "2d20kh1 + 2"
    assert roll.total == 17


def test_disadvantage_word_rolls_two_d20_keep_low() -> None:
    roll = roll_notation("d20 dis", ScriptedDice([4, 15]))
    assert roll.expression == "2d20kl1"
    assert roll.total == 4


def test_advantage_on_a_leading_d20_with_other_dice_rolls_only_the_d20_twice() -> None:
    roll = roll_notation("1d20+1d6 adv", ScriptedDice([4, 15, 3]))
    assert roll.expression == "2d20kh1 + 1d6"
    assert roll.total == 18


def test_advantage_word_may_touch_the_dice() -> None:
    assert roll_notation("1d20+5adv", ScriptedDice([4, 15])).expression == "2d20kh1 + 5"


def test_a_label_stuck_to_the_dice_is_a_typo_not_a_label() -> None:
    """``1d2O`` would otherwise roll a d2 labelled "O"."""
    with pytest.raises(NotationError, match="stuck to the dice"):
        roll_notation("1d2O", ScriptedDice([1]))


@pytest.mark.parametrize("text", ["1d20/0", "1d20%0", "(1d6-1d6+5)/0"])
def test_division_by_zero_is_refused_not_a_crash(text: str) -> None:
    """d20 computes totals lazily; the error still has to come out as a refusal."""
    with pytest.raises(NotationError, match="divide by zero"):
        roll_notation(text, ScriptedDice([3, 3, 3]))


def test_a_comment_is_kept() -> None:
    roll = roll_notation("2d6+3 fire damage", ScriptedDice([1, 2]))
    assert roll.comment == "fire damage"
    assert roll.total == 6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Give the dice"),
        ("hello there", "not dice notation"),
        ("1d20+" * 40, f"the most is {MAX_EXPRESSION_LENGTH}"),
        (f"{MAX_DICE + 1}d6", f"more than {MAX_DICE} dice"),
        ("60d6+60d6", f"more than {MAX_DICE} dice"),
        ("10d1e1", f"more than {MAX_DICE} dice"),
        (f"1d{MAX_SIDES + 1}", f"up to d{MAX_SIDES}"),
        ("1d0", "can't be rolled"),
    ],
)
def test_refused_expressions_say_why(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message) as refused:
        roll_notation(text, ScriptedDice([1] * 500))
    assert isinstance(refused.value, RulesError)


@given(
    count=st.integers(1, 20), sides=st.sampled_from([4, 6, 8, 10, 12, 20, 100]), bonus=st.integers(-50, 50)
)
def test_total_is_sum_of_faces_plus_bonus(count: int, sides: int, bonus: int) -> None:
    dice = RandomDice.seeded(count * 1000 + sides)
    faces = [dice.roll(sides) for _ in range(count)]
    roll = roll_notation(f"{count}d{sides}{bonus:+d}", ScriptedDice(faces))
    assert roll.total == sum(faces) + bonus
    assert all(1 <= face <= sides for face in faces)


# ---- every example the bot suggests rolls ---------------------------------------------------------

REFUSED = [
    "",
    "   ",
    "adv",
    "1d20+" * 40,
    "hello there",
    "1d20/0",
    "1d0",
    "1d2O",
    f"{MAX_DICE + 1}d6",
    f"1d{MAX_SIDES + 1}",
]
"""One input for each way :func:`roll_notation` refuses; each refusal's examples are rolled below."""


def suggested_examples(message: str, typed: str) -> list[str]:
    """The code spans of a refusal, less those that quote what the user typed back at them."""
    return [span for span in re.findall(r"`([^`]+)`", message) if span not in typed]


def refusal_of(text: str) -> str:
    with pytest.raises(NotationError) as refused:
        roll_notation(text, ScriptedDice([1] * 500))
    return refused.value.message


@pytest.mark.parametrize("text", REFUSED)
def test_every_example_a_refusal_suggests_rolls(text: str) -> None:
    for example in suggested_examples(refusal_of(text), text):
        roll = roll_notation(example, RandomDice.seeded(len(example)))
        assert roll.breakdown, example


def test_the_refusals_suggest_examples_including_disadvantage_on_3d6() -> None:
    examples = {example for text in REFUSED for example in suggested_examples(refusal_of(text), text)}
    assert {"1d20+5", "1d20 adv", "3d6 dis"} <= examples
    assert set(suggested_examples(EXAMPLES, "")) <= examples


def test_advantage_on_any_expression_rolls_it_twice_and_keeps_the_higher_total() -> None:
    roll = roll_notation("2d6+3 adv", ScriptedDice([1, 2, 6, 5]))
    assert roll.expression == "(2d6 + 3, 2d6 + 3)kh1"
    assert roll.total == 14
    assert roll.breakdown == "(~~2d6 (1, 2) + 3~~, 2d6 (6, 5) + 3)kh1 = `14`"


def test_disadvantage_on_3d6_keeps_the_lower_total() -> None:
    roll = roll_notation("3d6 dis", ScriptedDice([6, 6, 5, 1, 2, 3]))
    assert roll.expression == "(3d6, 3d6)kl1"
    assert roll.total == 6
    assert roll.breakdown == "(~~3d6 (6, 6, 5)~~, 3d6 (1, 2, 3))kl1 = `6`"


def test_advantage_keeps_the_label() -> None:
    roll = roll_notation("2d6+3 fire dis", ScriptedDice([6, 6, 1, 1]))
    assert roll.comment == "fire"
    assert roll.total == 5


def test_advantage_on_a_set_of_d20s_marks_only_the_kept_naturals() -> None:
    roll = roll_notation("2d20kh1 dis", ScriptedDice([20, 3, 2, 4]))
    assert roll.total == 4
    assert not roll.natural_20
    assert not roll.natural_1


def test_advantage_counts_both_rolls_against_the_dice_limit() -> None:
    half = MAX_DICE // 2
    assert roll_notation(f"{half}d6 adv", ScriptedDice([1] * MAX_DICE)).total == half
    with pytest.raises(NotationError, match=f"more than {MAX_DICE} dice"):
        roll_notation(f"{half + 1}d6 adv", ScriptedDice([1] * 500))


def test_an_advantage_word_alone_asks_for_dice() -> None:
    assert refusal_of("adv").startswith("Give the dice to roll")


@pytest.mark.parametrize(
    ("text", "faces", "d20_faces"),
    [
        ("4d20kh1+5", [8, 19, 18, 5], (8, 19, 18, 5)),  # dropped dice showed their faces too
        ("1d20 adv", [3, 17], (3, 17)),
        ("2d6+1d20", [4, 2, 11], (11,)),  # only the d20s
        ("3d6", [1, 2, 3], ()),
        ("1d20ro1", [1, 14], (1, 14)),  # the 1 was rolled, then the reroll
        ("1d20mi10", [4], (4,)),  # the face shown, not the minimum it was raised to
        ("(1d20 + 1, 1d20)kh1", [5, 9], (5, 9)),  # the dropped set too
    ],
)
def test_every_d20_face_rolled_is_kept_for_the_statistics(
    text: str, faces: list[int], d20_faces: tuple[int, ...]
) -> None:
    dice = ScriptedDice(faces)
    assert roll_notation(text, dice).d20_faces == d20_faces
    assert dice.remaining == 0
