"""How rolls read in a channel (R9, R10 for pool rolls)."""

from __future__ import annotations

from bot.notation import roll_notation
from bot.rules.dice import Advantage, ScriptedDice, roll_pool
from bot.ui.rolls import notation_log_line, notation_reply, pool_log_line, pool_reply
from bot.wording.phrases import dice_count


def test_r9_pool_reply_keeps_the_highest_and_strikes_the_rest() -> None:
    roll = roll_pool(ScriptedDice([4, 17, 9]), 3)
    reply = pool_reply("<@1>", roll, 5)
    assert "3 pool dice" in reply
    assert "~~4~~, **17**, ~~9~~ → 17 +5 = `22`" in reply


def test_r9_pool_reply_marks_a_fumble_only_when_every_die_shows_1() -> None:
    assert "fumble" in pool_reply("<@1>", roll_pool(ScriptedDice([1, 1]), 2), 0)
    assert "natural 1" not in pool_reply("<@1>", roll_pool(ScriptedDice([1, 6]), 2), 0)


def test_r9_pool_reply_marks_a_natural_20() -> None:
    assert "natural 20" in pool_reply("<@1>", roll_pool(ScriptedDice([20, 3]), 2), 3)


def test_r10_pool_reply_with_disadvantage_strikes_the_removed_die() -> None:
    roll = roll_pool(ScriptedDice([18, 6]), 1, Advantage.DISADVANTAGE)
    reply = pool_reply("<@1>", roll, -2)
    assert "with disadvantage" in reply
    assert "~~18~~, **6** → 6 -2 = `4`" in reply


def test_notation_reply_shows_who_what_and_naturals() -> None:
    roll = roll_notation("1d20+5 to hit", ScriptedDice([20]))
    reply = notation_reply("<@42>", "1d20+5 to hit", roll)
    assert reply.startswith("🎲 <@42> rolls `1d20+5 to hit` for *to hit*")
    assert "`25`" in reply
    assert "natural 20" in reply


def test_log_lines_are_plain_text_with_every_face() -> None:
    pool = roll_pool(ScriptedDice([18, 6]), 1, Advantage.DISADVANTAGE)
    assert (
        pool_log_line("Alice", pool, 2)
        == "Alice rolled a pool of 1d20 +2 with disadvantage: [18, 6] keep 6 = 8"
    )
    notation = roll_notation("2d6+3", ScriptedDice([1, 2]))
    assert notation_log_line("Bob", notation) == "Bob rolled 2d6 + 3 = 6"


def test_what_the_user_typed_cannot_break_the_formatting() -> None:
    roll = roll_notation("1d20 `oops` **loud** _x_", ScriptedDice([5]))
    reply = notation_reply("<@42>", "1d20 `oops` **loud** _x_", roll)
    first_line = reply.splitlines()[0]
    assert first_line.replace("\\`", "").count("`") == 2  # one code span, as the bot wrote it
    assert "\\*\\*loud\\*\\*" in first_line


def test_dice_count_reads_as_english() -> None:
    assert [dice_count(n) for n in (0, 1, 3)] == ["no dice", "1 die", "3 dice"]
