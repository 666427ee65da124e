"""Every kind of button Pommel's messages carry, each read back from its custom id, which says everything
it acts on (the fight's tag, and the step, version or exchange it was drawn for): a button works after a
restart, and a stale or repeated click acts on nothing. Each cog routes its kinds to its handlers
(:meth:`bot.interactions.routes.ButtonRoutes.route`); the templates and the labels are drawn in
``bot/ui``."""

from __future__ import annotations

import re

import discord

from .encounter.attacks import ExchangeAction
from .encounter.results import TurnAction
from .interactions.buttons import PommelButton
from .ui.attack_views.custom_ids import EXCHANGE_BUTTON, KNOCKOUT_BUTTON, REACTION_BUTTON
from .ui.buttons import TURN_BUTTON
from .ui.encounter_views import OVERVIEW_BUTTON
from .ui.fight_log import END_BUTTON, HISTORY_BUTTON, REDO_BUTTON, UNDO_BUTTON
from .ui.morale_views import MORALE_PROPOSAL_BUTTON
from .ui.server_views import FORGET_BUTTON


class ForgetButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=FORGET_BUTTON
):
    """The question's "Delete this server's data" and "Keep it", with the server it was asked on."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.guild_id = int(match["guild"])
        self.action = match["action"]


class MoraleProposalButton(
    PommelButton,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=MORALE_PROPOSAL_BUTTON,
):
    """R22: the buttons under a proposed morale check, alive across restarts (the id says it all):
    ``pommel:morale:<id>`` rolls it, ``pommel:morale:<id>:dismiss`` declines it."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.proposal_id = int(match["proposal"])
        self.dismiss = match["action"] == "dismiss"
        self.fight: str | None = match["fight"]


class TurnButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=TURN_BUTTON
):
    """The tracker's Next / Hold / Act / Deal buttons, alive across restarts (the id says it all)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.action = TurnAction(match["action"])
        self.step = int(match["step"])
        self.fight: str | None = match["fight"]


class ExchangeButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=EXCHANGE_BUTTON
):
    """The buttons of an exchange message, alive across restarts (the id says it all)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight, self.exchange_id, self.step = match["fight"], int(match["exchange"]), int(match["step"])
        self.action, self.dice = ExchangeAction(match["action"]), int(match["dice"] or 0)


class ReactionButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=REACTION_BUTTON
):
    """The buttons of an attack owed (a counterattack, an opportunity attack), alive across restarts."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight, self.by, self.against = match["fight"], match["by"], match["against"]
        self.dice = int(match["dice"])


class KnockOutButton(
    PommelButton, discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=KNOCKOUT_BUTTON
):
    """The Will save against a Knock-Out threat (R16), alive across restarts (the id says it all)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(match)
        self.fight, self.exchange_id, self.step = match["fight"], int(match["exchange"]), int(match["step"])
        self.dice = int(match["dice"])


# ------------------------------------------------------------------------------ /encounter


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
