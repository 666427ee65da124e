"""What ``/stats dice`` says: whose rolls, how many, and what the test makes of them, in plain words."""

from __future__ import annotations

from bot.dice_stats import FACES, fairness
from bot.ui.stats_views import DiceQuestion, dice_reply, hidden_note, p_value_text, verdict_sentence


def test_names_in_the_reply_read_as_typed() -> None:
    question = DiceQuestion("#a_b", member="*Al*")
    assert question.whose == "*Al*'s rolls in #a_b"
    assert question.whose_shown == "\\*Al\\*'s rolls in \\#a\\_b"


def test_whose_rolls() -> None:
    assert DiceQuestion("the server").whose == "Rolls in the server"
    assert (
        DiceQuestion("#table", member="Alice", days=30).whose
        == "Alice's rolls in #table over the last 30 days"
    )
    assert (
        DiceQuestion("the fight in #table", days=1).whose == "Rolls in the fight in #table over the last day"
    )


def test_p_values_keep_enough_digits_to_tell_them_from_the_thresholds() -> None:
    assert p_value_text(0.4234) == "p = 0.42"
    assert p_value_text(0.0499) == "p = 0.0499"
    assert p_value_text(0.00012) == "p = 0.00012"
    assert p_value_text(0.0123456) == "p = 0.0123"
    assert p_value_text(0.00001) == "p < 0.0001"


def test_each_verdict_in_words() -> None:
    even = fairness(dict.fromkeys(FACES, 10), rolls=200)
    assert verdict_sentence(even).startswith(
        "Nothing here suggests uneven dice: fair dice often roll like this (p = 1.00)"
    )
    assert "does not prove them fair" in verdict_sentence(even)
    uneven = fairness(dict.fromkeys(FACES, 30) | {20: 54, 1: 10}, rolls=600)  # p = 0.029
    assert uneven.p_value is not None
    assert 0.001 < uneven.p_value < 0.05
    assert "These faces are uneven: fair dice are this uneven only" in verdict_sentence(uneven)
    assert "happens to one count in 20: keep rolling and look again" in verdict_sentence(uneven)
    loaded = fairness(dict.fromkeys(FACES, 50) | {20: 100, 1: 25}, rolls=900)
    assert verdict_sentence(loaded).startswith(
        "These faces are very uneven: fair dice are this uneven less than 0.1% of the time (p < 0.0001)."
    )
    few = fairness({20: 99}, rolls=99)
    assert verdict_sentence(few).startswith("That is too few to tell: the test needs at least 100 d20s")


def test_the_reply_names_what_was_counted_and_left_out() -> None:
    result = fairness(dict.fromkeys(FACES, 10), rolls=150)
    public = dice_reply(DiceQuestion("the server"), result, hidden=3)
    assert public.startswith("🎲 **Rolls in the server**: 200 d20s from 150 rolls.")
    assert "every face is inside" in public.lower()
    assert "3 private rolls are not counted in a public answer" in public
    assert "Private rolls are counted" not in public
    mine = dice_reply(DiceQuestion("the server", private="own"), result, hidden=1)
    assert "Your own private rolls are counted" in mine
    assert "-# 1 private roll of other members is not counted (only the GM sees them)." in mine
    assert hidden_note(0, "none") is None
    gm = dice_reply(DiceQuestion("the server", private="all"), result, hidden=0)
    assert "-# Private rolls are counted: this answer is yours alone." in gm
