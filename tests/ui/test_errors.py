"""What a failed command tells the user: the refusal for expected failures, an error id for bugs."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.rules.errors import NotEnoughDice, RulesError
from bot.ui.errors import failure_message, refusal


def invoke_error(original: Exception) -> app_commands.CommandInvokeError:
    """What discord.py raises around an exception from a command body."""
    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="roll", description="x", callback=_callback
    )
    try:
        raise app_commands.CommandInvokeError(command, original) from original
    except app_commands.CommandInvokeError as error:
        return error


async def _callback(interaction: object) -> None:
    return None


def test_a_rules_error_inside_a_command_is_shown_as_written() -> None:
    assert (
        refusal(invoke_error(RulesError("You can't attack out of turn."))) == "You can't attack out of turn."
    )


def test_r7_not_enough_dice_keeps_its_message() -> None:
    error = NotEnoughDice(wanted=3, left=1, purpose="an attack")
    assert refusal(invoke_error(error)) == error.message


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (app_commands.NoPrivateMessage(), "only works in a server"),
        (app_commands.MissingPermissions(["manage_guild"]), "manage guild permission"),
        (app_commands.CommandOnCooldown(app_commands.Cooldown(1, 10), 3.2), "try again in 3 s"),
        (app_commands.CheckFailure("The check functions for command 'x' failed."), "can't use that command"),
    ],
)
def test_check_failures_are_explained(error: Exception, expected: str) -> None:
    message = refusal(error)
    assert message is not None
    assert expected in message


def test_a_rules_error_raised_by_a_check_is_shown_as_written() -> None:
    """discord.py passes a check's own exception through unwrapped."""
    assert refusal(RulesError("Only the GM can end the fight.")) == "Only the GM can end the fight."


def test_a_rejected_value_is_shortened() -> None:
    transformer = app_commands.transformers.IdentityTransformer(discord.AppCommandOptionType.integer)
    message = refusal(
        app_commands.TransformerError("9" * 5000, discord.AppCommandOptionType.integer, transformer)
    )
    assert message is not None
    assert len(message) < 200


def test_a_bug_is_not_a_refusal() -> None:
    assert refusal(invoke_error(ZeroDivisionError("division by zero"))) is None
    assert refusal(KeyError("x")) is None


def test_the_failure_message_gives_the_id_and_no_internals() -> None:
    message = failure_message("ab12cd34")
    assert "nothing was changed" in message
    assert "ab12cd34" in message
