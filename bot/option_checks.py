"""Every slash command's options, checked against what the command declares before it runs.

Discord enforces ``app_commands.Range``, ``Literal`` and ``@app_commands.choices`` in its own client,
but discord.py does not check what arrives: a modified client, a stale command or a bug can send
``dice: 9007199254740992`` to a command declared ``Range[int, 1, 4]``, and rolling that many dice
would block the event loop (every server stops). :class:`CheckedTree` is the bot's command tree; its
:meth:`~CheckedTree.interaction_check` runs before every slash command and refuses, privately and
naming the option, any value outside its type, range, length or choices.

An option with no declared bound still gets Discord's own: integers and numbers within ±2**53,
text at most 6000 characters. Autocomplete is never refused: it carries what is being typed.
"""

from __future__ import annotations

import math
from typing import Any, cast

import discord
from discord import AppCommandOptionType, app_commands

from .interactions.answering import stop_the_clock, watch_the_clock
from .interactions.client import PommelClient
from .rules.errors import ECHO_LIMIT, RulesError, echoed

NUMBER_LIMIT = 2**53
"""Discord's bound on an integer or number option, either way."""
TEXT_LIMIT = 6000
"""Discord's longest string option."""

_SNOWFLAKE_DIGITS = 20

_TAKES = {
    AppCommandOptionType.string: "text",
    AppCommandOptionType.integer: "a whole number",
    AppCommandOptionType.number: "a number",
    AppCommandOptionType.boolean: "true or false",
    AppCommandOptionType.user: "a member",
    AppCommandOptionType.channel: "a channel",
    AppCommandOptionType.role: "a role",
    AppCommandOptionType.mentionable: "a member or a role",
    AppCommandOptionType.attachment: "a file",
}
_SNOWFLAKE_TYPES = frozenset(_TAKES) - {
    AppCommandOptionType.string,
    AppCommandOptionType.integer,
    AppCommandOptionType.number,
    AppCommandOptionType.boolean,
}
"""Members, channels, roles and files arrive as their ids."""
_STALE = "Discord may still be showing an older version of this command; try again in a minute"


class OptionRefused(RulesError, app_commands.CheckFailure):
    """An option outside what its command declares.

    A check failure, so discord.py hands it to ``tree.on_error``; a :class:`RulesError`, so the one
    error handler (:func:`bot.error_replies.answer_failure`) shows its message privately, as written.
    """

    def __init__(self, option: str, problem: str) -> None:
        super().__init__(f"`{option}` {problem}. Nothing was done.")
        self.option = option


