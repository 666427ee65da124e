"""Options outside what a command declares are refused before it runs, whatever arrives.

Discord's client keeps options within their declared ranges, lengths and choices; discord.py does not
check what arrives. These tests send what a modified client or a stale command could send: the
harness builds a valid interaction from the synced command, then :func:`raw_slash` swaps in the raw
values the harness itself would refuse.
"""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator, Mapping
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import AppCommandOptionType, app_commands

from bot.encounter.document import Encounter
from bot.option_checks import TEXT_LIMIT, CheckedTree, OptionRefused, check_options

from .fake_discord import FakeUser, World
from .fights import channel_log, fight_of, seed_fight
from .harness import InteractionResult, RunningBot
from .payloads import command_data

HUGE = 2**53
"""The largest integer Discord itself would carry; rolling that many dice never ends."""


@pytest.fixture(autouse=True)
def frozen_loop_watchdog() -> Iterator[None]:
    """A blocked event loop cannot time out by itself: dump the stacks and stop instead of hanging."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


async def raw_slash(
    pommel: RunningBot,
    command: str,
    *,
    user: FakeUser,
    options: Mapping[str, Any],
    raw: Mapping[str, Any],
) -> InteractionResult:
    """``/command`` with valid ``options`` (checked by the harness), then ``raw`` values swapped in."""
    where = pommel._channel(None)
    root, *path = command.split()
    data = command_data(pommel.fake, pommel.fake.find_command(root, where.guild), path, options, where)
    leaf = data["options"]
    while leaf and leaf[0]["type"] in (1, 2):
        leaf = leaf[0]["options"]
    for option in leaf:
        if option["name"] in raw:
            option["value"] = raw[option["name"]]
    missing = set(raw) - {option["name"] for option in leaf}
    assert not missing, f"give a valid value for {missing} in options, to be swapped"
    inter = pommel.fake.new_interaction(type=2, user=user, channel=where, data=data, command_name=command)
    return await pommel.run(inter)


def assert_refused(result: InteractionResult, message: str) -> None:
    assert result.ephemeral
    assert result.content == message
    assert result.errors == []
    assert result.channel_messages == []


async def assert_still_answering(pommel: RunningBot, world: World) -> None:
    """The event loop is free: the next command is answered."""
    result = await pommel.slash(
        "roll dice", user=world.player, options={"expression": "1d20", "private": True}
    )
    assert "1d20 (" in result.content


async def unchanged(pommel: RunningBot, world: World, before: Encounter) -> None:
    assert (await fight_of(pommel, world)).model_dump() == before.model_dump()
    assert await channel_log(pommel, world) == []


@pytest.fixture
async def fight(pommel: RunningBot, world: World) -> Encounter:
    return await seed_fight(pommel, world, players=[(world.player, "Ansel")])


@pytest.mark.parametrize(
    ("command", "options", "raw", "message"),
    [
        (
            "roll pool",
            {"dice": 1},
            {"dice": 9},
            "`dice` must be between 1 and 4; you gave 9. Nothing was done.",
        ),
        (
            "roll pool",
            {"dice": 1},
            {"dice": 0},
            "`dice` must be between 1 and 4; you gave 0. Nothing was done.",
        ),
        (
            "roll pool",
            {"dice": 1, "bonus": 0},
            {"bonus": -51},
            "`bonus` must be between -50 and 50; you gave -51. Nothing was done.",
        ),
        (
            "roll pool",
            {"dice": 1, "situation": "advantage"},
            {"situation": "sideways"},
            '`situation` must be one of advantage, disadvantage; you gave "sideways". Nothing was done.',
        ),
        (
            "roll pool",
            {"dice": 1},
            {"dice": "3"},
            '`dice` must be a whole number; you gave "3". Nothing was done.',
        ),
        (
            "roll pool",
            {"dice": 1},
            {"dice": 2.5},
            "`dice` must be a whole number; you gave 2.5. Nothing was done.",
        ),
        (
            "roll pool",
            {"dice": 1, "private": False},
            {"private": "yes"},
            '`private` must be true or false; you gave "yes". Nothing was done.',
        ),
        (
            "roll dice",
            {"expression": "1d20"},
            {"expression": "1d20+" * 1500},
            "`expression` must be at most 6000 characters long; you gave 7500. Nothing was done.",
        ),
        pytest.param(
            "roll pool",
            {"dice": 1},
            {"dice": HUGE},
            f"`dice` must be between 1 and 4; you gave {HUGE}. Nothing was done.",
            id="2**53 pool dice",
        ),
        pytest.param(
            "odds",
            {"dice": 2, "defense_dice": 1},
            {"defense_dice": HUGE},
            f"`defense_dice` must be between 1 and 9; you gave {HUGE}. Nothing was done.",
            id="2**53 defense dice",
        ),
    ],
)
async def test_an_option_outside_its_declaration_is_refused_privately_and_nothing_is_rolled(
    pommel: RunningBot,
    world: World,
    fight: Encounter,
    command: str,
    options: dict[str, Any],
    raw: dict[str, Any],
    message: str,
) -> None:
    """Nothing is rolled or changed, and the event loop is free: every server keeps answering."""
    result = await raw_slash(pommel, command, user=world.player, options=options, raw=raw)
    assert_refused(result, message)
    await unchanged(pommel, world, fight)
    await assert_still_answering(pommel, world)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"condition": "x" * 33},
            "`condition` must be 1 to 32 characters long; you gave 33. Nothing was done.",
        ),
        (
            {"action": "explode"},
            '`action` must be one of add, remove; you gave "explode". Nothing was done.',
        ),
        (
            {"who": "A" * 101},
            "`who` must be 1 to 100 characters long; you gave 101. Nothing was done.",
        ),
    ],
)
async def test_a_gm_command_with_a_bad_option_changes_nothing(
    pommel: RunningBot, world: World, fight: Encounter, raw: dict[str, Any], message: str
) -> None:
    options = {"who": "Ansel", "action": "add", "condition": "prone"}
    result = await raw_slash(pommel, "combatant condition", user=world.gm, options=options, raw=raw)
    assert_refused(result, message)
    await unchanged(pommel, world, fight)


async def test_in_range_values_still_work(pommel: RunningBot, world: World) -> None:
    result = await pommel.slash("roll pool", user=world.player, options={"dice": 4, "bonus": -50})
    assert not result.ephemeral
    assert "4 pool dice" in result.content


async def test_autocomplete_is_never_refused(pommel: RunningBot, world: World, fight: Encounter) -> None:
    """Autocomplete carries what is being typed, and the other options as they stand."""
    where = world.table
    synced = pommel.fake.find_command("combatant", where.guild)
    values = {"who": "Ans", "action": "add"}
    data = command_data(pommel.fake, synced, ["condition"], values, where, focused="who")
    [sub] = data["options"]
    for option in sub["options"]:
        if option["name"] == "who":
            option["value"] = "A" * 150  # longer than the option's 100 characters: still being typed
        if option["name"] == "action":
            option["value"] = "explode"
    inter = pommel.fake.new_interaction(
        type=4, user=world.gm, channel=where, data=data, command_name="combatant condition"
    )
    result = await pommel.run(inter)
    assert result.callback_type == 8  # the autocomplete answer, not a refusal
    assert result.choices == []


# ---- every bound of every command ------------------------------------------------------------------


def _slash(command: app_commands.Command[Any, ..., Any], name: str, kind: int, value: Any) -> Any:
    """The raw /command with only option ``name``: enough for the check, which reads what arrived."""
    options: list[dict[str, Any]] = [{"type": kind, "name": name, "value": value}]
    path = command.qualified_name.split()
    for depth, part in enumerate(reversed(path[1:])):
        options = [{"type": 1 if depth == 0 else 2, "name": part, "options": options}]
    return SimpleNamespace(
        type=discord.InteractionType.application_command,
        data={"id": "1", "name": path[0], "type": 1, "options": options},
    )


def _bound_cases(tree: CheckedTree) -> list[tuple[str, Any, bool]]:
    """(what, interaction, accepted) at and just past every bound and choice each command declares."""
    cases = []
    for command in tree.walk_commands():
        if not isinstance(command, app_commands.Command):
            continue
        for parameter in command.parameters:
            name, kind = parameter.display_name, parameter.type
            what = f"/{command.qualified_name} {name}"
            if parameter.choices:
                for choice in parameter.choices:
                    cases.append(
                        (f"{what}={choice.value!r}", _slash(command, name, kind.value, choice.value), True)
                    )
                wrong: Any = "not-a-choice" if kind is AppCommandOptionType.string else 10**6
                cases.append((f"{what}={wrong!r}", _slash(command, name, kind.value, wrong), False))
            elif kind in (AppCommandOptionType.integer, AppCommandOptionType.number):
                low, high = parameter.min_value, parameter.max_value
                assert low is not None, f"{what} declares no minimum: give it a range"
                assert high is not None, f"{what} declares no maximum: give it a range"
                for value, accepted in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
                    cases.append((f"{what}={value}", _slash(command, name, kind.value, value), accepted))
            elif kind is AppCommandOptionType.string:
                longest = int(parameter.max_value) if parameter.max_value is not None else TEXT_LIMIT
                for length, accepted in ((longest, True), (longest + 1, False)):
                    cases.append((f"{what} of {length}", _slash(command, name, 3, "x" * length), accepted))
    return cases


async def test_every_declared_bound_of_every_command_is_held(pommel: RunningBot) -> None:
    """Commands added later are held to their declarations too; a whole number must declare a range."""
    tree = pommel.bot.tree
    assert isinstance(tree, CheckedTree)
    cases = _bound_cases(tree)
    assert len(cases) > 100
    wrong = []
    for what, interaction, accepted in cases:
        try:
            check_options(tree, interaction)
        except OptionRefused:
            if accepted:
                wrong.append(f"{what} was refused")
        else:
            if not accepted:
                wrong.append(f"{what} was let through")
    assert wrong == []
