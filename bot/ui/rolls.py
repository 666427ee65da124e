"""How a roll reads in a channel: who rolled, every die (dropped ones struck through), the total; and
the server's rolls as ``/roll log`` shows them to its GMs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import discord

from ..fight_views import is_private
from ..notation import NotationRoll
from ..rules.dice import Advantage, PoolRoll
from ..rules.errors import shown
from ..store import LogEntry
from ..wording.phrases import dice_count, signed
from .fight_log import ENTRY_LIMIT, escaped_within, log_lines
from .tracker import TRACKER_COLOUR

SituationChoice = Literal["advantage", "disadvantage"]
"""The ``situation`` option of the commands that roll (R10, R25)."""

NATURAL_20 = "**natural 20!**"
NATURAL_1 = "**natural 1**"


def advantage_of(situation: SituationChoice | None) -> Advantage:
    """R10: the roll's situation as the core takes it."""
    if situation is None:
        return Advantage.NONE
    return Advantage.ADVANTAGE if situation == "advantage" else Advantage.DISADVANTAGE


def pool_faces(roll: PoolRoll) -> str:
    """``~~4~~, **17**, ~~9~~``: the counting die in bold, the others struck through (R9).

    A die that disadvantage removed (R10) is struck through like any die that does not count.
    """
    return ", ".join(
        f"**{face}**" if index == roll.counting else f"~~{face}~~" for index, face in enumerate(roll.faces)
    )


def notation_reply(who: str, text: str, roll: NotationRoll) -> str:
    """The message for ``/roll dice``; ``who`` is the roller's mention (it pings nobody).

    What the user typed is shown as typed, but cannot break the message's formatting: backticks would
    end the code span, and Markdown in a label would restyle the line.
    """
    label = f" for *{shown(roll.comment)}*" if roll.comment else ""
    typed = text.replace("`", "'")
    lines = [f"🎲 {who} rolls `{typed}`{label}", roll.breakdown]
    natural = _natural(roll.natural_20, roll.natural_1)
    if natural:
        lines.append(natural)
    return "\n".join(lines)


def pool_reply(who: str, roll: PoolRoll, bonus: int) -> str:
    """The message for ``/roll pool``: a Martial Pool roll, keep the highest die (R9, R10)."""
    dice = dice_count(roll.committed).split(" ", 1)[1]
    extra = {
        Advantage.ADVANTAGE: " with advantage (one extra die, R10)",
        Advantage.DISADVANTAGE: " with disadvantage (the highest die is removed, R10)",
    }.get(roll.advantage, "")
    total = roll.value + bonus
    lines = [
        f"🎲 {who} rolls {roll.committed} pool {dice}{extra}, keeping one (R9)",
        f"{pool_faces(roll)} → {roll.value} {signed(bonus)} = `{total}`",
    ]
    if roll.fumble:
        lines.append(f"{NATURAL_1} on every die that could count: a fumble if this is an attack (R9)")
    else:
        natural = _natural(roll.natural_20, roll.natural_1)
        if natural:
            lines.append(natural)
    return "\n".join(lines)


def notation_log_line(who: str, roll: NotationRoll) -> str:
    """The log's line for ``/roll dice``: plain text, for the GM reading the log later."""
    return f"{who} rolled {roll.expression} = {roll.total}"


def pool_log_line(who: str, roll: PoolRoll, bonus: int) -> str:
    """The log's line for ``/roll pool``, every face included."""
    situation = {Advantage.ADVANTAGE: " with advantage", Advantage.DISADVANTAGE: " with disadvantage"}
    return (
        f"{who} rolled a pool of {roll.committed}d20 {signed(bonus)}{situation.get(roll.advantage, '')}: "
        f"{list(roll.faces)} keep {roll.value} = {roll.value + bonus}"
    )


def _natural(natural_20: bool, natural_1: bool) -> str | None:
    if natural_20:
        return NATURAL_20
    if natural_1:
        return NATURAL_1
    return None


# ----------------------------------------------------------------------------- /roll log

ROLL_KINDS = ("roll", "save")
"""The log entries that are rolls a player may make privately: ``/roll dice | pool`` and ``/save``."""
ROLL_LOG_DEFAULT = 15
ROLL_LOG_MAX = 50


def roll_log_line(entry: LogEntry) -> str:
    """One roll as ``/roll log`` lists it: when (date and time, in the reader's zone), where, the line."""
    private = " *(private)*" if is_private(entry) else ""
    when = f"<t:{int(entry.at.timestamp())}:f>"
    return f"{when} <#{entry.channel_id}> {escaped_within(entry.text, ENTRY_LIMIT)}{private}"


def roll_log_embed(
    entries: Sequence[LogEntry], *, member: int | None, private_only: bool, searched: int | None
) -> discord.Embed:
    """The server's latest rolls, oldest first, for its GMs' eyes only (the reply is private).
    ``searched`` is how many of the latest rolls were looked through, when the search stopped short."""
    which = "private rolls" if private_only else "rolls"
    whose = f" by <@{member}>" if member is not None else ""
    marked = "" if private_only else ", private ones marked *(private)*"
    lines = [f"The latest {which}{whose} on this server{marked}."]
    if searched is not None:
        lines.append(f"*Only the latest {searched} rolls were looked through; older ones are not listed.*")
    if entries:
        lines.append(log_lines(entries, limit=3800, line=roll_log_line))
    else:
        lines.append(f"No {which}{whose} logged.")
    return discord.Embed(title="🎲 The server's rolls", description="\n".join(lines), colour=TRACKER_COLOUR)
