"""The buttons of ``/encounter``: each one's custom id says everything it acts on (the fight's tag, the
version or the step it was drawn for), so it works after a restart and a stale or repeated click acts
on nothing. Their templates and labels are drawn in :mod:`bot.ui.fight_log` and
:mod:`bot.ui.encounter_views`."""

from __future__ import annotations

import re

import discord

from ..interactions.buttons import PommelButton
from .encounter_views import OVERVIEW_BUTTON
from .fight_log import END_BUTTON, HISTORY_BUTTON, REDO_BUTTON, UNDO_BUTTON


class EndButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=END_BUTTON
):
    """The confirmation's "End the fight" and "Keep it going": the fight's tag and the version it was
    drawn for, so a click on a stale or repeated one ends nothing."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight = match["fight"]
        self.version = int(match["version"])
        self.action = match["action"]


class HistoryButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=HISTORY_BUTTON
):
    """A download button of ``/encounter history``: the ended fight's id in the store."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.ended = int(match["ended"])


class UndoButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=UNDO_BUTTON
):
    """The "Undo" of ``/encounter undo``: the fight's tag, the version it was drawn for and the steps, so
    a click after any other change (or a second click) undoes nothing."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight = match["fight"]
        self.version = int(match["version"])
        self.steps = int(match["steps"])


class RedoButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=REDO_BUTTON
):
    """The "Redo" of ``/encounter redo`` and of an undo's note: the fight's tag and the undo it takes
    back (its log line's id), so a click after another change (or a second click) redoes nothing."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight = match["fight"]
        self.undo = int(match["undo"])


class OverviewButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=OVERVIEW_BUTTON
):
    """A page button of ``/encounter show``: the fight's tag and the page to show."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight = match["fight"]
        self.page = int(match["page"])
