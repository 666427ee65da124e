"""The tracker's buttons. Each custom id names the action, the fight's step it was drawn for and the
fight (``pommel:turn:next:12:5f3a9c1e``), so a click works after a restart, a stale click is
recognised, and a click on an ended fight's tracker never moves the channel's next fight."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import discord

from ..encounter.document import Encounter
from ..encounter.results import TurnAction

TURN_BUTTON = re.compile(
    r"pommel:turn:(?P<action>next|hold|act|deal):(?P<step>\d+)(?::(?P<fight>[0-9a-f]+))?"
)
"""What :class:`cogs.init.TurnButton` listens for: the action, the fight's step and the fight's tag (a
button drawn before buttons named their fight has none, and is checked by its step alone)."""


class Button(discord.ui.Item[discord.ui.View]):
    """A button as Pommel sends it: how it looks and its custom id, shown exactly as
    :class:`discord.ui.Button` shows it (:meth:`to_component_dict`), without that class's machinery (a
    component model built and an emoji parsed for each button). Every view Pommel sends is stopped
    (:func:`button_view`): a button is only ever shown, and a click is dispatched by its custom id
    (:class:`bot.interactions.buttons.PommelButton`)."""

    def __init__(
        self,
        *,
        custom_id: str,
        label: str | None = None,
        emoji: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py leaves it untyped
        self.custom_id = custom_id
        self.label = label
        self.emoji = emoji
        self.style = style
        self.disabled = disabled

    @property
    def type(self) -> discord.ComponentType:
        return discord.ComponentType.button

    def to_component_dict(self) -> dict[str, Any]:
        """The button's JSON, key for key what :meth:`discord.ui.Button.to_component_dict` gives."""
        shown: dict[str, Any] = {"type": 2, "style": self.style.value, "disabled": self.disabled}
        if self.label:
            shown["label"] = self.label
        if self.custom_id:
            shown["custom_id"] = self.custom_id
        if self.emoji is not None:
            shown["emoji"] = _emoji(self.emoji).to_dict()
        return shown


@cache
def _emoji(text: str) -> discord.PartialEmoji:
    """An emoji as discord.py reads it, once per emoji (Pommel's buttons use a score of them)."""
    return discord.PartialEmoji.from_str(text)


def turn_custom_id(action: TurnAction, step: int, fight: str) -> str:
    return f"pommel:turn:{action.value}:{step}:{fight}"


def tracker_buttons(encounter: Encounter) -> list[Button]:
    state = encounter.initiative
    step = encounter.flow.step
    dealt = state.round > 0
    in_turn = state.turn_of is not None
    buttons = [
        Button(
            label="Next",
            emoji="⏭️",
            style=discord.ButtonStyle.primary,
            custom_id=turn_custom_id(TurnAction.NEXT, step, encounter.tag),
            disabled=not dealt or not (in_turn or state.order),
        ),
        Button(
            label="Hold",
            emoji="🂠",
            style=discord.ButtonStyle.secondary,
            custom_id=turn_custom_id(TurnAction.HOLD, step, encounter.tag),
            disabled=not in_turn or state.turn_used,  # R4: a card is held instead of acting
        ),
        Button(
            label="Act",
            emoji="🃏",
            style=discord.ButtonStyle.success,
            custom_id=turn_custom_id(TurnAction.ACT, step, encounter.tag),
            disabled=not dealt or not state.may_claim,
        ),
    ]
    if not in_turn and (not dealt or state.is_round_over):
        buttons.append(
            Button(
                label=f"Deal round {state.round + 1}",
                emoji="🂡",
                style=discord.ButtonStyle.secondary,
                custom_id=turn_custom_id(TurnAction.DEAL, step, encounter.tag),
            )
        )
    return buttons


def button_view() -> discord.ui.View:
    """A view to send buttons in. Every button of Pommel's is a dynamic item, acted on through its
    custom id (:class:`bot.interactions.buttons.PommelButton`, after a restart too), so the view is stopped
    before it is sent: discord.py then keeps nothing of it (a view it stores stays in memory for good,
    one per message sent)."""
    view = discord.ui.View(timeout=None)
    view.stop()
    return view


def view_of(rows: Sequence[Sequence[discord.ui.Item[discord.ui.View]]]) -> discord.ui.View | None:
    """A view with the rows given (one Discord row each); None when there is nothing to click."""
    if not any(rows):
        return None
    view = button_view()
    for number, row in enumerate(rows):
        for item in row:
            item.row = number
            view.add_item(item)
    return view
