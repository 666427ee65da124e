"""The option check: what arrives is held to what each command declares (type, range, length, choices)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Literal

import discord
import pytest
from discord import app_commands

from bot.option_checks import NUMBER_LIMIT, TEXT_LIMIT, CheckedTree, OptionRefused, check_options
from bot.rules.errors import RulesError
from bot.ui.errors import refusal


async def _sample(
    interaction: discord.Interaction,
    count: app_commands.Range[int, 1, 4],
    name: app_commands.Range[str, 2, 10],
    mode: Literal["fast", "slow"],
    free: int = 0,
    ratio: app_commands.Range[float, 0.0, 1.5] = 1.0,
    note: str = "",
    loud: bool = False,
    member: discord.Member | None = None,
) -> None:
    """A command with one option of each kind the check knows."""


@pytest.fixture
def tree() -> CheckedTree:
    client = discord.Client(intents=discord.Intents.default())
    checked = CheckedTree(client)
    group = app_commands.Group(name="outer", description="A group")
    inner = app_commands.Group(name="inner", description="A subgroup", parent=group)
    inner.add_command(app_commands.Command(name="sample", description="Sample", callback=_sample))
    checked.add_command(group)
    return checked


def _interaction(options: list[dict[str, Any]], *, kind: int = 2) -> Any:
    """A slash command (``kind`` 2) or autocomplete (4) of /outer inner sample, as Discord sends it."""
    data = {
        "id": "1",
        "name": "outer",
        "type": 1,
        "options": [
            {"type": 2, "name": "inner", "options": [{"type": 1, "name": "sample", "options": options}]}
        ],
    }
    return SimpleNamespace(type=discord.InteractionType(kind), data=data)


VALID = {"count": (4, 2), "name": (3, "ab"), "mode": (3, "fast")}


def _options(**values: tuple[int, Any]) -> list[dict[str, Any]]:
    given = {**VALID, **values}
    return [{"type": kind, "name": name, "value": value} for name, (kind, value) in given.items()]


def _refusal(tree: CheckedTree, **values: tuple[int, Any]) -> str | None:
    try:
        check_options(tree, _interaction(_options(**values)))
    except OptionRefused as refused:
        return refused.message
    return None


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"count": (4, 1), "name": (3, "a" * 10), "mode": (3, "slow")},
        {"free": (4, NUMBER_LIMIT), "ratio": (10, 1.5), "loud": (5, True)},
        {"free": (4, -NUMBER_LIMIT), "ratio": (10, 0), "note": (3, "n" * TEXT_LIMIT)},
        {"member": (6, "123456789012345678")},
    ],
)
def test_values_within_the_declaration_pass(tree: CheckedTree, values: dict[str, tuple[int, Any]]) -> None:
    assert _refusal(tree, **values) is None


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"count": (4, 5)}, "`count` must be between 1 and 4; you gave 5. Nothing was done."),
        ({"count": (4, 0)}, "`count` must be between 1 and 4; you gave 0. Nothing was done."),
        ({"count": (4, True)}, "`count` must be a whole number; you gave true. Nothing was done."),
        ({"count": (4, 1.0)}, "`count` must be a whole number; you gave 1.0. Nothing was done."),
        (
            {"count": (4, 10**5000)},
            "`count` must be between 1 and 4; you gave a number thousands of digits long. Nothing was done.",
        ),
        (
            {"free": (4, NUMBER_LIMIT + 1)},
            f"`free` must be between {-NUMBER_LIMIT} and {NUMBER_LIMIT}; you gave {NUMBER_LIMIT + 1}. "
            "Nothing was done.",
        ),
        ({"ratio": (10, 1.75)}, "`ratio` must be between 0 and 1.5; you gave 1.75. Nothing was done."),
        ({"ratio": (10, float("nan"))}, "`ratio` must be a number; you gave nan. Nothing was done."),
        ({"ratio": (10, "1")}, '`ratio` must be a number; you gave "1". Nothing was done.'),
        ({"name": (3, "a")}, "`name` must be 2 to 10 characters long; you gave 1. Nothing was done."),
        ({"name": (3, "a" * 11)}, "`name` must be 2 to 10 characters long; you gave 11. Nothing was done."),
        ({"name": (3, 7)}, "`name` must be text; you gave 7. Nothing was done."),
        (
            {"note": (3, "n" * (TEXT_LIMIT + 1))},
            f"`note` must be at most {TEXT_LIMIT} characters long; you gave {TEXT_LIMIT + 1}. "
            "Nothing was done.",
        ),
        (
            {"mode": (3, "*warp*")},
            '`mode` must be one of fast, slow; you gave "\\*warp\\*". Nothing was done.',
        ),
        ({"loud": (5, 1)}, "`loud` must be true or false; you gave 1. Nothing was done."),
        ({"member": (6, "me")}, '`member` must be a member; you gave "me". Nothing was done.'),
        (
            {"count": (3, "4")},
            "`count` takes a whole number, and what arrived was not that. Discord may still "
            "be showing an older version of this command; try again in a minute. Nothing was done.",
        ),
    ],
)
def test_values_outside_the_declaration_are_refused_naming_the_option(
    tree: CheckedTree, values: dict[str, tuple[int, Any]], message: str
) -> None:
    assert _refusal(tree, **values) == message


def test_an_option_without_a_value_is_refused_not_a_crash(tree: CheckedTree) -> None:
    options = [*_options()[:2], {"type": 3, "name": "mode"}]
    with pytest.raises(OptionRefused, match="`mode` takes text, and what arrived was not that"):
        check_options(tree, _interaction(options))


def test_undeclared_options_and_unknown_commands_are_left_to_discord_py(tree: CheckedTree) -> None:
    check_options(tree, _interaction([*_options(), {"type": 4, "name": "extra", "value": 10**9}]))
    unknown: Any = SimpleNamespace(
        type=discord.InteractionType.application_command, data={"id": "2", "name": "nope"}
    )
    check_options(tree, unknown)


def test_autocomplete_is_never_refused(tree: CheckedTree) -> None:
    typing = _options(count=(4, 99), name=(3, "x" * 50))
    typing[1]["focused"] = True
    check_options(tree, _interaction(typing, kind=4))


def test_the_refusal_reaches_the_one_error_handler_as_a_private_message() -> None:
    """discord.py hands a check's AppCommandError to tree.on_error; answer_failure shows a RulesError."""
    refused = OptionRefused("dice", "must be between 1 and 4; you gave 9")
    assert isinstance(refused, app_commands.CheckFailure)
    assert isinstance(refused, RulesError)
    assert refusal(refused) == "`dice` must be between 1 and 4; you gave 9. Nothing was done."