class CheckedTree(app_commands.CommandTree[Any]):
    """The command tree: every slash command's options are checked (:func:`check_options`) first."""

    async def _call(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py's one entry for an application command, its checks and its error handler: when it
        # returns, the command has answered (or failed and been answered), so no deferral is due. It
        # counts as in flight meanwhile: shutdown waits for it (PommelClient.in_flight).
        # What the command changed is drawn once it has answered (its unit of work, bot.events).
        client = cast("PommelClient", self.client)
        with client.in_flight.running():
            async with client.events.collecting():
                try:
                    await super()._call(interaction)
                finally:
                    stop_the_clock(interaction)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        check_options(self, interaction)
        if interaction.type is discord.InteractionType.application_command:
            cast("PommelClient", self.client).in_flight.refuse_if_closing()
            if not _answers_with_a_modal(interaction):
                await watch_the_clock(interaction)  # a command that waits is deferred rather than forgotten
        return True


ANSWERS_WITH_A_MODAL = "answers_with_a_modal"
"""A command's ``extras`` key: its first answer is a modal, which a deferral would forbid, so it is
never deferred (it reads little before opening the modal)."""


def _answers_with_a_modal(interaction: discord.Interaction[Any]) -> bool:
    command = interaction.command
    return command is not None and bool(command.extras.get(ANSWERS_WITH_A_MODAL))


def check_options(tree: app_commands.CommandTree[Any], interaction: discord.Interaction[Any]) -> None:
    """Raise :class:`OptionRefused` for the first option of a slash command its parameter would refuse.

    Autocomplete, context menus and unknown commands pass (discord.py answers the last itself); so
    does an option the command does not declare, which discord.py never hands to the command.
    """
    if interaction.type is not discord.InteractionType.application_command:
        return
    data: Any = interaction.data
    if not data or data.get("type", 1) != 1:
        return
    try:
        command, options = tree._get_app_command_options(data)
    except app_commands.AppCommandError:
        return
    parameters = {parameter.display_name: parameter for parameter in command.parameters}
    for option in options:
        parameter = parameters.get(option.get("name"))
        if parameter is None:
            continue
        problem = _problem(parameter, option)
        if problem is not None:
            raise OptionRefused(parameter.display_name, problem)


def _problem(parameter: app_commands.Parameter, option: Any) -> str | None:
    """What is wrong with the raw ``option`` for ``parameter``, or None."""
    kind = parameter.type
    takes = _TAKES.get(kind, "something else")
    if option.get("type") != kind.value or "value" not in option:
        return f"takes {takes}, and what arrived was not that. {_STALE}"
    value = option["value"]
    if kind is AppCommandOptionType.string:
        problem = _text_problem(value, parameter)
    elif kind in (AppCommandOptionType.integer, AppCommandOptionType.number):
        problem = _number_problem(value, parameter, whole=kind is AppCommandOptionType.integer)
    elif kind is AppCommandOptionType.boolean:
        problem = None if isinstance(value, bool) else f"must be {takes}; you gave {_given(value)}"
    elif kind in _SNOWFLAKE_TYPES:
        problem = None if _is_snowflake(value) else f"must be {takes}; you gave {_given(value)}"
    else:
        problem = None
    if problem is None and parameter.choices and value not in [choice.value for choice in parameter.choices]:
        names = ", ".join(choice.name for choice in parameter.choices)
        problem = f"must be one of {names}; you gave {_given(value)}"
    return problem


def _text_problem(value: object, parameter: app_commands.Parameter) -> str | None:
    if not isinstance(value, str):
        return f"must be text; you gave {_given(value)}"
    shortest = int(parameter.min_value) if parameter.min_value is not None else 0
    longest = int(parameter.max_value) if parameter.max_value is not None else TEXT_LIMIT
    if shortest <= len(value) <= longest:
        return None
    if shortest > 0:
        wanted = f"{shortest} to {longest} characters long"
    else:
        wanted = f"at most {longest} characters long"
    return f"must be {wanted}; you gave {len(value)}"


def _number_problem(value: object, parameter: app_commands.Parameter, *, whole: bool) -> str | None:
    takes = "a whole number" if whole else "a number"
    if isinstance(value, bool) or not isinstance(value, int | float) or (whole and isinstance(value, float)):
        return f"must be {takes}; you gave {_given(value)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be {takes}; you gave {_given(value)}"
    low = parameter.min_value if parameter.min_value is not None else -NUMBER_LIMIT
    high = parameter.max_value if parameter.max_value is not None else NUMBER_LIMIT
    if low <= value <= high:
        return None
    return f"must be between {_number(low)} and {_number(high)}; you gave {_given(value)}"


def _is_snowflake(value: object) -> bool:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    return isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= _SNOWFLAKE_DIGITS


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _given(value: object) -> str:
    """The value as it arrived, clipped and with its Markdown escaped (text in quotes)."""
    if isinstance(value, str):
        return f'"{echoed(value)}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        # Digits, signs and points: nothing to escape. str() of an int over 4300 digits raises.
        if isinstance(value, int) and value.bit_length() > 10_000:
            return "a number thousands of digits long"
        text = repr(value)
        return text if len(text) <= ECHO_LIMIT else f"{text[: ECHO_LIMIT - 1]}…"
    return echoed(repr(value))
